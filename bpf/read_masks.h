/* SPDX-License-Identifier: GPL-2.0-only */
/* What the sched_switch followers derive instead of reading, and when a
 * switch from idle needs no read (follower_reads.bpf.h): computed from a
 * session's events here, set as the programs' rodata. */
#pragma once
#include <stdbool.h>
#include <stdint.h>

struct event_spec;

struct read_masks {
	uint32_t software; /* never multiplex: the counter-only read */
	uint32_t clock; /* cpu-clock, task-clock: the switch's clock */
	uint32_t switches; /* context-switches: the switches themselves */
	uint32_t minflt; /* page-faults, minor-faults: tasks' min_flt */
	uint32_t majflt; /* page-faults, major-faults: tasks' maj_flt */
	bool idle_skips_reads;
};

/* never_idle: the filter never counts the idle task (cgroups, threads,
 * processes). Clocks are derived only then: a CPU that was offline comes
 * back in idle, and the interval its first switch flushes spans the time it
 * was away, which a derived clock would count for -a/-C (the perf_event,
 * reopened then, counts only what ran). */
/* Set m's masks in a switch program's rodata: the tp follower's and the
 * hub's skeletons have the same fields (follower_reads.bpf.h), of two types. */
#define READ_MASKS_SET(rodata, m)                                  \
	do {                                                       \
		(rodata)->software_mask = (m).software;            \
		(rodata)->clock_mask = (m).clock;                  \
		(rodata)->switch_mask = (m).switches;              \
		(rodata)->minflt_mask = (m).minflt;                \
		(rodata)->majflt_mask = (m).majflt;                \
		(rodata)->idle_skips_reads = (m).idle_skips_reads; \
	} while (0)

void read_masks_of(const struct event_spec *events, int nr, bool never_idle,
		   struct read_masks *ret);
