/* SPDX-License-Identifier: GPL-2.0-only */
/* Derived metrics: ratios of the counted events over one interval — IPC,
 * CPI, CPU utilisation in cores, cache-miss and branch-miss rates — computed
 * from multiplex-scaled deltas when their inputs are counted. Undefined (an
 * input missing, not counted, or a zero denominator) is said as such, never
 * 0 or NaN. Used by `cgperf stat` (perf-like annotations; docs/STAT.md) and
 * by the agent's CSV and syslog outputs (`derived:` columns; docs/CSV.md). */
#pragma once
#include "events/event_parse.h"
#include "util/readings.h"
#include <stdbool.h>
#include <stdint.h>

enum derived_metric {
	DERIVED_IPC, /* instructions / cycles */
	DERIVED_CPI, /* cycles / instructions */
	DERIVED_CPU_CORES, /* task-clock (or cpu-clock) / wall time */
	DERIVED_CACHE_MISS_PCT, /* 100 * cache-misses / cache-references */
	DERIVED_BRANCH_MISS_PCT, /* 100 * branch-misses / branches */
	NR_DERIVED,
};

/* Metrics an output adds to its rows, in the order configured; each at
 * most once. */
struct derived_list {
	int nr;
	enum derived_metric m[NR_DERIVED];
};

/* Which of a session's events feed which metric (-1: not counted). */
struct derived_map {
	int cycles, instructions, clock, cache_refs, cache_misses, branches, branch_misses;
};

#define DERIVED_MAP_NONE ((struct derived_map){ -1, -1, -1, -1, -1, -1, -1 })

void derived_map_events(const struct event_spec *ev, int nr, struct derived_map *ret);
/* Event i counts a: note it in m (what derived_map_events does per event). */
void derived_map_add(struct derived_map *m, const struct perf_event_attr *a, int i);
/* Whether the events of map feed metric m at all. */
bool derived_counted(enum derived_metric m, const struct derived_map *map);
/* The events metric m needs, for messages ("instructions and cycles"). */
const char *derived_inputs(enum derived_metric m);
/* The metric called name (derived_name): 0 or -ENOENT. */
int derived_parse(const char *name, enum derived_metric *ret);
/* The metric over one interval of interval_ns from the deltas d (one per
 * event); false when it is undefined. */
bool derived_compute(enum derived_metric m, const struct derived_map *map, const struct reading *d,
		     uint64_t interval_ns, double *ret);
/* The event whose row carries the metric (perf's place), -1 if not counted. */
int derived_row(enum derived_metric m, const struct derived_map *map);
/* perf's metric for an event without one of its own, when a clock event
 * (task-clock, cpu-clock) is counted: cycles per clock ns ("GHz"), else the
 * count per second of the clock ("/sec", "K/sec", "M/sec", "G/sec"). False
 * for the clock itself, an event with its own metric, or one not counted. */
bool derived_rate(const struct derived_map *map, const struct reading *d, int e, double *ret,
		  const char **ret_unit);
const char *derived_name(enum derived_metric m); /* "ipc", "cpu_cores", ... */
const char *derived_annotation(enum derived_metric m); /* "insn per cycle", ... */

/* One output cell: the metric over one interval with fixed decimals (3 for
 * ipc, cpi and cpu_cores, 2 for the percentages), '.' whatever the locale,
 * rounded; "" when undefined (or beyond 10^12: no real ratio gets there).
 * map NULL: every metric is undefined. */
#define DERIVED_CELL_MAX 24
void derived_cell(enum derived_metric m, const struct derived_map *map, const struct reading *d,
		  uint64_t interval_ns, char ret[DERIVED_CELL_MAX]);
