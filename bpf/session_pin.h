/* SPDX-License-Identifier: GPL-2.0-only */
/* A persistent counting session: the follower's links, programs and maps
 * pinned in a per-instance directory of cgperf's bpffs directory
 * (instances/<name>/), so the kernel goes on counting while no process holds
 * the session, and the next agent adopts it. Plus the session's description
 * (what it counts, in which layout) and a user-space state map for the
 * agent's per-cgroup records. Root-only: directories 0700, pins 0600, owned
 * by root, never reached through a symlink. */
#pragma once
#include <bpf/libbpf.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bumped by every change of a pinned map's layout or of the follower's
 * semantics: a session pinned by another layout is drained if it can be
 * read, replaced otherwise. 2: the tp follower skips switches within one
 * cgroup (prev_readings grew an owner; syncs run "on_sync"). 3: context
 * switches counted by the switches (to the task switched out, as perf;
 * prev_readings grew the skipped switches), no reads at a switch from idle.
 * 4: the accumulators may be a per-CPU hash with values only for live slots
 * (bpf/accum.h; an older agent would read a missing value as an error).
 * 5: the tp follower holds charges per CPU until a sync or a change of
 * cgroup (prev_readings grew; the filter_gen map says when held lists are
 * stale). 4 was pinned by development builds only; it is drained.
 * 6: a switch to idle may hold its charges without reading, leaving page
 * fault reads owed to the held cgroup (prev_readings grew reads_owed).
 * 7: a cgroup session's follower is a hub of its own (follower_hub.bpf.c:
 * its filter and accumulators registered at index 0 of map-in-map arrays;
 * the filter_gen map is mmapable).
 * 8: the followers watch for switches sched_switch hides (prev_readings grew
 * the task last seen switched in; bpf/unseen_switch.bpf.h): an upgraded
 * agent drains a layout-7 session rather than keep its programs.
 * 9: the hub takes hidden tasks' page faults out (prev_readings and .bss
 * grew) and charges a task that moves itself to its old cgroup at the move
 * (its on_attach program, pinned with the session).
 * 10: after a hidden switch the hub charges the interval's owner what its
 * tasks switched out by skips and the hidden task did (prev_readings grew
 * what the skipped tasks ran and faulted).
 * Layouts from CGPERF_SESSION_LAYOUT_MIN on have the same session
 * description, and accumulators whose kind their map says, so they can
 * still be read (drained). */
#define CGPERF_SESSION_LAYOUT 10
#define CGPERF_SESSION_LAYOUT_MIN 1
#define SESSION_NAME_MAX 64

struct session_attr {
	uint32_t type, pad;
	uint64_t config, config1, config2;
};

/* The "session" pin: one entry of a BPF array. */
struct session_meta {
	uint32_t layout;
	uint32_t filter; /* enum cgperf_filter_type */
	uint32_t mode; /* enum follower_mode */
	uint32_t nr_events;
	uint32_t max_slots;
	uint32_t value_size; /* accumulator value: nr_events readings */
	uint64_t created_real_ns;
	struct session_attr attr[8];
	char names[8][SESSION_NAME_MAX];
};

/* Make (or check) dir/instances/<instance> and lock it for this process
 * (flock, not waiting): -EBUSY when another process holds it, -EPERM when it
 * or a parent is not root's or is a symlink (logged). Writes the path. */
int session_dir_open(const char *bpffs_dir, const char *instance, char *ret_path, size_t len,
		     int *ret_lock_fd);
/* Whether a session is pinned in dir. */
bool session_pinned(const char *dir);

/* Pin obj's programs, their links (from the skeleton) and its maps except
 * the shared perf_event arrays, and the description. Undone on failure. */
int session_pin(const char *dir, const struct bpf_object_skeleton *s,
		const struct session_meta *meta);
/* Pin one map (not a skeleton's) as name in dir. */
int session_pin_map(const char *dir, const char *name, int fd);
/* fd of a pin ("prog_on_switch", "map_filter", ...), checked to be root's
 * regular pin, not a link. */
int session_pin_get(const char *dir, const char *name, int *ret_fd);
/* The ids of the programs pinned in dir: *ret_nr of them in ids, which has
 * room for max (-E2BIG: more are pinned). */
int session_prog_ids(const char *dir, uint32_t *ids, int max, int *ret_nr);
/* The description; -EPROTO when it is of another layout or size. */
int session_read_meta(const char *dir, struct session_meta *ret);
/* Remove every pin and the directory: counting stops once no process holds
 * the programs any more (and the shared perf_events close when no session
 * uses them). */
int session_unpin(const char *dir);

/* One of the agent's state maps (pin NAME: "state", "totals"): hash u64 ->
 * value_size bytes, created when missing. -EPROTO: one of another value
 * size is there. */
int session_state_open(const char *dir, const char *name, size_t value_size, uint32_t max_entries,
		       int *ret_fd);
/* The same, not created: -ENOENT when missing. */
int session_state_get(const char *dir, const char *name, size_t value_size, int *ret_fd);
/* Unpin it (the map goes once nobody holds it); 0 when missing. */
int session_state_remove(const char *dir, const char *name);

/* A state map's entries (user space only). */
int session_state_put(int fd, uint64_t key, const void *value);
/* n entries at once; values are value_size bytes each, back to back. */
int session_state_put_all(int fd, const uint64_t *keys, const void *values, size_t value_size,
			  uint32_t n);
int session_state_delete(int fd, uint64_t key);
/* cb(ctx, key, value) for every entry; value_size bytes. Stops at cb's
 * first negative return, which it returns. */
int session_state_for_each(int fd, size_t value_size,
			   int (*cb)(void *ctx, uint64_t key, const void *value), void *ctx);
