/* SPDX-License-Identifier: GPL-2.0-only */
/* Live view of the cgroup2 tree: inotify on every directory (IN_CREATE,
 * IN_DELETE_SELF/IN_DELETE on subdirectories) plus a periodic rescan as a
 * safety net. Reports added and removed cgroups through callbacks, driven by
 * the caller's event loop (watch_fd() + watch_process()).
 *
 * Every cgroup (by id) is reported added exactly once and removed exactly
 * once, whether events or a rescan found it; parents are added before their
 * children and removed after them. Paths are relative to the cgroup2 root
 * ("/a/b") and may hold any byte but NUL ('\n' is refused by cgroupfs).
 * The top of the watched subtree is reported too, unless it is the root of
 * the hierarchy. Callbacks may call cg_watch_path_of(), cg_watch_ancestors()
 * and cg_watch_get_stats(), nothing else of this API. See docs/WATCH.md. */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cg_watch;

struct cg_watch_ops {
	/* A cgroup appeared (or was found at start / by a rescan). */
	void (*added)(void *ctx, const struct cg_watch *w, const char *rel_path, uint64_t id);
	/* A cgroup disappeared. rel_path is its last known path. */
	void (*removed)(void *ctx, const struct cg_watch *w, const char *rel_path, uint64_t id);
	/* Optional: should this directory have an inotify watch (for what is
	 * created or removed directly below it)? Asked at every visit (scan,
	 * event, rescan) and by cg_watch_refresh(); NULL: always. A directory
	 * without one is still walked by every rescan. */
	bool (*want_watch)(void *ctx, const struct cg_watch *w, const char *rel_path, uint64_t id);
	/* Optional: may anything below this directory matter to the caller?
	 * false: nothing below it is walked, watched or reported, as below
	 * max_depth, and a rescan confirms the directory itself from its
	 * directory entry (inode number), without a stat. Asked once, when
	 * the directory is first seen: the answer for a path must not change
	 * while the watcher lives. NULL: always. */
	bool (*want_below)(void *ctx, const struct cg_watch *w, const char *rel_path, uint64_t id);
};

struct cg_watch_opts {
	int max_depth; /* cgroups deeper than this are neither watched nor reported
	                            * (levels from the hierarchy root; 0: no limit) */
	const char *subtree; /* only watch under this relative path ("/" or NULL: all) */
	unsigned removed_history; /* removed cgroups whose last path cg_watch_path_of() still
	                            * knows (0: CG_WATCH_REMOVED_HISTORY) */
	unsigned max_watches; /* at most this many inotify watches (0: no cap but the
	                            * kernel's); the rest is found by rescans */
};

#define CG_WATCH_REMOVED_HISTORY 1024

/* Create the watcher and report every existing cgroup (added) before returning.
 * max_depth counts levels from the hierarchy root (root = 0; a cgroup at level
 * max_depth is reported, its children are not). o may be NULL (everything).
 * -ENOENT: the subtree does not exist; -EINVAL: bad options; -EMFILE: no inotify
 * instance left (fs.inotify.max_user_instances). On failure, added() may already
 * have been called for part of the tree; nothing is reported removed. */
int cg_watch_new(const struct cg_watch_opts *o, const struct cg_watch_ops *ops, void *ctx,
		 struct cg_watch **ret);
/* Reports nothing (no removed() calls). Accepts NULL. */
void cg_watch_free(struct cg_watch *w);
/* fd to poll for POLLIN. */
int cg_watch_fd(const struct cg_watch *w);
/* Read and handle pending inotify events (a bounded batch: call again while the
 * fd stays readable); rescans at once after a queue overflow. Returns 0 or
 * negative errno. */
int cg_watch_process(struct cg_watch *w);
/* Walk the tree again; report what the events missed (overflow, limits) and
 * retry watches that could not be added. Returns 0 or negative errno (then
 * nothing is reported removed: the walk was incomplete). */
int cg_watch_rescan(struct cg_watch *w);
/* Ask want_watch() again for the known cgroup id and add or drop its watch.
 * A watch added walks the subtree below it at once (reporting what appeared
 * and went while it had none). Not from inside a callback. Returns 0,
 * -ENOENT for an unknown id, or negative errno. */
int cg_watch_refresh(struct cg_watch *w, uint64_t id);
/* Path of a known (or recently removed) cgroup id; NULL if unknown. The string
 * stays valid until the next cg_watch_process/rescan/free. */
const char *cg_watch_path_of(const struct cg_watch *w, uint64_t id);
/* Ids of the ancestors of a known cgroup, from the hierarchy root (level 0)
 * down to its parent, as cgroup2_ancestor_ids() gives them but from the
 * watcher's own tree (no filesystem access). Returns how many, -ENOENT when
 * the cgroup is unknown or its chain is not known up to the root (a watched
 * subtree), -ENOBUFS when more than max. May be called from callbacks. */
int cg_watch_ancestors(const struct cg_watch *w, uint64_t id, uint64_t *ret_ids, int max);
/* Counters for the log: watches in use, inotify limit hits (ENOSPC from
 * inotify_add_watch), cgroups a rescan reported because the events missed them
 * (added or removed), queue overflows. */
struct cg_watch_stats {
	unsigned watches, limit_hits, rescan_fixes, overflows;
	unsigned cgroups; /* known now: reported added and not yet removed */
	unsigned unwatched; /* directories that should have a watch but have none (limit,
	                     * cap, error): what appears below them is found by rescans only */
	unsigned not_wanted; /* directories want_watch() said need none (found by rescans) */
	unsigned cap_hits; /* watches not added because max_watches were held */
	unsigned vanished; /* created and removed again before they could be looked at,
	                     * so never reported (a lower bound: see docs/WATCH.md) */
	unsigned skipped; /* times a directory could not be read (permission, fd or path
	                     * length limits); rescans try again */
	unsigned rescan_skipped; /* directories a rescan confirmed unchanged by one stat (a
	                     * known leaf, same id, no subdirectory): not opened or read */
};
void cg_watch_get_stats(const struct cg_watch *w, struct cg_watch_stats *ret);

/* One line for the log when inotify limits (or errors) leave directories
 * without a watch, or did so before; false (buf untouched) when there is
 * nothing to say. */
bool cg_watch_limit_reason(const struct cg_watch *w, char *buf, size_t size);
