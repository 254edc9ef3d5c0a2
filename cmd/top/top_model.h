/* SPDX-License-Identifier: GPL-2.0-only */
/* `cgperf top`'s model: one row per monitored cgroup, per-interval rates
 * from the counters' totals (CPU, IPC, miss rates, events per second,
 * percent running), the columns the counted events allow (and why the
 * others are missing), sorting, filtering and the tree. Pure: no I/O, no
 * BPF, no terminal; the views (top_view.h, top_curses.h) only print what
 * top_model_view() orders. See docs/TOP.md. */
#pragma once
#include "cmd/cli.h"
#include "cgroup/identity.h"
#include "cgroup/metadata.h"
#include "events/derived.h"
#include "events/event_parse.h"
#include "util/readings.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum top_col_kind {
	TOP_COL_CPU_PCT, /* 100 x cores: one busy core is 100 % (like top) */
	TOP_COL_CPU_CORES,
	TOP_COL_IPC,
	TOP_COL_CACHE_MISS, /* % of cache references */
	TOP_COL_BRANCH_MISS, /* % of branches */
	TOP_COL_RATE, /* one event per second */
	TOP_COL_RUNNING, /* lowest % running of the multiplexed (hardware) events */
};

#define TOP_MAX_COLS (READINGS_MAX_EVENTS + 6)
#define TOP_SORT_NAME (-1) /* sort_col: by display name */

struct top_column {
	enum top_col_kind kind;
	int event; /* TOP_COL_RATE: the event's index */
	char title[16]; /* "CPU%", "CS/s", ... */
	char json_key[48]; /* "cpu_pct", "context-switches_per_s", ... */
	char key; /* the sort key in the curses view ('C', 'I', ...; 0: none) */
	int width;
	int decimals;
};

struct top_row {
	uint64_t id;
	char *path; /* relative to the cgroup2 root, raw bytes */
	char *name; /* display name (cg_display_name), raw bytes */
	const char *kind; /* cg_kind_name() */
	int slot;
	bool sampled; /* last[] holds totals */
	uint64_t last_ns;
	struct reading last[READINGS_MAX_EVENTS];
	bool has[TOP_MAX_COLS]; /* values of the last full interval */
	double val[TOP_MAX_COLS];
	/* top_model_view()'s work: the row's parent in the tree (nearest
	 * ancestor with a row), depth and whether the filter shows it. */
	int parent, depth, pos; /* pos: its index in rows */
	bool shown;
};

struct top_model {
	const struct event_spec *events;
	int nr_events;
	struct derived_map map;
	struct top_column cols[TOP_MAX_COLS];
	int nr_cols;
	char missing[1024]; /* "" or why columns are missing, for the header */
	struct top_row **rows;
	int nr_rows, cap_rows;
	int sort_col; /* column index or TOP_SORT_NAME */
	bool reverse; /* the other way round from the column's natural order */
	bool tree;
	char filter[256]; /* substring of name or path; "" for all */
	/* top_model_view()'s result: rows in display order. */
	int *order;
	int nr_order;
};

/* The columns that ev (counted) allows; skipped events (asked for, not
 * countable) explain the missing ones in m->missing. events must outlive m.
 * Sorted by CPU % when there is one, else by the first column. */
int top_model_init(struct top_model *m, const struct event_spec *ev, int nr,
		   const struct cli_skipped_event *skipped, int nr_skipped);
void top_model_free(struct top_model *m);
/* One more line for m->missing: "no COL: reason". */
void top_model_note(struct top_model *m, const char *col, const char *reason);

/* Rows by cgroup id. -EEXIST, -ENOMEM. */
int top_model_add(struct top_model *m, uint64_t id, const char *path, const char *name,
		  const char *kind, int slot);
int top_model_set_name(struct top_model *m, uint64_t id, const char *name);
/* -ENOENT when id has no row. */
int top_model_remove(struct top_model *m, uint64_t id);
struct top_row *top_model_find(const struct top_model *m, uint64_t id);

/* The row's totals (nr_events readings) read at now_ns: the values of the
 * interval since its previous sample (none at its first). */
void top_model_sample(struct top_model *m, struct top_row *r, const struct reading *totals,
		      uint64_t now_ns);

/* Sorting: by column index (TOP_SORT_NAME: by name); numbers largest first,
 * names A to Z, unless reversed. Rows without a value come last. */
void top_model_sort_by(struct top_model *m, int col);
/* The column whose sort key is c, or -2 (TOP_SORT_NAME for 'N'). */
int top_model_col_by_key(const struct top_model *m, char c);
/* Order, filter and tree: fills m->order. 0 or -ENOMEM. */
int top_model_view(struct top_model *m);
