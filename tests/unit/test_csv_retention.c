// SPDX-License-Identifier: GPL-2.0-only
/* Retention of the CSV directory against real files, through the sink: files
 * of removed cgroups deleted keep_removed after their last row (also those of
 * cgroups removed while no agent ran), max_total_size enforced oldest first
 * (removed cgroups' files, then rotated files), never a live cgroup's current
 * file, bounded work per tick, deletions counted; and the name parser.
 * File ages are set with utimensat(): no test waits for time to pass. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sink/csv_retention.h"
#include "sink/csv_sink.h"
#include "sink/file_name.h"
#include "tests/lib/test_files.h"

#define DAY (24LL * 3600)

static char *tmpdir;

static int setup(void **state)
{
	tmpdir = test_mkdtemp("/tmp/cgperf-test-ret.XXXXXX");
	return 0;
}

static int teardown(void **state)
{
	assert_int_equal(test_rmtemp(tmpdir), 0);
	free(tmpdir);
	return 0;
}

static struct sink *new_sink(uint64_t keep_ms, uint64_t max_total, uint64_t max_size)
{
	struct csv_config cfg = { .enabled = true,
				  .max_size = max_size,
				  .max_files = 5,
				  .keep_removed_ms = keep_ms,
				  .max_total_size = max_total };
	struct sink *s = NULL;

	snprintf(cfg.directory, sizeof(cfg.directory), "%s", tmpdir);
	assert_int_equal(csv_sink_new(&cfg, &s), 0);
	return s;
}

static const char *const events[] = { "cpu-clock" };

/* One row for the cgroup at path, `time` seconds after the epoch. */
static int write_row(struct sink *s, uint64_t id, const char *path, long time, uint64_t total,
		     bool final)
{
	struct sink_cgroup cg = { .id = id, .path = path, .kind = "other" };
	struct reading r = { total, 1000, 1000 };
	struct sink_record rec = { .time = { time, 0 },
				   .cgroup = &cg,
				   .nr_events = 1,
				   .event_names = events,
				   .totals = &r,
				   .delta = &r,
				   .final = final };

	return s->ops->write(s, &rec);
}

static char *file_of(const char *path, const char *suffix)
{
	struct sink_cgroup cg = { .id = 1, .path = path, .kind = "other" };
	char stem[CSV_STEM_MAX + 1], *p;

	assert_int_equal(csv_file_stem(&cg, stem, sizeof(stem)), 0);
	assert_true(asprintf(&p, "%s/%s.csv%s", tmpdir, stem, suffix) > 0);
	return p;
}

static bool exists(const char *p)
{
	return access(p, F_OK) == 0;
}

/* Set p's mtime to `days` days ago (plus `sec` seconds). */
static void age(const char *p, long long days, long long sec)
{
	struct timespec ts[2];

	clock_gettime(CLOCK_REALTIME, &ts[0]);
	ts[0].tv_sec -= days * DAY + sec;
	ts[1] = ts[0];
	assert_int_equal(utimensat(AT_FDCWD, p, ts, 0), 0);
}

static void make_file(const char *p, size_t size)
{
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0640);
	char buf[4096] = "timestamp\n";

	assert_true(fd >= 0);
	for (size_t done = 0; done < size;) {
		size_t n = size - done < sizeof(buf) ? size - done : sizeof(buf);
		assert_int_equal(write(fd, buf, n), (ssize_t)n);
		done += n;
	}
	close(fd);
}

static off_t size_of(const char *p)
{
	struct stat st;

	assert_int_equal(stat(p, &st), 0);
	return st.st_size;
}

static struct csv_sink_stats stats(struct sink *s)
{
	struct csv_sink_stats st;

	assert_int_equal(csv_sink_get_stats(s, &st), 0);
	return st;
}

static void test_parse_name(void **state)
{
	static const struct {
		const char *name;
		bool ours;
		size_t stem_len;
		unsigned rotation;
	} cases[] = {
		{ "web_1a2b_0011223344556677.csv", true, 25, 0 },
		{ "cron.service.csv.3", true, 12, 3 },
		{ "x.csv.1000", true, 1, 1000 },
		{ "a.csv.0", false, 0, 0 }, /* we never write .0 */
		{ "a.csv.01", false, 0, 0 },
		{ "a.csv.10000", false, 0, 0 },
		{ ".csv", false, 0, 0 },
		{ "a.csv.gz", false, 0, 0 }, /* logrotate's compress: its own */
		{ "a.csv-20261203", false, 0, 0 }, /* logrotate's dateext */
		{ "a b.csv", false, 0, 0 },
		{ "notes.txt", false, 0, 0 },
		{ "a.csv.", false, 0, 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t len = 99;
		unsigned rot = 99;
		bool ours = csv_retention_parse_name(cases[i].name, &len, &rot);

		if (ours != cases[i].ours)
			fail_msg("%s: expected %s", cases[i].name,
				 cases[i].ours ? "ours" : "not ours");
		if (ours) {
			assert_int_equal(len, cases[i].stem_len);
			assert_int_equal(rot, cases[i].rotation);
		}
	}
}

/* keep_removed: what no live cgroup writes goes keep_removed after its last
 * row; a live cgroup's current file stays whatever its age; other files in
 * the directory are not the sink's business. Across a restart: a cgroup
 * whose rows came from an earlier agent and that nobody writes now is
 * removed as far as this agent is concerned. */
static void test_keep_removed(void **state)
{
	struct sink *s = new_sink(7 * DAY * 1000, 0, 0);
	char *live = file_of("/live", ""), *live_rot = file_of("/live", ".1");
	char *gone = file_of("/gone", ""), *gone_rot = file_of("/gone", ".2");
	char *recent = file_of("/recent", ""), *earlier = file_of("/earlier-run", "");
	char *old_scheme, *foreign;
	struct csv_sink_stats st;

	assert_true(asprintf(&old_scheme, "%s/cron.service.csv", tmpdir) > 0);
	assert_true(asprintf(&foreign, "%s/notes.txt", tmpdir) > 0);
	/* An earlier agent wrote /earlier-run and stopped; this one never
	 * sees it. */
	assert_int_equal(write_row(s, 9, "/earlier-run", 1000, 1, false), 0);
	s->ops->free(s);
	s = new_sink(7 * DAY * 1000, 0, 0);
	assert_int_equal(write_row(s, 1, "/live", 1000, 1, false), 0);
	assert_int_equal(write_row(s, 2, "/gone", 1000, 1, false), 0);
	assert_int_equal(write_row(s, 2, "/gone", 1010, 2, true), 0);
	assert_int_equal(write_row(s, 3, "/recent", 1000, 1, false), 0);
	assert_int_equal(write_row(s, 3, "/recent", 1010, 2, true), 0);
	make_file(live_rot, 100);
	make_file(gone_rot, 100);
	make_file(old_scheme, 100);
	make_file(foreign, 100);
	age(live, 30, 0); /* live, however old its file looks */
	age(live_rot, 30, 0);
	age(gone, 7, 1);
	age(gone_rot, 8, 0);
	age(recent, 6, 0);
	age(earlier, 7, 5);
	age(old_scheme, 9, 0);
	age(foreign, 100, 0);

	assert_int_equal(s->ops->tick(s), 0);
	assert_false(exists(gone));
	assert_false(exists(gone_rot));
	assert_false(exists(earlier));
	assert_false(exists(old_scheme)); /* the migration: old names age out */
	assert_true(exists(live));
	assert_true(exists(live_rot));
	assert_true(exists(recent));
	assert_true(exists(foreign));
	st = stats(s);
	assert_int_equal(st.files_deleted_removed, 4);
	assert_int_equal(st.files_deleted_for_size, 0);

	/* A cgroup that comes back keeps its file: not deleted at the next pass
	 * even when old. */
	assert_int_equal(write_row(s, 4, "/recent", 2000, 1, false), 0);
	age(recent, 8, 0);
	s->ops->free(s);
	s = new_sink(7 * DAY * 1000, 0, 0);
	assert_int_equal(write_row(s, 5, "/recent", 3000, 1, false), 0);
	age(recent, 8, 0);
	assert_int_equal(s->ops->tick(s), 0);
	assert_true(exists(recent));
	assert_false(exists(live)); /* not written by this run: removed, 30 days */
	s->ops->free(s);
	free(live);
	free(live_rot);
	free(gone);
	free(gone_rot);
	free(recent);
	free(earlier);
	free(old_scheme);
	free(foreign);
}

/* max_total_size: oldest files of removed cgroups first, then the oldest
 * rotated files, until the total fits; a live cgroup's current file never,
 * even when it alone is over the limit. */
static void test_max_total_size(void **state)
{
	char *live = file_of("/a", ""), *a1 = file_of("/a", ".1"), *a2 = file_of("/a", ".2");
	char *r1 = file_of("/r1", ""), *r2 = file_of("/r2", ""), *r3 = file_of("/r3", "");
	struct csv_sink_stats st;
	struct sink *s;
	off_t live_size;

	s = new_sink(0, 1, 0);
	assert_int_equal(write_row(s, 1, "/a", 1000, 1, false), 0);
	s->ops->free(s);
	live_size = size_of(live);
	make_file(a1, 10000);
	make_file(a2, 10000);
	make_file(r1, 10000);
	make_file(r2, 10000);
	make_file(r3, 10000);
	age(r1, 5, 0);
	age(r2, 4, 0);
	age(r3, 1, 0);
	age(a1, 3, 0);
	age(a2, 6, 0); /* the oldest file, but rotated: after removed ones */
	age(live, 40, 0);
	/* Room for the live file and one other: the removed ones go (oldest
	 * first), then the oldest rotated one. */
	s = new_sink(0, live_size + 10000 + 100, 0);
	assert_int_equal(write_row(s, 1, "/a", 1010, 2, false), 0);
	assert_int_equal(s->ops->tick(s), 0);
	assert_false(exists(r1));
	assert_false(exists(r2));
	assert_false(exists(r3));
	assert_false(exists(a2));
	assert_true(exists(a1));
	assert_true(exists(live));
	st = stats(s);
	assert_int_equal(st.files_deleted_for_size, 4);
	assert_int_equal(st.files_deleted_removed, 0);
	assert_int_equal(st.bytes_deleted, 40000);
	s->ops->free(s);

	/* A limit below the live file alone: everything else goes, the live
	 * file stays (and a warning says why the limit is not met). */
	s = new_sink(0, 10, 0);
	assert_int_equal(write_row(s, 1, "/a", 1020, 3, false), 0);
	assert_int_equal(s->ops->tick(s), 0);
	assert_false(exists(a1));
	assert_true(exists(live));
	assert_int_equal(stats(s).files_deleted_for_size, 1);
	s->ops->free(s);
	free(live);
	free(a1);
	free(a2);
	free(r1);
	free(r2);
	free(r3);
}

/* Through a descriptor, closed after (copytruncate, `: >`): the watch sees
 * the close. */
static void truncate_and_close(const char *p, off_t size)
{
	int fd = open(p, O_WRONLY);

	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, size), 0);
	assert_int_equal(close(fd), 0);
}

static void append_and_close(const char *p, const char *text)
{
	int fd = open(p, O_WRONLY | O_APPEND);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	assert_int_equal(close(fd), 0);
}

/* The current files of live cgroups are counted by the size the sink knows
 * (no stat); a file truncated or appended to by someone who then closed it
 * is stat'ed like every rotated file and every removed cgroup's file: the
 * total is the real one. A truncate(2) by path (no descriptor, no close:
 * nothing to see) is counted at the size the sink knew until its next look
 * at the file's end: the documented bound. */
static void test_sizes_from_writer(void **state)
{
	char *a = file_of("/a", ""), *b = file_of("/b", ""), *c = file_of("/c", "");
	char *a1 = file_of("/a", ".1"), *gone = file_of("/gone", "");
	struct csv_sink_stats st;
	struct sink *s = new_sink(0, 1ULL << 30, 0);
	off_t a_size;

	make_file(a1, 1000);
	make_file(gone, 2000);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(write_row(s, 1, "/a", 1000 + 10 * i, i, false), 0);
		assert_int_equal(write_row(s, 2, "/b", 1000 + 10 * i, i, false), 0);
		assert_int_equal(write_row(s, 3, "/c", 1000 + 10 * i, i, false), 0);
	}
	truncate_and_close(b, 0);
	append_and_close(c, "someone else's line\n");
	assert_int_equal(s->ops->tick(s), 0);
	st = stats(s);
	assert_int_equal(st.retention_passes, 1);
	assert_int_equal(st.retention_sizes_known, 1); /* /a's only */
	assert_int_equal(st.retention_total, size_of(a) + size_of(b) + size_of(c) + 1000 + 2000);
	assert_int_equal(size_of(b), 0);
	s->ops->free(s);

	/* A new sink (a new pass): every current file is known once written,
	 * but one that two entries write (/b back with a new id while the old
	 * one waits for its final row): each knows only its own rows. */
	s = new_sink(0, 1ULL << 30, 0);
	assert_int_equal(write_row(s, 1, "/a", 2000, 1, false), 0);
	assert_int_equal(write_row(s, 2, "/b", 2000, 1, false), 0);
	assert_int_equal(write_row(s, 7, "/b", 2000, 1, false), 0);
	assert_int_equal(write_row(s, 2, "/b", 2010, 2, false), 0);
	assert_int_equal(write_row(s, 3, "/c", 2000, 1, false), 0);
	a_size = size_of(a);
	assert_int_equal(truncate(a, 10), 0);
	assert_int_equal(s->ops->tick(s), 0);
	st = stats(s);
	assert_int_equal(st.retention_sizes_known, 2);
	assert_int_equal(st.retention_total, a_size + size_of(b) + size_of(c) + 1000 + 2000);
	s->ops->free(s);
	free(a);
	free(b);
	free(c);
	free(a1);
	free(gone);
}

/* Bounded work: a directory of many expired files is cleaned a bounded
 * number per tick, and completely over a few ticks (a pass that left work
 * is followed at once, not after a minute). */
static void test_bounded(void **state)
{
	enum {
		N = 1200
	};
	struct sink *s = new_sink(1000, 0, 0);
	uint64_t deleted = 0;
	int ticks = 0;

	for (int i = 0; i < N; i++) {
		char path[32], *f;

		snprintf(path, sizeof(path), "/churn/c%d", i);
		f = file_of(path, "");
		make_file(f, 10);
		age(f, 1, 0);
		free(f);
	}
	assert_int_equal(write_row(s, 1, "/live", 1000, 1, false), 0);
	while (deleted < N && ticks < 100) {
		uint64_t before = deleted;

		assert_int_equal(s->ops->tick(s), 0);
		ticks++;
		deleted = stats(s).files_deleted_removed;
		assert_true(deleted - before <= CSV_RETENTION_DELETE);
	}
	assert_int_equal(deleted, N);
	assert_true(ticks >= N / CSV_RETENTION_DELETE);
	print_message("%d expired files deleted in %d ticks\n", N, ticks);
	s->ops->free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_name),
		cmocka_unit_test_setup_teardown(test_keep_removed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_max_total_size, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bounded, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sizes_from_writer, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
