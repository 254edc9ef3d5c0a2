/* The filter generation of a tp follower session with a cgroup filter
 * (struct cgperf_filter_gen, follower_tp.bpf.c "charges held per CPU"):
 * user space moves gen on every change of the filter map, and release_gen
 * up to gen at every slot release, so that a follower re-resolves a list
 * that may have changed and never adds held charges to a slot that may
 * have another owner. One writer: the process that holds the session (the
 * agent's instance lock; drains never write). */
#pragma once
#include "bpf/cgperf_shared.h"

struct filter_gen {
	int fd; /* the filter_gen map (not owned); -1: the session has none */
	struct cgperf_filter_gen v; /* what the map holds */
};

/* Bind to fd (-1: none, every call below does nothing), reading where a
 * pinned session left it. */
int filter_gen_open(struct filter_gen *g, int fd);
/* After a change of the filter map. */
int filter_gen_changed(struct filter_gen *g);
/* Before a slot's counts are cleared for reuse: held lists looked up before
 * now are dropped (only CPUs that missed the sync after the slot's removal
 * can still hold one). */
int filter_gen_released(struct filter_gen *g);
