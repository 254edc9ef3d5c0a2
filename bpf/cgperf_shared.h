/* SPDX-License-Identifier: GPL-2.0-only */
/* Types shared by the BPF programs and user space. Kept free of libc and
 * vmlinux types so both sides can include it. */
#pragma once

#include <linux/types.h>

/* Events one session can count at once (one follower program serves all). */
#define CGPERF_MAX_EVENTS 8
/* A cgroup's count is added to itself and up to this many monitored
 * ancestors minus one (container -> pod -> qos slice -> kubepods ...). */
#define CGPERF_MAX_NEST 8
/* Deepest cgroup level the ancestor walk looks at. */
#define CGPERF_MAX_CGROUP_DEPTH 32

enum cgperf_filter_type {
	CGPERF_FILTER_GLOBAL = 0, /* everything, one slot (0) */
	CGPERF_FILTER_CPU = 1, /* key: cpu number */
	CGPERF_FILTER_PID = 2, /* key: thread id */
	CGPERF_FILTER_TGID = 3, /* key: process id */
	CGPERF_FILTER_CGROUP = 4, /* key: cgroup v2 id; counts go to ancestors too */
};

/* Same layout as struct bpf_perf_event_value. */
struct cgperf_reading {
	__u64 counter;
	__u64 enabled;
	__u64 running;
};

struct cgperf_readings {
	struct cgperf_reading ev[CGPERF_MAX_EVENTS];
};

/* Value of the follower's filter map: the accumulator slots a matching task's
 * counts are added to (for cgroups: its own slot and every monitored ancestor's). */
struct cgperf_slots {
	__u32 nr;
	__u32 slot[CGPERF_MAX_NEST];
};

/* The tp follower's filter_gen map (one entry): user space moves gen on
 * every change of the filter map, and release_gen to gen when it releases
 * a slot (after the sync that settled it). A follower's cached slot list
 * (follower_tp.bpf.c, "charges held per CPU") is used only while gen is the
 * one it was looked up under, and what it held is added to those slots only
 * if no slot was released since. */
struct cgperf_filter_gen {
	__u64 gen;
	__u64 release_gen;
};

/* Sessions one cgroup hub serves (follower_hub.bpf.c); a session that
 * finds its hub full gets a hub of its own. */
#define CGPERF_HUB_MAX_SESSIONS 8 /* a power of two (follower_hub.bpf.c) */

/* The hub's sessions map: one entry per index. The hub reads enabled only;
 * the rest says who registered it, so that an index left by a process that
 * died (SIGKILL) is taken back (bpf/hub.c). */
struct cgperf_hub_session {
	__u32 enabled; /* counts: the hub adds to its slots */
	__u32 used; /* registered */
	__u32 pinned; /* a persistent session: lives without its process */
	__u32 pad;
	__u64 owner_pid; /* as the procfs owner_proc names it */
	__u64 owner_start; /* the owner's start time (clock ticks after boot) */
	__u64 owner_proc; /* device of the procfs that names it (0: never reaped) */
};

/* What a sync program returns when it ran inside another sync on its CPU
 * and did nothing (follower_hub.bpf.c on_sync): run it again. */
#define CGPERF_SYNC_BUSY 1

/* Value of the pinned attr map (key: struct perf_event_attr). Ids, not fds,
 * so the pin does not keep anything alive: when the last session is gone the
 * ids go stale and the next session creates a new leader. */
struct cgperf_leader_entry {
	__u32 events_map_id; /* PERF_EVENT_ARRAY holding one perf_event per CPU */
	__u32 link_id; /* fexit mode: the leader program's raw_tp link (0: none) */
	__u32 diff_map_id; /* fexit mode: the leader's per-CPU diff map (0: none) */
	__u32 cpus_sig; /* signature of the online CPU list the perf_events were
	                      * opened for; a session that sees another list reopens them */
};

/* prog_profiler.bpf.c's per-CPU sums for one target program (cgperf stat
 * -b with trampolines): what each event counted between the target's entry
 * and its exit, over the runs whose entry and exit were both seen. */
struct cgperf_prof_accum {
	__u64 entries; /* fentry runs */
	__u64 runs; /* fexit runs that found their entry's readings */
	struct cgperf_reading ev[CGPERF_MAX_EVENTS];
};
