/* SPDX-License-Identifier: GPL-2.0-only */
/* How `cgperf stat` prints counts: perf-stat-like table, perf's -x CSV
 * field order ([time,] value, unit, event, [cgroup,] running ns, percent
 * running, metric value, metric unit), or perf's --json (an object per
 * count with the same fields). */
#pragma once
#include "util/readings.h"
#include "events/event_parse.h"
#include <stdbool.h>
#include <stdio.h>

struct stat_row {
	const struct event_spec *event;
	const char *cgroup; /* NULL when not counting per cgroup; escaped */
	const char *cgroup_path; /* the same as it is (for JSON) */
	struct reading reading; /* raw sums: counter, enabled, running */
	bool has_metric; /* a derived metric rides on this row (perf's "# ...") */
	double metric;
	const char *metric_unit; /* "insn per cycle", "CPUs utilized", ... */
};

struct stat_format {
	const char *sep; /* NULL: table; else CSV with this separator */
	bool json; /* perf stat --json lines (sep is NULL then) */
	bool interval; /* prefix each row with the timestamp */
	double timestamp; /* seconds since start, for interval rows */
};

/* Multiplex-scaled value and percent running. Returns false when the event
 * never ran (print "<not counted>"). */
bool stat_scaled(const struct reading *r, double *ret_value, double *ret_pct);

/* Print one row. */
void stat_print_row(FILE *out, const struct stat_format *f, const struct stat_row *row);
/* Header and footer of the table format (nothing in CSV or JSON mode). */
void stat_print_header(FILE *out, const struct stat_format *f, const char *target_desc);
void stat_print_footer(FILE *out, const struct stat_format *f, double elapsed_s);
