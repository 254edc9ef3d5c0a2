/* SPDX-License-Identifier: GPL-2.0-only */
/* The shared part of counting one event attr on this host: one perf_event per
 * online CPU in a PERF_EVENT_ARRAY (and, in fexit mode, the leader program
 * that turns its readings into per-switch deltas). Found by every cgperf
 * process through a pinned hash map keyed by perf_event_attr; access is
 * serialised with flock() on cgperf's bpffs directory. Nothing here is pinned but the attr
 * map: the leader lives as long as some session holds it, and when the last
 * one exits, the kernel frees it and closes the perf_events. */
#pragma once
#include "bpf/probe.h"
#include <linux/perf_event.h>
#include <stdbool.h>

struct leader_bpf;

struct leader {
	int events_map_fd;
	unsigned events_map_id;
	bool created; /* this process made the perf_events */
	int nr_cpus_opened; /* when created: CPUs with a perf_event */
	/* fexit mode only (else NULL / -1) */
	struct leader_bpf *skel; /* set when this process loaded the leader */
	int link_fd;
	int prog_fd;
	int diff_map_fd;
};

/* Take cgperf's lock (a flock on dir, waiting at most 10 s) and open the attr
 * map in dir, creating and pinning it if needed. Returns the map fd (and the
 * lock's fd in *ret_lock_fd) or a negative errno. */
int attr_map_lock(const char *dir, int *ret_lock_fd);
/* The leaders' lock alone (the flock on the bpffs directory that
 * attr_map_lock takes, waiting up to a few seconds): for registries kept
 * beside the attr map (the hub map). The lock's fd (close it to unlock), or
 * -errno. */
int leaders_lock(const char *dir);
void attr_map_unlock(int map_fd, int lock_fd);

/* With the attr map locked: find the live leader for attr, or make one.
 * Returns 0 or a negative errno (and logs why). */
int leader_acquire(int attr_map_fd, const struct perf_event_attr *attr, const char *event_name,
		   enum follower_mode mode, struct leader *ret);

/* With the attr map locked: the online CPUs changed (signature cpus_sig)
 * and new_cpus came online. Unless another session already did it for this
 * CPU list, reopen the perf_events of new_cpus (one that went offline and
 * came back does not count again by itself; the others keep theirs) and
 * record the list. Returns 0 or negative errno. */
#include <stdint.h>
int leader_refresh_cpus(int attr_map_fd, const struct perf_event_attr *attr, const char *event_name,
			const struct leader *l, uint32_t cpus_sig, const int *new_cpus, int nr_new);

/* The leaders of nr events: cgperf's bpffs directory prepared (its path in
 * ret_dir), the lock taken, leader_acquire() for each, the lock released.
 * On failure those acquired are released again. */
struct event_spec;
int leaders_acquire(const struct event_spec *events, int nr, enum follower_mode mode,
		    struct leader *ret, char *ret_dir, size_t dir_len);

/* Before load: the object's maps events0..events7 (bpf/shared_events.bpf.h)
 * become the nr leaders' perf_event arrays. */
struct bpf_object;
int leaders_share_events(struct bpf_object *obj, const struct leader *l, int nr, int nr_possible);

/* The id of the BPF link fd refers to (any link; 0 if it cannot be had). */
unsigned bpf_link_id_of(int fd);
/* The id of the map fd names; 0 if it cannot be read. */
unsigned bpf_map_id_of(int fd);

/* Drop this process's references; the kernel frees the leader once nobody holds it. */
void leader_release(struct leader *l);
