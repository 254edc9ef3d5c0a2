/* Derived metrics: ratios of the counted events over one interval — IPC,
 * CPI, CPU utilisation in cores, cache-miss and branch-miss rates — computed
 * from multiplex-scaled deltas when their inputs are counted. Undefined (an
 * input missing, not counted, or a zero denominator) is said as such, never
 * 0 or NaN. Used by `cgperf stat` (perf-like annotations); see docs/STAT.md. */
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

/* Which of a session's events feed which metric (-1: not counted). */
struct derived_map {
	int cycles, instructions, clock, cache_refs, cache_misses, branches, branch_misses;
};

void derived_map_events(const struct event_spec *ev, int nr, struct derived_map *ret);
/* The metric over one interval of interval_ns from the deltas d (one per
 * event); false when it is undefined. */
bool derived_compute(enum derived_metric m, const struct derived_map *map, const struct reading *d,
		     uint64_t interval_ns, double *ret);
/* The event whose row carries the metric (perf's place), -1 if not counted. */
int derived_row(enum derived_metric m, const struct derived_map *map);
const char *derived_name(enum derived_metric m); /* "ipc", "cpu_cores", ... */
const char *derived_annotation(enum derived_metric m); /* "insn per cycle", ... */
