/* SPDX-License-Identifier: GPL-2.0-only */
/* Drawing a plot_model with cairo (docs/PLOT.md): one chart per metric,
 * stacked, to PNG or SVG; one chart's SVG into memory for the HTML report.
 * The layout is fixed and documented, so scripts can find the lines. */
#pragma once
#include "plot/plot_model.h"
#include <stdbool.h>
#include <stddef.h>

#define PLOT_WIDTH 1200
#define PLOT_CHART_HEIGHT 360 /* per metric */
#define PLOT_AREA_X 72 /* the plot area inside a chart */
#define PLOT_AREA_Y 36
#define PLOT_AREA_W 880 /* = the model's pixel columns */
#define PLOT_AREA_H 280
#define PLOT_LINE_WIDTH 1.5 /* series lines only: axes and grid are thinner */

struct plot_view {
	bool utc; /* time axis in UTC, else local time */
	size_t top; /* lines per chart: the busiest by mean; 0: all */
};

/* Series indexes with a value of metric, by mean (highest first), at most
 * top (0: all), into ret_idx (m->nr_series entries). Returns how many. */
size_t plot_rank(const struct plot_model *m, size_t metric, size_t top, size_t *ret_idx);
/* The palette colour of rank i as 0xRRGGBB (the legend's order). */
unsigned plot_color(size_t i);

enum plot_output {
	PLOT_OUT_PNG = 1,
	PLOT_OUT_SVG,
	PLOT_OUT_HTML
};
/* By the name's ending (.png, .svg, .html); 0 for anything else. */
enum plot_output plot_output_kind(const char *path);

/* The namespace of the charts' data in an SVG (docs/PLOT.md). */
#define PLOT_SVG_NS "urn:cgperf:plot:1"

struct buf;
/* Every metric of m, one chart each, into path (.png or .svg; -EINVAL for
 * another name). */
int plot_render_file(const struct plot_model *m, const struct plot_view *v, const char *path);
/* Metrics [first, first + n) as an SVG document with a <title> and the
 * charts' data (<metadata>), appended to out. prefix "": a file of its own;
 * else inline (no XML declaration) with every id prefixed by it. */
int plot_render_svg(const struct plot_model *m, const struct plot_view *v, size_t first, size_t n,
		    const char *prefix, struct buf *out);
/* "12.3k", "1.5M", "0.25": v with three significant digits, SI suffixes. */
void plot_format_value(double v, char *buf, size_t len);
/* The time t_ms as local or UTC "2026-12-04 13:05:00" (+ " UTC"). */
void plot_format_time(int64_t t_ms, bool utc, char *buf, size_t len);
