// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for cgroup/watch.c against real cgroups.
 *
 * Everything happens in a private subtree "cgperf-unit-watch-<pid>" under the
 * host's real cgroup2 root; each test watches its own directory below it
 * (opts.subtree), so cgroups created elsewhere on the host never show up.
 * The group teardown removes the subtree even after failures. One test uses
 * CGPERF_CGROUP2_ROOT with a plain temporary tree (ordinary-filesystem inotify
 * semantics differ from cgroupfs'), one a child user namespace to get a real
 * inotify watch limit of its own.
 *
 * inotify events are queued synchronously by mkdir/rmdir, so after a syscall
 * returns, its event is there to read: no test waits for anything. */
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
#include <poll.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgroup/cgroup2.h"
#include "cgroup/watch.h"

#define ROOT_ENV "CGPERF_CGROUP2_ROOT"
#define ELEMENTSOF(a) (sizeof(a) / sizeof((a)[0]))

static struct {
	const char *root; /* cgroup2 mount point */
	char base[128]; /* "/cgperf-unit-watch-<pid>", relative */
	char base_abs[PATH_MAX];
	bool ready;
	char why_not[160]; /* why not ready (the tests' skip reason) */
	char plain_tmp[64]; /* test_plain_tree's directory, removed by the teardown */
} fx;

/* ---------------------------------------------------------------------------
 * What the watcher reported
 * ------------------------------------------------------------------------- */

struct record {
	bool added;
	char *path;
	uint64_t id;
};

struct recorder {
	struct record *v;
	size_t n, cap;
	struct cg_watch *w; /* set once cg_watch_new() returned */
	unsigned path_of_mismatches; /* cg_watch_path_of() disagreed inside a callback */
};

static void rec_push(struct recorder *r, bool added, const char *path, uint64_t id)
{
	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 256;
		r->v = realloc(r->v, r->cap * sizeof(*r->v));
		assert_non_null(r->v);
	}
	r->v[r->n].added = added;
	r->v[r->n].path = strdup(path);
	assert_non_null(r->v[r->n].path);
	r->v[r->n].id = id;
	r->n++;

	/* Inside both callbacks the id must resolve to the reported path. */
	if (r->w) {
		const char *p = cg_watch_path_of(r->w, id);

		if (!p || strcmp(p, path) != 0)
			r->path_of_mismatches++;
	}
}

static void on_added(void *ctx, const struct cg_watch *w, const char *rel_path, uint64_t id)
{
	rec_push(ctx, true, rel_path, id);
}

static void on_removed(void *ctx, const struct cg_watch *w, const char *rel_path, uint64_t id)
{
	rec_push(ctx, false, rel_path, id);
}

static const struct cg_watch_ops rec_ops = { .added = on_added, .removed = on_removed };

static void rec_reset(struct recorder *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->v[i].path);
	r->n = 0;
}

static void rec_free(struct recorder *r)
{
	rec_reset(r);
	free(r->v);
	r->v = NULL;
	r->cap = 0;
}

static unsigned rec_count(const struct recorder *r, bool added, uint64_t id)
{
	unsigned c = 0;

	for (size_t i = 0; i < r->n; i++)
		if (r->v[i].added == added && r->v[i].id == id)
			c++;
	return c;
}

static long rec_index(const struct recorder *r, bool added, uint64_t id)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->v[i].added == added && r->v[i].id == id)
			return (long)i;
	return -1;
}

/* Exactly one report of this kind for id, with this path. */
static void assert_reported_once(const struct recorder *r, bool added, uint64_t id,
				 const char *path)
{
	long i;

	if (rec_count(r, added, id) != 1)
		fail_msg("%s reported %u times as %s (id %llu)", path, rec_count(r, added, id),
			 added ? "added" : "removed", (unsigned long long)id);
	i = rec_index(r, added, id);
	assert_string_equal(r->v[i].path, path);
}

/* ---------------------------------------------------------------------------
 * Helpers on the real tree
 * ------------------------------------------------------------------------- */

#define FIXTURE()                                    \
	do {                                         \
		if (!fx.ready)                       \
			unit_skip("%s", fx.why_not); \
	} while (0)

/* Relative path of a cgroup in the test subtree: base + "/" + printf(fmt). */
static char *rel(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static char *rel(char *buf, size_t size, const char *fmt, ...)
{
	char tail[PATH_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(tail, sizeof(tail), fmt, ap);
	va_end(ap);
	assert_true((size_t)snprintf(buf, size, "%s/%s", fx.base, tail) < size);
	return buf;
}

static void abs_of(const char *rel_path, char *buf, size_t size)
{
	assert_true((size_t)snprintf(buf, size, "%s%s", fx.root, rel_path) < size);
}

static uint64_t mkcg(const char *rel_path)
{
	char path[PATH_MAX];
	uint64_t id;

	abs_of(rel_path, path, sizeof(path));
	if (mkdir(path, 0755) < 0)
		fail_msg("mkdir %s: %s", path, strerror(errno));
	assert_int_equal(cgroup2_id_of(rel_path, &id), 0);
	return id;
}

static void rmcg(const char *rel_path)
{
	char path[PATH_MAX];

	abs_of(rel_path, path, sizeof(path));
	if (rmdir(path) < 0)
		fail_msg("rmdir %s: %s", path, strerror(errno));
}

/* Entries of dir; with a prefix, only subdirectories whose name starts with it. */
static unsigned count_dir_entries(const char *dir, const char *prefix)
{
	struct dirent *de;
	unsigned n = 0;
	DIR *d;

	d = opendir(dir);
	assert_non_null(d);
	while ((de = readdir(d)))
		if (de->d_name[0] != '.' &&
		    (!prefix ||
		     (de->d_type == DT_DIR && strncmp(de->d_name, prefix, strlen(prefix)) == 0)))
			n++;
	closedir(d);
	return n;
}

/* Open fds of this process, minus the one opendir() itself uses. */
static unsigned fd_count(void)
{
	return count_dir_entries("/proc/self/fd", NULL) - 1;
}

/* Watches the kernel holds for an inotify fd: the truth behind stats.watches. */
static unsigned kernel_watch_count(int fd)
{
	char path[64], line[512];
	unsigned n = 0;
	FILE *f;

	/* No cmocka assertion here: also used in a forked child. */
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "re");
	if (!f)
		return UINT_MAX;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "inotify wd:", 11) == 0)
			n++;
	fclose(f);
	return n;
}

static struct cg_watch_stats stats_of(const struct cg_watch *w)
{
	struct cg_watch_stats s;

	memset(&s, 0xff, sizeof(s));
	cg_watch_get_stats(w, &s);
	return s;
}

static void assert_watches_consistent(const struct cg_watch *w)
{
	assert_int_equal(stats_of(w).watches, kernel_watch_count(cg_watch_fd(w)));
}

/* Handles everything queued. Events are queued by the syscalls themselves,
 * so a zero-timeout poll sees all of them. */
static void drain(struct cg_watch *w)
{
	struct pollfd p = { .fd = cg_watch_fd(w), .events = POLLIN };

	while (poll(&p, 1, 0) > 0 && (p.revents & POLLIN))
		assert_int_equal(cg_watch_process(w), 0);
}

/* Throws the queued events away unread by the watcher: what an overflow or a
 * missed event looks like from the watcher's side. */
static void drop_events(struct cg_watch *w)
{
	char buf[64 * 1024];

	while (read(cg_watch_fd(w), buf, sizeof(buf)) > 0)
		;
	assert_int_equal(errno, EAGAIN);
}

static struct cg_watch *watch_subtree(struct recorder *rec, const char *subtree, int max_depth)
{
	struct cg_watch_opts o = { .subtree = subtree, .max_depth = max_depth };
	struct cg_watch *w = NULL;

	assert_int_equal(cg_watch_new(&o, &rec_ops, rec, &w), 0);
	assert_non_null(w);
	rec->w = w;
	return w;
}

/* ---------------------------------------------------------------------------
 * Tests
 * ------------------------------------------------------------------------- */

static void test_bad_arguments(void **state)
{
	struct recorder rec = {};
	struct cg_watch_opts o = {};
	struct cg_watch *w = NULL;
	char sub[PATH_MAX];
	unsigned fds;

	FIXTURE();
	fds = fd_count();

	o.subtree = rel(sub, sizeof(sub), "does-not-exist");
	assert_int_equal(cg_watch_new(&o, &rec_ops, &rec, &w), -ENOENT);
	assert_null(w);

	o.subtree = "/a/../b";
	assert_int_equal(cg_watch_new(&o, &rec_ops, &rec, &w), -EINVAL);

	o.subtree = fx.base;
	o.max_depth = -1;
	assert_int_equal(cg_watch_new(&o, &rec_ops, &rec, &w), -EINVAL);
	/* A top at level 2 with max_depth 1: nothing could ever be reported. */
	o.subtree = rel(sub, sizeof(sub), "does-not-matter");
	o.max_depth = 1;
	assert_int_equal(cg_watch_new(&o, &rec_ops, &rec, &w), -EINVAL);
	assert_null(w);

	assert_int_equal(rec.n, 0);
	assert_int_equal(fd_count(), fds);

	cg_watch_free(NULL);
	assert_null(cg_watch_path_of(NULL, 1));
	assert_int_equal(cg_watch_process(NULL), -EINVAL);
	assert_int_equal(cg_watch_rescan(NULL), -EINVAL);
	assert_true(cg_watch_fd(NULL) < 0);
	rec_free(&rec);
}

static void test_initial_scan(void **state)
{
	static const char *const tree[] = { "init", "init/a", "init/a/b", "init/a/b/c", "init/d" };
	uint64_t ids[ELEMENTSOF(tree)];
	struct recorder rec = {};
	struct cg_watch_stats s;
	struct cg_watch *w;
	char path[ELEMENTSOF(tree)][PATH_MAX];
	unsigned fds;

	FIXTURE();
	for (size_t i = 0; i < ELEMENTSOF(tree); i++)
		ids[i] = mkcg(rel(path[i], sizeof(path[i]), "%s", tree[i]));

	fds = fd_count();
	w = watch_subtree(&rec, path[0], 0);

	/* The top and everything below it, each once, nothing removed. */
	assert_int_equal(rec.n, ELEMENTSOF(tree));
	for (size_t i = 0; i < ELEMENTSOF(tree); i++) {
		assert_reported_once(&rec, true, ids[i], path[i]);
		assert_string_equal(cg_watch_path_of(w, ids[i]), path[i]);
	}
	/* Parents before children. */
	assert_true(rec_index(&rec, true, ids[1]) < rec_index(&rec, true, ids[2]));
	assert_true(rec_index(&rec, true, ids[2]) < rec_index(&rec, true, ids[3]));
	assert_true(rec_index(&rec, true, ids[0]) < rec_index(&rec, true, ids[4]));

	s = stats_of(w);
	assert_int_equal(s.cgroups, ELEMENTSOF(tree));
	/* One per directory plus the top's parent (the "anchor"). */
	assert_int_equal(s.watches, ELEMENTSOF(tree) + 1);
	assert_int_equal(s.unwatched, 0);
	assert_int_equal(s.limit_hits + s.rescan_fixes + s.overflows + s.vanished + s.skipped, 0);
	assert_watches_consistent(w);

	/* A rescan of an unchanged tree finds nothing to fix. */
	assert_int_equal(cg_watch_rescan(w), 0);
	assert_int_equal(rec.n, ELEMENTSOF(tree));
	assert_int_equal(stats_of(w).rescan_fixes, 0);

	assert_null(cg_watch_path_of(w, 1));
	assert_int_equal(rec.path_of_mismatches, 0);
	cg_watch_free(w);
	/* Freeing reports nothing. */
	assert_int_equal(rec.n, ELEMENTSOF(tree));
	assert_int_equal(fd_count(), fds);
	rec_free(&rec);
}

/* mkdir -p a/b/c before the watcher reads a single event: a's watch does not
 * exist when b and c are created, so only scanning a when it appears finds them. */
static void test_nested_mkdir_and_rmdir(void **state)
{
	char top[PATH_MAX], a[PATH_MAX], b[PATH_MAX], c[PATH_MAX];
	uint64_t id_a, id_b, id_c;
	struct recorder rec = {};
	struct cg_watch *w;
	unsigned baseline, fds;

	FIXTURE();
	mkcg(rel(top, sizeof(top), "nested"));
	fds = fd_count();
	w = watch_subtree(&rec, top, 0);
	baseline = stats_of(w).watches;
	rec_reset(&rec);

	id_a = mkcg(rel(a, sizeof(a), "nested/a"));
	id_b = mkcg(rel(b, sizeof(b), "nested/a/b"));
	id_c = mkcg(rel(c, sizeof(c), "nested/a/b/c"));
	drain(w);

	assert_int_equal(rec.n, 3);
	assert_reported_once(&rec, true, id_a, a);
	assert_reported_once(&rec, true, id_b, b);
	assert_reported_once(&rec, true, id_c, c);
	assert_true(rec_index(&rec, true, id_a) < rec_index(&rec, true, id_b));
	assert_true(rec_index(&rec, true, id_b) < rec_index(&rec, true, id_c));
	assert_int_equal(stats_of(w).watches, baseline + 3);
	assert_watches_consistent(w);
	assert_int_equal(stats_of(w).rescan_fixes, 0);

	rec_reset(&rec);
	rmcg(c);
	rmcg(b);
	rmcg(a);
	drain(w);

	assert_int_equal(rec.n, 3);
	assert_reported_once(&rec, false, id_c, c);
	assert_reported_once(&rec, false, id_b, b);
	assert_reported_once(&rec, false, id_a, a);
	assert_true(rec_index(&rec, false, id_c) < rec_index(&rec, false, id_b));
	assert_true(rec_index(&rec, false, id_b) < rec_index(&rec, false, id_a));

	/* Gone, yet still known by id. */
	assert_string_equal(cg_watch_path_of(w, id_c), c);
	assert_string_equal(cg_watch_path_of(w, id_a), a);

	/* cgroupfs keeps a removed directory's watch until it is dropped by hand. */
	assert_int_equal(stats_of(w).watches, baseline);
	assert_watches_consistent(w);
	assert_int_equal(stats_of(w).cgroups, 1);
	assert_int_equal(rec.path_of_mismatches, 0);

	cg_watch_free(w);
	assert_int_equal(fd_count(), fds);
	rec_free(&rec);
}

/* Same name, new cgroup: rmdir + mkdir between two reads must end with the
 * old id removed and the new one added, once each. */
static void test_recreated_name(void **state)
{
	char top[PATH_MAX], x[PATH_MAX];
	uint64_t id1, id2, id3;
	struct recorder rec = {};
	struct cg_watch *w;

	FIXTURE();
	mkcg(rel(top, sizeof(top), "recreate"));
	id1 = mkcg(rel(x, sizeof(x), "recreate/x"));
	w = watch_subtree(&rec, top, 0);
	rec_reset(&rec);

	rmcg(x);
	id2 = mkcg(x);
	assert_true(id2 != id1);
	drain(w);
	assert_int_equal(rec.n, 2);
	assert_reported_once(&rec, false, id1, x);
	assert_reported_once(&rec, true, id2, x);
	assert_true(rec_index(&rec, false, id1) < rec_index(&rec, true, id2));

	/* rmdir, mkdir, rmdir, mkdir before we look: the middle cgroup is
         * never seen (its IN_CREATE finds the newest one already there, so it
         * is not even counted as vanished); the old one is removed, the
         * newest added, once each. */
	rec_reset(&rec);
	rmcg(x);
	(void)mkcg(x);
	rmcg(x);
	id3 = mkcg(x);
	drain(w);
	assert_int_equal(rec_count(&rec, false, id2), 1);
	assert_int_equal(rec_count(&rec, true, id3), 1);
	assert_int_equal(rec.n, 2);
	assert_int_equal(stats_of(w).cgroups, 2);
	assert_watches_consistent(w);

	rmcg(x);
	drain(w);
	assert_int_equal(rec_count(&rec, false, id3), 1);
	assert_watches_consistent(w);
	assert_int_equal(rec.path_of_mismatches, 0);
	cg_watch_free(w);
	rec_free(&rec);
}

/* cgroupfs takes any byte but NUL, '/' and '\n' in a name; reports carry the
 * bytes unchanged. */
static void test_odd_names(void **state)
{
	static const char *const names[] = {
		"sp ace",      "com,ma",      "quo\"te's", "\xff\xfe-not-utf8", "tab\there",
		"back\\slash", "ctl\x01\x1f", "-",	   "x.scope",
	};
	char top[PATH_MAX], p[ELEMENTSOF(names)][PATH_MAX], nested[PATH_MAX], nl[PATH_MAX],
		nl_abs[PATH_MAX];
	uint64_t ids[ELEMENTSOF(names)], id_nested, id_nl = 0;
	struct recorder rec = {};
	struct cg_watch *w;
	bool nl_ok;

	FIXTURE();
	mkcg(rel(top, sizeof(top), "odd"));
	/* One found by the initial scan, the others by events. */
	ids[0] = mkcg(rel(p[0], sizeof(p[0]), "odd/%s", names[0]));
	w = watch_subtree(&rec, top, 0);
	for (size_t i = 1; i < ELEMENTSOF(names); i++)
		ids[i] = mkcg(rel(p[i], sizeof(p[i]), "odd/%s", names[i]));
	id_nested = mkcg(rel(nested, sizeof(nested), "odd/%s/in,\"ner\" \xfe", names[0]));

	/* Newlines are refused by cgroupfs (EINVAL); if a kernel ever takes
         * them, they must come through unchanged too. */
	abs_of(rel(nl, sizeof(nl), "odd/new\nline"), nl_abs, sizeof(nl_abs));
	nl_ok = mkdir(nl_abs, 0755) == 0;
	if (!nl_ok)
		assert_int_equal(errno, EINVAL);
	else
		assert_int_equal(cgroup2_id_of(nl, &id_nl), 0);

	drain(w);
	for (size_t i = 0; i < ELEMENTSOF(names); i++) {
		assert_reported_once(&rec, true, ids[i], p[i]);
		assert_string_equal(cg_watch_path_of(w, ids[i]), p[i]);
	}
	assert_reported_once(&rec, true, id_nested, nested);
	if (nl_ok)
		assert_reported_once(&rec, true, id_nl, nl);
	assert_int_equal(rec.n, 1 + ELEMENTSOF(names) + 1 + nl_ok);

	rmcg(nested);
	for (size_t i = 0; i < ELEMENTSOF(names); i++)
		rmcg(p[i]);
	if (nl_ok)
		rmcg(nl);
	drain(w);
	for (size_t i = 0; i < ELEMENTSOF(names); i++)
		assert_reported_once(&rec, false, ids[i], p[i]);
	assert_reported_once(&rec, false, id_nested, nested);
	assert_int_equal(stats_of(w).cgroups, 1);
	assert_watches_consistent(w);
	assert_int_equal(rec.path_of_mismatches, 0);
	cg_watch_free(w);
	rec_free(&rec);
}

#define CHURN_N 500
#define CHURN_LAG 40 /* a cgroup lives while this many others are created */
#define CHURN_PROCESS_EVERY 7 /* syscalls between two cg_watch_process() rounds */
#define BATCH_N 200
#define VANISH_N 100

static void churn_op(struct cg_watch *w, unsigned *ops)
{
	if (++*ops % CHURN_PROCESS_EVERY == 0)
		drain(w);
}

/* 500 cgroups (every 4th with a child) created and removed in a loop while
 * events are handled in between; then 200 handled only at the end; then 100
 * created and removed with no handling at all. */
static void test_churn(void **state)
{
	static char paths[CHURN_N][2][PATH_MAX];
	static uint64_t ids[CHURN_N][2];
	char top[PATH_MAX], top_abs[PATH_MAX];
	struct recorder rec = {};
	struct cg_watch_stats s0, s;
	struct cg_watch *w;
	unsigned baseline, kernel_baseline, fds, ops = 0, expected = 0;

	FIXTURE();
	mkcg(rel(top, sizeof(top), "churn"));
	abs_of(top, top_abs, sizeof(top_abs));
	fds = fd_count();
	w = watch_subtree(&rec, top, 0);
	baseline = stats_of(w).watches;
	kernel_baseline = kernel_watch_count(cg_watch_fd(w));
	assert_int_equal(baseline, kernel_baseline);
	rec_reset(&rec);

	/* Phase 1: interleaved. */
	for (int i = 0; i < CHURN_N + CHURN_LAG; i++) {
		if (i < CHURN_N) {
			ids[i][0] = mkcg(rel(paths[i][0], sizeof(paths[i][0]), "churn/c%03d", i));
			churn_op(w, &ops);
			expected++;
			if (i % 4 == 0) {
				ids[i][1] = mkcg(rel(paths[i][1], sizeof(paths[i][1]),
						     "churn/c%03d/sub", i));
				churn_op(w, &ops);
				expected++;
			}
		}
		if (i >= CHURN_LAG) {
			int j = i - CHURN_LAG;

			if (j % 4 == 0) {
				rmcg(paths[j][1]);
				churn_op(w, &ops);
			}
			rmcg(paths[j][0]);
			churn_op(w, &ops);
		}
	}
	drain(w);
	assert_int_equal(count_dir_entries(top_abs, "c"), 0);

	assert_int_equal(rec.n, 2 * expected);
	for (int i = 0; i < CHURN_N; i++) {
		assert_reported_once(&rec, true, ids[i][0], paths[i][0]);
		assert_reported_once(&rec, false, ids[i][0], paths[i][0]);
		if (i % 4 != 0)
			continue;
		assert_reported_once(&rec, true, ids[i][1], paths[i][1]);
		assert_reported_once(&rec, false, ids[i][1], paths[i][1]);
		assert_true(rec_index(&rec, true, ids[i][0]) < rec_index(&rec, true, ids[i][1]));
		assert_true(rec_index(&rec, false, ids[i][1]) < rec_index(&rec, false, ids[i][0]));
	}
	s = stats_of(w);
	assert_int_equal(s.watches, baseline);
	assert_int_equal(kernel_watch_count(cg_watch_fd(w)), kernel_baseline);
	assert_int_equal(s.cgroups, 1);
	assert_int_equal(s.rescan_fixes, 0);
	assert_int_equal(s.vanished, 0);

	/* Phase 2: a batch seen only when it is complete, in both directions. */
	rec_reset(&rec);
	for (int i = 0; i < BATCH_N; i++)
		ids[i][0] = mkcg(rel(paths[i][0], sizeof(paths[i][0]), "churn/b%03d", i));
	drain(w);
	assert_int_equal(rec.n, BATCH_N);
	assert_int_equal(stats_of(w).watches, baseline + BATCH_N);
	assert_watches_consistent(w);
	for (int i = 0; i < BATCH_N; i++)
		rmcg(paths[i][0]);
	drain(w);
	assert_int_equal(rec.n, 2 * BATCH_N);
	for (int i = 0; i < BATCH_N; i++) {
		assert_reported_once(&rec, true, ids[i][0], paths[i][0]);
		assert_reported_once(&rec, false, ids[i][0], paths[i][0]);
	}

	/* Phase 3: gone before anyone looked. Nothing to report (there never
         * was an id to count for), but they are counted. */
	rec_reset(&rec);
	s0 = stats_of(w);
	for (int i = 0; i < VANISH_N; i++) {
		rel(paths[i][0], sizeof(paths[i][0]), "churn/v%03d", i);
		mkcg(paths[i][0]);
		rmcg(paths[i][0]);
	}
	drain(w);
	assert_int_equal(rec.n, 0);
	assert_int_equal(stats_of(w).vanished, s0.vanished + VANISH_N);

	s = stats_of(w);
	assert_int_equal(s.watches, baseline);
	assert_int_equal(kernel_watch_count(cg_watch_fd(w)), kernel_baseline);
	assert_int_equal(cg_watch_rescan(w), 0);
	assert_int_equal(rec.n, 0);
	assert_int_equal(stats_of(w).rescan_fixes, 0);
	assert_int_equal(rec.path_of_mismatches, 0);

	cg_watch_free(w);
	assert_int_equal(fd_count(), fds);
	rec_free(&rec);
}

/* Events thrown away: the rescan reports what they would have, once, and a
 * late event for something a rescan already reported is not a duplicate. */
static void test_rescan_fixes(void **state)
{
	char top[PATH_MAX], keep[PATH_MAX], a[PATH_MAX], b[PATH_MAX], c[PATH_MAX], d[PATH_MAX];
	uint64_t id_keep, id_a, id_b, id_c, id_d;
	struct recorder rec = {};
	struct cg_watch *w;

	FIXTURE();
	mkcg(rel(top, sizeof(top), "rescan"));
	id_keep = mkcg(rel(keep, sizeof(keep), "rescan/keep"));
	w = watch_subtree(&rec, top, 0);
	assert_reported_once(&rec, true, id_keep, keep);
	rec_reset(&rec);

	id_a = mkcg(rel(a, sizeof(a), "rescan/a"));
	id_b = mkcg(rel(b, sizeof(b), "rescan/a/b"));
	id_c = mkcg(rel(c, sizeof(c), "rescan/c"));
	drop_events(w);
	drain(w);
	assert_int_equal(rec.n, 0);

	assert_int_equal(cg_watch_rescan(w), 0);
	assert_int_equal(rec.n, 3);
	assert_reported_once(&rec, true, id_a, a);
	assert_reported_once(&rec, true, id_b, b);
	assert_reported_once(&rec, true, id_c, c);
	assert_int_equal(stats_of(w).rescan_fixes, 3);
	assert_watches_consistent(w);

	/* Rescan before the event is read: the event is no news afterwards. */
	id_d = mkcg(rel(d, sizeof(d), "rescan/d"));
	assert_int_equal(cg_watch_rescan(w), 0);
	drain(w);
	assert_reported_once(&rec, true, id_d, d);
	assert_int_equal(stats_of(w).rescan_fixes, 4);

	/* A removal whose events are lost. */
	rmcg(c);
	drop_events(w);
	assert_int_equal(cg_watch_rescan(w), 0);
	assert_reported_once(&rec, false, id_c, c);
	assert_int_equal(stats_of(w).rescan_fixes, 5);
	assert_string_equal(cg_watch_path_of(w, id_c), c);

	/* Removals found by a rescan while their events are still queued. */
	rmcg(b);
	rmcg(a);
	assert_int_equal(cg_watch_rescan(w), 0);
	drain(w);
	assert_reported_once(&rec, false, id_b, b);
	assert_reported_once(&rec, false, id_a, a);
	assert_true(rec_index(&rec, false, id_b) < rec_index(&rec, false, id_a));
	assert_int_equal(stats_of(w).rescan_fixes, 7);
	assert_int_equal(rec.n, 4 + 3);

	/* Nothing left to fix. */
	assert_int_equal(cg_watch_rescan(w), 0);
	assert_int_equal(stats_of(w).rescan_fixes, 7);
	assert_int_equal(stats_of(w).cgroups, 3); /* top, keep, d */
	assert_watches_consistent(w);

	rmcg(d);
	drain(w);
	assert_int_equal(rec_count(&rec, false, id_d), 1);
	assert_int_equal(stats_of(w).rescan_fixes, 7);
	assert_int_equal(rec.path_of_mismatches, 0);
	cg_watch_free(w);
	rec_free(&rec);
}

static long read_long_file(const char *path)
{
	FILE *f = fopen(path, "re");
	long v = -1;

	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

/* A real IN_Q_OVERFLOW: more events than fs.inotify.max_queued_events. What
 * happened after the queue filled up is found by the rescan that follows. */
static void test_queue_overflow(void **state)
{
	char top[PATH_MAX], flood[PATH_MAX], flood_abs[PATH_MAX], late[PATH_MAX], doomed[PATH_MAX];
	uint64_t id_late, id_doomed;
	struct recorder rec = {};
	struct cg_watch_stats s;
	struct cg_watch *w;
	long max_events, pairs;

	FIXTURE();
	max_events = read_long_file("/proc/sys/fs/inotify/max_queued_events");
	if (max_events <= 0 || max_events > 200000) {
		unit_skip(
			"fs.inotify.max_queued_events is %ld: too many cgroups to overflow it here",
			max_events);
	}
	/* mkdir + rmdir queue two events (IN_CREATE, IN_DELETE, never merged). */
	pairs = max_events / 2 + 16;

	mkcg(rel(top, sizeof(top), "overflow"));
	id_doomed = mkcg(rel(doomed, sizeof(doomed), "overflow/doomed"));
	w = watch_subtree(&rec, top, 0);
	rec_reset(&rec);

	abs_of(rel(flood, sizeof(flood), "overflow/f"), flood_abs, sizeof(flood_abs));
	for (long i = 0; i < pairs; i++) {
		assert_int_equal(mkdir(flood_abs, 0755), 0);
		assert_int_equal(rmdir(flood_abs), 0);
	}
	/* The queue is full: these two events are lost. */
	id_late = mkcg(rel(late, sizeof(late), "overflow/late"));
	rmcg(doomed);

	drain(w);
	s = stats_of(w);
	assert_int_equal(s.overflows, 1);
	assert_int_equal(rec.n, 2);
	assert_reported_once(&rec, true, id_late, late);
	assert_reported_once(&rec, false, id_doomed, doomed);
	assert_int_equal(s.rescan_fixes, 2);
	/* The flood's cgroups were gone before they could be read. */
	assert_true(s.vanished > 0 && s.vanished <= (unsigned)pairs);
	assert_watches_consistent(w);

	rmcg(late);
	drain(w);
	assert_reported_once(&rec, false, id_late, late);
	assert_int_equal(rec.path_of_mismatches, 0);
	cg_watch_free(w);
	rec_free(&rec);
}

/* ---- inotify watch limit, for real, in a child user namespace ----
 * max_user_watches is counted per user per user namespace (ucounts), and the
 * namespace's root may lower its own limit (/proc/sys/user/max_inotify_watches)
 * without touching the host's. The child reports through its exit status:
 * cmocka assertions must not run in a forked child. */

#define LIMIT_WATCHES 3
#define LIMIT_DIRS 5
#define CHILD_SKIP 77

#define CHILD_CHECK(cond)                                                                         \
	do {                                                                                      \
		if (!(cond)) {                                                                    \
			fprintf(stderr, "child: check failed at line %d: %s\n", __LINE__, #cond); \
			_exit(1);                                                                 \
		}                                                                                 \
	} while (0)

static int write_file(const char *path, const char *value)
{
	int fd, r = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, value, strlen(value)) != (ssize_t)strlen(value))
		r = -errno;
	close(fd);
	return r;
}

static int enter_limited_userns(void)
{
	char limit[16];

	if (unshare(CLONE_NEWUSER) < 0) {
		fprintf(stderr, "child: unshare(CLONE_NEWUSER): %s\n", strerror(errno));
		return CHILD_SKIP;
	}
	/* Stay uid/gid 0 (mapped to 0), so cgroupfs permissions are unchanged. */
	if (write_file("/proc/self/setgroups", "deny") < 0 ||
	    write_file("/proc/self/uid_map", "0 0 1") < 0 ||
	    write_file("/proc/self/gid_map", "0 0 1") < 0) {
		fprintf(stderr, "child: cannot map ids in the user namespace: %s\n",
			strerror(errno));
		return CHILD_SKIP;
	}
	snprintf(limit, sizeof(limit), "%d", LIMIT_WATCHES);
	if (write_file("/proc/sys/user/max_inotify_watches", limit) < 0) {
		fprintf(stderr, "child: cannot set user.max_inotify_watches: %s\n",
			strerror(errno));
		return CHILD_SKIP;
	}
	return 0;
}

static void limit_child_counting(void *ctx, const struct cg_watch *w, const char *rel_path,
				 uint64_t id)
{
	(*(unsigned *)ctx)++;
}

static int limit_child(const char *top)
{
	struct cg_watch_ops ops = { .added = limit_child_counting };
	struct cg_watch_opts o = { .subtree = top };
	char p[PATH_MAX], reason[512];
	unsigned added = 0, by_events;
	struct cg_watch_stats s;
	struct cg_watch *w;
	int r;

	r = enter_limited_userns();
	if (r != 0)
		return r;

	r = cg_watch_new(&o, &ops, &added, &w);
	CHILD_CHECK(r == 0);
	/* top + 5 dirs + 5 children, all reported although most are not watched. */
	CHILD_CHECK(added == 1 + 2 * LIMIT_DIRS);
	s = stats_of(w);
	CHILD_CHECK(s.watches == LIMIT_WATCHES);
	CHILD_CHECK(s.limit_hits > 0);
	/* anchor + top + the first dir took the 3 watches. */
	CHILD_CHECK(s.unwatched == 1 + 2 * LIMIT_DIRS - (LIMIT_WATCHES - 1));
	CHILD_CHECK(cg_watch_limit_reason(w, reason, sizeof(reason)));
	CHILD_CHECK(strstr(reason, "max_user_watches=3"));
	fprintf(stderr, "child: reason: %s\n", reason);

	/* New cgroups in every dir: events see those in watched dirs only,
         * the rescan the rest. */
	added = 0;
	for (int i = 0; i < LIMIT_DIRS; i++) {
		CHILD_CHECK(snprintf(p, sizeof(p), "%s%s/d%d/new", fx.root, top, i) <
			    (int)sizeof(p));
		CHILD_CHECK(mkdir(p, 0755) == 0);
	}
	for (;;) {
		struct pollfd pfd = { .fd = cg_watch_fd(w), .events = POLLIN };

		if (poll(&pfd, 1, 0) <= 0)
			break;
		CHILD_CHECK(cg_watch_process(w) == 0);
	}
	by_events = added;
	CHILD_CHECK(by_events < LIMIT_DIRS);
	CHILD_CHECK(cg_watch_rescan(w) == 0);
	CHILD_CHECK(added == LIMIT_DIRS);
	CHILD_CHECK(stats_of(w).rescan_fixes == LIMIT_DIRS - by_events);

	/* Emptying the subtree gives the watches back; afterwards everything
         * is watched again and the reason says so. */
	for (int i = 0; i < LIMIT_DIRS; i++) {
		CHILD_CHECK(snprintf(p, sizeof(p), "%s%s/d%d/new", fx.root, top, i) <
			    (int)sizeof(p));
		CHILD_CHECK(rmdir(p) == 0);
		CHILD_CHECK(snprintf(p, sizeof(p), "%s%s/d%d/x", fx.root, top, i) < (int)sizeof(p));
		CHILD_CHECK(rmdir(p) == 0);
		CHILD_CHECK(snprintf(p, sizeof(p), "%s%s/d%d", fx.root, top, i) < (int)sizeof(p));
		CHILD_CHECK(rmdir(p) == 0);
	}
	CHILD_CHECK(cg_watch_process(w) == 0);
	CHILD_CHECK(cg_watch_rescan(w) == 0);
	s = stats_of(w);
	CHILD_CHECK(s.cgroups == 1);
	CHILD_CHECK(s.unwatched == 0);
	CHILD_CHECK(s.watches == 2);
	CHILD_CHECK(s.watches == kernel_watch_count(cg_watch_fd(w)));
	CHILD_CHECK(cg_watch_limit_reason(w, reason, sizeof(reason)));
	CHILD_CHECK(strstr(reason, "watched again"));
	cg_watch_free(w);
	return 0;
}

static void test_watch_limit(void **state)
{
	char top[PATH_MAX], p[PATH_MAX];
	int status;
	pid_t pid;

	FIXTURE();
	mkcg(rel(top, sizeof(top), "limit"));
	for (int i = 0; i < LIMIT_DIRS; i++) {
		mkcg(rel(p, sizeof(p), "limit/d%d", i));
		mkcg(rel(p, sizeof(p), "limit/d%d/x", i));
	}

	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(limit_child(top));

	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status) == CHILD_SKIP) {
		unit_skip("no user namespace with its own inotify limit here");
	}
	assert_int_equal(WEXITSTATUS(status), 0);
}

static void test_removed_history(void **state)
{
	struct cg_watch_opts o = { .removed_history = 4 };
	char top[PATH_MAX], p[6][PATH_MAX];
	struct recorder rec = {};
	struct cg_watch *w = NULL;
	uint64_t ids[6];

	FIXTURE();
	mkcg(rel(top, sizeof(top), "history"));
	o.subtree = top;
	assert_int_equal(cg_watch_new(&o, &rec_ops, &rec, &w), 0);
	rec.w = w;
	for (int i = 0; i < 6; i++)
		ids[i] = mkcg(rel(p[i], sizeof(p[i]), "history/h%d", i));
	drain(w);
	for (int i = 0; i < 6; i++)
		rmcg(p[i]);
	drain(w);

	/* The 4 most recent removals are remembered, older ones forgotten. */
	assert_null(cg_watch_path_of(w, ids[0]));
	assert_null(cg_watch_path_of(w, ids[1]));
	for (int i = 2; i < 6; i++)
		assert_string_equal(cg_watch_path_of(w, ids[i]), p[i]);
	assert_int_equal(rec.path_of_mismatches, 0);
	cg_watch_free(w);
	rec_free(&rec);
}

/* The top itself removed and created again: seen through the watch on its
 * parent, since cgroupfs tells a removed directory's own watch nothing. */
static void test_top_removed_and_recreated(void **state)
{
	char top[PATH_MAX], c[PATH_MAX];
	uint64_t id_top, id_c, id_top2, id_c2;
	struct recorder rec = {};
	struct cg_watch *w;

	FIXTURE();
	id_top = mkcg(rel(top, sizeof(top), "topgone"));
	id_c = mkcg(rel(c, sizeof(c), "topgone/c"));
	w = watch_subtree(&rec, top, 0);
	assert_int_equal(rec.n, 2);

	rmcg(c);
	rmcg(top);
	drain(w);
	assert_reported_once(&rec, false, id_c, c);
	assert_reported_once(&rec, false, id_top, top);
	assert_int_equal(stats_of(w).cgroups, 0);
	assert_int_equal(stats_of(w).watches, 1); /* the anchor */
	assert_watches_consistent(w);
	assert_int_equal(cg_watch_rescan(w), 0);
	assert_int_equal(rec.n, 4);

	id_top2 = mkcg(top);
	id_c2 = mkcg(c);
	drain(w);
	assert_reported_once(&rec, true, id_top2, top);
	assert_reported_once(&rec, true, id_c2, c);
	assert_int_equal(stats_of(w).rescan_fixes, 0);
	assert_int_equal(stats_of(w).watches, 3);
	assert_watches_consistent(w);
	assert_int_equal(rec.path_of_mismatches, 0);
	cg_watch_free(w);
	rec_free(&rec);
}

static void test_max_depth(void **state)
{
	char top[PATH_MAX], a[PATH_MAX], b[PATH_MAX], c[PATH_MAX], d[PATH_MAX];
	uint64_t id_top, id_a, id_c;
	struct recorder rec = {};
	struct cg_watch_stats s;
	struct cg_watch *w;
	int level;

	FIXTURE();
	id_top = mkcg(rel(top, sizeof(top), "depth"));
	id_a = mkcg(rel(a, sizeof(a), "depth/a"));
	mkcg(rel(b, sizeof(b), "depth/a/b"));
	level = cgroup2_level(top);
	assert_int_equal(level, 2);

	w = watch_subtree(&rec, top, level + 1);
	assert_int_equal(rec.n, 2);
	assert_reported_once(&rec, true, id_top, top);
	assert_reported_once(&rec, true, id_a, a);
	s = stats_of(w);
	/* anchor + top; a sits at the limit and needs no watch. */
	assert_int_equal(s.watches, 2);
	assert_int_equal(s.unwatched, 0);

	id_c = mkcg(rel(c, sizeof(c), "depth/c"));
	mkcg(rel(d, sizeof(d), "depth/c/d"));
	drain(w);
	assert_int_equal(cg_watch_rescan(w), 0);
	assert_int_equal(rec.n, 3);
	assert_reported_once(&rec, true, id_c, c);
	assert_int_equal(stats_of(w).rescan_fixes, 0);
	assert_watches_consistent(w);

	rmcg(d);
	rmcg(c);
	rmcg(b);
	drain(w);
	assert_int_equal(rec.n, 4);
	assert_reported_once(&rec, false, id_c, c);
	cg_watch_free(w);
	rec_free(&rec);
}

/* want_watch(): a directory the caller wants no watch on gets none, what is
 * created below it is found by the rescan; cg_watch_refresh() applies a
 * changed answer at once, walking what it missed. */
struct choosy {
	struct recorder rec;
	bool watch_no; /* the answer for ".../no" */
	unsigned asked;
};

static void choosy_added(void *ctx, const struct cg_watch *w, const char *rel_path, uint64_t id)
{
	rec_push(&((struct choosy *)ctx)->rec, true, rel_path, id);
}

static void choosy_removed(void *ctx, const struct cg_watch *w, const char *rel_path, uint64_t id)
{
	rec_push(&((struct choosy *)ctx)->rec, false, rel_path, id);
}

static bool choosy_want(void *ctx, const struct cg_watch *w, const char *rel_path, uint64_t id)
{
	struct choosy *c = ctx;
	size_t n = strlen(rel_path);

	c->asked++;
	return c->watch_no || n < 3 || strcmp(rel_path + n - 3, "/no") != 0;
}

static void test_want_watch_and_refresh(void **state)
{
	static const struct cg_watch_ops ops = { .added = choosy_added,
						 .removed = choosy_removed,
						 .want_watch = choosy_want };
	char top[PATH_MAX], no[PATH_MAX], x[PATH_MAX], late[PATH_MAX], later[PATH_MAX];
	struct cg_watch_opts o = {};
	struct choosy c = {};
	struct cg_watch_stats s;
	struct cg_watch *w;
	uint64_t id_no, id_late, id_later;

	FIXTURE();
	mkcg(rel(top, sizeof(top), "ww"));
	id_no = mkcg(rel(no, sizeof(no), "ww/no"));
	mkcg(rel(x, sizeof(x), "ww/no/x"));
	o.subtree = top;
	assert_int_equal(cg_watch_new(&o, &ops, &c, &w), 0);
	c.rec.w = w;
	assert_int_equal(c.rec.n, 3);
	assert_true(c.asked >= 3);
	s = stats_of(w);
	/* The anchor, the top and x: not "no". */
	assert_int_equal(s.watches, 3);
	assert_int_equal(s.not_wanted, 1);
	assert_int_equal(s.unwatched, 0);
	assert_watches_consistent(w);
	assert_false(cg_watch_limit_reason(w, late, sizeof(late)));

	/* Unseen by events, found by the rescan. */
	id_late = mkcg(rel(late, sizeof(late), "ww/no/late"));
	drain(w);
	assert_int_equal(rec_count(&c.rec, true, id_late), 0);
	assert_int_equal(cg_watch_rescan(w), 0);
	assert_reported_once(&c.rec, true, id_late, late);
	assert_int_equal(stats_of(w).rescan_fixes, 1);
	assert_int_equal(stats_of(w).watches, 4); /* late itself is watched */

	/* The answer changes: refresh watches it and walks what it missed. */
	id_later = mkcg(rel(later, sizeof(later), "ww/no/later"));
	c.watch_no = true;
	assert_int_equal(cg_watch_refresh(w, id_no), 0);
	assert_reported_once(&c.rec, true, id_later, later);
	s = stats_of(w);
	assert_int_equal(s.watches, 6);
	assert_int_equal(s.not_wanted, 0);
	assert_watches_consistent(w);
	rmcg(later);
	drain(w);
	assert_reported_once(&c.rec, false, id_later, later);

	/* And back: the watch goes, nothing is reported. */
	c.watch_no = false;
	assert_int_equal(cg_watch_refresh(w, id_no), 0);
	assert_int_equal(stats_of(w).watches, 4);
	assert_watches_consistent(w);
	assert_int_equal(cg_watch_refresh(w, 12345678), -ENOENT);
	assert_int_equal(cg_watch_refresh(NULL, id_no), -EINVAL);

	rmcg(late);
	rmcg(x);
	rmcg(no);
	rmcg(top);
	drain(w);
	assert_int_equal(cg_watch_rescan(w), 0);
	assert_int_equal(stats_of(w).cgroups, 0);
	cg_watch_free(w);
	rec_free(&c.rec);
}

/* One rescan: rescan_fixes is fixes then, and the rescan skipped `skipped`
 * directories (confirmed by one stat). */
static void rescan_expecting(struct cg_watch *w, unsigned fixes, unsigned skipped)
{
	unsigned before = stats_of(w).rescan_skipped;

	assert_int_equal(cg_watch_rescan(w), 0);
	assert_int_equal(stats_of(w).rescan_fixes, fixes);
	assert_int_equal(stats_of(w).rescan_skipped - before, skipped);
	assert_watches_consistent(w);
}

/* The rescan's shortcut: a known leaf whose stat shows the same id and no
 * subdirectory is not opened (rescan_skipped counts it). What changed
 * unseen takes the full visit: a leaf removed and created again under its
 * name, a subdirectory below a former leaf; a watch that want_watch() now
 * wants is added (opened), one it no longer wants dropped (skipped). */
static void test_rescan_unchanged(void **state)
{
	static const struct cg_watch_ops ops = { .added = choosy_added,
						 .removed = choosy_removed,
						 .want_watch = choosy_want };
	char top[PATH_MAX], l[4][PATH_MAX], no[PATH_MAX], p[PATH_MAX], pc[PATH_MAX], sub[PATH_MAX];
	uint64_t id_l[4], id_l1_new, id_sub;
	struct cg_watch_opts o = {};
	struct choosy c = {};
	struct cg_watch *w;
	unsigned asked;

	FIXTURE();
	mkcg(rel(top, sizeof(top), "fast"));
	for (int i = 0; i < 4; i++)
		id_l[i] = mkcg(rel(l[i], sizeof(l[i]), "fast/l%d", i));
	mkcg(rel(no, sizeof(no), "fast/no"));
	mkcg(rel(p, sizeof(p), "fast/p"));
	mkcg(rel(pc, sizeof(pc), "fast/p/c"));
	o.subtree = top;
	assert_int_equal(cg_watch_new(&o, &ops, &c, &w), 0);
	c.rec.w = w;
	assert_int_equal(c.rec.n, 8);
	assert_int_equal(stats_of(w).rescan_skipped, 0);
	rec_reset(&c.rec);

	/* Unchanged: the six leaves (l0-l3, no, p/c) by one stat each, and
	 * want_watch() asked once per directory, as a full walk does. */
	asked = c.asked;
	rescan_expecting(w, 0, 6);
	assert_int_equal(c.asked - asked, 8);
	assert_int_equal(c.rec.n, 0);

	/* (a) l1 removed and created again, its events lost: another id. */
	rmcg(l[1]);
	id_l1_new = mkcg(l[1]);
	assert_true(id_l1_new != id_l[1]);
	drop_events(w);
	rescan_expecting(w, 2, 5);
	assert_reported_once(&c.rec, false, id_l[1], l[1]);
	assert_reported_once(&c.rec, true, id_l1_new, l[1]);
	assert_true(rec_index(&c.rec, false, id_l[1]) < rec_index(&c.rec, true, id_l1_new));

	/* (b) A subdirectory below the former leaf l2, its event lost; then
	 * gone again unseen: l2 is a leaf again, skipped, and the sweep
	 * removes what we knew below it. */
	id_sub = mkcg(rel(sub, sizeof(sub), "fast/l2/sub"));
	drop_events(w);
	rescan_expecting(w, 3, 5);
	assert_reported_once(&c.rec, true, id_sub, sub);
	rmcg(sub);
	drop_events(w);
	rescan_expecting(w, 4, 6);
	assert_reported_once(&c.rec, false, id_sub, sub);

	/* (c) "no" wanted now: watched (opened, not skipped); then not again:
	 * the watch goes without an open. */
	c.watch_no = true;
	rescan_expecting(w, 4, 5);
	assert_int_equal(stats_of(w).not_wanted, 0);
	assert_int_equal(stats_of(w).unwatched, 0);
	c.watch_no = false;
	rescan_expecting(w, 4, 6);
	assert_int_equal(stats_of(w).not_wanted, 1);

	assert_int_equal(c.rec.n, 4);
	assert_int_equal(stats_of(w).cgroups, 8);
	assert_int_equal(c.rec.path_of_mismatches, 0);

	rmcg(pc);
	rmcg(p);
	rmcg(no);
	for (int i = 0; i < 4; i++)
		rmcg(l[i]);
	rmcg(top);
	drain(w);
	assert_int_equal(stats_of(w).cgroups, 0);
	cg_watch_free(w);
	rec_free(&c.rec);
}

/* want_below(): below a directory the caller says nothing matters under,
 * nothing is walked, watched or reported (not at the start, not by a rescan,
 * not when created later); the directory itself is reported, and a rescan
 * confirms it from its directory entry: counted as skipped, and replaced
 * unseen (removed and created again, events lost) it is found as before. */
static bool below_want(void *ctx, const struct cg_watch *w, const char *rel_path, uint64_t id)
{
	size_t n = strlen(rel_path);

	(void)ctx;
	(void)w;
	(void)id;
	return n < 2 ||
	       (strcmp(rel_path + n - 2, "/a") != 0 && strcmp(rel_path + n - 2, "/b") != 0);
}

static void test_want_below(void **state)
{
	static const struct cg_watch_ops ops = { .added = on_added,
						 .removed = on_removed,
						 .want_below = below_want };
	char top[PATH_MAX], a[PATH_MAX], b[PATH_MAX], c[PATH_MAX], asub[PATH_MAX], bsub[PATH_MAX],
		csub[PATH_MAX];
	uint64_t id_a, id_b, id_b_new, id_c, id_csub;
	struct cg_watch_opts o = {};
	struct recorder rec = {};
	struct cg_watch *w;

	FIXTURE();
	mkcg(rel(top, sizeof(top), "below"));
	id_a = mkcg(rel(a, sizeof(a), "below/a"));
	id_b = mkcg(rel(b, sizeof(b), "below/b"));
	id_c = mkcg(rel(c, sizeof(c), "below/c"));
	mkcg(rel(asub, sizeof(asub), "below/a/sub"));
	o.subtree = top;
	assert_int_equal(cg_watch_new(&o, &ops, &rec, &w), 0);
	rec.w = w;
	/* top, a, b, c: not a/sub. */
	assert_int_equal(rec.n, 4);
	assert_reported_once(&rec, true, id_a, a);
	assert_reported_once(&rec, true, id_c, c);
	/* anchor + top + c: a and b need no watch, and are not "unwatched". */
	assert_int_equal(stats_of(w).watches, 3);
	assert_int_equal(stats_of(w).unwatched, 0);
	assert_int_equal(stats_of(w).not_wanted, 0);
	rec_reset(&rec);

	/* Created below b and c: c's is reported by its event, b's never. */
	mkcg(rel(bsub, sizeof(bsub), "below/b/sub"));
	id_csub = mkcg(rel(csub, sizeof(csub), "below/c/sub"));
	drain(w);
	assert_int_equal(rec.n, 1);
	assert_reported_once(&rec, true, id_csub, csub);
	rec_reset(&rec);

	/* A rescan: a and b from their entries, c/sub by its stat; nothing
	 * below a or b found. */
	rescan_expecting(w, 0, 3);
	assert_int_equal(rec.n, 0);

	/* b replaced unseen: its entry shows another inode number. */
	rmcg(bsub);
	rmcg(b);
	id_b_new = mkcg(b);
	assert_true(id_b_new != id_b);
	drop_events(w);
	rescan_expecting(w, 2, 2);
	assert_reported_once(&rec, false, id_b, b);
	assert_reported_once(&rec, true, id_b_new, b);
	assert_int_equal(rec.n, 2);

	rmcg(csub);
	rmcg(c);
	rmcg(b);
	rmcg(asub);
	rmcg(a);
	rmcg(top);
	drain(w);
	assert_int_equal(stats_of(w).cgroups, 0);
	cg_watch_free(w);
	rec_free(&rec);
}

/* max_watches: never more watches than that; the rest is reported and found
 * by rescans; once the tree shrinks everything is watched again. */
static void test_watch_cap(void **state)
{
	struct cg_watch_opts o = { .max_watches = 3 };
	char top[PATH_MAX], kids[5][PATH_MAX], late[5][PATH_MAX], reason[512];
	struct recorder rec = {};
	struct cg_watch_stats s;
	struct cg_watch *w;
	uint64_t late_ids[5];

	FIXTURE();
	mkcg(rel(top, sizeof(top), "cap"));
	for (int i = 0; i < 5; i++)
		mkcg(rel(kids[i], sizeof(kids[i]), "cap/k%d", i));
	o.subtree = top;
	assert_int_equal(cg_watch_new(&o, &rec_ops, &rec, &w), 0);
	rec.w = w;
	assert_int_equal(rec.n, 6);
	s = stats_of(w);
	assert_int_equal(s.watches, 3);
	assert_int_equal(s.unwatched, 4);
	assert_int_equal(s.cap_hits, 4);
	assert_watches_consistent(w);
	assert_true(cg_watch_limit_reason(w, reason, sizeof(reason)));
	assert_non_null(
		strstr(reason, "4 cgroup directories have no inotify watch: the cap of 3 watches"));

	/* Below unwatched ones: found by the rescan, and not watched. */
	for (int i = 0; i < 5; i++)
		late_ids[i] = mkcg(rel(late[i], sizeof(late[i]), "cap/k%d/late", i));
	drain(w);
	assert_int_equal(cg_watch_rescan(w), 0);
	for (int i = 0; i < 5; i++)
		assert_reported_once(&rec, true, late_ids[i], late[i]);
	assert_int_equal(stats_of(w).watches, 3);
	assert_watches_consistent(w);

	for (int i = 0; i < 5; i++) {
		rmcg(late[i]);
		rmcg(kids[i]);
	}
	drain(w);
	assert_int_equal(cg_watch_rescan(w), 0);
	s = stats_of(w);
	assert_int_equal(s.unwatched, 0);
	assert_int_equal(s.cgroups, 1);
	assert_true(cg_watch_limit_reason(w, reason, sizeof(reason)));
	assert_non_null(strstr(reason, "has one again now"));
	rmcg(top);
	drain(w);
	cg_watch_free(w);
	rec_free(&rec);
}

/* CGPERF_CGROUP2_ROOT on an ordinary filesystem: there the kernel drops a
 * deleted directory's watch itself (IN_DELETE_SELF, IN_IGNORED) and renames
 * exist. Ids are inode numbers. */
static void test_plain_tree(void **state)
{
	char *tmp = fx.plain_tmp, p[PATH_MAX];
	uint64_t id_a, id_b, id_z, id_zb;
	struct recorder rec = {};
	struct cg_watch *w;
	unsigned baseline, fds;

	FIXTURE();
	snprintf(fx.plain_tmp, sizeof(fx.plain_tmp), "/tmp/cgperf-unit-watch-XXXXXX");
	assert_non_null(mkdtemp(tmp));
	assert_int_equal(setenv(ROOT_ENV, tmp, 1), 0);
	fds = fd_count();

	snprintf(p, sizeof(p), "%s/a", tmp);
	assert_int_equal(mkdir(p, 0755), 0);
	/* A plain file is not a cgroup. */
	snprintf(p, sizeof(p), "%s/a/file", tmp);
	assert_int_equal(close(open(p, O_CREAT | O_WRONLY | O_CLOEXEC, 0644)), 0);

	w = watch_subtree(&rec, NULL, 0);
	baseline = 1; /* the root: not reported, watched */
	assert_int_equal(cg_watch_rescan(w), 0);
	assert_int_equal(cgroup2_id_of("/a", &id_a), 0);
	assert_int_equal(rec.n, 1);
	assert_reported_once(&rec, true, id_a, "/a");
	/* Inode number and link count mean the same here: the leaf /a (with a
	 * file in it) is confirmed by its stat. */
	assert_int_equal(stats_of(w).rescan_skipped, 1);

	snprintf(p, sizeof(p), "%s/a/b", tmp);
	assert_int_equal(mkdir(p, 0755), 0);
	assert_int_equal(cgroup2_id_of("/a/b", &id_b), 0);
	drain(w);
	assert_reported_once(&rec, true, id_b, "/a/b");
	assert_int_equal(stats_of(w).watches, baseline + 2);

	/* A rename is the old name removed and the new one added. */
	rec_reset(&rec);
	{
		char from[PATH_MAX], to[PATH_MAX];

		snprintf(from, sizeof(from), "%s/a", tmp);
		snprintf(to, sizeof(to), "%s/z", tmp);
		assert_int_equal(rename(from, to), 0);
	}
	assert_int_equal(cgroup2_id_of("/z", &id_z), 0);
	assert_int_equal(cgroup2_id_of("/z/b", &id_zb), 0);
	drain(w);
	assert_int_equal(rec.n, 4);
	assert_reported_once(&rec, false, id_b, "/a/b");
	assert_reported_once(&rec, false, id_a, "/a");
	assert_reported_once(&rec, true, id_z, "/z");
	assert_reported_once(&rec, true, id_zb, "/z/b");
	assert_int_equal(stats_of(w).watches, baseline + 2);
	assert_watches_consistent(w);

	rec_reset(&rec);
	snprintf(p, sizeof(p), "%s/z/b", tmp);
	assert_int_equal(rmdir(p), 0);
	snprintf(p, sizeof(p), "%s/z/file", tmp);
	assert_int_equal(unlink(p), 0);
	snprintf(p, sizeof(p), "%s/z", tmp);
	assert_int_equal(rmdir(p), 0);
	drain(w);
	assert_int_equal(rec.n, 2);
	assert_int_equal(rec_count(&rec, false, id_zb), 1);
	assert_int_equal(rec_count(&rec, false, id_z), 1);
	assert_int_equal(stats_of(w).watches, baseline);
	assert_watches_consistent(w);
	assert_int_equal(stats_of(w).rescan_fixes, 0);
	assert_int_equal(rec.path_of_mismatches, 0);

	cg_watch_free(w);
	assert_int_equal(unsetenv(ROOT_ENV), 0);
	assert_int_equal(rmdir(tmp), 0);
	fx.plain_tmp[0] = '\0';
	assert_int_equal(fd_count(), fds);
	rec_free(&rec);
}

/* ---------------------------------------------------------------------------
 * Fixture
 * ------------------------------------------------------------------------- */

static int setup_real(void **state)
{
	unsetenv(ROOT_ENV);
	if (cgroup2_root(&fx.root, NULL) < 0) {
		snprintf(fx.why_not, sizeof(fx.why_not), "no cgroup2 mount");
		return 0;
	}
	snprintf(fx.base, sizeof(fx.base), "/cgperf-unit-watch-%d", (int)getpid());
	snprintf(fx.base_abs, sizeof(fx.base_abs), "%s%s", fx.root, fx.base);
	if (mkdir(fx.base_abs, 0755) < 0) {
		if (errno == EACCES || errno == EPERM || errno == EROFS) {
			snprintf(fx.why_not, sizeof(fx.why_not), "cannot create cgroups: %s",
				 strerror(errno));
			return 0;
		}
		fprintf(stderr, "mkdir %s: %s\n", fx.base_abs, strerror(errno));
		return -1;
	}
	fx.ready = true;
	return 0;
}

static int teardown_real(void **state)
{
	char parent[PATH_MAX], *slash;
	int dfd, r;

	unsetenv(ROOT_ENV);
	if (fx.plain_tmp[0]) {
		(void)rm_tree_at(AT_FDCWD, fx.plain_tmp, true);
		fx.plain_tmp[0] = '\0';
	}
	if (!fx.ready)
		return 0;
	snprintf(parent, sizeof(parent), "%s", fx.base_abs);
	slash = strrchr(parent, '/');
	*slash = '\0';
	dfd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -1;
	r = rm_tree_at(dfd, slash + 1, false);
	close(dfd);
	if (r < 0)
		fprintf(stderr, "cannot remove %s: %s\n", fx.base_abs, strerror(-r));
	return r < 0 ? -1 : 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_arguments),
		cmocka_unit_test(test_initial_scan),
		cmocka_unit_test(test_nested_mkdir_and_rmdir),
		cmocka_unit_test(test_recreated_name),
		cmocka_unit_test(test_odd_names),
		cmocka_unit_test(test_churn),
		cmocka_unit_test(test_rescan_fixes),
		cmocka_unit_test(test_queue_overflow),
		cmocka_unit_test(test_watch_limit),
		cmocka_unit_test(test_removed_history),
		cmocka_unit_test(test_top_removed_and_recreated),
		cmocka_unit_test(test_max_depth),
		cmocka_unit_test(test_want_watch_and_refresh),
		cmocka_unit_test(test_rescan_unchanged),
		cmocka_unit_test(test_want_below),
		cmocka_unit_test(test_watch_cap),
		cmocka_unit_test(test_plain_tree),
	};

	return unit_result(
		cmocka_run_group_tests_name("cgroup watch", tests, setup_real, teardown_real));
}
