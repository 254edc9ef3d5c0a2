/* SPDX-License-Identifier: GPL-2.0-only */
/* What every output computes from the counters: the neutral arithmetic of
 * readings, shared by the CSV and syslog outputs, `cgperf stat` and any later
 * output. No I/O, no formatting, no BPF: a reading is three numbers.
 *
 * A reading is perf's (counter, enabled, running) triple: the count, the time
 * the event was enabled for the target and the time it was actually on a
 * counter. Totals are cumulative since counting of a target started; an
 * output keeps the totals it last wrote and writes the delta. */
#pragma once
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

/* Events one counting session can carry (bpf/cgperf_shared.h agrees). */
#define READINGS_MAX_EVENTS 8

struct reading {
	uint64_t counter;
	uint64_t enabled; /* ns */
	uint64_t running; /* ns */
};

/* total - last, field by field. When any field of total is below last, the
 * counting underneath restarted (a new session, a recycled slot): the delta is
 * then total itself and the function returns true. */
bool reading_delta(const struct reading *total, const struct reading *last,
		   struct reading *ret_delta);

/* acc += d, field by field (sums over targets, over CPUs). */
void reading_add(struct reading *acc, const struct reading *d);

enum reading_state {
	READING_IDLE, /* enabled == 0: nothing of the target ran; the count is
	                      * an exact 0 and there is no percentage */
	READING_NOT_COUNTED, /* enabled but never on a counter (multiplexed out):
	                      * the true count is unknown, not zero */
	READING_COUNTED, /* counted, perhaps for part of the time (scaled) */
};

/* Multiplex scaling as perf does it: counter * enabled / running, truncated,
 * saturating at UINT64_MAX. ret_value: the scaled count (IDLE: the raw
 * counter; NOT_COUNTED: 0). ret_pct_x100: 100 * running / enabled, times 100,
 * rounded to nearest (IDLE: 0). Either may be NULL. */
enum reading_state reading_scale(const struct reading *d, uint64_t *ret_value,
				 uint64_t *ret_pct_x100);

/* The same in floating point, for ratios and perf-like printing. */
enum reading_state reading_scale_f(const struct reading *d, double *ret_value, double *ret_pct);

/* Interval arithmetic. Intervals are measured on CLOCK_BOOTTIME (it never
 * steps, and it is shared by every process of the host, so a restarted agent
 * can go on from a persisted instant); timestamps people read stay
 * CLOCK_REALTIME. */
uint64_t readings_now_boot_ns(void);
/* Milliseconds from from_ns to to_ns, rounded to nearest; 0 when to is not
 * after from. */
uint64_t readings_interval_ms(uint64_t from_ns, uint64_t to_ns);
uint64_t readings_timespec_ns(const struct timespec *ts);
struct timespec readings_ns_timespec(uint64_t ns);
