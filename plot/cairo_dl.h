/* SPDX-License-Identifier: GPL-2.0-only */
/* cairo, opened when `cgperf plot` first draws (util/dl_lib.h): include
 * this instead of <cairo.h>; the cairo_ calls below go through the table
 * cairo_dl_load() fills. Only plot/plot_render.c uses it. */
#pragma once
#include <cairo.h>
#include <cairo-svg.h>

struct cairo_dl {
	__typeof__(cairo_create) *create;
	__typeof__(cairo_destroy) *destroy;
	__typeof__(cairo_fill) *fill;
	__typeof__(cairo_image_surface_create) *image_surface_create;
	__typeof__(cairo_line_to) *line_to;
	__typeof__(cairo_move_to) *move_to;
	__typeof__(cairo_new_path) *new_path;
	__typeof__(cairo_paint) *paint;
	__typeof__(cairo_rectangle) *rectangle;
	__typeof__(cairo_select_font_face) *select_font_face;
	__typeof__(cairo_set_font_size) *set_font_size;
	__typeof__(cairo_set_line_cap) *set_line_cap;
	__typeof__(cairo_set_line_join) *set_line_join;
	__typeof__(cairo_set_line_width) *set_line_width;
	__typeof__(cairo_set_source_rgb) *set_source_rgb;
	__typeof__(cairo_show_text) *show_text;
	__typeof__(cairo_status) *status;
	__typeof__(cairo_stroke) *stroke;
	__typeof__(cairo_surface_destroy) *surface_destroy;
	__typeof__(cairo_surface_finish) *surface_finish;
	__typeof__(cairo_surface_status) *surface_status;
	__typeof__(cairo_surface_write_to_png) *surface_write_to_png;
	__typeof__(cairo_svg_surface_create_for_stream) *svg_surface_create_for_stream;
	__typeof__(cairo_text_extents) *text_extents;
};

extern struct cairo_dl cairo_dl;

/* Open the library (once it worked, nothing more to do). 0, or -ELIBACC /
 * -ELIBBAD with dl_lib_error() saying why. */
int cairo_dl_load(void);

#define cairo_create (cairo_dl.create)
#define cairo_destroy (cairo_dl.destroy)
#define cairo_fill (cairo_dl.fill)
#define cairo_image_surface_create (cairo_dl.image_surface_create)
#define cairo_line_to (cairo_dl.line_to)
#define cairo_move_to (cairo_dl.move_to)
#define cairo_new_path (cairo_dl.new_path)
#define cairo_paint (cairo_dl.paint)
#define cairo_rectangle (cairo_dl.rectangle)
#define cairo_select_font_face (cairo_dl.select_font_face)
#define cairo_set_font_size (cairo_dl.set_font_size)
#define cairo_set_line_cap (cairo_dl.set_line_cap)
#define cairo_set_line_join (cairo_dl.set_line_join)
#define cairo_set_line_width (cairo_dl.set_line_width)
#define cairo_set_source_rgb (cairo_dl.set_source_rgb)
#define cairo_show_text (cairo_dl.show_text)
#define cairo_status (cairo_dl.status)
#define cairo_stroke (cairo_dl.stroke)
#define cairo_surface_destroy (cairo_dl.surface_destroy)
#define cairo_surface_finish (cairo_dl.surface_finish)
#define cairo_surface_status (cairo_dl.surface_status)
#define cairo_surface_write_to_png (cairo_dl.surface_write_to_png)
#define cairo_svg_surface_create_for_stream (cairo_dl.svg_surface_create_for_stream)
#define cairo_text_extents (cairo_dl.text_extents)
