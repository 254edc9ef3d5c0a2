// SPDX-License-Identifier: GPL-2.0-only
/* This CPU's share of what a hidden task did (unseen_switch.bpf.h): its
 * faults scaled by the part of its runtime that fits here (and the hub's
 * split of an interval by time), kept apart so
 * that a unit test (tests/unit/test_hidden_share.c) runs the very code the
 * switch programs run. Free of libc and vmlinux types. */
#pragma once

#include <linux/types.h>

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

/* c x here / ran, where here <= ran (ns): all of c when the task ran only
 * here, none without time to show for it. c is page faults, or (the hub's
 * split after a hidden switch) a PMU count or an enabled/running time, so
 * it may be any 64-bit value: both times are shifted down together until
 * ran fits 32 bits (an hour without a switch is 2^42 ns), and c is divided
 * in two parts, c / ran x here (at most c) and (c % ran) x here / ran
 * (each factor below 2^32), so nothing overflows and nothing is capped. */
static __always_inline __u64 hidden_share(__u64 c, __u64 here, __u64 ran)
{
	if (!ran || !here)
		return 0;
	if (here >= ran)
		return c;
	for (int i = 0; i < 32 && (ran >> 32); i++) {
		ran >>= 1;
		here >>= 1;
	}
	if (!ran)
		return 0;
	return c / ran * here + c % ran * here / ran;
}
