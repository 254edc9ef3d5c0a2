/* SPDX-License-Identifier: GPL-2.0-only */
/* Where a follower's counts go: the slot list a filter map gives the current
 * task (its cgroup's, or its deepest monitored ancestor's), and the per-CPU
 * accumulators the counts are added to. The maps are arguments, so that one
 * text serves a session's own maps (follower_common.bpf.h) and the maps of
 * each session a hub serves (follower_hub.bpf.c, through map-in-map). */
#pragma once

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "cgperf_shared.h"

/* Set through skel->rodata before load. */
const volatile __u32 nr_events = 1;

/* The task's own cgroup first (one lookup in the common case); a task in an
 * unmonitored cgroup (a sub-cgroup a container made, or one not added yet)
 * belongs to its deepest monitored ancestor, whose entry already lists that
 * ancestor's own monitored ancestors. */
static __always_inline const struct cgperf_slots *resolve_cgroup_in(void *filter)
{
	const struct cgperf_slots *found = NULL, *s;
	__u64 id;

	/* The idle task (pid 0) belongs to no cgroup anyone monitors, and it is
	 * half of all switches on a host that is not saturated: skip the
	 * lookups (and the ancestor walk a miss would start). */
	if ((__u32)bpf_get_current_pid_tgid() == 0)
		return NULL;
	id = bpf_get_current_cgroup_id();
	s = bpf_map_lookup_elem(filter, &id);
	if (s)
		return s;
	for (int level = 0; level < CGPERF_MAX_CGROUP_DEPTH; level++) {
		id = bpf_get_current_ancestor_cgroup_id(level);
		if (!id)
			break;
		s = bpf_map_lookup_elem(filter, &id);
		if (s)
			found = s;
	}
	return found;
}

/* Add d[0..nr) to events [first, first + nr) of every slot in s. The tp
 * followers add all their events at once, an fexit follower its one event. */
static __always_inline void add_to_slots_in(void *accum, const struct cgperf_slots *s, __u32 first,
					    __u32 nr, const struct cgperf_reading *d)
{
	for (int i = 0; i < CGPERF_MAX_NEST; i++) {
		struct cgperf_reading *acc;
		__u32 slot;

		if (i >= s->nr)
			break;
		slot = s->slot[i];
		acc = bpf_map_lookup_elem(accum, &slot);
		if (!acc)
			continue;
		for (__u32 e = 0; e < CGPERF_MAX_EVENTS; e++) {
			if (e >= nr || first + e >= nr_events)
				break;
			acc[first + e].counter += d[e].counter;
			acc[first + e].enabled += d[e].enabled;
			acc[first + e].running += d[e].running;
		}
	}
}
