/* SPDX-License-Identifier: GPL-2.0-only */
/* `cgperf plot -o report.html`: one self-contained page (docs/PLOT.md):
 * the time range, one inline SVG chart per metric and the busiest
 * containers of each. No scripts, no external references. */
#pragma once
#include "plot/plot_model.h"
#include "plot/plot_render.h"
#include <stddef.h>

/* What was read, for the page's heading. */
struct plot_report {
	size_t files, skipped, rows;
};

/* Lines in each metric's table of the busiest containers. */
#define PLOT_HTML_TOP 10

int plot_render_html(const struct plot_model *m, const struct plot_view *v,
		     const struct plot_report *rep, const char *path);
