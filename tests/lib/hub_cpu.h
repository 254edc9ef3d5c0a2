/* SPDX-License-Identifier: GPL-2.0-only */
/* follower_hub.bpf.c's struct prev_state (one CPU's value of prev_readings),
 * as the unit tests that write it see it. A change there must be mirrored:
 * test_sync_skip checks this size and the fields' offsets against the
 * map's own BTF. */
#pragma once
#include "bpf/cgperf_shared.h"

struct hub_cpu {
	__u64 ktime, owner, owner_cgrp, switches;
	struct {
		__u64 cur, cur_sum;
		__s32 cur_pid;
		__u32 pad;
		__u64 cur_minflt, cur_majflt;
	} seen;
	struct {
		__u64 ns, minflt, majflt;
	} skip;
	__u64 held_id, held_gen, reads_owed;
	struct cgperf_reading held[CGPERF_MAX_EVENTS];
	struct cgperf_reading ev[CGPERF_MAX_EVENTS];
	struct cgperf_slots held_slots[CGPERF_HUB_MAX_SESSIONS];
	__u32 syncing;
};
