/* Live view of the cgroup2 tree: inotify on every directory (IN_CREATE,
 * IN_DELETE_SELF/IN_DELETE on subdirectories) plus a periodic rescan as a
 * safety net. Reports added and removed cgroups through callbacks, driven by
 * the caller's event loop (watch_fd() + watch_process()). */
#pragma once
#include <stdbool.h>
#include <stdint.h>

struct cg_watch;

struct cg_watch_ops {
	/* A cgroup appeared (or was found at start / by a rescan). */
	void (*added)(void *ctx, const char *rel_path, uint64_t id);
	/* A cgroup disappeared. rel_path is its last known path. */
	void (*removed)(void *ctx, const char *rel_path, uint64_t id);
};

struct cg_watch_opts {
	int max_depth;             /* directories deeper than this are not watched (0: no limit) */
	const char *subtree;       /* only watch under this relative path ("/" or NULL: all) */
};

/* Create the watcher and report every existing cgroup (added) before returning. */
int cg_watch_new(const struct cg_watch_opts *o, const struct cg_watch_ops *ops, void *ctx,
		 struct cg_watch **ret);
void cg_watch_free(struct cg_watch *w);
/* fd to poll for POLLIN. */
int cg_watch_fd(const struct cg_watch *w);
/* Read and handle pending inotify events. Returns 0 or negative errno. */
int cg_watch_process(struct cg_watch *w);
/* Walk the tree again; report what the events missed (overflow, limits). */
int cg_watch_rescan(struct cg_watch *w);
/* Path of a known (or recently removed) cgroup id; NULL if unknown. */
const char *cg_watch_path_of(const struct cg_watch *w, uint64_t id);
/* Counters for the log: watches in use, inotify limit hits, rescans that found
 * something the events missed, queue overflows. */
struct cg_watch_stats {
	unsigned watches, limit_hits, rescan_fixes, overflows;
};
void cg_watch_get_stats(const struct cg_watch *w, struct cg_watch_stats *ret);
