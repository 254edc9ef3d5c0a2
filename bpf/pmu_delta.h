// SPDX-License-Identifier: GPL-2.0-only
/* The delta of one PMU read (counter, enabled, running) against the previous
 * one on the same CPU: the arithmetic the switch programs (follower_reads.bpf.h,
 * leader.bpf.c) run on every bpf_perf_event_read_value, kept here so that a
 * user-space unit test (tests/unit/test_pmu_delta.c) runs the very same code
 * on multiplexed triples. Free of libc and vmlinux types. */
#pragma once

#include "cgperf_shared.h"

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

/* ret_d = now - prev, field by field; returns 1. Returns 0, ret_d
 * untouched, when any of the three went backwards: the perf_event was
 * reopened (CPU hotplug) and counts from zero again, so the difference
 * means nothing (a reopened event read soon after can be behind in its
 * running time alone, and a wrapped running would scale its count to 0). */
static __always_inline int pmu_delta(const struct cgperf_reading *now,
				     const struct cgperf_reading *prev,
				     struct cgperf_reading *ret_d)
{
	if (now->counter < prev->counter || now->enabled < prev->enabled ||
	    now->running < prev->running)
		return 0;
	ret_d->counter = now->counter - prev->counter;
	ret_d->enabled = now->enabled - prev->enabled;
	ret_d->running = now->running - prev->running;
	return 1;
}
