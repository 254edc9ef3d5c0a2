/* SPDX-License-Identifier: GPL-2.0-only */
/* The cgroup hub (follower_hub.bpf.c) from user space: one sched_switch
 * program per event set that serves every cgroup session of the host, each
 * registered at an index with its own filter and accumulator maps.
 *
 * Shared hubs are found through a registry pinned in cgperf's bpffs
 * directory (hub_map: the leaders' perf_event arrays and the accumulator
 * kind -> the hub's link and sync program ids), under the leaders' lock.
 * Like a leader, a hub lives while some session holds it: its link, held by
 * each member process (or pinned by a persistent session), keeps the
 * program attached. An index whose process died without leaving (SIGKILL)
 * is taken back at the next registration. A persistent session (the
 * agent's) makes a hub of its own at index 0, pinned with it, and publishes
 * it: sessions that start later join it, and it goes on serving them while
 * the agent restarts. */
#pragma once
#include "bpf/accum.h"
#include <stdbool.h>
#include <stdint.h>

struct leader;
struct bpf_object_skeleton;

struct hub_opts {
	const struct event_spec *events; /* software or not: what the hub reads */
	const struct leader *leaders; /* their perf_event arrays */
	int nr_events;
	int nr_possible;
	enum accum_kind accum_kind;
	int max_slots;
	const char *bpffs_dir; /* where the registry is */
	/* A persistent session: a hub of its own (index 0, never reaped), which
	 * replaces the published one for later sessions. */
	bool pinned;
};

struct hub;

/* A session's filter and accumulator maps, as the hub's templates want them. */
int hub_session_maps(enum accum_kind kind, int max_keys, int max_slots, int nr_events,
		     int *ret_filter_fd, int *ret_accum_fd);
/* Register the session's maps (not owned) with a hub: the host's shared one
 * for o's event set, made if there is none or it is full, or one of its own.
 * The session does not count until hub_enable(); before that, the caller
 * moves the generation (filter_gen_changed), syncs (every CPU's held
 * charges are added under the lists of before) and releases up to the
 * generation taken before that sync (filter_gen_released): a CPU that
 * missed the sync must not add what it held for this index's previous
 * owner. */
int hub_join(const struct hub_opts *o, int filter_fd, int accum_fd, struct hub **ret);
int hub_enable(struct hub *h);
/* The program syncs run on every CPU, and the filter generation map. */
int hub_sync_fd(const struct hub *h);
int hub_gen_fd(const struct hub *h);
/* The skeleton of a hub this process made (NULL otherwise): what a
 * persistent session pins. */
const struct bpf_object_skeleton *hub_skeleton(const struct hub *h);
/* What a kernel that hides some switches from sched_switch made the
 * followers take out of intervals (unseen_switch.bpf.h), charged to nobody:
 * switches out of tasks not seen switched in where time was taken out, that
 * time, and the hidden tasks' page faults; and a bound of the hidden time
 * that may still be charged to tasks (a chain of hidden tasks). */
struct unseen_stats {
	uint64_t switches;
	uint64_t ns;
	uint64_t faults;
	uint64_t left_ns; /* at most this much hidden time is still charged */
};

/* For the whole hub. -ENODATA: a hub found or adopted whose .bss is not
 * this build's. */
int hub_unseen_switches(const struct hub *h, struct unseen_stats *ret);
/* The hub's programs' ids: on_switch, on_sync, and on_attach where the hub
 * has it (an older build's has not). */
#define HUB_MAX_PROGS 3
int hub_prog_ids(const struct hub *h, __u32 ret_ids[HUB_MAX_PROGS], int *ret_nr);
/* Stop counting and give the index back; the hub goes when no session holds
 * it. NULL is fine. */
void hub_leave(struct hub *h);
/* The hub of the persistent session pinned in dir (layout 7 on), at the
 * session's index (the one whose filter is the pinned map_filter):
 * hub_enable() and hub_leave() work on it. -ENOENT: no hub pins (an earlier
 * layout), or no index is the session's. */
int hub_open_pinned(const char *dir, struct hub **ret);
/* Let go of the hub and leave the session counting (a pinned one: its pins
 * hold the hub). NULL is fine. */
void hub_close(struct hub *h);
