// SPDX-License-Identifier: GPL-2.0-only
/* cairo's table (cairo_dl.h). */
#include "plot/cairo_dl.h"
#include "util/dl_lib.h"

struct cairo_dl cairo_dl;

#define SYM(f)                                    \
	{                                         \
		"cairo_" #f, (void **)&cairo_dl.f \
	}

static const struct dl_sym syms[] = {
	SYM(create),
	SYM(destroy),
	SYM(fill),
	SYM(image_surface_create),
	SYM(line_to),
	SYM(move_to),
	SYM(new_path),
	SYM(paint),
	SYM(rectangle),
	SYM(select_font_face),
	SYM(set_font_size),
	SYM(set_line_cap),
	SYM(set_line_join),
	SYM(set_line_width),
	SYM(set_source_rgb),
	SYM(show_text),
	SYM(status),
	SYM(stroke),
	SYM(surface_destroy),
	SYM(surface_finish),
	SYM(surface_status),
	SYM(surface_write_to_png),
	SYM(svg_surface_create_for_stream),
	SYM(text_extents),
};

static struct dl_lib lib = DL_LIB(CGPERF_CAIRO_SONAME, syms);

int cairo_dl_load(void)
{
	return dl_lib_load(&lib);
}
