/* A counting session: a set of events (each served by a shared leader) and a
 * follower that adds the deltas of matching tasks into per-slot accumulators.
 * This is the whole counting API the commands build on. */
#pragma once
#include "bpf/cgperf_shared.h"
#include "bpf/probe.h"
#include "events/event_parse.h"
#include <stdbool.h>
#include <stdint.h>

enum follower_request { FOLLOWER_AUTO, FOLLOWER_FORCE_TP, FOLLOWER_FORCE_FEXIT };

struct counter_opts {
	const struct event_spec *events;
	int nr_events;                 /* 1..CGPERF_MAX_EVENTS */
	enum cgperf_filter_type filter;
	int max_slots;                 /* accumulators (GLOBAL: 1) */
	int max_keys;                  /* filter map entries (PID/TGID + inherit: room for children) */
	bool inherit;                  /* PID/TGID: count what the counted tasks fork */
	enum follower_request follower;
};

struct counter;

/* Load everything and attach. Counting starts at counter_enable(). */
int counter_open(const struct counter_opts *o, struct counter **ret);
void counter_close(struct counter *c);

enum follower_mode counter_mode(const struct counter *c);
int counter_nr_events(const struct counter *c);
/* How many of this session's leaders it created (vs found shared). */
int counter_leaders_created(const struct counter *c);

/* Filter keys. GLOBAL has slot 0 from the start. CPU/PID/TGID: one key, one slot. */
int counter_add_key(struct counter *c, uint64_t key, int *ret_slot);
/* CGROUP: id plus its ancestors' ids (root first). Counts of the cgroup also go
 * to every monitored ancestor; adding/removing works while counting. */
int counter_add_cgroup(struct counter *c, uint64_t id, const uint64_t *ancestors, int nr,
		       int *ret_slot);
/* Stop counting key; its final values (up to now) are returned in ret_final
 * (nr_events readings; may be NULL) and its slot is recycled. */
int counter_remove(struct counter *c, uint64_t key, struct cgperf_reading *ret_final);

int counter_enable(struct counter *c);
/* Run the programs that compute deltas on every CPU, so that running tasks
 * are accounted up to now. Call before reading. */
int counter_sync(struct counter *c);
/* Totals of one slot, summed over CPUs: nr_events readings. */
int counter_read(struct counter *c, int slot, struct cgperf_reading *ret_vals);
/* One past the highest slot in use: what counter_read_all needs to cover. */
int counter_slot_bound(const struct counter *c);
/* Totals of slots [0, nr_slots) in one batch: nr_slots * nr_events readings. */
int counter_read_all(struct counter *c, int nr_slots, struct cgperf_reading *ret_vals);
/* Children of counted tasks that did not fit in the filter map. */
uint64_t counter_filter_drops(const struct counter *c);
