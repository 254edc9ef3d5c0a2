/* SPDX-License-Identifier: GPL-2.0-only */
/* `cgperf top` in plain text (-b, a table per interval) and JSON (--json,
 * one object per line per interval); the cells and the title line are the
 * curses view's too. */
#pragma once
#include "cmd/top/top_model.h"
#include <stdio.h>
#include <time.h>

/* What the title line says besides the rows. */
struct top_status {
	struct timespec now; /* CLOCK_REALTIME of the sample */
	double interval_s; /* the delay (-d) */
	bool paused;
};

/* A value as the table prints it ("-" when undefined), right-aligned in
 * the column's width. */
void top_view_cell(const struct top_column *c, const struct top_row *r, int col, char *buf,
		   size_t size);
/* "cgperf top - 13:40:02, 12 cgroups, every 2 s, sort CPU% (largest first)". */
void top_view_title(const struct top_model *m, const struct top_status *st, char *buf, size_t size);
/* The column titles and a row (NAME indented by its depth in a tree, names
 * and paths escaped), without a newline. */
void top_view_header(const struct top_model *m, char *buf, size_t size);
void top_view_row(const struct top_model *m, const struct top_row *r, char *buf, size_t size);

/* One interval: title, missing columns, header, the rows of m->order. */
int top_print_table(FILE *out, const struct top_model *m, const struct top_status *st);
int top_print_json(FILE *out, const struct top_model *m, const struct top_status *st);
