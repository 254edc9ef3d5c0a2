// SPDX-License-Identifier: GPL-2.0-only
/* This CPU's share of what a hidden task did (unseen_switch.bpf.h): its
 * faults scaled by the part of its runtime that fits here, kept apart so
 * that a unit test (tests/unit/test_hidden_share.c) runs the very code the
 * switch programs run. Free of libc and vmlinux types. */
#pragma once

#include <linux/types.h>

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

/* faults x here / ran, where here <= ran (ns): all of them when the task ran
 * only here, none without time to show for them. Both times are shifted
 * down together until ran fits 32 bits, and the faults are capped there,
 * so the product fits 64 bits whatever the interval (an hour without a
 * switch is 2^42 ns). */
static __always_inline __u64 hidden_share(__u64 faults, __u64 here, __u64 ran)
{
	if (!ran || !here)
		return 0;
	if (here >= ran)
		return faults;
	for (int i = 0; i < 32 && (ran >> 32); i++) {
		ran >>= 1;
		here >>= 1;
	}
	if (faults > 0xffffffffULL)
		faults = 0xffffffffULL;
	return faults * here / ran;
}
