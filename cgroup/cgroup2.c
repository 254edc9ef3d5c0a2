// SPDX-License-Identifier: GPL-2.0-only
/* The cgroup2 hierarchy: locate the mount, map paths to the ids that
 * bpf_get_current_cgroup_id() reports, walk the tree.
 *
 * Environment:
 *   CGPERF_CGROUP2_ROOT=/abs/dir  Use this directory as the cgroup2 root
 *                                 instead of the mount found in
 *                                 /proc/self/mountinfo. Meant for tests: any
 *                                 plain directory tree can stand in for the
 *                                 hierarchy (ids then fall back to inode
 *                                 numbers). Read on every cgroup2_root() call,
 *                                 so tests may set and unset it at run time;
 *                                 an empty value counts as unset. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "cgroup/cgroup2.h"
#include "util/mountinfo.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Handle type kernfs hands out from name_to_handle_at(); its 8 bytes are the
 * kernfs node id, i.e. the cgroup id BPF sees. Not part of the uapi headers. */
#ifndef FILEID_KERNFS
#define FILEID_KERNFS 0xfe
#endif

#define ROOT_ENV "CGPERF_CGROUP2_ROOT"

/* ---------------------------------------------------------------------------
 * Path normalisation
 * ------------------------------------------------------------------------- */

/* Rewrites path as "/a/b" (or "/"): drops empty and "." components. ".." is
 * refused rather than resolved: a cgroup selector climbing out of where it
 * points is almost certainly a mistake, and resolving it lexically could
 * escape the hierarchy. */
static int collapse_path(const char *path, char **ret)
{
	char *buf, *w;

	buf = malloc(strlen(path) + 2);
	if (!buf)
		return -ENOMEM;

	w = buf;
	for (const char *p = path;;) {
		size_t len;

		p += strspn(p, "/");
		len = strcspn(p, "/");
		if (len == 0)
			break;
		if (len == 2 && p[0] == '.' && p[1] == '.') {
			free(buf);
			return -EINVAL;
		}
		if (!(len == 1 && p[0] == '.')) {
			*w++ = '/';
			memcpy(w, p, len);
			w += len;
		}
		p += len;
	}
	if (w == buf)
		*w++ = '/';
	*w = '\0';

	*ret = buf;
	return 0;
}

/* Maps an already collapsed absolute path below the mount point to the part
 * relative to it; anything else is returned unchanged. Only whole components
 * count, so "/sys/fs/cgroupfoo" is not stripped. */
static const char *strip_root(const char *norm)
{
	const char *root;
	size_t n;

	/* Without a hierarchy there is no prefix to strip: not an error here. */
	if (cgroup2_root(&root, NULL) < 0)
		return norm;

	n = strlen(root);
	if (n <= 1 || strncmp(norm, root, n) != 0)
		return norm;
	if (norm[n] == '\0')
		return "/";
	return norm[n] == '/' ? norm + n : norm;
}

int cgroup2_normalize(const char *path, char *out, size_t out_len)
{
	const char *rel;
	char *norm = NULL;
	size_t len;
	int r;

	if (!path || !*path || !out)
		return -EINVAL;

	r = collapse_path(path, &norm);
	if (r < 0)
		return r;

	/* Only an absolute input can name the mount point; "sys/fs/cgroup/x"
         * is a relative cgroup path that happens to look like one. */
	rel = path[0] == '/' ? strip_root(norm) : norm;
	len = strlen(rel);
	if (len >= out_len)
		r = -ENAMETOOLONG;
	else
		memcpy(out, rel, len + 1);

	free(norm);
	return r;
}

static int normalized_level(const char *norm)
{
	int level = 0;

	if (strcmp(norm, "/") == 0)
		return 0;
	for (const char *p = norm; *p; p++)
		if (*p == '/')
			level++;
	return level;
}

int cgroup2_level(const char *rel_path)
{
	char norm[PATH_MAX];
	int r;

	r = cgroup2_normalize(rel_path, norm, sizeof(norm));
	if (r < 0)
		return r;
	return normalized_level(norm);
}

/* ---------------------------------------------------------------------------
 * Finding the mount
 * ------------------------------------------------------------------------- */

/* With several cgroup2 mounts (bind mounts, a stray manual mount) prefer the
 * canonical places; otherwise the first one listed wins. */
static int mount_rank(const char *mnt)
{
	if (strcmp(mnt, "/sys/fs/cgroup") == 0)
		return 3;
	if (strcmp(mnt, "/sys/fs/cgroup/unified") == 0)
		return 2;
	return 1;
}

static enum cgroup_mode mode_from_counts(unsigned n_v1, unsigned n_v2)
{
	if (n_v2 > 0)
		return n_v1 > 0 ? CGROUP_MODE_HYBRID : CGROUP_MODE_UNIFIED;
	return n_v1 > 0 ? CGROUP_MODE_LEGACY : CGROUP_MODE_UNKNOWN;
}

/* mountinfo parsing is used rather than libcgroup's cgroup_setup_mode():
 * it needs no library state, cannot fail in cgroup_init(), and tells us the
 * mount point, which libcgroup's mode query does not. */
int cgroup2_parse_mountinfo(FILE *f, char *ret_root, size_t root_len, enum cgroup_mode *ret_mode)
{
	char *line = NULL, *best = NULL;
	size_t line_size = 0;
	unsigned n_v1 = 0, n_v2 = 0;
	int best_rank = 0, r = 0;

	if (!f || !ret_root || !ret_mode)
		return -EINVAL;

	while (getline(&line, &line_size, f) >= 0) {
		struct mountinfo_line m;
		const char *mnt;

		/* A line we cannot parse says nothing about cgroups: skip it. */
		if (mountinfo_split(line, &m) < 0)
			continue;
		mnt = m.mnt;
		if (strcmp(m.fstype, "cgroup") == 0)
			n_v1++;
		else if (strcmp(m.fstype, "cgroup2") == 0) {
			n_v2++;
			if (mount_rank(mnt) > best_rank) {
				char *copy = strdup(mnt);

				if (!copy) {
					r = -ENOMEM;
					goto finish;
				}
				free(best);
				best = copy;
				best_rank = mount_rank(mnt);
			}
		}
	}
	if (ferror(f)) {
		r = -EIO;
		goto finish;
	}
	if (best && strlen(best) >= root_len) {
		r = -ENAMETOOLONG;
		goto finish;
	}
	if (!best && root_len == 0) {
		r = -ENAMETOOLONG;
		goto finish;
	}

	strcpy(ret_root, best ?: "");
	*ret_mode = mode_from_counts(n_v1, n_v2);
finish:
	free(best);
	free(line);
	return r;
}

static pthread_mutex_t root_lock = PTHREAD_MUTEX_INITIALIZER;
/* Guarded by root_lock; once root_cached is set, root_cache and mode_cache
 * never change again, so the pointer handed out stays valid and stable. */
static bool root_cached;
static char root_cache[PATH_MAX];
static enum cgroup_mode mode_cache;
/* Only rewritten when the override's value changes, i.e. by tests. */
static char root_override[PATH_MAX];

static int scan_host(char *ret_root, size_t root_len, enum cgroup_mode *ret_mode)
{
	FILE *f;
	int r;

	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return -errno;
	r = cgroup2_parse_mountinfo(f, ret_root, root_len, ret_mode);
	fclose(f);
	return r;
}

/* Must hold root_lock. Only a found cgroup2 mount is cached: on a host where
 * it is missing it may still get mounted later. */
static int detect_locked(void)
{
	char root[PATH_MAX];
	enum cgroup_mode mode;
	int r;

	if (root_cached)
		return 0;

	r = scan_host(root, sizeof(root), &mode);
	if (r < 0)
		return r;
	if (root[0] == '\0')
		return -ENOENT;

	strcpy(root_cache, root);
	mode_cache = mode;
	root_cached = true;
	return 0;
}

/* Must hold root_lock. The mode describes the host, so it still comes from
 * mountinfo (UNKNOWN when that has no cgroup mounts at all or cannot be read). */
static int override_locked(const char *value, const char **ret_root, enum cgroup_mode *ret_mode)
{
	char root[PATH_MAX];
	enum cgroup_mode mode = CGROUP_MODE_UNKNOWN;
	char *norm = NULL;
	int r;

	if (value[0] != '/')
		return -EINVAL;

	r = collapse_path(value, &norm);
	if (r < 0)
		return r;
	if (strlen(norm) >= sizeof(root_override)) {
		r = -ENAMETOOLONG;
		goto finish;
	}
	if (strcmp(root_override, norm) != 0)
		strcpy(root_override, norm);

	if (detect_locked() >= 0)
		mode = mode_cache;
	else if (scan_host(root, sizeof(root), &mode) < 0)
		mode = CGROUP_MODE_UNKNOWN;

	*ret_root = root_override;
	if (ret_mode)
		*ret_mode = mode;
finish:
	free(norm);
	return r;
}

int cgroup2_root(const char **ret_root, enum cgroup_mode *ret_mode)
{
	const char *override;
	int r;

	if (!ret_root)
		return -EINVAL;

	pthread_mutex_lock(&root_lock);
	override = getenv(ROOT_ENV);
	if (override && *override) {
		r = override_locked(override, ret_root, ret_mode);
		goto finish;
	}

	r = detect_locked();
	if (r < 0)
		goto finish;
	*ret_root = root_cache;
	if (ret_mode)
		*ret_mode = mode_cache;
finish:
	pthread_mutex_unlock(&root_lock);
	return r;
}

/* ---------------------------------------------------------------------------
 * Ids
 * ------------------------------------------------------------------------- */

int cgroup2_id_of_fd(int fd, uint64_t *ret_id)
{
	union {
		struct file_handle fh;
		uint8_t space[offsetof(struct file_handle, f_handle) + sizeof(uint64_t)];
	} h = { .fh.handle_bytes = sizeof(uint64_t) };
	struct stat st;
	int mnt_id;

	if (name_to_handle_at(fd, "", &h.fh, &mnt_id, AT_EMPTY_PATH) >= 0 &&
	    h.fh.handle_type == FILEID_KERNFS && h.fh.handle_bytes == sizeof(uint64_t)) {
		memcpy(ret_id, h.fh.f_handle, sizeof(uint64_t));
		return 0;
	}

	/* Not kernfs (an override tree) or no handle support: on 64-bit
         * kernels >= 5.5 the kernfs inode number is the id as well. */
	if (fstat(fd, &st) < 0)
		return -errno;
	*ret_id = (uint64_t)st.st_ino;
	return 0;
}

/* norm is a "/a/b" path relative to the root; no further prefix stripping, so
 * a cgroup whose relative path happens to look like the mount point works. */
static int id_of_normalized(const char *norm, uint64_t *ret_id)
{
	char path[PATH_MAX];
	const char *root;
	uint64_t id;
	int fd, r;

	r = cgroup2_root(&root, NULL);
	if (r < 0)
		return r;

	r = snprintf(path, sizeof(path), "%s%s", root, strcmp(norm, "/") == 0 ? "" : norm);
	if (r < 0 || (size_t)r >= sizeof(path))
		return -ENAMETOOLONG;

	/* O_DIRECTORY gives -ENOTDIR for interface files such as
         * cgroup.procs, which would otherwise yield a kernfs handle too. */
	fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;

	r = cgroup2_id_of_fd(fd, &id);
	close(fd);
	if (r < 0)
		return r;

	*ret_id = id;
	return 0;
}

int cgroup2_id_of(const char *rel_path, uint64_t *ret_id)
{
	char norm[PATH_MAX];
	int r;

	if (!ret_id)
		return -EINVAL;

	r = cgroup2_normalize(rel_path, norm, sizeof(norm));
	if (r < 0)
		return r;
	return id_of_normalized(norm, ret_id);
}

/* The cgroup itself need not exist, its ancestors must: callers may resolve
 * the parents of a cgroup that is about to be created or just went away. */
int cgroup2_ancestor_ids(const char *rel_path, uint64_t *ret_ids, int max)
{
	char norm[PATH_MAX];
	uint64_t *ids = NULL;
	char *slash;
	int n, r;

	if (max < 0 || (max > 0 && !ret_ids))
		return -EINVAL;

	r = cgroup2_normalize(rel_path, norm, sizeof(norm));
	if (r < 0)
		return r;

	/* A cgroup at level n has exactly n ancestors, root included. */
	n = normalized_level(norm);
	if (n > max)
		return -ENOBUFS;
	if (n == 0)
		return 0;

	ids = calloc(n, sizeof(*ids));
	if (!ids)
		return -ENOMEM;

	/* Ancestor i is norm cut at its (i+1)-th '/', except the root. */
	slash = norm;
	for (int i = 0; i < n; i++) {
		if (i == 0)
			r = id_of_normalized("/", &ids[0]);
		else {
			*slash = '\0';
			r = id_of_normalized(norm, &ids[i]);
			*slash = '/';
		}
		if (r < 0)
			goto finish;
		slash = strchr(slash + 1, '/');
	}

	memcpy(ret_ids, ids, n * sizeof(*ids));
	r = n;
finish:
	free(ids);
	return r;
}

/* ---------------------------------------------------------------------------
 * Walking
 * ------------------------------------------------------------------------- */

/* fnmatch() wants NUL-terminated strings; copy into buffers that live only
 * for this call so the recursion in glob_match() stays cheap on stack. */
static bool component_match(const char *pat, size_t pat_len, const char *name, size_t name_len)
{
	char p[PATH_MAX], n[PATH_MAX];

	if (pat_len >= sizeof(p) || name_len >= sizeof(n))
		return false;
	memcpy(p, pat, pat_len);
	p[pat_len] = '\0';
	memcpy(n, name, name_len);
	n[name_len] = '\0';
	return fnmatch(p, n, 0) == 0;
}

/* Matches a relative path "a/b/c" (no leading '/') against a pattern one
 * component at a time: a component "**" matches zero or more whole
 * components, everything else is an fnmatch() glob within one component
 * (equivalent to FNM_PATHNAME). Empty pattern components are ignored so
 * "a//b/" means "a/b". With below, whether a path one or more components
 * below path could match instead: what remains of the pattern once path is
 * used up can always match some further components, and a last "**" takes
 * everything. */
static bool glob_walk(const char *pat, const char *path, bool below)
{
	const char *pat_end, *path_end;

	pat += strspn(pat, "/");
	if (below && *path == '\0')
		return *pat != '\0';
	if (*pat == '\0')
		return !below && *path == '\0';

	pat_end = strchrnul(pat, '/');
	if (pat_end - pat == 2 && pat[0] == '*' && pat[1] == '*') {
		if (below && pat_end[strspn(pat_end, "/")] == '\0')
			return true;
		for (const char *p = path;;) {
			if (glob_walk(pat_end, p, below))
				return true;
			if (*p == '\0')
				return false;
			p = strchrnul(p, '/');
			if (*p)
				p++;
		}
	}

	if (*path == '\0')
		return false;
	path_end = strchrnul(path, '/');
	if (!component_match(pat, pat_end - pat, path, path_end - path))
		return false;
	return glob_walk(pat_end, *path_end ? path_end + 1 : path_end, below);
}

static bool glob_match(const char *pat, const char *path)
{
	return glob_walk(pat, path, false);
}

struct match {
	char *path;
	uint64_t id;
};

struct walk {
	const char *pattern;
	bool full_path; /* pattern had a '/': match the whole path */
	struct match *matches;
	size_t n_matches, n_allocated;
};

static void walk_done(struct walk *w)
{
	if (!w)
		return;
	for (size_t i = 0; i < w->n_matches; i++)
		free(w->matches[i].path);
	free(w->matches);
	w->matches = NULL;
	w->n_matches = w->n_allocated = 0;
}

static bool walk_matches(const struct walk *w, const char *rel, const char *name)
{
	if (w->full_path)
		return glob_match(w->pattern, rel + 1);
	return fnmatch(w->pattern, name, 0) == 0;
}

static int walk_add(struct walk *w, const char *rel, uint64_t id)
{
	char *copy;

	if (w->n_matches == w->n_allocated) {
		size_t n = w->n_allocated ? w->n_allocated * 2 : 64;
		struct match *m = reallocarray(w->matches, n, sizeof(*m));

		if (!m)
			return -ENOMEM;
		w->matches = m;
		w->n_allocated = n;
	}

	copy = strdup(rel);
	if (!copy)
		return -ENOMEM;
	w->matches[w->n_matches++] = (struct match){ .path = copy, .id = id };
	return 0;
}

static int walk_dir(struct walk *w, int dfd, const char *rel);

/* Errors meaning "this entry is gone, or is not a directory we may enter":
 * cgroups appear and vanish all the time, and symlinks are not followed. */
static bool errno_is_vanished(int err)
{
	return err == ENOENT || err == ENOTDIR || err == ELOOP || err == ESTALE || err == ENODEV;
}

/* Records the cgroup open at fd as a match; one that vanished meanwhile is
 * simply left out. */
static int walk_collect(struct walk *w, int fd, const char *rel)
{
	uint64_t id;
	int r;

	r = cgroup2_id_of_fd(fd, &id);
	if (r < 0)
		return errno_is_vanished(-r) ? 0 : r;
	return walk_add(w, rel, id);
}

static int walk_child(struct walk *w, int parent_fd, const char *parent_rel, const char *name)
{
	char *rel = NULL;
	int fd, r;

	/* O_NOFOLLOW: never leave the tree through a symlink. */
	fd = openat(parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno_is_vanished(errno) ? 0 : -errno;

	if (asprintf(&rel, "%s/%s", parent_rel, name) < 0) {
		close(fd);
		return -ENOMEM;
	}

	if (walk_matches(w, rel, name)) {
		r = walk_collect(w, fd, rel);
		if (r < 0) {
			close(fd);
			goto finish;
		}
	}

	r = walk_dir(w, fd, rel);
finish:
	free(rel);
	return r;
}

/* Consumes dfd. */
static int walk_dir(struct walk *w, int dfd, const char *rel)
{
	struct dirent *de;
	DIR *d;
	int r = 0;

	d = fdopendir(dfd);
	if (!d) {
		r = -errno;
		close(dfd);
		return r;
	}

	for (;;) {
		errno = 0;
		de = readdir(d);
		if (!de) {
			/* A directory removed while we read it just ends. */
			if (errno != 0 && !errno_is_vanished(errno))
				r = -errno;
			break;
		}
		if (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN)
			continue;
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;

		r = walk_child(w, dirfd(d), rel, de->d_name);
		if (r < 0)
			break;
	}

	closedir(d);
	return r;
}

/* Byte order, except that '/' sorts before every other byte: this puts each
 * cgroup's descendants right after it (tree order), e.g. "/a", "/a/b", "/a b",
 * where plain strcmp() would put "/a b" between "/a" and "/a/b". */
static int path_compare(const char *a, const char *b)
{
	for (;; a++, b++) {
		unsigned ra = *a == '/' ? 1 : *a == '\0' ? 0 : (unsigned char)*a + 1u;
		unsigned rb = *b == '/' ? 1 : *b == '\0' ? 0 : (unsigned char)*b + 1u;

		if (ra != rb)
			return ra < rb ? -1 : 1;
		if (ra == 0)
			return 0;
	}
}

static int match_compare(const void *a, const void *b)
{
	return path_compare(((const struct match *)a)->path, ((const struct match *)b)->path);
}

/* cb may be NULL to just count. The callback runs after the walk, so it may
 * create or remove cgroups without disturbing it. */
int cgroup2_for_each_matching(const char *pattern, cgroup2_walk_cb cb, void *data)
{
	struct walk w = {};
	const char *root;
	int fd, r;

	if (!pattern || !*pattern)
		return -EINVAL;

	r = cgroup2_root(&root, NULL);
	if (r < 0)
		return r;

	w.full_path = strchr(pattern, '/') != NULL;
	w.pattern = pattern;

	fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;

	/* The root has rel "" and is never reported, only descended into. */
	r = walk_dir(&w, fd, "");
	if (r < 0)
		goto finish;

	if (w.n_matches > 0)
		qsort(w.matches, w.n_matches, sizeof(*w.matches), match_compare);

	r = (int)w.n_matches;
	for (size_t i = 0; cb && i < w.n_matches; i++) {
		int k = cb(w.matches[i].path, w.matches[i].id, data);

		if (k != 0) {
			r = k;
			break;
		}
	}
finish:
	walk_done(&w);
	return r;
}

bool cgroup2_path_matches(const char *pattern, const char *rel_path)
{
	const char *name;

	if (!pattern || !rel_path)
		return false;
	if (strchr(pattern, '/'))
		return glob_match(pattern, rel_path + strspn(rel_path, "/"));
	name = strrchr(rel_path, '/');
	return fnmatch(pattern, name ? name + 1 : rel_path, 0) == 0;
}

bool cgroup2_path_may_match_below(const char *pattern, const char *rel_path)
{
	if (!pattern || !rel_path)
		return false;
	if (!strchr(pattern, '/'))
		return true; /* a name: any level may have it */
	return glob_walk(pattern, rel_path + strspn(rel_path, "/"), true);
}
