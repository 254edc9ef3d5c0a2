/* SPDX-License-Identifier: GPL-2.0-only */
/* A counting session from the inside (bpf/counter.h is its face), for the
 * files that do its jobs: counter.c (the API: opening, slots and filter,
 * reads), counter_sync.c (syncs and CPU hotplug), counter_pin.c (persistent
 * sessions: pinning, adopting), and one file per follower kind behind a
 * struct follower_ops, as perf's bpf_counter.c has a struct bpf_counter_ops
 * per kind: counter_fexit.c (fexit followers on the leaders' programs),
 * counter_tp.c (a session's own sched_switch follower), counter_hub.c (the
 * cgroup hub, shared with other sessions). counter.c chooses the kind and
 * calls it through c->ops; the kinds know nothing of counter.c. */
#pragma once
#include "bpf/accum.h"
#include "bpf/cgperf_shared.h"
#include "bpf/filter_gen.h"
#include "bpf/leader.h"
#include "bpf/probe.h"
#include "events/event_parse.h"
#include <stdbool.h>
#include <stdint.h>

struct follower_ops;
struct follower_tp_bpf;
struct follower_fexit_bpf;
struct hub;
struct session_meta;
struct slot_table;
struct sync_skip;
struct unseen_stats;

struct counter {
	enum follower_mode mode;
	const struct follower_ops *ops; /* the follower kind (NULL: none loaded) */
	enum cgperf_filter_type filter;
	int nr_events;
	int max_slots;
	int max_keys; /* filter map entries */
	bool inherit; /* PID/TGID: children counted too */
	bool persistent; /* to be pinned: a hub of its own */
	struct leader leaders[CGPERF_MAX_EVENTS];
	int nr_leaders;
	/* FOLLOWER_TP: one program serves all events: the session's own, or
	 * for a cgroup filter a hub it shares with other sessions */
	struct follower_tp_bpf *tp;
	struct hub *hub;
	/* FOLLOWER_FEXIT: one program per event; [0] owns filter and accum maps */
	struct follower_fexit_bpf *fexit[CGPERF_MAX_EVENTS];
	int filter_fd, accum_fd;
	enum accum_kind accum_kind; /* of a session being loaded */
	struct accum acc; /* bound to accum_fd once loaded or opened */
	int *cpus, nr_cpus; /* online CPUs, for syncing */
	uint32_t cpus_sig; /* signature of that list */
	int online_fd; /* the online CPU list, re-read by the CPU check */
	char bpffs_dir[256];
	struct event_spec events[CGPERF_MAX_EVENTS];
	int nr_possible; /* per-CPU map values come for every possible CPU */
	struct slot_table *slots;
	int sync_fd; /* the program test_run syncs run (tp mode) */
	/* A hub's: which CPUs a sync can leave out (NULL: none can; tried:
	 * looked for once). */
	struct sync_skip *skip;
	bool skip_tried;
	uint64_t cpu_syncs, cpu_skips; /* CPUs synced, left out */
	struct filter_gen gen;
	/* The generation the last sync vouches for (0: it failed somewhere):
	 * what releases drop holds below. */
	__u64 release_mark;
	bool adopted; /* opened from pins */
	char pin_dir[600]; /* persistent: where it is pinned */
};

/* What differs between the follower kinds. Hooks that may be NULL say so. */
struct follower_ops {
	/* How it counts, for people (NULL: the follower mode's name). */
	const char *name;
	/* A switch between two tasks of one cgroup is charged only at the next
	 * switch that leaves the cgroup, or at a sync (the sched_switch
	 * followers hold charges per CPU): the session syncs before its filter
	 * changes. */
	bool holds_charges;
	/* Load and attach the follower for the leaders held: sets filter_fd,
	 * accum_fd and acc (and sync_fd where syncs run one program). It counts
	 * from enable on. Undone by close, also after a failure. */
	int (*load)(struct counter *c);
	int (*enable)(struct counter *c);
	/* Account what runs on cpu up to now (test_run there). */
	int (*sync_cpu)(struct counter *c, int cpu);
	/* What periodic syncs need to leave out the CPUs that owe nothing
	 * (bpf/sync_skip.h). NULL: every sync runs on every CPU. */
	int (*open_skip)(struct counter *c, struct sync_skip **ret);
	/* Append the ids of the programs loaded here to ids[*nr..max). */
	int (*prog_ids)(const struct counter *c, uint32_t *ids, int *nr, int max);
	/* What was taken out after switches sched_switch hid. NULL: -ENODATA. */
	int (*unseen_switches)(const struct counter *c, struct unseen_stats *ret);
	/* Children of counted tasks that did not fit in the filter. NULL: none. */
	uint64_t (*filter_drops)(const struct counter *c);
	/* Pin what a persistent session needs beside the description m
	 * (undone on failure). NULL: this kind cannot be pinned. */
	int (*pin)(struct counter *c, const char *dir, const struct session_meta *m);
	/* Opened from pins (filter, accumulators, sync program, generation):
	 * what else the kind needs from dir. NULL: nothing. */
	int (*adopt)(struct counter *c, const char *dir);
	/* Let go of what load or adopt made (not the leaders, not pins' fds). */
	void (*close)(struct counter *c);
};

extern const struct follower_ops follower_fexit_ops;
extern const struct follower_ops follower_tp_ops;
extern const struct follower_ops follower_hub_ops;

/* counter_pin.c: persistent sessions. */
/* Adopt the session pinned in dir if it counts what c is to (-ESTALE if
 * not, or if it is of another layout). */
int counter_pins_adopt(struct counter *c, const char *dir);
/* Open the session pinned in dir, of this layout, whatever it counts. */
int counter_pins_open(struct counter *c, const char *dir, uint32_t layout);
/* Pin the session just loaded in dir (sched_switch followers). */
int counter_pins_make(struct counter *c, const char *dir);
/* Close the fds counter_pins_open opened. */
void counter_pins_close(struct counter *c);

/* counter_sync.c: syncs. */
/* Every online CPU brought up to date, the CPU list followed first;
 * periodic: a sync for a read that another read follows (bpf/sync_skip.h).
 * Sets release_mark. */
int counter_sync_all(struct counter *c, bool periodic);
/* counter_follow_cpus() (bpf/counter.h). */
int counter_sync_follow_cpus(struct counter *c);
