/* SPDX-License-Identifier: GPL-2.0-only */
/* The inputs of `cgperf plot`: the agent's CSV files (given, or found in a
 * directory: NAME.csv and its rotated NAME.csv.N), checked and mapped once,
 * then streamed into a plot_model in time order, so rotated files and
 * restarts stitch into one series per cgroup. Bad input is reported in one
 * line per file (log module) and skipped. */
#pragma once
#include "plot/csv_reader.h"
#include "plot/plot_model.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct plot_file {
	char *path;
	struct csv_reader rd;
	size_t data_start; /* offset of the first row after the header */
	size_t nr_fields; /* the header's */
	struct csv_field *columns; /* the header's fields */
	struct csv_field key; /* the first row's cgroup field (raw) */
	char *cgroup; /* ... unescaped */
	char *name; /* display name from the first row */
	int64_t first_t, last_t;
};

struct plot_input {
	struct plot_file *files;
	size_t nr_files;
	char **metrics; /* event and derived columns, in the order first seen */
	bool *gauge;
	size_t nr_metrics;
	size_t skipped; /* files reported and left out */
};

/* A file or a directory of them (not recursive). 0 also when every file was
 * skipped; -errno only for failures of our own (memory). */
int plot_input_add(struct plot_input *in, const char *arg);
void plot_input_free(struct plot_input *in);
/* The range the files cover: earliest first row, latest last row. */
int plot_input_range(const struct plot_input *in, int64_t *ret_start, int64_t *ret_end);
/* Every row of the files whose cgroup path or name matches glob (NULL: all)
 * into m, files in time order. The number of rows taken inside the model's
 * range in *ret_rows. */
int plot_input_feed(const struct plot_input *in, struct plot_model *m, const char *glob,
		    size_t *ret_rows);
