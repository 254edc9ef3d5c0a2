/* SPDX-License-Identifier: GPL-2.0-only */
/* The shared per-attr perf_event arrays (one perf_event per CPU for the
 * whole host, made by whichever session came first: bpf/leader.c), one map
 * per event of a session, since a helper takes its map as a constant. User
 * space points each at a leader's array (bpf_map__reuse_fd) before load;
 * slots past nr_events at event 0's. Included by follower_tp.bpf.c and
 * prog_profiler.bpf.c. */
#pragma once

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#define SHARED_EVENTS_MAP(n)                                 \
	struct {                                             \
		__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY); \
		__uint(key_size, sizeof(__u32));             \
		__uint(value_size, sizeof(int));             \
		__uint(map_flags, BPF_F_PRESERVE_ELEMS);     \
	} events##n SEC(".maps")

SHARED_EVENTS_MAP(0);
SHARED_EVENTS_MAP(1);
SHARED_EVENTS_MAP(2);
SHARED_EVENTS_MAP(3);
SHARED_EVENTS_MAP(4);
SHARED_EVENTS_MAP(5);
SHARED_EVENTS_MAP(6);
SHARED_EVENTS_MAP(7);
