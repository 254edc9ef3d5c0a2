/* SPDX-License-Identifier: GPL-2.0-only */
/* The series model of `cgperf plot` (docs/PLOT.md): one series per cgroup,
 * one track per metric. Rows come in time order; each becomes a value (a
 * count per second, CPU time in cores, a derived column as it is), gaps
 * break the line, and values are kept per pixel column only (min, max, first
 * and last), so memory and drawing do not grow with the number of rows. */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Two rows further apart than this many times the series' interval are not
 * joined: the agent was down or the cgroup was not counted in between. The
 * series' interval is the longest interval_ms of its last PLOT_RECENT rows
 * (extra rows off the grid, after a clock step or a restart, are shorter;
 * the first row after the agent was down covers the whole time, so it is
 * not compared with itself); for a series' second row, also that row's. */
#define PLOT_RECENT 3
#define PLOT_GAP_FACTOR 1.5

struct plot_metric {
	char *name; /* the CSV column */
	bool gauge; /* a column without <name>_running_pct (derived): as it is */
	double scale; /* count -> unit: 1e-9 for cpu-clock/task-clock (cores) */
	char *label; /* "CPU (cores)", "context-switches/s" */
};

enum {
	PLOT_COL_DATA = 1, /* a value fell in this column */
	PLOT_COL_BREAK = 2, /* its first value is not joined to the one before */
};

struct plot_column {
	float min, max, first, last;
	uint8_t flags;
};

struct plot_track {
	struct plot_column *cols; /* model->columns, NULL until a value is in range */
	double sum; /* sum of value x interval (ms) over the values in range */
	double sum_ms;
	double peak;
	bool joined; /* the last value in range may be joined to the next */
};

struct plot_series {
	char *key; /* the cgroup field as written (raw CSV bytes) */
	size_t key_len;
	char *path; /* the cgroup path, unescaped */
	char *name; /* display name: container, pod/container, unit or path */
	int64_t last_t; /* ms; the last row's time (INT64_MIN: none yet) */
	uint32_t recent[PLOT_RECENT]; /* interval_ms of the last rows, a ring */
	size_t nr_recent; /* rows in it so far (at most PLOT_RECENT count) */
	size_t rows, dropped; /* rows taken; rows not after the previous one */
	struct plot_track tracks[]; /* model->nr_metrics */
};

struct plot_model {
	int64_t start_ms, end_ms; /* the time range drawn, inclusive */
	int columns; /* pixel columns across it */
	size_t nr_metrics;
	struct plot_metric *metrics;
	struct plot_series **series;
	size_t nr_series, cap_series;
	size_t *index; /* open addressing on the key: series index + 1, 0 empty */
	size_t index_cap;
};

/* The metrics by column name; gauge[i] for a derived column (may be NULL). */
int plot_model_new(const char *const *names, const bool *gauge, size_t nr_metrics,
		   struct plot_model **ret);
void plot_model_free(struct plot_model *m); /* NULL is fine */
/* The range and the pixel columns across it; before the first row. */
int plot_model_set_range(struct plot_model *m, int64_t start_ms, int64_t end_ms, int columns);

struct plot_series *plot_model_find(const struct plot_model *m, const char *key, size_t len);
/* A new series for key (not found before); path and name are copied. */
int plot_model_add_series(struct plot_model *m, const char *key, size_t len, const char *path,
			  const char *name, struct plot_series **ret);

/* One row of s at t_ms covering interval_ms, values[m->nr_metrics] as in the
 * CSV (counts; NAN: empty or not in this file). -EALREADY (dropped) when it
 * is not after the series' previous row, -EINVAL for interval_ms 0. */
int plot_series_add_row(const struct plot_model *m, struct plot_series *s, int64_t t_ms,
			uint32_t interval_ms, const double *values);

/* The mean over the range (time-weighted), NAN without a value. */
double plot_track_mean(const struct plot_track *t);
/* The pixel column of t_ms, -1 outside the range. */
int plot_model_column(const struct plot_model *m, int64_t t_ms);
