/* SPDX-License-Identifier: GPL-2.0-only */
/* The filter generation of a cgroup hub (struct cgperf_filter_gen,
 * follower_hub.bpf.c "charges held per CPU"): user space moves gen on every
 * change of a session's filter map, and release_gen up to gen at every slot
 * release and registration, so that the hub re-resolves lists that may have
 * changed and never adds held charges to a slot (or a session index) that
 * may have another owner. The sessions of several processes share one hub:
 * its map is mmapped and moved with atomic operations. Maps of sessions
 * pinned before layout 7 are not mmapable: read and written by syscall then
 * (their one writer: the process that holds the session). */
#pragma once
#include "bpf/cgperf_shared.h"

struct filter_gen {
	int fd; /* the filter_gen map (not owned); -1: the session has none */
	struct cgperf_filter_gen *map; /* mmapped; NULL: by syscall, through v */
	struct cgperf_filter_gen v;
};

/* Bind to fd (-1: none, every call below does nothing). */
int filter_gen_open(struct filter_gen *g, int fd);
/* The same for a hub's generation, which sessions of several processes
 * move: only through the mapping (-EOPNOTSUPP if it cannot be mapped). */
int filter_gen_open_shared(struct filter_gen *g, int fd);
/* Unmap (fd stays open: not owned). NULL and unbound ones are fine. */
void filter_gen_close(struct filter_gen *g);
/* After a change of the filter map. */
int filter_gen_changed(struct filter_gen *g);
/* The generation now: taken before a sync, it is the mark that sync can
 * vouch for (every hold of an earlier generation was released by it, on the
 * CPUs it ran on). */
__u64 filter_gen_now(const struct filter_gen *g);
/* Before a slot's counts are cleared for reuse (or after a session was
 * registered and synced): held lists looked up before mark (0: now) are
 * dropped (only CPUs that missed the sync can still hold one). Not later
 * ones: another process's sessions may have moved the generation since
 * the sync, and their lists, looked up after it, name no released slot. */
int filter_gen_released(struct filter_gen *g, __u64 mark);
