// SPDX-License-Identifier: GPL-2.0-only
/* Live view of the cgroup2 tree (cgroup/watch.h, docs/WATCH.md).
 *
 * Every cgroup we know is a node in a tree that mirrors the directories,
 * indexed three ways: by cgroup id and by inotify watch descriptor (id maps),
 * and by path (a chained table here).
 * Events and rescans both end in one step, reconcile(): "this path now holds
 * the cgroup with this id". A cgroup is reported added when its id enters the
 * tree and removed when it leaves, which is what makes every report happen
 * exactly once however events and rescans interleave.
 *
 * cgroupfs (kernfs) quirk that shapes the code: rmdir of a watched cgroup
 * sends IN_DELETE to the parent's watch but neither IN_DELETE_SELF nor
 * IN_IGNORED to its own, and the kernel keeps that watch (pinning the dead
 * inode) until it is removed by hand. So a removal always drops the node's
 * watch with inotify_rm_watch(); on ordinary filesystems (the test override
 * CGPERF_CGROUP2_ROOT) the kernel drops it itself and IN_IGNORED follows. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "cgroup/watch.h"

#include "cgroup/cgroup2.h"
#include "util/hash.h"
#include "util/id_map.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

/* See cgroup2.c: kernfs file handles carry the cgroup id. */
#ifndef FILEID_KERNFS
#define FILEID_KERNFS 0xfe
#endif

/* IN_ONLYDIR: never watch something that turned into a non-directory between
 * open and inotify_add_watch. Only directory events matter: cgroupfs creates
 * a cgroup's interface files without fsnotify events anyway. */
#define NODE_MASK                                                                              \
	(IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF | \
	 IN_ONLYDIR)
/* On the parent of the subtree's top: only the top's own name is looked at. */
#define ANCHOR_MASK (IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_ONLYDIR)
/* Bounds one cg_watch_process() call so a storm of events cannot starve the
 * caller's loop; the fd stays readable and the next call continues. */
#define MAX_READS_PER_PROCESS 64
#define EVENT_BUFFER_SIZE (64 * 1024)
#define INITIAL_BUCKETS 64

struct node {
	uint64_t id;
	char *path; /* relative to the cgroup2 root: "/a/b", "/" for the root */
	int level; /* 0 for the root */
	int wd; /* inotify watch descriptor, -1: none */
	bool want_watch; /* should have one (depth, the caller's want_watch) */
	bool no_below; /* the caller's want_below said nothing below matters */
	bool reported; /* added() was called: everything but the hierarchy root */
	unsigned mark; /* generation of the last walk that saw it */
	struct node *parent, *first_child, *prev_sibling, *next_sibling;
	struct node *next_by_path;
};

/* By path: intrusive chained hash table; the chain link lives in the node. */
struct index {
	struct node **buckets;
	size_t n_buckets, n_entries;
};

struct removed_entry {
	uint64_t id;
	char *path;
};

struct cg_watch {
	int inotify_fd;
	char *root; /* absolute cgroup2 mount point (or override) */
	char *top_path; /* relative path of the watched subtree's top */
	const char *top_name; /* its last component (in top_path), what the anchor looks for */
	int top_level;
	int max_depth;
	unsigned max_watches; /* 0: no cap of our own */
	int anchor_wd; /* watch on the top's parent, -1: none (top is the root, or failed) */
	struct node *top; /* NULL while the top does not exist */

	struct cg_watch_ops ops;
	void *ctx;

	struct id_map by_id, by_wd;
	struct index by_path;

	struct removed_entry *removed; /* ring of the most recent removals */
	size_t removed_cap, removed_next, removed_count;

	unsigned generation;
	struct cg_watch_stats stats; /* counters; cgroups and unwatched computed on demand */
	int last_watch_error; /* errno of the last watch not made but ENOSPC (inotify_add_watch, or ENOMEM indexing it) */
	char child_path[PATH_MAX]; /* a child's path for its lookup: no malloc per child */

	char events[EVENT_BUFFER_SIZE] __attribute__((aligned(__alignof__(struct inotify_event))));
};

/* ---------------------------------------------------------------------------
 * Small helpers
 * ------------------------------------------------------------------------- */

/* "This directory is gone (or is not a directory we may enter)": normal in a
 * tree where cgroups come and go at any moment. */
static bool errno_is_vanished(int err)
{
	return err == ENOENT || err == ENOTDIR || err == ELOOP || err == ESTALE || err == ENODEV;
}

static bool is_root_path(const char *path)
{
	return strcmp(path, "/") == 0;
}

static char *path_join(const char *parent, const char *name)
{
	char *p;

	if (asprintf(&p, "%s/%s", is_root_path(parent) ? "" : parent, name) < 0)
		return NULL;
	return p;
}

static bool wants_node(const struct cg_watch *w, int level)
{
	return w->max_depth == 0 || level <= w->max_depth;
}

/* A directory at max_depth is reported but needs no watch: every child it
 * could get is too deep to matter. */
static bool wants_children(const struct cg_watch *w, int level)
{
	return w->max_depth == 0 || level < w->max_depth;
}

/* Whether n's subdirectories are walked: depth, and the caller's want_below
 * as asked when n was first seen. */
static bool node_wants_children(const struct cg_watch *w, const struct node *n)
{
	return wants_children(w, n->level) && !n->no_below;
}

static bool caller_wants_watch(const struct cg_watch *w, const struct node *n)
{
	return !w->ops.want_watch || w->ops.want_watch(w->ctx, w, n->path, n->id);
}

/* Returns an fd or negative errno. */
static int open_cgroup_dir(const struct cg_watch *w, const char *path)
{
	char *abs;
	int fd;

	if (asprintf(&abs, "%s%s", w->root, is_root_path(path) ? "" : path) < 0)
		return -ENOMEM;
	fd = open(abs, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	free(abs);
	return fd < 0 ? -errno : fd;
}

/* ---------------------------------------------------------------------------
 * Indexes
 * ------------------------------------------------------------------------- */

static uint64_t path_hash(const char *path)
{
	return hash_bytes(path, strlen(path));
}

static int index_init(struct index *ix)
{
	ix->buckets = calloc(INITIAL_BUCKETS, sizeof(*ix->buckets));
	if (!ix->buckets)
		return -ENOMEM;
	ix->n_buckets = INITIAL_BUCKETS;
	ix->n_entries = 0;
	return 0;
}

/* Growing is only an optimisation: when memory is short the chains just get
 * longer, so adding never fails. */
static void index_grow(struct index *ix)
{
	size_t n = ix->n_buckets * 2;
	struct node **b = calloc(n, sizeof(*b));

	if (!b)
		return;
	for (size_t i = 0; i < ix->n_buckets; i++)
		for (struct node *e = ix->buckets[i], *next; e; e = next) {
			size_t j = path_hash(e->path) & (n - 1);

			next = e->next_by_path;
			e->next_by_path = b[j];
			b[j] = e;
		}
	free(ix->buckets);
	ix->buckets = b;
	ix->n_buckets = n;
}

static void index_add(struct index *ix, struct node *n)
{
	size_t i;

	if (ix->n_entries >= ix->n_buckets)
		index_grow(ix);
	i = path_hash(n->path) & (ix->n_buckets - 1);
	n->next_by_path = ix->buckets[i];
	ix->buckets[i] = n;
	ix->n_entries++;
}

static void index_del(struct index *ix, struct node *n)
{
	struct node **p = &ix->buckets[path_hash(n->path) & (ix->n_buckets - 1)];

	for (; *p; p = &(*p)->next_by_path)
		if (*p == n) {
			*p = n->next_by_path;
			n->next_by_path = NULL;
			ix->n_entries--;
			return;
		}
}

static struct node *lookup_id(const struct cg_watch *w, uint64_t id)
{
	return id_map_find(&w->by_id, id);
}

static struct node *lookup_path(const struct cg_watch *w, const char *path)
{
	for (struct node *n = w->by_path.buckets[path_hash(path) & (w->by_path.n_buckets - 1)]; n;
	     n = n->next_by_path)
		if (strcmp(n->path, path) == 0)
			return n;
	return NULL;
}

static struct node *lookup_wd(const struct cg_watch *w, int wd)
{
	return id_map_find(&w->by_wd, (uint64_t)wd);
}

/* ---------------------------------------------------------------------------
 * Watches
 * ------------------------------------------------------------------------- */

static void unwatch_node(struct cg_watch *w, struct node *n)
{
	if (n->wd < 0)
		return;
	id_map_remove(&w->by_wd, (uint64_t)n->wd);
	/* Fails with EINVAL where the kernel already dropped the watch (a
         * deleted directory on an ordinary filesystem); on cgroupfs this is
         * what frees it. */
	(void)inotify_rm_watch(w->inotify_fd, n->wd);
	n->wd = -1;
	w->stats.watches--;
}

/* The kernel dropped the watch itself (IN_IGNORED): forget it, no rm_watch. */
static void forget_watch(struct cg_watch *w, struct node *n)
{
	if (n->wd < 0)
		return;
	id_map_remove(&w->by_wd, (uint64_t)n->wd);
	n->wd = -1;
	w->stats.watches--;
}

/* inotify_add_watch failed: a full watch budget is counted (the rescan finds
 * what goes unwatched); a directory that vanished meanwhile is no error. */
static void note_watch_failure(struct cg_watch *w, int err)
{
	if (err == ENOSPC)
		w->stats.limit_hits++;
	else if (!errno_is_vanished(err))
		w->last_watch_error = err;
}

/* Watches the directory open at fd. A failure leaves the node unwatched
 * (rescans retry), it never stops the walk: with max_user_watches exhausted,
 * or our own cap reached, the rescan still finds everything, only later. */
static void watch_node(struct cg_watch *w, struct node *n, int fd)
{
	char proc_path[sizeof("/proc/self/fd/") + 12];
	struct node *holder;
	int wd;

	if (n->wd >= 0)
		return;
	if (w->max_watches && w->stats.watches >= w->max_watches) {
		w->stats.cap_hits++;
		return;
	}

	/* Through the fd, not the path: the watch lands on the directory whose
         * id we read, even if the path was recycled meanwhile. */
	snprintf(proc_path, sizeof(proc_path), "/proc/self/fd/%d", fd);
	wd = inotify_add_watch(w->inotify_fd, proc_path, NODE_MASK);
	if (wd < 0) {
		note_watch_failure(w, errno);
		return;
	}

	/* The same inode watched again hands back the same wd. Then the other
         * node is a stale name for this directory (renamed on an ordinary
         * filesystem): the watch belongs to the name we just opened. */
	holder = lookup_wd(w, wd);
	if (holder) {
		holder->wd = -1;
		id_map_replace(&w->by_wd, (uint64_t)wd, n);
	} else if (id_map_insert(&w->by_wd, (uint64_t)wd, n) == 0) {
		w->stats.watches++;
	} else {
		/* Its events could not be told to the node: no use keeping it. */
		(void)inotify_rm_watch(w->inotify_fd, wd);
		note_watch_failure(w, ENOMEM);
		return;
	}
	n->wd = wd;
}

/* The parent of the top is watched for the top's own name only, so that the
 * removal and re-creation of the top are seen as they happen (cgroupfs sends
 * nothing to a removed directory's own watch). */
static void watch_anchor(struct cg_watch *w)
{
	size_t parent_len;
	char *abs;
	int wd;

	if (w->anchor_wd >= 0 || is_root_path(w->top_path))
		return;

	/* top_name - 1 is the '/' in front of the top's own name. */
	parent_len = (size_t)(w->top_name - 1 - w->top_path);
	if (asprintf(&abs, "%s%.*s", w->root, (int)parent_len, w->top_path) < 0)
		return;
	wd = inotify_add_watch(w->inotify_fd, abs, ANCHOR_MASK);
	free(abs);
	if (wd < 0) {
		note_watch_failure(w, errno);
		return;
	}
	w->anchor_wd = wd;
	w->stats.watches++;
}

/* ---------------------------------------------------------------------------
 * The tree
 * ------------------------------------------------------------------------- */

static void remember_removed(struct cg_watch *w, uint64_t id, char *path)
{
	struct removed_entry *e;

	if (w->removed_cap == 0) {
		free(path);
		return;
	}
	e = &w->removed[w->removed_next];
	free(e->path);
	*e = (struct removed_entry){ .id = id, .path = path };
	w->removed_next = (w->removed_next + 1) % w->removed_cap;
	if (w->removed_count < w->removed_cap)
		w->removed_count++;
}

static int node_link(struct cg_watch *w, struct node *parent, struct node *n)
{
	int r = id_map_insert(&w->by_id, n->id, n);

	if (r < 0)
		return r;
	n->parent = parent;
	if (parent) {
		n->next_sibling = parent->first_child;
		if (parent->first_child)
			parent->first_child->prev_sibling = n;
		parent->first_child = n;
	} else
		w->top = n;
	index_add(&w->by_path, n);
	return 0;
}

static void node_unlink(struct cg_watch *w, struct node *n)
{
	if (n->prev_sibling)
		n->prev_sibling->next_sibling = n->next_sibling;
	else if (n->parent)
		n->parent->first_child = n->next_sibling;
	if (n->next_sibling)
		n->next_sibling->prev_sibling = n->prev_sibling;
	if (w->top == n)
		w->top = NULL;
	id_map_remove(&w->by_id, n->id);
	index_del(&w->by_path, n);
}

/* Children first, so the caller hears about a cgroup's removal only after all
 * of its descendants'. by_rescan: the events missed it (counted). */
static void remove_tree(struct cg_watch *w, struct node *n, bool by_rescan)
{
	while (n->first_child)
		remove_tree(w, n->first_child, by_rescan);

	unwatch_node(w, n);
	/* Still indexed during the callback, so cg_watch_path_of() works there. */
	if (n->reported) {
		if (w->ops.removed)
			w->ops.removed(w->ctx, w, n->path, n->id);
		if (by_rescan)
			w->stats.rescan_fixes++;
	}
	node_unlink(w, n);
	if (n->reported)
		remember_removed(w, n->id, n->path);
	else
		free(n->path);
	free(n);
}

/* Does n's path still lead to n's cgroup? */
static bool node_still_there(const struct cg_watch *w, const struct node *n)
{
	uint64_t id;
	int fd, r;

	fd = open_cgroup_dir(w, n->path);
	if (fd < 0)
		/* Not knowing (EMFILE, ENOMEM...) must not make us report a
                 * removal: the next rescan decides. */
		return !errno_is_vanished(-fd);
	r = cgroup2_id_of_fd(fd, &id);
	close(fd);
	if (r < 0)
		return !errno_is_vanished(-r);
	return id == n->id;
}

/* Removes n (and what is below it) if its directory is gone or now holds
 * another cgroup. */
static void check_gone(struct cg_watch *w, struct node *n, bool by_rescan)
{
	if (!node_still_there(w, n))
		remove_tree(w, n, by_rescan);
}

static bool is_ancestor_or_self(const struct node *a, const struct node *n)
{
	for (; n; n = n->parent)
		if (n == a)
			return true;
	return false;
}

static void mark_tree(struct node *n, unsigned generation)
{
	n->mark = generation;
	for (struct node *c = n->first_child; c; c = c->next_sibling)
		mark_tree(c, generation);
}

/* "The directory at *path (below parent; NULL for the top) is cgroup id."
 * Returns 1 with *ret_node set (taking *path when the node is new, leaving
 * NULL there), 0 when the directory is to be left alone (a second path to a
 * directory we already know: a bind mount, a loop), or -ENOMEM. */
static int reconcile(struct cg_watch *w, struct node *parent, char **path, uint64_t id, int level,
		     bool by_rescan, struct node **ret_node)
{
	struct node *n, *other;

	n = lookup_path(w, *path);
	if (n && n->id == id) {
		n->mark = w->generation;
		*ret_node = n;
		return 1;
	}
	/* The path now holds a newer cgroup: the one we knew there is gone. */
	if (n)
		remove_tree(w, n, by_rescan);

	other = lookup_id(w, id);
	if (other) {
		if (is_ancestor_or_self(other, parent) || node_still_there(w, other))
			return 0;
		/* Renamed (ordinary filesystems only; cgroup2 refuses rename):
                 * reported as the old name removed, the new one added. */
		remove_tree(w, other, by_rescan);
	}

	n = calloc(1, sizeof(*n));
	if (!n)
		return -ENOMEM;
	*n = (struct node){
		.id = id,
		.path = *path,
		.level = level,
		.wd = -1,
		.reported = !is_root_path(*path),
		.mark = w->generation,
		.no_below = w->ops.want_below && !w->ops.want_below(w->ctx, w, *path, id),
	};
	if (node_link(w, parent, n) < 0) {
		free(n);
		return -ENOMEM;
	}
	*path = NULL;

	if (n->reported) {
		if (w->ops.added)
			w->ops.added(w->ctx, w, n->path, n->id);
		if (by_rescan)
			w->stats.rescan_fixes++;
	}
	*ret_node = n;
	return 1;
}

/* A directory exists but could not be looked at: count it, and keep what we
 * knew below that path so the rescan's sweep does not take it for removed. */
static void skip_dir(struct cg_watch *w, const char *path)
{
	struct node *n = path ? lookup_path(w, path) : NULL;

	w->stats.skipped++;
	if (n)
		mark_tree(n, w->generation);
}

static int visit_children(struct cg_watch *w, struct node *n, int fd, bool by_rescan);

/* Applies n->want_watch to the directory open at fd (consumed), then walks
 * its subdirectories. Returns 0 or -ENOMEM. */
static int visit_below(struct cg_watch *w, struct node *n, int fd, bool by_rescan)
{
	if (n->want_watch)
		watch_node(w, n, fd);
	else
		unwatch_node(w, n);
	return visit_children(w, n, fd, by_rescan);
}

/* Reconciles the directory open at fd (always consumed) as the cgroup at
 * path (consumed) at level, below parent (NULL for the top), then walks its
 * subdirectories. The watch is added before reading the directory: a child
 * created after the watch shows up as an event, one created before is found
 * by the read, one in between as both (reconcile() deduplicates).
 * Returns 0 or -ENOMEM; what vanishes or cannot be read is skipped. */
static int visit_fd(struct cg_watch *w, struct node *parent, int fd, char *path, int level,
		    bool by_rescan)
{
	struct node *n = NULL;
	uint64_t id;
	int r;

	r = cgroup2_id_of_fd(fd, &id);
	if (r < 0) {
		if (!errno_is_vanished(-r))
			skip_dir(w, path);
		r = 0;
		goto finish;
	}

	r = reconcile(w, parent, &path, id, level, by_rescan, &n);
	if (r <= 0)
		goto finish;
	r = 0;

	if (!node_wants_children(w, n))
		goto finish;

	/* Asked at every visit, so a rescan applies changed answers. */
	n->want_watch = caller_wants_watch(w, n);
	r = visit_below(w, n, fd, by_rescan);
	fd = -1;
finish:
	if (fd >= 0)
		close(fd);
	free(path);
	return r;
}

/* The node known at parent's child name, if any (no allocation). */
static struct node *known_child(struct cg_watch *w, const struct node *parent, const char *name)
{
	int len = snprintf(w->child_path, sizeof(w->child_path), "%s/%s",
			   is_root_path(parent->path) ? "" : parent->path, name);

	if (len < 0 || (size_t)len >= sizeof(w->child_path))
		return NULL; /* the full visit copes with long paths */
	return lookup_path(w, w->child_path);
}

/* Known leaf n needs a watch it lacks: open it, and if it still holds n's
 * cgroup, watch and read it as the full visit would (a subdirectory created
 * since the stat is seen). Returns 1 when done, 0 to let the full visit
 * decide, or -ENOMEM. */
static int watch_known_leaf(struct cg_watch *w, struct node *n, int dfd, const char *name,
			    bool by_rescan)
{
	uint64_t id;
	int fd, r;

	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (cgroup2_id_of_fd(fd, &id) < 0 || id != n->id) {
		close(fd);
		return 0;
	}
	n->mark = w->generation;
	r = visit_below(w, n, fd, by_rescan);
	return r < 0 ? r : 1;
}

/* The shortcut for a known directory that did not change, from one
 * fstatat(): a cgroup's id is its inode number (kernfs on 64-bit kernels
 * since 5.5; on an ordinary filesystem cgroup2_id_of_fd() takes the inode
 * number), and a directory's link count is 2 + its subdirectories (kernfs
 * sets it from its subdirectory count at every stat; ordinary filesystems
 * keep it so, or say 1 and never match). Same id and no subdirectory:
 * nothing to open, identify or read. Children we knew below it are gone
 * then: left unmarked, the sweep removes them as after a full visit. Anything
 * else (another id, a 32-bit kernel's inode number, subdirectories) returns
 * 0: the full visit decides. Returns 1 when n's visit is complete, or
 * -ENOMEM. */
static int visit_unchanged(struct cg_watch *w, struct node *n, int dfd, const struct dirent *de,
			   bool by_rescan)
{
	const char *name = de->d_name;
	struct stat st;

	/* Nothing below it to look for: the directory entry's inode number
	 * is the same identity the stat would give. */
	if (!node_wants_children(w, n) && de->d_type == DT_DIR && (uint64_t)de->d_ino == n->id)
		goto seen;
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode) ||
	    (uint64_t)st.st_ino != n->id)
		return 0;
	if (node_wants_children(w, n)) {
		if (st.st_nlink != 2)
			return 0;
		/* Asked at every visit, as the full visit does. */
		n->want_watch = caller_wants_watch(w, n);
		if (n->want_watch && n->wd < 0)
			return watch_known_leaf(w, n, dfd, name, by_rescan);
		if (!n->want_watch)
			unwatch_node(w, n);
	}
seen:
	n->mark = w->generation;
	if (by_rescan)
		w->stats.rescan_skipped++;
	return 1;
}

/* Visits parent's subdirectory name, open from dfd. Returns 0 or -ENOMEM. */
static int visit_child(struct cg_watch *w, struct node *parent, int dfd, const struct dirent *de,
		       bool by_rescan)
{
	const char *name = de->d_name;
	struct node *known = known_child(w, parent, name);
	char *path;
	int fd, r;

	if (known) {
		r = visit_unchanged(w, known, dfd, de, by_rescan);
		if (r != 0)
			return r < 0 ? r : 0;
	}

	path = path_join(parent->path, name);
	if (!path)
		return -ENOMEM;
	/* O_NOFOLLOW: never leave the tree through a symlink. */
	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (!errno_is_vanished(errno))
			skip_dir(w, path);
		free(path);
		return 0;
	}
	return visit_fd(w, parent, fd, path, parent->level + 1, by_rescan);
}

/* Consumes fd. n stays valid throughout: the only nodes reconcile() may
 * remove are the child's own stale entries, never n or its ancestors. */
static int visit_children(struct cg_watch *w, struct node *n, int fd, bool by_rescan)
{
	struct dirent *de;
	DIR *d;
	int r = 0;

	d = fdopendir(fd);
	if (!d) {
		close(fd);
		skip_dir(w, n->path);
		return 0;
	}

	for (;;) {
		errno = 0;
		de = readdir(d);
		if (!de) {
			/* A directory removed while we read it just ends. */
			if (errno != 0 && !errno_is_vanished(errno))
				skip_dir(w, n->path);
			break;
		}
		if (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN)
			continue;
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;

		r = visit_child(w, n, dirfd(d), de, by_rescan);
		if (r < 0)
			break;
	}

	closedir(d);
	return r;
}

/* Visits the directory at path (relative; not consumed). -ENOENT when it
 * does not exist, other negative errnos when it could not be looked at. */
static int visit_path(struct cg_watch *w, struct node *parent, const char *path, int level,
		      bool by_rescan)
{
	char *copy;
	int fd;

	fd = open_cgroup_dir(w, path);
	if (fd < 0)
		return errno_is_vanished(-fd) ? -ENOENT : fd;

	copy = strdup(path);
	if (!copy) {
		close(fd);
		return -ENOMEM;
	}
	return visit_fd(w, parent, fd, copy, level, by_rescan);
}

/* Removes every node below n the current walk did not see. */
static void sweep(struct cg_watch *w, struct node *n)
{
	for (struct node *c = n->first_child, *next; c; c = next) {
		next = c->next_sibling;
		if (c->mark != w->generation)
			remove_tree(w, c, true);
		else
			sweep(w, c);
	}
}

/* ---------------------------------------------------------------------------
 * Events
 * ------------------------------------------------------------------------- */

/* A subdirectory called name appeared below parent. */
static int handle_created(struct cg_watch *w, struct node *parent, const char *name)
{
	char *path;
	int r;

	if (!wants_node(w, parent->level + 1))
		return 0;

	path = path_join(parent->path, name);
	if (!path)
		return -ENOMEM;

	r = visit_path(w, parent, path, parent->level + 1, false);
	if (r == -ENOENT) {
		/* Gone before we could read its id. Unless we know something
                 * at that path (then the matching IN_DELETE sorts it out),
                 * this cgroup will never be reported. */
		if (!lookup_path(w, path))
			w->stats.vanished++;
		r = 0;
	} else if (r < 0 && r != -ENOMEM) {
		skip_dir(w, path);
		r = 0;
	}
	free(path);
	return r;
}

static int handle_deleted(struct cg_watch *w, struct node *parent, const char *name)
{
	struct node *n;
	char *path;

	path = path_join(parent->path, name);
	if (!path)
		return -ENOMEM;
	n = lookup_path(w, path);
	free(path);

	/* The path may already hold a newer cgroup of the same name that we
         * picked up while handling an earlier IN_CREATE: keep that one. */
	if (n)
		check_gone(w, n, false);
	return 0;
}

static int handle_top_event(struct cg_watch *w, const struct inotify_event *e)
{
	if (e->mask & IN_IGNORED) {
		w->anchor_wd = -1;
		w->stats.watches--;
		return 0;
	}
	if (!(e->mask & IN_ISDIR) || e->len == 0 || strcmp(e->name, w->top_name) != 0)
		return 0;

	if (e->mask & (IN_DELETE | IN_MOVED_FROM)) {
		if (w->top)
			check_gone(w, w->top, false);
	}
	if (e->mask & (IN_CREATE | IN_MOVED_TO)) {
		int r = visit_path(w, NULL, w->top_path, w->top_level, false);

		if (r == -ENOENT)
			w->stats.vanished++;
		else if (r < 0 && r != -ENOMEM)
			skip_dir(w, NULL);
		else if (r < 0)
			return r;
	}
	return 0;
}

static int handle_event(struct cg_watch *w, const struct inotify_event *e, bool *need_rescan)
{
	struct node *n;

	if (e->mask & IN_Q_OVERFLOW) {
		w->stats.overflows++;
		*need_rescan = true;
		return 0;
	}
	if (e->wd == w->anchor_wd)
		return handle_top_event(w, e);

	/* Events of a watch we dropped ourselves (its IN_IGNORED, stragglers
         * queued before the rm_watch) have no node any more. */
	n = lookup_wd(w, e->wd);
	if (!n)
		return 0;

	if (e->mask & IN_IGNORED) {
		/* The kernel dropped the watch (the directory was deleted on
                 * an ordinary filesystem, or the filesystem went away). */
		forget_watch(w, n);
		check_gone(w, n, false);
		return 0;
	}
	if (e->mask & (IN_DELETE_SELF | IN_MOVE_SELF)) {
		check_gone(w, n, false);
		return 0;
	}
	if (!(e->mask & IN_ISDIR) || e->len == 0)
		return 0;

	if (e->mask & (IN_DELETE | IN_MOVED_FROM))
		return handle_deleted(w, n, e->name);
	if (e->mask & (IN_CREATE | IN_MOVED_TO))
		return handle_created(w, n, e->name);
	return 0;
}

int cg_watch_process(struct cg_watch *w)
{
	bool need_rescan = false;
	int r = 0;

	if (!w)
		return -EINVAL;

	for (int i = 0; i < MAX_READS_PER_PROCESS && r >= 0; i++) {
		ssize_t n = read(w->inotify_fd, w->events, sizeof(w->events));

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN)
				r = -errno;
			break;
		}
		if (n == 0)
			break;

		for (char *p = w->events; p < w->events + n;) {
			const struct inotify_event *e = (const struct inotify_event *)p;

			p += sizeof(*e) + e->len;
			/* Keep going after ENOMEM on one event: later ones
                         * (removals) free memory, and the rescan below or
                         * the next periodic one repairs what was missed. */
			if (handle_event(w, e, &need_rescan) < 0)
				need_rescan = true;
		}
	}

	if (need_rescan) {
		int k = cg_watch_rescan(w);

		if (k < 0 && r >= 0)
			r = k;
	}
	return r;
}

/* ---------------------------------------------------------------------------
 * Rescan, lifecycle, queries
 * ------------------------------------------------------------------------- */

int cg_watch_rescan(struct cg_watch *w)
{
	int r;

	if (!w)
		return -EINVAL;

	w->generation++;
	watch_anchor(w);
	if (!wants_node(w, w->top_level))
		return 0;

	r = visit_path(w, NULL, w->top_path, w->top_level, true);
	if (r == -ENOENT) {
		if (w->top)
			remove_tree(w, w->top, true);
		return 0;
	}
	if (r < 0)
		return r;
	if (w->top)
		sweep(w, w->top);
	return 0;
}

int cg_watch_refresh(struct cg_watch *w, uint64_t id)
{
	struct node *n;
	uint64_t now;
	int fd, r;

	if (!w)
		return -EINVAL;
	n = lookup_id(w, id);
	if (!n)
		return -ENOENT;
	if (!node_wants_children(w, n))
		return 0;
	n->want_watch = caller_wants_watch(w, n);
	if (!n->want_watch || n->wd >= 0) {
		if (!n->want_watch)
			unwatch_node(w, n);
		return 0;
	}

	fd = open_cgroup_dir(w, n->path);
	if (fd < 0)
		return errno_is_vanished(-fd) ? 0 : fd; /* events or the rescan decide */
	r = cgroup2_id_of_fd(fd, &now);
	if (r < 0 || now != id) {
		close(fd);
		return 0; /* the path holds another cgroup now: its IN_DELETE is queued */
	}
	watch_node(w, n, fd);

	/* A walk of this subtree only: what appeared below it while it had
         * no watch is reported now, what went is removed (mark and sweep). */
	w->generation++;
	n->mark = w->generation;
	r = visit_children(w, n, fd, true);
	if (r == 0)
		sweep(w, n);
	return r;
}

void cg_watch_free(struct cg_watch *w)
{
	void *v;

	if (!w)
		return;

	/* Nodes only: no callbacks, and closing the inotify fd drops every
         * watch at once. */
	for (size_t pos = 0; id_map_next(&w->by_id, &pos, NULL, &v);) {
		struct node *n = v;

		free(n->path);
		free(n);
	}
	id_map_free(&w->by_id);
	id_map_free(&w->by_wd);
	free(w->by_path.buckets);

	for (size_t i = 0; i < w->removed_cap; i++)
		free(w->removed[i].path);
	free(w->removed);

	if (w->inotify_fd >= 0)
		close(w->inotify_fd);
	free(w->root);
	free(w->top_path);
	free(w);
}

int cg_watch_new(const struct cg_watch_opts *o, const struct cg_watch_ops *ops, void *ctx,
		 struct cg_watch **ret)
{
	static const struct cg_watch_opts defaults = {};
	char top[PATH_MAX];
	struct cg_watch *w;
	const char *root;
	int r;

	if (!ret)
		return -EINVAL;
	if (!o)
		o = &defaults;
	if (o->max_depth < 0)
		return -EINVAL;

	r = cgroup2_root(&root, NULL);
	if (r < 0)
		return r;
	r = cgroup2_normalize(o->subtree && *o->subtree ? o->subtree : "/", top, sizeof(top));
	if (r < 0)
		return r;

	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->inotify_fd = -1;
	w->anchor_wd = -1;
	w->max_depth = o->max_depth;
	w->max_watches = o->max_watches;
	w->generation = 1;
	if (ops)
		w->ops = *ops;
	w->ctx = ctx;

	w->root = strdup(root);
	w->top_path = strdup(top);
	w->removed_cap = o->removed_history ? o->removed_history : CG_WATCH_REMOVED_HISTORY;
	w->removed = calloc(w->removed_cap, sizeof(*w->removed));
	if (!w->root || !w->top_path || !w->removed) {
		r = -ENOMEM;
		goto fail;
	}
	w->top_name = strrchr(w->top_path, '/') + 1;
	w->top_level = cgroup2_level(w->top_path);
	if (w->max_depth > 0 && w->top_level > w->max_depth) {
		/* Nothing could ever be reported. */
		r = -EINVAL;
		goto fail;
	}

	r = index_init(&w->by_path);
	if (r < 0)
		goto fail;

	w->inotify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (w->inotify_fd < 0) {
		r = -errno;
		goto fail;
	}

	/* Anchor first: a top removed between our scan and the anchor would
         * otherwise go unnoticed until a rescan. */
	watch_anchor(w);
	r = visit_path(w, NULL, w->top_path, w->top_level, false);
	if (r < 0)
		goto fail;

	*ret = w;
	return 0;
fail:
	cg_watch_free(w);
	return r;
}

int cg_watch_fd(const struct cg_watch *w)
{
	return w ? w->inotify_fd : -EINVAL;
}

int cg_watch_ancestors(const struct cg_watch *w, uint64_t id, uint64_t *ret_ids, int max)
{
	const struct node *n = w ? lookup_id(w, id) : NULL, *a;
	int nr = 0;

	if (!n)
		return -ENOENT;
	for (a = n->parent; a; a = a->parent)
		nr++;
	/* The chain must reach the hierarchy root (level 0) to be whole. */
	if (nr != n->level)
		return -ENOENT;
	if (nr > max)
		return -ENOBUFS;
	a = n->parent;
	for (int i = nr - 1; i >= 0; i--, a = a->parent)
		ret_ids[i] = a->id;
	return nr;
}

const char *cg_watch_path_of(const struct cg_watch *w, uint64_t id)
{
	struct node *n;

	if (!w)
		return NULL;
	n = lookup_id(w, id);
	if (n)
		return n->path;
	/* Newest first: on ordinary filesystems an inode number (the id there)
         * can come back. */
	for (size_t i = 0; i < w->removed_count; i++) {
		const struct removed_entry *e =
			&w->removed[(w->removed_next + w->removed_cap - 1 - i) % w->removed_cap];

		if (e->id == id)
			return e->path;
	}
	return NULL;
}

static void count_nodes(const struct cg_watch *w, const struct node *n, struct cg_watch_stats *s)
{
	if (n->reported)
		s->cgroups++;
	if (n->wd < 0 && node_wants_children(w, n)) {
		if (n->want_watch)
			s->unwatched++;
		else
			s->not_wanted++;
	}
	for (const struct node *c = n->first_child; c; c = c->next_sibling)
		count_nodes(w, c, s);
}

void cg_watch_get_stats(const struct cg_watch *w, struct cg_watch_stats *ret)
{
	struct cg_watch_stats s;

	if (!w || !ret)
		return;
	s = w->stats;
	s.cgroups = s.unwatched = s.not_wanted = 0;
	if (w->top)
		count_nodes(w, w->top, &s);
	*ret = s;
}

static void read_watch_limit(char *buf, size_t size)
{
	FILE *f;

	/* This user namespace's limit; in the initial namespace it is the
         * same value as fs.inotify.max_user_watches. */
	snprintf(buf, size, "?");
	f = fopen("/proc/sys/user/max_inotify_watches", "re");
	if (!f)
		f = fopen("/proc/sys/fs/inotify/max_user_watches", "re");
	if (!f)
		return;
	if (!fgets(buf, (int)size, f))
		snprintf(buf, size, "?");
	buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

bool cg_watch_limit_reason(const struct cg_watch *w, char *buf, size_t size)
{
	struct cg_watch_stats s;
	char limit[32];

	if (!w || !buf || size == 0)
		return false;
	cg_watch_get_stats(w, &s);
	if (s.unwatched == 0 && s.limit_hits == 0 && s.cap_hits == 0)
		return false;

	read_watch_limit(limit, sizeof(limit));
	if (s.unwatched == 0 && s.cap_hits > 0)
		snprintf(buf, size,
			 "the cap of %u inotify watches was reached %u times; every cgroup "
			 "directory that needs a watch has one again now",
			 w->max_watches, s.cap_hits);
	else if (s.unwatched == 0)
		snprintf(
			buf, size,
			"inotify watch limit (fs.inotify.max_user_watches=%s) was reached %u times; "
			"every cgroup directory is watched again now",
			limit, s.limit_hits);
	else if (s.cap_hits > 0)
		snprintf(buf, size,
			 "%u cgroup directories have no inotify watch: the cap of %u watches is "
			 "reached (%u times); cgroups created below them are found by the "
			 "periodic rescan only",
			 s.unwatched, w->max_watches, s.cap_hits);
	else if (s.limit_hits > 0)
		snprintf(
			buf, size,
			"%u cgroup directories have no inotify watch: fs.inotify.max_user_watches=%s "
			"reached (%u times); cgroups created below them are found by the periodic "
			"rescan only",
			s.unwatched, limit, s.limit_hits);
	else
		snprintf(buf, size,
			 "%u cgroup directories have no inotify watch (%s); cgroups created below "
			 "them are found by the periodic rescan only",
			 s.unwatched, strerror(w->last_watch_error ? w->last_watch_error : EIO));
	return true;
}
