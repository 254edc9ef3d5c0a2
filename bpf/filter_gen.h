/* The filter generation of a tp follower session (struct cgperf_filter_gen,
 * follower_tp.bpf.c "charges held per CPU"): user space moves it on every
 * change of the filter map and at every slot release, so that a follower
 * never adds held charges under a slot list that changed. One writer: the
 * process that holds the session. */
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
/* Before a slot is cleared for reuse: held lists older than now are dropped. */
int filter_gen_released(struct filter_gen *g);
