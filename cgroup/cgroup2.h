/* SPDX-License-Identifier: GPL-2.0-only */
/* The cgroup2 hierarchy: where it is mounted, id <-> path. */
#pragma once
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>

enum cgroup_mode {
	CGROUP_MODE_UNKNOWN,
	CGROUP_MODE_LEGACY,
	CGROUP_MODE_HYBRID,
	CGROUP_MODE_UNIFIED
};

/* Find the cgroup2 mount point (e.g. /sys/fs/cgroup or /sys/fs/cgroup/unified).
 * Result cached after the first successful call. Returns 0 or -ENOENT when
 * there is no cgroup2 mount (legacy-only host). ret_mode may be NULL.
 * CGPERF_CGROUP2_ROOT=/abs/dir in the environment overrides the mount point
 * (tests; re-read on every call, -EINVAL if not absolute). */
int cgroup2_root(const char **ret_root, enum cgroup_mode *ret_mode);

/* The parser behind cgroup2_root(), exposed for tests: reads mountinfo lines
 * from f. On success ret_root is the preferred cgroup2 mount point
 * (/sys/fs/cgroup, then /sys/fs/cgroup/unified, then the first listed) or ""
 * when there is none, and ret_mode is the host's mode (UNKNOWN: no cgroup
 * mounts at all). Returns 0 or negative errno. */
int cgroup2_parse_mountinfo(FILE *f, char *ret_root, size_t root_len, enum cgroup_mode *ret_mode);

/* The cgroup id (what bpf_get_current_cgroup_id() returns) of a cgroup given
 * by a path relative to the cgroup2 root ("/a/b", "a/b", "/" all accepted) or
 * absolute under the root. Returns 0 or negative errno (-ENOENT: no such cgroup). */
int cgroup2_id_of(const char *rel_path, uint64_t *ret_id);

/* The id of the cgroup directory open at fd: the id comes from that very
 * directory, not from a second lookup by path that a concurrent rmdir+mkdir
 * could redirect (the watcher relies on this). */
int cgroup2_id_of_fd(int fd, uint64_t *ret_id);

/* Normalise a user-given cgroup path to the "/a/b" form relative to the root
 * (strips the mount prefix, duplicate and trailing slashes, "." components).
 * -EINVAL for "" or a ".." component, -ENAMETOOLONG if out is too small;
 * out is only written on success. */
int cgroup2_normalize(const char *path, char *out, size_t out_len);

/* Ids of every ancestor of rel_path, from the root (level 0) down to the
 * parent, excluding the cgroup itself. Returns the count written, or negative errno
 * (-ENOBUFS if max is too small; ret_ids untouched on failure). */
int cgroup2_ancestor_ids(const char *rel_path, uint64_t *ret_ids, int max);

/* Every cgroup under the root whose relative path matches the glob `pattern`
 * (fnmatch with FNM_PATHNAME semantics, a "**" component matching zero or more
 * components; a pattern without '/' matches a cgroup whose own name, i.e. last
 * path component, matches, at any depth, like perf's --for-each-cgroup regex).
 * The root itself is never reported. Calls cb for each, in sorted (tree) order,
 * after the walk; cb returning non-zero stops and that value is returned.
 * Returns number matched or negative errno. */
typedef int (*cgroup2_walk_cb)(const char *rel_path, uint64_t id, void *data);
int cgroup2_for_each_matching(const char *pattern, cgroup2_walk_cb cb, void *data);

/* Level of a cgroup (root is 0), or negative errno for an invalid path. */
int cgroup2_level(const char *rel_path);

/* The matching rule of cgroup2_for_each_matching() for one path: a pattern
 * with '/' is a glob on the whole relative path ("**" spans levels), one
 * without matches the last component. */
#include <stdbool.h>
bool cgroup2_path_matches(const char *pattern, const char *rel_path);
/* Could a cgroup below rel_path (one or more levels deeper) match pattern
 * under that rule? Always true for a pattern without '/'. */
bool cgroup2_path_may_match_below(const char *pattern, const char *rel_path);
