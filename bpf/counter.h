/* SPDX-License-Identifier: GPL-2.0-only */
/* A counting session: a set of events (each served by a shared leader) and a
 * follower that adds the deltas of matching tasks into per-slot accumulators.
 * This is the whole counting API the commands build on. */
#pragma once
#include "bpf/accum.h"
#include "bpf/cgperf_shared.h"
#include "bpf/hub.h"
#include "bpf/probe.h"
#include "events/event_parse.h"
#include "util/readings.h"
#include <stdbool.h>
#include <stdint.h>

enum follower_request {
	FOLLOWER_AUTO,
	FOLLOWER_FORCE_TP,
	FOLLOWER_FORCE_FEXIT
};

struct counter_opts {
	const struct event_spec *events;
	int nr_events; /* 1..CGPERF_MAX_EVENTS */
	enum cgperf_filter_type filter;
	int max_slots; /* accumulators (GLOBAL: 1) */
	int max_keys; /* filter map entries (PID/TGID + inherit: room for children) */
	bool inherit; /* PID/TGID: count what the counted tasks fork */
	/* AUTO: the cgroup hub for a CGROUP filter (fexit followers if the
	 * hub fails to load where trampolines work), else fexit followers
	 * where the kernel allows trampolines, sched_switch followers where
	 * not. FORCE_TP: the hub for a CGROUP filter, sched_switch followers
	 * otherwise. FORCE_FEXIT: fexit followers, also for a CGROUP filter. */
	enum follower_request follower;
	/* Accumulators: a per-CPU hash following the live slots where the
	 * kernel allows it, else an array for max_slots (bpf/accum.h). */
	enum accum_request accum;
	/* A persistent session (the agent's): pinned in this directory (made
	 * and locked by session_dir_open()), so counting goes on while no
	 * process holds it; one pinned there already is adopted when it counts
	 * what o says. Always sched_switch followers (an fexit follower depends
	 * on a leader link that a process holds). NULL: the session ends with
	 * the process. */
	const char *pin_dir;
};

struct counter;

/* Load everything and attach. Counting starts at counter_enable().
 * -EOPNOTSUPP: o forces a follower or accumulator kind this kernel lacks
 * (logged here with the kernel's reason: callers add nothing). With
 * pin_dir: -ESTALE when a session that counts something else (or in another
 * layout) is pinned there (drain it with counter_open_pinned, then
 * counter_unpin); see counter_adopted(). */
int counter_open(const struct counter_opts *o, struct counter **ret);
/* Open the session pinned in dir whatever it counts, to read it one last
 * time; ret_meta says what it counts. -EPROTO: another layout. */
struct session_meta;
int counter_open_pinned(const char *dir, struct counter **ret, struct session_meta *ret_meta);
/* The session was pinned already: its slots hold counts since before this
 * process (see counter_reserve_slot). */
bool counter_adopted(const struct counter *c);
/* The ids of the BPF programs of this session (its followers', and in
 * fexit mode the leader programs it holds), whether loaded here or adopted
 * from pins: what this process must not profile (its own). */
#define COUNTER_MAX_PROGS 32
int counter_prog_ids(const struct counter *c, uint32_t ret_ids[COUNTER_MAX_PROGS], int *ret_nr);
/* Remove the pins: the kernel stops counting for this session once the
 * process closes it. */
int counter_unpin(struct counter *c);
void counter_close(struct counter *c);

enum follower_mode counter_mode(const struct counter *c);
/* How it counts, for people: the follower mode, or the cgroup hub. */
const char *counter_mode_name(const struct counter *c);
enum accum_kind counter_accum_kind(const struct counter *c);

/* Filter keys. GLOBAL has slot 0 from the start. CPU/PID/TGID: one key, one slot. */
int counter_add_key(struct counter *c, uint64_t key, int *ret_slot);
/* CGROUP: id plus its ancestors' ids (root first). Counts of the cgroup also go
 * to every monitored ancestor; adding/removing works while counting. */
int counter_add_cgroup(struct counter *c, uint64_t id, const uint64_t *ancestors, int nr,
		       int *ret_slot);
/* Adopting: slot belongs to a persisted record; keep it (and its counts)
 * until counter_add_cgroup_at() or counter_release_slot(). */
int counter_reserve_slot(struct counter *c, int slot);
int counter_add_cgroup_at(struct counter *c, uint64_t id, const uint64_t *ancestors, int nr,
			  int slot);
/* Adopting: delete the filter entries of keys keep() says no to (NULL:
 * those this process did not add again). */
int counter_prune_keys(struct counter *c, bool (*keep)(void *ctx, uint64_t key), void *ctx);
/* Adopting: zero every slot no record reserved (a cgroup whose record could
 * not be kept left counts there, which must not reach a new owner). */
int counter_zero_free_slots(struct counter *c);
/* Stop counting key: its filter entry goes. The slot stays reserved, its
 * counts intact, until counter_release_slot(); after the next successful
 * counter_sync() nothing is added to it any more, and a read then gives the
 * key's final values. */
int counter_detach(struct counter *c, uint64_t key, int *ret_slot);
/* Zero a detached slot and give it back for reuse. */
int counter_release_slot(struct counter *c, int slot);
/* detach, sync, read, release. Stop counting key; its final values (up to now) are returned in ret_final
 * (nr_events readings; may be NULL) and its slot is recycled. */
int counter_remove(struct counter *c, uint64_t key, struct reading *ret_final);

int counter_enable(struct counter *c);
/* Run the programs that compute deltas on every CPU, so that running tasks
 * are accounted up to now. Call before reading. */
int counter_sync(struct counter *c);
/* The same before a read that another read follows (an interval's): a
 * cgroup session leaves out the CPUs that are idle and hold nothing any
 * session counts (bpf/sync_skip.h). What one of them starts running after
 * it looked is in the next read. Settling syncs (filter changes, removals,
 * a last read) are counter_sync(): every CPU. */
int counter_sync_periodic(struct counter *c);
/* Reopen the shared perf_events on CPUs that came online since the last
 * look (a per-CPU perf_event does not come back by itself, and until then
 * what runs there is not counted); counter_sync() does it too. One read of
 * /sys/devices/system/cpu/online when nothing changed: callers that may go
 * long without a sync run it every CPU_CHECK_MS. */
int counter_follow_cpus(struct counter *c);
#define CPU_CHECK_MS 1000
/* CPUs synced, and CPUs a hub's sync left out as owing nothing
 * (bpf/sync_skip.h), by this process's syncs so far. */
void counter_sync_stats(const struct counter *c, uint64_t *ret_synced, uint64_t *ret_skipped);
/* Totals of one slot, summed over CPUs: nr_events readings. */
int counter_read(struct counter *c, int slot, struct reading *ret_vals);
/* One past the highest slot in use: what counter_read_all needs to cover. */
int counter_slot_bound(const struct counter *c);
/* Totals of slots [0, nr_slots) in one batch: nr_slots * nr_events readings. */
int counter_read_all(struct counter *c, int nr_slots, struct reading *ret_vals);
/* Children of counted tasks that did not fit in the filter map. */
uint64_t counter_filter_drops(const struct counter *c);
/* What the follower took out of intervals after switches sched_switch hid
 * (struct unseen_stats, bpf/hub.h). -ENODATA where they cannot be read (the
 * fexit follower, a hub of another build). */
int counter_unseen_switches(const struct counter *c, struct unseen_stats *ret);
