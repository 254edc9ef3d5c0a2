// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for cgroup/cgroup2.c.
 *
 * Three groups:
 *  - parsing: mountinfo parsing (fmemopen), normalisation, levels; no fs state.
 *  - override: CGPERF_CGROUP2_ROOT pointing at a plain temporary tree.
 *  - real: a private subtree "cgperf-unit-cgroup2-<pid>" under the host's real
 *    cgroup2 root (needs root). Only directories inside that subtree are ever
 *    created or removed; the group teardown removes it even after failures.
 *    Skipped when there is no cgroup2 mount or we may not create cgroups. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include "tests/lib/rm_tree.h"
#include "tests/lib/unit_skip.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "cgroup/cgroup2.h"

#define ROOT_ENV "CGPERF_CGROUP2_ROOT"
#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif
#define ELEMENTSOF(a) (sizeof(a) / sizeof((a)[0]))
#define MAX_SEEN 128

/* ---------------------------------------------------------------------------
 * Helpers
 * ------------------------------------------------------------------------- */

static bool path_under(const char *path, const char *prefix)
{
	size_t n = strlen(prefix);

	return strncmp(path, prefix, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* What cgroup2_for_each_matching() reported. Only paths under `prefix` are
 * kept: the host's own cgroups (and other tests' subtrees) may match too. */
struct seen {
	const char *prefix;
	char *paths[MAX_SEEN];
	uint64_t ids[MAX_SEEN];
	size_t n, calls;
	size_t stop_at; /* return stop_value from this call (1-based); 0 = never */
	int stop_value;
};

static int collect_cb(const char *rel_path, uint64_t id, void *data)
{
	struct seen *s = data;

	s->calls++;
	if (!s->prefix || path_under(rel_path, s->prefix)) {
		assert_true(s->n < MAX_SEEN);
		s->paths[s->n] = strdup(rel_path);
		assert_non_null(s->paths[s->n]);
		s->ids[s->n++] = id;
	}
	return s->stop_at != 0 && s->calls == s->stop_at ? s->stop_value : 0;
}

static void seen_clear(struct seen *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->paths[i]);
	s->n = s->calls = 0;
}

static uint64_t ino_of(const char *root, const char *rel)
{
	char path[PATH_MAX];
	struct stat st;

	assert_true(snprintf(path, sizeof(path), "%s%s", root, strcmp(rel, "/") == 0 ? "" : rel) <
		    (int)sizeof(path));
	assert_int_equal(lstat(path, &st), 0);
	return (uint64_t)st.st_ino;
}

/* Runs the walk and checks it reported exactly base + expected[i] (in that
 * order) among the paths under base, each with its inode number as id.
 * An expected entry "" stands for base itself. */
static void check_walk(const char *root, const char *base, const char *pattern,
		       const char *const *expected, size_t n_expected)
{
	struct seen s = { .prefix = base[0] ? base : NULL };
	int r;

	r = cgroup2_for_each_matching(pattern, collect_cb, &s);
	assert_true(r >= 0);
	assert_int_equal((size_t)r, s.calls);
	assert_int_equal(s.n, n_expected);
	for (size_t i = 0; i < n_expected; i++) {
		char want[PATH_MAX];

		snprintf(want, sizeof(want), "%s%s", base, expected[i]);
		assert_string_equal(s.paths[i], want);
		assert_int_equal(s.ids[i], ino_of(root, s.paths[i]));
	}
	seen_clear(&s);
}

/* ---------------------------------------------------------------------------
 * Group "parsing": no filesystem state needed
 * ------------------------------------------------------------------------- */

#define HYBRID_MOUNTINFO                                                                    \
	"22 1 0:21 / /sys rw,nosuid,nodev,noexec,relatime shared:7 - sysfs sysfs rw\n"      \
	"30 22 0:27 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"               \
	"31 30 0:28 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"              \
	"34 30 0:31 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"        \
	"39 30 0:36 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd\n" \
	"40 30 0:37 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n"

#define UNIFIED_MOUNTINFO                                                              \
	"23 1 0:21 / /proc rw,nosuid,nodev,noexec,relatime shared:12 - proc proc rw\n" \
	"35 24 0:30 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:9 - cgroup2 cgroup2 rw,nsdelegate\n"

struct mountinfo_case {
	const char *name;
	const char *text;
	const char *root;
	enum cgroup_mode mode;
};

static const struct mountinfo_case mountinfo_cases[] = {
	{ "hybrid", HYBRID_MOUNTINFO, "/sys/fs/cgroup/unified", CGROUP_MODE_HYBRID },
	{ "unified", UNIFIED_MOUNTINFO, "/sys/fs/cgroup", CGROUP_MODE_UNIFIED },
	{ "legacy",
	  "30 22 0:27 / /sys/fs/cgroup rw - tmpfs tmpfs rw\n"
	  "31 30 0:28 / /sys/fs/cgroup/cpu rw,relatime shared:3 master:1 - cgroup cgroup rw,cpu\n",
	  "", CGROUP_MODE_LEGACY },
	{ "none", "23 1 0:21 / /proc rw - proc proc rw\n", "", CGROUP_MODE_UNKNOWN },
	{ "empty", "", "", CGROUP_MODE_UNKNOWN },
	{ "prefer /sys/fs/cgroup",
	  "50 1 0:40 / /mnt/cg2 rw - cgroup2 cgroup2 rw\n"
	  "51 1 0:40 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n"
	  "52 1 0:40 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n"
	  "53 1 0:40 / /mnt/cg3 rw - cgroup2 cgroup2 rw\n",
	  "/sys/fs/cgroup", CGROUP_MODE_UNIFIED },
	{ "prefer unified over others",
	  "50 1 0:40 / /mnt/cg2 rw - cgroup2 cgroup2 rw\n"
	  "51 1 0:40 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n",
	  "/sys/fs/cgroup/unified", CGROUP_MODE_UNIFIED },
	{ "first otherwise",
	  "50 1 0:40 / /mnt/cg2 rw - cgroup2 cgroup2 rw\n"
	  "51 1 0:40 / /mnt/cg1 rw - cgroup2 cgroup2 rw\n",
	  "/mnt/cg2", CGROUP_MODE_UNIFIED },
	{ "escaped mount point, optional fields, garbage lines",
	  "garbage\n"
	  "\n"
	  "1 2 3 4 5 6 7 8\n"
	  "60 1 0:40 / /mnt/my\\040cg\\134x rw shared:1 master:2 propagate_from:3 - cgroup2 none rw\n",
	  "/mnt/my cg\\x", CGROUP_MODE_UNIFIED },
	{ "no trailing newline", "35 24 0:30 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw",
	  "/sys/fs/cgroup", CGROUP_MODE_UNIFIED },
};

static void test_parse_mountinfo(void **state)
{
	(void)state;

	for (size_t i = 0; i < ELEMENTSOF(mountinfo_cases); i++) {
		const struct mountinfo_case *c = &mountinfo_cases[i];
		char root[PATH_MAX] = "untouched";
		enum cgroup_mode mode = (enum cgroup_mode) - 1;
		FILE *f;

		print_message("mountinfo case: %s\n", c->name);
		/* fmemopen() of a zero-sized buffer fails; "" needs size 1 in "r" mode. */
		f = fmemopen((void *)c->text, strlen(c->text) ?: 1, "r");
		assert_non_null(f);
		assert_int_equal(cgroup2_parse_mountinfo(f, root, sizeof(root), &mode), 0);
		fclose(f);
		assert_string_equal(root, c->root);
		assert_int_equal(mode, c->mode);
	}
}

static void test_parse_mountinfo_too_long(void **state)
{
	char root[8] = "same";
	enum cgroup_mode mode = CGROUP_MODE_LEGACY;
	FILE *f;

	(void)state;
	f = fmemopen((void *)UNIFIED_MOUNTINFO, strlen(UNIFIED_MOUNTINFO), "r");
	assert_non_null(f);
	assert_int_equal(cgroup2_parse_mountinfo(f, root, sizeof(root), &mode), -ENAMETOOLONG);
	fclose(f);
	/* Out-params untouched on failure. */
	assert_string_equal(root, "same");
	assert_int_equal(mode, CGROUP_MODE_LEGACY);

	assert_int_equal(cgroup2_parse_mountinfo(NULL, root, sizeof(root), &mode), -EINVAL);
}

struct norm_case {
	const char *in;
	int ret;
	const char *out;
};

static const struct norm_case norm_cases[] = {
	{ "a/b", 0, "/a/b" },
	{ "/a/b", 0, "/a/b" },
	{ "/a//b/", 0, "/a/b" },
	{ "a", 0, "/a" },
	{ "/", 0, "/" },
	{ "//", 0, "/" },
	{ ".", 0, "/" },
	{ "./a/./b/.", 0, "/a/b" },
	{ "/a b/c,d/\"e\"/\xff\xfe", 0, "/a b/c,d/\"e\"/\xff\xfe" },
	{ "/a..b/..c/.d", 0, "/a..b/..c/.d" },
	{ "system.slice/docker-0123abcd.scope", 0, "/system.slice/docker-0123abcd.scope" },
	{ "", -EINVAL, NULL },
	{ "..", -EINVAL, NULL },
	{ "/..", -EINVAL, NULL },
	{ "/a/../b", -EINVAL, NULL },
	{ "a/..", -EINVAL, NULL },
	{ "a/../", -EINVAL, NULL },
};

static void check_normalize(const char *in, int ret, const char *out)
{
	char buf[PATH_MAX] = "untouched";

	print_message("normalize \"%s\"\n", in);
	assert_int_equal(cgroup2_normalize(in, buf, sizeof(buf)), ret);
	assert_string_equal(buf, ret == 0 ? out : "untouched");
}

static void test_normalize_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < ELEMENTSOF(norm_cases); i++)
		check_normalize(norm_cases[i].in, norm_cases[i].ret, norm_cases[i].out);
}

/* Absolute paths that start with the detected mount point lose it. */
static void test_normalize_mount_prefix(void **state)
{
	char in[PATH_MAX], out[PATH_MAX];
	const char *root;

	(void)state;
	unsetenv(ROOT_ENV);
	if (cgroup2_root(&root, NULL) < 0)
		unit_skip("no cgroup2 mount");

	snprintf(in, sizeof(in), "%s/a/b", root);
	check_normalize(in, 0, "/a/b");
	snprintf(in, sizeof(in), "%s//a//b//", root);
	check_normalize(in, 0, "/a/b");
	check_normalize(root, 0, "/");
	snprintf(in, sizeof(in), "%s/", root);
	check_normalize(in, 0, "/");
	snprintf(in, sizeof(in), "%s/../x", root);
	check_normalize(in, -EINVAL, NULL);

	/* Only whole components match the prefix. */
	snprintf(in, sizeof(in), "%sx/a", root);
	check_normalize(in, 0, in);

	/* Without the leading '/' it is a relative cgroup path. */
	snprintf(in, sizeof(in), "%s/a", root + 1);
	snprintf(out, sizeof(out), "%s/a", root);
	check_normalize(in, 0, out);
}

static void test_normalize_limits(void **state)
{
	char buf[8] = "XXX";

	(void)state;
	assert_int_equal(cgroup2_normalize("/a/b", buf, 4), -ENAMETOOLONG);
	assert_string_equal(buf, "XXX");
	assert_int_equal(cgroup2_normalize("/", buf, 0), -ENAMETOOLONG);
	assert_string_equal(buf, "XXX");
	assert_int_equal(cgroup2_normalize("/a/b", buf, 5), 0);
	assert_string_equal(buf, "/a/b");
	assert_int_equal(cgroup2_normalize(NULL, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(cgroup2_normalize("/a", NULL, 10), -EINVAL);
}

static void test_level(void **state)
{
	(void)state;
	assert_int_equal(cgroup2_level("/"), 0);
	assert_int_equal(cgroup2_level("//"), 0);
	assert_int_equal(cgroup2_level("a"), 1);
	assert_int_equal(cgroup2_level("/a/b"), 2);
	assert_int_equal(cgroup2_level("a//b/"), 2);
	assert_int_equal(cgroup2_level("/a b/c,d/\xff"), 3);
	assert_int_equal(cgroup2_level("/a/../b"), -EINVAL);
	assert_int_equal(cgroup2_level(""), -EINVAL);
}

/* ---------------------------------------------------------------------------
 * Group "override": CGPERF_CGROUP2_ROOT on a plain directory tree
 * ------------------------------------------------------------------------- */

static char tmp_root[64];

static const char *const tmp_dirs[] = { "/a", "/a/b", "/a/b/docker-1.scope", "/c d" };

static int make_tmp_tree(void)
{
	char path[PATH_MAX];
	int fd;

	for (size_t i = 0; i < ELEMENTSOF(tmp_dirs); i++) {
		snprintf(path, sizeof(path), "%s%s", tmp_root, tmp_dirs[i]);
		if (mkdir(path, 0755) < 0)
			return -errno;
	}

	/* A file (not a cgroup), and symlinks that must not be followed:
         * "link" would duplicate /a, "a/up" would loop forever. */
	snprintf(path, sizeof(path), "%s/a/file", tmp_root);
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	close(fd);
	snprintf(path, sizeof(path), "%s/link", tmp_root);
	if (symlink("a", path) < 0)
		return -errno;
	snprintf(path, sizeof(path), "%s/a/up", tmp_root);
	if (symlink("..", path) < 0)
		return -errno;
	return 0;
}

static int setup_tmp(void **state)
{
	char env[PATH_MAX];

	(void)state;
	strcpy(tmp_root, "/tmp/cgperf-unit-cgroup2-root-XXXXXX");
	if (!mkdtemp(tmp_root)) {
		tmp_root[0] = '\0';
		return -1;
	}

	/* Duplicate and trailing slashes in the override must not matter. */
	snprintf(env, sizeof(env), "%s//", tmp_root);
	if (make_tmp_tree() < 0 || setenv(ROOT_ENV, env, 1) < 0) {
		(void)rm_tree_at(AT_FDCWD, tmp_root, true);
		return -1;
	}
	return 0;
}

static int teardown_tmp(void **state)
{
	(void)state;
	unsetenv(ROOT_ENV);
	if (tmp_root[0] == '\0')
		return 0;
	return rm_tree_at(AT_FDCWD, tmp_root, true) < 0 ? -1 : 0;
}

static void test_override_root(void **state)
{
	const char *root = NULL;

	(void)state;
	assert_int_equal(cgroup2_root(&root, NULL), 0);
	assert_string_equal(root, tmp_root);
}

static void test_override_ids(void **state)
{
	char abs_path[PATH_MAX];
	uint64_t id, sentinel = UINT64_C(0xdeadbeef);

	(void)state;
	for (size_t i = 0; i < ELEMENTSOF(tmp_dirs); i++) {
		assert_int_equal(cgroup2_id_of(tmp_dirs[i], &id), 0);
		assert_int_equal(id, ino_of(tmp_root, tmp_dirs[i]));
	}
	assert_int_equal(cgroup2_id_of("/", &id), 0);
	assert_int_equal(id, ino_of(tmp_root, "/"));

	snprintf(abs_path, sizeof(abs_path), "%s/a/b/", tmp_root);
	assert_int_equal(cgroup2_id_of(abs_path, &id), 0);
	assert_int_equal(id, ino_of(tmp_root, "/a/b"));
	assert_int_equal(cgroup2_id_of("a//b", &id), 0);
	assert_int_equal(id, ino_of(tmp_root, "/a/b"));

	id = sentinel;
	assert_int_equal(cgroup2_id_of("/a/file", &id), -ENOTDIR);
	assert_int_equal(cgroup2_id_of("/a/missing", &id), -ENOENT);
	assert_int_equal(cgroup2_id_of("/a/../a", &id), -EINVAL);
	assert_int_equal(id, sentinel);
}

static void test_override_ancestors(void **state)
{
	uint64_t ids[4] = { 0 };

	(void)state;
	assert_int_equal(cgroup2_ancestor_ids("/a/b/docker-1.scope", ids, 4), 3);
	assert_int_equal(ids[0], ino_of(tmp_root, "/"));
	assert_int_equal(ids[1], ino_of(tmp_root, "/a"));
	assert_int_equal(ids[2], ino_of(tmp_root, "/a/b"));
}

static void test_override_walk(void **state)
{
	static const char *const all[] = { "/a", "/a/b", "/a/b/docker-1.scope", "/c d" };
	static const char *const top[] = { "/a", "/c d" };
	static const char *const b[] = { "/a/b" };
	static const char *const scope[] = { "/a/b/docker-1.scope" };

	(void)state;
	/* Neither the file nor the symlinks show up. */
	check_walk(tmp_root, "", "**", all, ELEMENTSOF(all));
	check_walk(tmp_root, "", "*", all, ELEMENTSOF(all));
	check_walk(tmp_root, "", "/*", top, ELEMENTSOF(top));
	check_walk(tmp_root, "", "/**/b", b, ELEMENTSOF(b));
	check_walk(tmp_root, "", "a/*", b, ELEMENTSOF(b));
	check_walk(tmp_root, "", "/a//b/", b, ELEMENTSOF(b));
	check_walk(tmp_root, "", "/a/**/docker-*.scope", scope, ELEMENTSOF(scope));
	check_walk(tmp_root, "", "/**/**/docker-*.scope", scope, ELEMENTSOF(scope));
	check_walk(tmp_root, "", "docker-*.scope", scope, ELEMENTSOF(scope));
	check_walk(tmp_root, "", "/docker-*.scope", NULL, 0);
	check_walk(tmp_root, "", "nothing-*", NULL, 0);

	/* No callback: just count. */
	assert_int_equal(cgroup2_for_each_matching("**", NULL, NULL), (int)ELEMENTSOF(all));
	assert_int_equal(cgroup2_for_each_matching("", NULL, NULL), -EINVAL);
	assert_int_equal(cgroup2_for_each_matching(NULL, NULL, NULL), -EINVAL);
}

static void test_override_invalid(void **state)
{
	const char *root = NULL;
	char saved[PATH_MAX];

	(void)state;
	snprintf(saved, sizeof(saved), "%s", getenv(ROOT_ENV));

	assert_int_equal(setenv(ROOT_ENV, "relative/dir", 1), 0);
	assert_int_equal(cgroup2_root(&root, NULL), -EINVAL);
	assert_null(root);

	/* Empty means unset: back to mountinfo detection (if there is a mount). */
	assert_int_equal(setenv(ROOT_ENV, "", 1), 0);
	if (cgroup2_root(&root, NULL) == 0)
		assert_string_not_equal(root, tmp_root);

	assert_int_equal(setenv(ROOT_ENV, saved, 1), 0);
	assert_int_equal(cgroup2_root(&root, NULL), 0);
	assert_string_equal(root, tmp_root);
}

/* ---------------------------------------------------------------------------
 * Group "real": a private subtree of the host's cgroup2 hierarchy
 * ------------------------------------------------------------------------- */

struct real_fixture {
	const char *root;
	char base[64]; /* "/cgperf-unit-cgroup2-<pid>", relative to root */
	char base_abs[PATH_MAX];
	char why_not[160]; /* why the fixture is not there (the skip reason) */
};

static struct real_fixture real;

/* Below base, parents first, in the order the walk must report them (tree
 * order: "/a.d" after all of "/a/..."). Odd bytes on purpose. */
static const char *const real_tree[] = {
	"/a",
	"/a/b c",
	"/a/b c/docker-0123abcd.scope",
	"/a/x,y",
	"/a.d",
	"/docker-0123abcd.scope",
	"/q\"uote",
	"/q\"uote/\xff\xfe",
	"/q\"uote/\xff\xfe/docker-0123abcd.scope",
};

/* Never removes anything but our own subtree. */
static int remove_real_subtree(void)
{
	char own[64];

	snprintf(own, sizeof(own), "/cgperf-unit-cgroup2-%d", (int)getpid());
	if (real.base_abs[0] == '\0' || strcmp(real.base, own) != 0)
		return 0;
	return rm_tree_at(AT_FDCWD, real.base_abs, false);
}

static int teardown_real(void **state)
{
	int r;

	(void)state;
	r = remove_real_subtree();
	if (r < 0) {
		fprintf(stderr, "failed to remove %s: %s\n", real.base_abs, strerror(-r));
		return -1;
	}
	return 0;
}

static int setup_real(void **state)
{
	char path[PATH_MAX];

	*state = NULL;
	unsetenv(ROOT_ENV);
	if (cgroup2_root(&real.root, NULL) < 0) {
		snprintf(real.why_not, sizeof(real.why_not), "no cgroup2 mount");
		return 0;
	}

	snprintf(real.base, sizeof(real.base), "/cgperf-unit-cgroup2-%d", (int)getpid());
	snprintf(real.base_abs, sizeof(real.base_abs), "%s%s", real.root, real.base);
	if (mkdir(real.base_abs, 0755) < 0) {
		if (errno == EACCES || errno == EPERM || errno == EROFS) {
			snprintf(real.why_not, sizeof(real.why_not), "cannot create cgroups: %s",
				 strerror(errno));
			real.base_abs[0] = '\0';
			return 0;
		}
		real.base_abs[0] = '\0';
		return -1;
	}

	for (size_t i = 0; i < ELEMENTSOF(real_tree); i++) {
		snprintf(path, sizeof(path), "%s%s", real.base_abs, real_tree[i]);
		if (mkdir(path, 0755) < 0) {
			fprintf(stderr, "mkdir %s: %s\n", path, strerror(errno));
			(void)remove_real_subtree();
			return -1;
		}
	}

	*state = &real;
	return 0;
}

#define REAL_FIXTURE(state)                            \
	({                                             \
		struct real_fixture *_f = *(state);    \
		if (!_f)                               \
			unit_skip("%s", real.why_not); \
		_f;                                    \
	})

static void test_real_root(void **state)
{
	struct real_fixture *f = REAL_FIXTURE(state);
	enum cgroup_mode mode, expected = CGROUP_MODE_UNIFIED;
	const char *again = NULL;
	struct statfs sfs;
	char *line = NULL;
	size_t size = 0;
	FILE *mi;

	assert_int_equal(cgroup2_root(&again, &mode), 0);
	assert_ptr_equal(again, f->root); /* cached */
	assert_true(f->root[0] == '/');
	assert_int_equal(statfs(f->root, &sfs), 0);
	assert_int_equal(sfs.f_type, CGROUP2_SUPER_MAGIC);

	/* Independent check of the mode: any v1 mount makes it hybrid. */
	mi = fopen("/proc/self/mountinfo", "re");
	assert_non_null(mi);
	while (getline(&line, &size, mi) >= 0)
		if (strstr(line, " - cgroup "))
			expected = CGROUP_MODE_HYBRID;
	free(line);
	fclose(mi);
	assert_int_equal(mode, expected);
}

static void test_real_ids(void **state)
{
	struct real_fixture *f = REAL_FIXTURE(state);
	char path[PATH_MAX];
	uint64_t id, expected, sentinel = UINT64_C(0xdeadbeef);

	assert_int_equal(cgroup2_id_of("/", &id), 0);
	assert_int_equal(id, ino_of(f->root, "/"));

	for (size_t i = 0; i < ELEMENTSOF(real_tree); i++) {
		snprintf(path, sizeof(path), "%s%s", f->base, real_tree[i]);
		assert_int_equal(cgroup2_id_of(path, &id), 0);
		assert_int_equal(id, ino_of(f->root, path));
	}

	/* Every accepted spelling of the same cgroup. */
	snprintf(path, sizeof(path), "%s/a/b c", f->base);
	expected = ino_of(f->root, path);
	snprintf(path, sizeof(path), "%s/a/b c", f->base + 1);
	assert_int_equal(cgroup2_id_of(path, &id), 0);
	assert_int_equal(id, expected);
	snprintf(path, sizeof(path), "/%s//a//b c/", f->base);
	assert_int_equal(cgroup2_id_of(path, &id), 0);
	assert_int_equal(id, expected);
	snprintf(path, sizeof(path), "%s%s/a/b c", f->root, f->base);
	assert_int_equal(cgroup2_id_of(path, &id), 0);
	assert_int_equal(id, expected);

	id = sentinel;
	snprintf(path, sizeof(path), "%s/missing", f->base);
	assert_int_equal(cgroup2_id_of(path, &id), -ENOENT);
	snprintf(path, sizeof(path), "%s/missing/deeper", f->base);
	assert_int_equal(cgroup2_id_of(path, &id), -ENOENT);
	snprintf(path, sizeof(path), "%s/cgroup.procs", f->base);
	assert_int_equal(cgroup2_id_of(path, &id), -ENOTDIR);
	snprintf(path, sizeof(path), "%s/../x", f->base);
	assert_int_equal(cgroup2_id_of(path, &id), -EINVAL);
	assert_int_equal(id, sentinel);
}

static void test_real_ancestors(void **state)
{
	struct real_fixture *f = REAL_FIXTURE(state);
	uint64_t ids[8], untouched[8];
	char path[PATH_MAX], rel[PATH_MAX];

	snprintf(path, sizeof(path), "%s/a/b c/docker-0123abcd.scope", f->base);
	assert_int_equal(cgroup2_ancestor_ids(path, ids, 8), 4);
	assert_int_equal(ids[0], ino_of(f->root, "/"));
	assert_int_equal(ids[1], ino_of(f->root, f->base));
	snprintf(rel, sizeof(rel), "%s/a", f->base);
	assert_int_equal(ids[2], ino_of(f->root, rel));
	snprintf(rel, sizeof(rel), "%s/a/b c", f->base);
	assert_int_equal(ids[3], ino_of(f->root, rel));

	/* Exactly enough room is fine, one less is not and writes nothing. */
	assert_int_equal(cgroup2_ancestor_ids(path, ids, 4), 4);
	memset(untouched, 0x5a, sizeof(untouched));
	memcpy(ids, untouched, sizeof(ids));
	assert_int_equal(cgroup2_ancestor_ids(path, ids, 3), -ENOBUFS);
	assert_memory_equal(ids, untouched, sizeof(ids));

	assert_int_equal(cgroup2_ancestor_ids("/", ids, 8), 0);
	assert_int_equal(cgroup2_ancestor_ids("/", NULL, 0), 0);
	assert_int_equal(cgroup2_ancestor_ids(f->base, ids, 8), 1);
	assert_int_equal(ids[0], ino_of(f->root, "/"));

	/* The cgroup itself may be gone; a missing ancestor is an error. */
	snprintf(path, sizeof(path), "%s/a/gone", f->base);
	assert_int_equal(cgroup2_ancestor_ids(path, ids, 8), 3);
	memcpy(ids, untouched, sizeof(ids));
	snprintf(path, sizeof(path), "%s/gone/child", f->base);
	assert_int_equal(cgroup2_ancestor_ids(path, ids, 8), -ENOENT);
	assert_memory_equal(ids, untouched, sizeof(ids));
}

static void test_real_walk(void **state)
{
	struct real_fixture *f = REAL_FIXTURE(state);
	static const char *const scopes[] = {
		"/a/b c/docker-0123abcd.scope",
		"/docker-0123abcd.scope",
		"/q\"uote/\xff\xfe/docker-0123abcd.scope",
	};
	static const char *const children[] = { "/a", "/a.d", "/docker-0123abcd.scope",
						"/q\"uote" };
	static const char *const under_a[] = { "/a", "/a/b c", "/a/b c/docker-0123abcd.scope",
					       "/a/x,y" };
	static const char *const odd[] = { "/q\"uote/\xff\xfe" };
	const char *all[ELEMENTSOF(real_tree) + 1] = { "" };
	char pattern[PATH_MAX];

	for (size_t i = 0; i < ELEMENTSOF(real_tree); i++)
		all[i + 1] = real_tree[i];

	check_walk(f->root, f->base, "**", all, ELEMENTSOF(all));
	check_walk(f->root, f->base, "/cgperf-unit-*/**/docker-*.scope", scopes,
		   ELEMENTSOF(scopes));
	check_walk(f->root, f->base, "docker-*.scope", scopes, ELEMENTSOF(scopes));

	snprintf(pattern, sizeof(pattern), "%s/*", f->base);
	check_walk(f->root, f->base, pattern, children, ELEMENTSOF(children));
	snprintf(pattern, sizeof(pattern), "%s/a/**", f->base);
	check_walk(f->root, f->base, pattern, under_a, ELEMENTSOF(under_a));
	snprintf(pattern, sizeof(pattern), "%s/q\"uote/*", f->base);
	check_walk(f->root, f->base, pattern, odd, ELEMENTSOF(odd));
	snprintf(pattern, sizeof(pattern), "%s/*/?[,]?", f->base);
	check_walk(f->root, f->base, pattern, (const char *const[]){ "/a/x,y" }, 1);

	/* Unmatched patterns report nothing, anywhere. */
	snprintf(pattern, sizeof(pattern), "%s/no-such-*", f->base);
	assert_int_equal(cgroup2_for_each_matching(pattern, NULL, NULL), 0);
	snprintf(pattern, sizeof(pattern), "cgperf-no-such-cgroup-%d-*", (int)getpid());
	assert_int_equal(cgroup2_for_each_matching(pattern, NULL, NULL), 0);
}

static void test_real_walk_stop(void **state)
{
	struct real_fixture *f = REAL_FIXTURE(state);
	struct seen s = { .prefix = f->base, .stop_at = 2, .stop_value = 42 };
	char pattern[PATH_MAX];

	snprintf(pattern, sizeof(pattern), "%s/**", f->base);
	assert_int_equal(cgroup2_for_each_matching(pattern, collect_cb, &s), 42);
	assert_int_equal(s.calls, 2);
	assert_string_equal(s.paths[0], f->base);
	seen_clear(&s);

	/* A negative value stops just the same and comes back unchanged. */
	s.stop_at = 1;
	s.stop_value = -EPIPE;
	assert_int_equal(cgroup2_for_each_matching(pattern, collect_cb, &s), -EPIPE);
	assert_int_equal(s.calls, 1);
	seen_clear(&s);
}

/* Containers come and go during a walk: a churning thread keeps creating and
 * removing a nested chain while we walk; no walk may fail. */
struct churn {
	char top[PATH_MAX + 16];
	volatile bool stop;
	unsigned rounds;
};

static void *churn_thread(void *p)
{
	struct churn *c = p;
	char mid[PATH_MAX + 32], leaf[PATH_MAX + 48];

	snprintf(mid, sizeof(mid), "%s/x", c->top);
	snprintf(leaf, sizeof(leaf), "%s/x/y", c->top);
	while (!__atomic_load_n(&c->stop, __ATOMIC_RELAXED)) {
		(void)mkdir(c->top, 0755);
		(void)mkdir(mid, 0755);
		(void)mkdir(leaf, 0755);
		(void)rmdir(leaf);
		(void)rmdir(mid);
		(void)rmdir(c->top);
		c->rounds++;
	}
	return NULL;
}

static void test_real_walk_churn(void **state)
{
	struct real_fixture *f = REAL_FIXTURE(state);
	struct churn c = {};
	char pattern[PATH_MAX];
	int failures = 0, min_seen = INT32_MAX;
	pthread_t t;

	snprintf(c.top, sizeof(c.top), "%s/churn", f->base_abs);
	snprintf(pattern, sizeof(pattern), "%s/**", f->base);
	assert_int_equal(pthread_create(&t, NULL, churn_thread, &c), 0);
	for (int i = 0; i < 300; i++) {
		int r = cgroup2_for_each_matching(pattern, NULL, NULL);

		if (r < 0)
			failures++;
		else if (r < min_seen)
			min_seen = r;
	}
	__atomic_store_n(&c.stop, true, __ATOMIC_RELAXED);
	assert_int_equal(pthread_join(t, NULL), 0);
	print_message("churn rounds: %u\n", c.rounds);

	assert_int_equal(failures, 0);
	/* The static tree is always seen in full. */
	assert_true(min_seen >= (int)ELEMENTSOF(real_tree) + 1);
	assert_int_equal(access(c.top, F_OK), -1);
}

int main(void)
{
	const struct CMUnitTest parsing[] = {
		cmocka_unit_test(test_parse_mountinfo),
		cmocka_unit_test(test_parse_mountinfo_too_long),
		cmocka_unit_test(test_normalize_table),
		cmocka_unit_test(test_normalize_mount_prefix),
		cmocka_unit_test(test_normalize_limits),
		cmocka_unit_test(test_level),
	};
	const struct CMUnitTest override[] = {
		cmocka_unit_test(test_override_root),	   cmocka_unit_test(test_override_ids),
		cmocka_unit_test(test_override_ancestors), cmocka_unit_test(test_override_walk),
		cmocka_unit_test(test_override_invalid),
	};
	const struct CMUnitTest real_tests[] = {
		cmocka_unit_test(test_real_root),      cmocka_unit_test(test_real_ids),
		cmocka_unit_test(test_real_ancestors), cmocka_unit_test(test_real_walk),
		cmocka_unit_test(test_real_walk_stop), cmocka_unit_test(test_real_walk_churn),
	};
	int failed = 0;

	unsetenv(ROOT_ENV);
	failed += cmocka_run_group_tests_name("cgroup2 parsing", parsing, NULL, NULL);
	failed +=
		cmocka_run_group_tests_name("cgroup2 override", override, setup_tmp, teardown_tmp);
	failed += cmocka_run_group_tests_name("cgroup2 real hierarchy", real_tests, setup_real,
					      teardown_real);
	return unit_result(failed == 0 ? 0 : 1);
}
