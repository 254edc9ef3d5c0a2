// SPDX-License-Identifier: GPL-2.0-only
/* The CSV sink against real files: formatting, file names, quoting round trip
 * through python3's csv module (strict mode), a full tmpfs, size rotation,
 * logrotate-style rename and copytruncate, header changes, unfinished lines,
 * permissions, final rows, and one write() per row (under strace).
 *
 * Every test works in its own directory under /tmp; the disk-full tests mount
 * a 64 KiB tmpfs there (root) and unmount it at the end. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "tests/lib/test_files.h"
#include "tests/lib/unit_skip.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sink/csv_format.h"
#include "sink/csv_sink.h"
#include "sink/file_name.h"
#include "agent/record.h"

#define T0 1796212692 /* 2026-12-02T11:58:12Z */
#define STRACE_CHILD_ENV "CGPERF_TEST_CSV_STRACE_DIR"

/* ---- helpers ------------------------------------------------------------ */

static char *xstrdup(const char *s)
{
	char *p = strdup(s);
	assert_non_null(p);
	return p;
}

static char *path_join(const char *a, const char *b)
{
	char *p;
	assert_true(asprintf(&p, "%s/%s", a, b) > 0);
	return p;
}

/* What the teardown removes even when a test fails half way: its temporary
 * directories and the tmpfs mounted in one. */
static char *cleanup_dirs[4];
static int nr_cleanup_dirs;
static char *cleanup_mount;
static mode_t initial_umask;

static char *make_tmpdir(void)
{
	char *dir = test_mkdtemp("/tmp/cgperf-test-csv.XXXXXX");

	assert_true(nr_cleanup_dirs < 4);
	cleanup_dirs[nr_cleanup_dirs++] = xstrdup(dir);
	return dir;
}

static int teardown(void **state)
{
	if (cleanup_mount)
		umount2(cleanup_mount, MNT_DETACH);
	free(cleanup_mount);
	cleanup_mount = NULL;
	for (int i = 0; i < nr_cleanup_dirs; i++) {
		assert_int_equal(test_rmtemp(cleanup_dirs[i]), 0);
		free(cleanup_dirs[i]);
	}
	nr_cleanup_dirs = 0;
	umask(initial_umask); /* test_permissions changes it */
	return 0;
}

static bool file_exists(const char *path)
{
	return access(path, F_OK) == 0;
}

static size_t count_substr(const char *s, const char *needle)
{
	size_t n = 0;
	for (const char *p = s; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* A CSV file as python3's csv module (strict) reads it, fields as bytes. */
struct table {
	size_t nr_rows;
	struct trow {
		size_t n;
		char **f;
	} * rows;
};

static int hexval(char c)
{
	return c <= '9' ? c - '0' : c - 'a' + 10;
}

/* Returns python's exit status: non-zero when the file is not valid CSV. */
static int table_load(const char *path, struct table *t)
{
	static const char script[] =
		"import csv, sys\n"
		"with open(sys.argv[1], newline='', encoding='utf-8', errors='surrogateescape') as f:\n"
		"    for row in csv.reader(f, strict=True):\n"
		"        print(' '.join('x' + c.encode('utf-8', 'surrogateescape').hex() for c in row))\n";
	char *cmd, line[65536];
	FILE *p;
	int status;

	*t = (struct table){ 0 };
	/* Debian's python3 (the declared dependency) when present: a version
	 * manager's shim in PATH costs far more than the parsing. */
	assert_true(asprintf(&cmd, "%s -c \"$CSV_SCRIPT\" '%s'",
			     access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3",
			     path) > 0);
	setenv("CSV_SCRIPT", script, 1);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		struct trow *row;
		char *save = NULL;

		t->rows = realloc(t->rows, (t->nr_rows + 1) * sizeof(*t->rows));
		assert_non_null(t->rows);
		row = &t->rows[t->nr_rows++];
		*row = (struct trow){ 0 };
		line[strcspn(line, "\n")] = '\0';
		for (char *tok = strtok_r(line, " ", &save); tok;
		     tok = strtok_r(NULL, " ", &save)) {
			size_t hl = strlen(tok + 1);
			char *v = malloc(hl / 2 + 1);

			assert_non_null(v);
			for (size_t i = 0; i < hl / 2; i++)
				v[i] = (char)(hexval(tok[1 + 2 * i]) * 16 + hexval(tok[2 + 2 * i]));
			v[hl / 2] = '\0';
			row->f = realloc(row->f, (row->n + 1) * sizeof(char *));
			assert_non_null(row->f);
			row->f[row->n++] = v;
		}
	}
	status = pclose(p);
	free(cmd);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

static void table_free(struct table *t)
{
	for (size_t i = 0; i < t->nr_rows; i++) {
		for (size_t j = 0; j < t->rows[i].n; j++)
			free(t->rows[i].f[j]);
		free(t->rows[i].f);
	}
	free(t->rows);
	*t = (struct table){ 0 };
}

/* The cell of data row `row` (0 = first after the header) in `column`. */
static const char *cell(const struct table *t, size_t row, const char *column)
{
	assert_true(t->nr_rows > row + 1);
	for (size_t j = 0; j < t->rows[0].n; j++)
		if (strcmp(t->rows[0].f[j], column) == 0) {
			assert_int_equal(t->rows[row + 1].n, t->rows[0].n);
			return t->rows[row + 1].f[j];
		}
	fail_msg("no column %s", column);
	return NULL;
}

static uint64_t cell_u64(const struct table *t, size_t row, const char *column)
{
	return strtoull(cell(t, row, column), NULL, 10);
}

/* Sum of an event column over all data rows of a file. */
static uint64_t column_sum(const char *path, const char *column, size_t *ret_rows)
{
	struct table t;
	uint64_t sum = 0;

	assert_int_equal(table_load(path, &t), 0);
	for (size_t i = 0; i + 1 < t.nr_rows; i++)
		sum += cell_u64(&t, i, column);
	if (ret_rows)
		*ret_rows = t.nr_rows ? t.nr_rows - 1 : 0;
	table_free(&t);
	return sum;
}

/* A cgroup the tests feed to the sink, with running totals. */
static const char *const two_events[] = { "cycles", "cpu-clock" };

struct feed {
	struct sink_cgroup cg;
	struct reading totals[READINGS_MAX_EVENTS];
	int nr_events;
	const char *const *events;
	uint32_t events_gen; /* 0: the sink compares the names */
	struct timespec now;
	struct cg_record rec; /* the agent's record: the CSV output's last-written totals */
	bool no_hold; /* rows not to be held (the agent's last ones, ENOMEM) */
};

static uint64_t ns_of(const struct timespec *t)
{
	return (uint64_t)t->tv_sec * 1000000000u + t->tv_nsec;
}

/* What the record kept for held rows (record_hold_ready). */
static void feed_free(struct feed *f)
{
	for (int i = 0; i < RECORD_MAX_OUTPUTS; i++)
		free(f->rec.written[i]);
	memset(f->rec.written, 0, sizeof(f->rec.written));
}

/* A new agent (or session): counting starts from zero now. */
static void feed_restart(struct feed *f)
{
	feed_free(f);
	memset(f->totals, 0, sizeof(f->totals));
	memset(&f->rec, 0, sizeof(f->rec));
	f->rec.created_ns = f->rec.created_real_ns = ns_of(&f->now);
}

static void feed_init(struct feed *f, uint64_t id, const char *path)
{
	*f = (struct feed){
		.cg = { .id = id,
			.path = path,
			.kind = "other",
			.runtime = "",
			.container_id = "",
			.container_name = "",
			.pod = "",
			.pod_namespace = "" },
		.nr_events = 2,
		.events = two_events,
		.now = { T0, 0 },
	};
	feed_restart(f);
}

/* The suite runs twice: rows answered at once, and queued as the agent
 * has them (sink.done set: rows of kept files go out in batches, answered
 * at the flush). */
static bool queueing;

/* sink.done: the cookie is where the answer goes. */
static void answered(void *ctx, const void *cookie, int result)
{
	(void)ctx;
	*(int *)cookie = result;
}

#define NO_ANSWER 12345

/* Write rec and return its answer, flushing if the sink queued it. */
static int write_now(struct sink *s, struct sink_record *rec)
{
	int answer = NO_ANSWER, r;

	rec->cookie = &answer;
	r = s->ops->write(s, rec);
	if (r != SINK_QUEUED)
		return r;
	assert_true(queueing);
	assert_int_equal(s->ops->flush(s), 0);
	assert_int_not_equal(answer, NO_ANSWER);
	return answer;
}

/* Advance time by 10 s and every event by `add` (never multiplexed). */
static int feed_step(struct sink *s, struct feed *f, uint64_t add, bool final)
{
	struct reading delta[READINGS_MAX_EVENTS];
	struct sink_record rec;
	int r;

	f->now.tv_sec += 10;
	for (int i = 0; i < f->nr_events; i++) {
		f->totals[i].counter += add * (i + 1);
		f->totals[i].enabled += 1000;
		f->totals[i].running += 1000;
	}
	/* What the agent does: the delta since the last row written. */
	f->rec.view = f->cg;
	f->rec.removed = final;
	record_row(&f->rec, RECORD_OUT_CSV, f->totals, f->nr_events, ns_of(&f->now), delta, &rec);
	rec.time = f->now;
	rec.event_names = f->events;
	rec.events_gen = f->events_gen;
	rec.may_hold = s->may_hold && !final && !f->no_hold &&
		       record_hold_ready(&f->rec, RECORD_OUT_CSV) == 0;
	r = write_now(s, &rec);
	if (r == SINK_HELD) {
		record_hold(&f->rec, RECORD_OUT_CSV, f->totals, f->nr_events, ns_of(&f->now));
		return r;
	}
	record_held_answered(&f->rec, RECORD_OUT_CSV, r == 0);
	if (r == 0)
		record_commit(&f->rec, RECORD_OUT_CSV, f->totals, f->nr_events, ns_of(&f->now));
	return r;
}

/* dir/<stem of cg>.csv, for a cgroup whose stem is not in use by another. */
static char *file_for(const char *dir, const struct sink_cgroup *cg)
{
	char stem[CSV_STEM_MAX + 1], *p;

	assert_int_equal(csv_file_stem(cg, stem, sizeof(stem)), 0);
	assert_true(asprintf(&p, "%s/%s.csv", dir, stem) > 0);
	return p;
}

/* dir/<stem>.csv of a cgroup of kind "other" at path. */
static char *file_of(const char *dir, const char *path)
{
	struct sink_cgroup cg = { .id = 1, .path = path, .kind = "other" };

	return file_for(dir, &cg);
}

/* file.N */
static char *rotated(const char *file, int n)
{
	char *p;

	assert_true(asprintf(&p, "%s.%d", file, n) > 0);
	return p;
}

static struct sink *new_sink_flush(const char *dir, uint64_t max_size, unsigned max_files,
				   uint64_t flush_ms)
{
	struct csv_config cfg = { .enabled = true,
				  .max_size = max_size,
				  .max_files = max_files,
				  .flush_interval_ms = flush_ms };
	struct sink *s = NULL;

	snprintf(cfg.directory, sizeof(cfg.directory), "%s", dir);
	assert_int_equal(csv_sink_new(&cfg, &s), 0);
	assert_non_null(s);
	if (queueing)
		s->done = answered;
	return s;
}

static struct sink *new_sink(const char *dir, uint64_t max_size, unsigned max_files)
{
	return new_sink_flush(dir, max_size, max_files, 0);
}

static struct csv_sink_stats stats_of(struct sink *s)
{
	struct csv_sink_stats st;
	assert_int_equal(csv_sink_get_stats(s, &st), 0);
	return st;
}

/* Seconds since the epoch of a cell "2026-12-02T11:58:12.000Z". */
static uint64_t cell_time(const char *ts)
{
	struct tm tm = { 0 };

	assert_non_null(strptime(ts, "%Y-%m-%dT%H:%M:%S", &tm));
	return (uint64_t)timegm(&tm);
}

/* The first and last row's timestamps of a CSV file, and its row count. */
static void file_time_range(const char *path, uint64_t *ret_first, uint64_t *ret_last,
			    size_t *ret_rows)
{
	struct table t;

	assert_int_equal(table_load(path, &t), 0);
	assert_true(t.nr_rows >= 2);
	*ret_first = cell_time(cell(&t, 0, "timestamp"));
	*ret_last = cell_time(cell(&t, t.nr_rows - 2, "timestamp"));
	*ret_rows = t.nr_rows - 1;
	table_free(&t);
}

/* Files in dir whose name starts with prefix. */
static int count_files_with_prefix(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		if (strncmp(de->d_name, prefix, strlen(prefix) - 4) == 0)
			n++;
	closedir(d);
	return n;
}

/* ---- pure formatting ------------------------------------------------------ */

static void test_timestamp(void **state)
{
	char buf[CSV_TIMESTAMP_MAX];
	struct timespec ts = { T0, 345678901 };

	assert_int_equal(csv_format_timestamp(&ts, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "2026-12-02T11:58:12.345Z");
	/* Truncated, never rounded into the next second. */
	ts.tv_nsec = 999999999;
	assert_int_equal(csv_format_timestamp(&ts, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "2026-12-02T11:58:12.999Z");
	ts = (struct timespec){ 0, 0 };
	assert_int_equal(csv_format_timestamp(&ts, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "1970-01-01T00:00:00.000Z");
	ts.tv_nsec = 1000000000;
	assert_int_equal(csv_format_timestamp(&ts, buf, sizeof(buf)), -EINVAL);
	ts = (struct timespec){ 253402300800LL, 0 }; /* year 10000 */
	assert_int_equal(csv_format_timestamp(&ts, buf, sizeof(buf)), -ERANGE);
	ts = (struct timespec){ INT64_MAX, 0 };
	assert_int_equal(csv_format_timestamp(&ts, buf, sizeof(buf)), -ERANGE);
}

static void test_event_cells(void **state)
{
	struct csv_event_cells c;

	csv_format_event(&(struct reading){ 1000, 500, 500 }, &c);
	assert_string_equal(c.value, "1000");
	assert_string_equal(c.running_pct, "100.00");
	/* Multiplexed: ran half of the time, scaled x2. */
	csv_format_event(&(struct reading){ 1000, 1000, 500 }, &c);
	assert_string_equal(c.value, "2000");
	assert_string_equal(c.running_pct, "50.00");
	/* 1/3 and 2/3: rounded percentages, truncated integer values. */
	csv_format_event(&(struct reading){ 100, 3, 1 }, &c);
	assert_string_equal(c.value, "300");
	assert_string_equal(c.running_pct, "33.33");
	csv_format_event(&(struct reading){ 100, 3, 2 }, &c);
	assert_string_equal(c.value, "150");
	assert_string_equal(c.running_pct, "66.67");
	/* Enabled but never ran: unknown, not zero. */
	csv_format_event(&(struct reading){ 0, 800, 0 }, &c);
	assert_string_equal(c.value, "");
	assert_string_equal(c.running_pct, "0.00");
	/* Nothing of the cgroup ran: an exact 0, no percentage. */
	csv_format_event(&(struct reading){ 0, 0, 0 }, &c);
	assert_string_equal(c.value, "0");
	assert_string_equal(c.running_pct, "");
	/* Huge values: no overflow in the product, saturation at UINT64_MAX. */
	csv_format_event(&(struct reading){ UINT64_MAX, UINT64_MAX, UINT64_MAX }, &c);
	assert_string_equal(c.value, "18446744073709551615");
	assert_string_equal(c.running_pct, "100.00");
	csv_format_event(&(struct reading){ UINT64_MAX / 2, UINT64_MAX, UINT64_MAX / 4 }, &c);
	assert_string_equal(c.value, "18446744073709551615");
	assert_string_equal(c.running_pct, "25.00");
	csv_format_event(&(struct reading){ 1ULL << 62, UINT64_MAX, UINT64_MAX - 1 }, &c);
	assert_string_equal(c.value, "4611686018427387904");
}

static void test_quoting(void **state)
{
	struct csv_row row = CSV_ROW_INIT;
	static const char *const events[] = { "cycles", "cpu/event=0x3c,umask=0/" };

	csv_row_add_field(&row, "plain");
	csv_row_add_field(&row, NULL);
	csv_row_add_field(&row, " spaces ");
	csv_row_add_field(&row, "a,b");
	csv_row_add_field(&row, "say \"hi\"");
	csv_row_add_field(&row, "two\nlines");
	csv_row_add_field(&row, "cr\r");
	csv_row_add_u64(&row, UINT64_MAX);
	csv_row_end(&row);
	assert_int_equal(row.buf.error, 0);
	assert_string_equal(buf_cstr(&row.buf),
			    "plain,, spaces ,\"a,b\",\"say \"\"hi\"\"\",\"two\nlines\","
			    "\"cr\r\",18446744073709551615\n");
	/* The same rule under stat -x's separators: a field holding the
	 * separator is quoted, a comma under another separator is not. */
	csv_row_clear(&row);
	csv_row_add_quoted(&row, "a,b|", 4, ";");
	csv_row_add_quoted(&row, "a;b|", 4, ";");
	csv_row_add_quoted(&row, "a:b|", 4, "::");
	csv_row_add_quoted(&row, "a::b", 4, "::");
	assert_string_equal(buf_cstr(&row.buf), "a,b|\"a;b|\"a:b|\"a::b\"");
	assert_false(csv_inside_quotes("\"a\"\"b\",", 7));
	assert_true(csv_inside_quotes("x,\"a\"\"b", 7));
	csv_row_clear(&row);
	assert_int_equal(csv_format_header(&row, 2, events, NULL), 0);
	assert_string_equal(
		buf_cstr(&row.buf),
		"timestamp,cgroup,cgroup_id,kind,runtime,container_id,container_name,pod,"
		"namespace,interval_ms,cycles,cycles_running_pct,"
		"\"cpu/event=0x3c,umask=0/\",\"cpu/event=0x3c,umask=0/_running_pct\"\n");
	csv_row_free(&row);
	csv_row_free(&row);
	csv_row_free(NULL);
}

/* ---- file names ---------------------------------------------------------------- */

/* The first 16 hex digits of SHA-256(path), from python's hashlib: an
 * oracle independent of cgperf's own SHA-256. */
static void path_hash(const char *path, char ret[32])
{
	FILE *p;

	setenv("CSV_HASH_PATH", path, 1);
	p = popen("/usr/bin/python3 -c 'import os, hashlib; "
		  "print(hashlib.sha256(os.environb[b\"CSV_HASH_PATH\"]).hexdigest()[:16])'",
		  "r");
	assert_non_null(p);
	assert_non_null(fgets(ret, 32, p));
	assert_int_equal(pclose(p), 0);
	ret[strcspn(ret, "\n")] = '\0';
	assert_int_equal(strlen(ret), 16);
}

/* The stem is "<readable>_<hash of the path>". */
static void assert_stem(const struct sink_cgroup *cg, const char *readable)
{
	char buf[CSV_STEM_MAX + 1], hash[32], *expected;

	assert_int_equal(csv_file_stem(cg, buf, sizeof(buf)), 0);
	path_hash(cg->path, hash);
	assert_true(asprintf(&expected, "%s_%s", readable, hash) > 0);
	assert_string_equal(buf, expected);
	free(expected);
}

static void test_file_names(void **state)
{
	const char *id64 = "1a2b3c4d5e6f";
	struct sink_cgroup c = { .id = 7,
				 .kind = "container",
				 .runtime = "docker",
				 .container_id = id64,
				 .container_name = "web",
				 .pod = "",
				 .pod_namespace = "",
				 .path = "/system.slice/docker-1a2b3c4d5e6f.scope" };
	struct sink_cgroup host, tenant;
	char buf[CSV_STEM_MAX + 1], buf2[CSV_STEM_MAX + 1], *long_path;

	assert_stem(&c, "web_1a2b3c4d5e6f");
	c.container_name = "";
	assert_stem(&c, "docker_1a2b3c4d5e6f");
	c.container_name = "app";
	c.pod = "api-0";
	c.pod_namespace = "prod";
	assert_stem(&c, "prod_api-0_app_1a2b3c4d5e6f");
	/* Odd bytes in names: _XX, never a path separator or a hidden file. */
	c.pod = "";
	c.container_name = ".x/y z\n\xff";
	assert_stem(&c, "_2Ex_2Fy_20z_0A_FF_1a2b3c4d5e6f");
	c.container_name = "-rf";
	assert_stem(&c, "_2Drf_1a2b3c4d5e6f");

	c = (struct sink_cgroup){
		.id = 8,
		.kind = "pod",
		.pod = "api-0",
		.pod_namespace = "prod",
		.path = "/kubepods.slice/kubepods-burstable.slice/"
			"kubepods-burstable-pod0f1e2d3c_4b5a_6978_8796_a5b4c3d2e1f0.slice"
	};
	assert_stem(&c, "pod_prod_api-0_0f1e2d3c");
	c.path = "/kubepods/besteffort/pod0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0";
	assert_stem(&c, "pod_prod_api-0_0f1e2d3c");
	c.pod = ""; /* metadata not found: the path */
	assert_stem(&c, "kubepods_besteffort_pod0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0");

	c = (struct sink_cgroup){ .id = 9,
				  .kind = "service",
				  .path = "/system.slice/cron.service" };
	assert_stem(&c, "cron.service");
	c.path = "/system.slice/system-getty.slice/getty@tty1.service";
	assert_stem(&c, "getty_40tty1.service");
	/* User managers' units are not unique on the host: the path. */
	c.path = "/user.slice/user-1000.slice/user@1000.service/app.slice/cron.service";
	assert_stem(&c, "user.slice_user-1000.slice_user_401000.service_app.slice_cron.service");

	/* The host's unit and a tenant's unit of the same name inside a
	 * container: two files, whichever is seen first, at every start. */
	host = (struct sink_cgroup){ .id = 20,
				     .kind = "service",
				     .path = "/system.slice/logrotate.service" };
	tenant = (struct sink_cgroup){ .id = 21,
				       .kind = "service",
				       .path = "/kubepods/burstable/podx/cri-containerd-x.scope/"
					       "logrotate.service" };
	assert_stem(&host, "logrotate.service");
	assert_stem(&tenant, "kubepods_burstable_podx_cri-containerd-x.scope_logrotate.service");
	tenant.path = "/a/logrotate.service"; /* not below slices only: the path */
	assert_stem(&tenant, "a_logrotate.service");

	c = (struct sink_cgroup){ .id = 10, .kind = "slice", .path = "/system.slice" };
	assert_stem(&c, "system.slice");
	c = (struct sink_cgroup){ .id = 1, .kind = "other", .path = "/" };
	assert_stem(&c, "root");
	c.path = "/a,b/\"q\"/caf\xc3\xa9/.hidden";
	assert_stem(&c, "a_2Cb__22q_22_caf_C3_A9_.hidden");
	c.path = "/..";
	assert_stem(&c, "_2E.");
	/* Same readable part, other paths: other names ("/a_b" and "/a/b"). */
	c.path = "/a_b";
	assert_int_equal(csv_file_stem(&c, buf, sizeof(buf)), 0);
	c.path = "/a/b";
	assert_int_equal(csv_file_stem(&c, buf2, sizeof(buf2)), 0);
	assert_string_not_equal(buf, buf2);
	assert_int_equal(strncmp(buf, buf2, 4), 0);

	/* Long: the readable part is cut, the hash of the whole path stays. */
	long_path = malloc(1002);
	assert_non_null(long_path);
	long_path[0] = '/';
	memset(long_path + 1, 'a', 1000);
	long_path[1001] = '\0';
	c.path = long_path;
	assert_int_equal(csv_file_stem(&c, buf, sizeof(buf)), 0);
	assert_int_equal(strlen(buf), CSV_STEM_MAX);
	long_path[1000] = 'b';
	assert_int_equal(csv_file_stem(&c, buf2, sizeof(buf2)), 0);
	assert_int_equal(strlen(buf2), CSV_STEM_MAX);
	assert_string_not_equal(buf, buf2);
	assert_int_equal(strncmp(buf, buf2, CSV_STEM_READABLE_MAX), 0);
	{
		char hash[32];

		path_hash(long_path, hash);
		assert_string_equal(buf2 + CSV_STEM_MAX - 16, hash);
	}
	free(long_path);

	assert_int_equal(csv_file_stem(NULL, buf, sizeof(buf)), -EINVAL);
	c.path = "";
	assert_int_equal(csv_file_stem(&c, buf, sizeof(buf)), -EINVAL);
	c.path = "/x";
	assert_int_equal(csv_file_stem(&c, buf, 10), -ENOBUFS);
}

/* ---- the sink on real files ------------------------------------------------------ */

static void test_round_trip(void **state)
{
	static const struct {
		const char *path, *name;
	} cases[] = {
		{ "/a,b/c\"d\"", "plain" },
		{ "/caf\xc3\xa9/\xe6\x97\xa5\xe6\x9c\xac", "na\xc3\xafve" },
		{ "/bad\xff\xfe\x80utf8", "bad\xc3(" },
		{ "/x y/ lead and trail ", "two\nlines" },
		{ "/quote\"only", "crlf\r\nand \"quotes\", commas" },
		{ "/ctl", "\x01\x1b[31mred\x7f\t" },
		{ "/trailing,comma,", "\"" },
	};
	char *dir = make_tmpdir(), *csv_dir = path_join(dir, "csv");
	struct sink *s = new_sink(csv_dir, 0, 3);
	struct feed f[sizeof(cases) / sizeof(cases[0])];
	char id_text[32];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		feed_init(&f[i], 100 + i, cases[i].path);
		f[i].cg.kind = "container";
		f[i].cg.runtime = "docker";
		f[i].cg.container_id = "0123456789ab";
		f[i].cg.container_name = cases[i].name;
		f[i].cg.pod = "pod,1";
		f[i].cg.pod_namespace = "ns\"1\"";
		f[i].now.tv_nsec = 123000000;
		feed_restart(&f[i]);
		assert_int_equal(feed_step(s, &f[i], 1000, false), 0);
		assert_int_equal(feed_step(s, &f[i], 7, false), 0);
	}
	assert_int_equal(stats_of(s).rows_written, 2 * (sizeof(cases) / sizeof(cases[0])));

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *file = file_for(csv_dir, &f[i].cg);
		struct table t;

		assert_int_equal(table_load(file, &t), 0);
		assert_int_equal(t.nr_rows, 3);
		assert_int_equal(t.rows[0].n, CSV_NR_FIXED_COLUMNS + 4);
		for (size_t r = 0; r < 2; r++) {
			assert_string_equal(cell(&t, r, "cgroup"), cases[i].path);
			assert_string_equal(cell(&t, r, "container_name"), cases[i].name);
			snprintf(id_text, sizeof(id_text), "%zu", 100 + i);
			assert_string_equal(cell(&t, r, "cgroup_id"), id_text);
			assert_string_equal(cell(&t, r, "kind"), "container");
			assert_string_equal(cell(&t, r, "runtime"), "docker");
			assert_string_equal(cell(&t, r, "container_id"), "0123456789ab");
			assert_string_equal(cell(&t, r, "pod"), "pod,1");
			assert_string_equal(cell(&t, r, "namespace"), "ns\"1\"");
			assert_string_equal(cell(&t, r, "interval_ms"), "10000");
			assert_string_equal(cell(&t, r, "cycles_running_pct"), "100.00");
		}
		assert_string_equal(cell(&t, 0, "timestamp"), "2026-12-02T11:58:22.123Z");
		assert_string_equal(cell(&t, 1, "timestamp"), "2026-12-02T11:58:32.123Z");
		assert_string_equal(cell(&t, 0, "cycles"), "1000");
		assert_string_equal(cell(&t, 1, "cycles"), "7");
		assert_string_equal(cell(&t, 0, "cpu-clock"), "2000");
		assert_string_equal(cell(&t, 1, "cpu-clock"), "14");
		table_free(&t);
		free(file);
	}
	s->ops->free(s);
	assert_int_equal(test_rmtemp(dir), 0);
	free(csv_dir);
	free(dir);
}

/* The identity cells are made once per sink_cgroup.gen: a name that
 * changes with a new gen shows in the next row; gen 0 means "unknown", made
 * again for every row. */
static void test_identity_cells(void **state)
{
	char *dir = make_tmpdir(), *file = file_of(dir, "/id");
	struct sink *s = new_sink(dir, 0, 3);
	struct feed f;
	struct table t;
	char name[16] = "first";

	feed_init(&f, 36, "/id");
	f.cg.gen = 1;
	f.cg.container_name = name;
	assert_int_equal(feed_step(s, &f, 1, false), 0);
	strcpy(name, "second"); /* changed in place, gen moved: shows */
	f.cg.gen = 2;
	assert_int_equal(feed_step(s, &f, 1, false), 0);
	f.cg.gen = 0; /* unknown: made for every row */
	strcpy(name, "third,x");
	assert_int_equal(feed_step(s, &f, 1, false), 0);
	strcpy(name, "=fourth");
	assert_int_equal(feed_step(s, &f, 1, false), 0);
	assert_int_equal(table_load(file, &t), 0);
	assert_int_equal(t.nr_rows, 5); /* the header and 4 rows */
	assert_string_equal(cell(&t, 0, "container_name"), "first");
	assert_string_equal(cell(&t, 1, "container_name"), "second");
	assert_string_equal(cell(&t, 2, "container_name"), "third,x");
	assert_string_equal(cell(&t, 3, "container_name"), "=fourth");
	assert_string_equal(cell(&t, 3, "cgroup"), "/id");
	assert_string_equal(cell(&t, 3, "cgroup_id"), "36");
	table_free(&t);
	s->ops->free(s);
	assert_int_equal(test_rmtemp(dir), 0);
	free(file);
	free(dir);
}

/* The agent's record moves sink_cgroup.gen whenever it refreshes names
 * (agent/record.c fill_view): a name learned after the first row shows in
 * the next one. */
static void test_identity_follows_refresh(void **state)
{
	char *dir = make_tmpdir(), *file;
	struct sink *s = new_sink(dir, 0, 3);
	struct record_set set = { 0 };
	struct cg_identity ident = { .kind = CG_KIND_CONTAINER };
	struct cg_metadata meta = { 0 };
	struct cg_record *r;
	struct feed f;
	struct table t;
	uint32_t gen;

	strcpy(meta.container_name, "before");
	r = record_add(&set, 37, 0, "/rf2", &ident, &meta);
	assert_non_null(r);
	feed_init(&f, 37, "/rf2");
	file = file_of(dir, "/rf2");
	f.cg = r->view;
	assert_int_equal(feed_step(s, &f, 1, false), 0);
	gen = r->view.gen;
	strcpy(meta.container_name, "after");
	assert_int_equal(record_refresh(r, "/rf2", &ident, &meta), 0);
	assert_int_not_equal(r->view.gen, gen);
	f.cg = r->view;
	assert_int_equal(feed_step(s, &f, 1, false), 0);
	assert_int_equal(table_load(file, &t), 0);
	assert_string_equal(cell(&t, 0, "container_name"), "before");
	assert_string_equal(cell(&t, 1, "container_name"), "after");
	table_free(&t);
	record_clear(&set);
	s->ops->free(s);
	assert_int_equal(test_rmtemp(dir), 0);
	free(file);
	free(dir);
}

/* The row shows the delta and interval it is handed (the agent's record
 * computes them: tests/unit/test_record.c). */
static void test_deltas_and_intervals(void **state)
{
	char *dir = make_tmpdir(), *file = file_of(dir, "/x");
	struct sink *s = new_sink(dir, 0, 3);
	struct reading totals[1] = { { 400, 3000, 1500 } }, delta[1];
	static const char *const ev[] = { "instructions" };
	struct sink_cgroup cg = { .id = 42, .path = "/x", .kind = "other" };
	struct sink_record rec = { .cgroup = &cg,
				   .nr_events = 1,
				   .event_names = ev,
				   .totals = totals,
				   .delta = delta,
				   .interval_known = true,
				   .interval_ms = 2500,
				   .time = { T0 + 3, 0 } };
	struct table t;

	delta[0] = (struct reading){ 100, 1000, 500 };
	assert_int_equal(write_now(s, &rec), 0);
	/* Multiplexed interval: 300 * 2000 / 1000 = 600. */
	rec.interval_ms = 10000;
	delta[0] = (struct reading){ 300, 2000, 1000 };
	assert_int_equal(write_now(s, &rec), 0);
	/* Enabled but never running; then nothing ran at all. */
	delta[0] = (struct reading){ 0, 10, 0 };
	assert_int_equal(write_now(s, &rec), 0);
	delta[0] = (struct reading){ 0, 0, 0 };
	assert_int_equal(write_now(s, &rec), 0);
	/* Unknown start: empty interval. A final row forgets the cgroup. */
	rec.interval_known = false;
	rec.final = true;
	delta[0] = (struct reading){ 10, 20, 10 };
	assert_int_equal(write_now(s, &rec), 0);

	assert_int_equal(table_load(file, &t), 0);
	assert_int_equal(t.nr_rows, 6);
	assert_string_equal(cell(&t, 0, "interval_ms"), "2500");
	assert_string_equal(cell(&t, 0, "instructions"), "200");
	assert_string_equal(cell(&t, 0, "instructions_running_pct"), "50.00");
	assert_string_equal(cell(&t, 1, "interval_ms"), "10000");
	assert_string_equal(cell(&t, 1, "instructions"), "600");
	assert_string_equal(cell(&t, 2, "instructions"), "");
	assert_string_equal(cell(&t, 2, "instructions_running_pct"), "0.00");
	assert_string_equal(cell(&t, 3, "instructions"), "0");
	assert_string_equal(cell(&t, 3, "instructions_running_pct"), "");
	assert_string_equal(cell(&t, 4, "interval_ms"), "");
	assert_string_equal(cell(&t, 4, "instructions"), "20");
	assert_string_equal(cell(&t, 4, "kind"), "other");
	assert_string_equal(cell(&t, 4, "runtime"), ""); /* NULL strings: empty fields */
	table_free(&t);
	assert_int_equal(stats_of(s).rows_written, 5);
	s->ops->free(s);
	assert_int_equal(test_rmtemp(dir), 0);
	free(file);
	free(dir);
}

static void test_name_collision(void **state)
{
	char *dir = make_tmpdir(), *a = file_of(dir, "/a_b"), *b = file_of(dir, "/a/b");
	struct sink *s = new_sink(dir, 0, 3);
	struct feed f1, f2;

	feed_init(&f1, 1, "/a_b");
	feed_init(&f2, 2, "/a/b");
	assert_int_equal(feed_step(s, &f1, 1, false), 0);
	assert_int_equal(feed_step(s, &f2, 2, false), 0);
	assert_int_equal(column_sum(a, "cycles", NULL), 1);
	assert_int_equal(column_sum(b, "cycles", NULL), 2);
	s->ops->free(s);
	assert_int_equal(test_rmtemp(dir), 0);
	free(a);
	free(b);
	free(dir);
}

/* BPF programs' files (bpf_programs:): their own header and stem, never a
 * cgroup's file even with the same id, rotation as for cgroups. */
static void test_prog_rows(void **state)
{
	char *dir = make_tmpdir(), *file = path_join(dir, "bpf-prog_cgperf_tprog_881.csv");
	char *odd = path_join(dir, "bpf-prog_.x_7.csv"), *cg_file = file_of(dir, "/a");
	char *rot = rotated(file, 1), *cg_rot = rotated(cg_file, 1), *text;
	struct sink *s = new_sink(dir, 200, 2);
	struct sink_prog p = { 881, "cgperf_tprog", "59f4a931744dcdc6", "socket_filter" };
	struct sink_prog q = { 7, ".x", "0000000000000000", "xdp" };
	struct sink_prog_record r = { .time = { 1764849385, 0 },
				      .prog = &p,
				      .interval_ms = 999,
				      .runs = 500,
				      .run_ns = 11313,
				      .seq = 1 };
	struct feed f;

	feed_init(&f, 881, "/a");
	assert_int_equal(feed_step(s, &f, 1, false), 0);
	assert_int_equal(s->ops->write_prog(s, &r), 0);
	text = test_read_file(file, NULL);
	assert_non_null(text);
	assert_string_equal(
		text, "timestamp,prog_id,prog_name,prog_tag,prog_type,interval_ms,runs,run_ns\n"
		      "2025-12-04T11:56:25.000Z,881,cgperf_tprog,59f4a931744dcdc6,socket_filter,"
		      "999,500,11313\n");
	free(text);
	/* The cgroup's row (its file rotated at once: its header alone is long). */
	assert_int_equal(column_sum(cg_rot, "cycles", NULL), 1);
	/* Past max_size (200 bytes): rotated, the new file starts with its header. */
	r.final = true;
	assert_int_equal(s->ops->write_prog(s, &r), 0);
	assert_true(file_exists(rot));
	r.prog = &q;
	assert_int_equal(s->ops->write_prog(s, &r), 0);
	assert_true(file_exists(odd));
	assert_int_equal(stats_of(s).rows_written, 4);
	s->ops->free(s);
	assert_int_equal(test_rmtemp(dir), 0);
	free(file);
	free(odd);
	free(cg_file);
	free(cg_rot);
	free(rot);
	free(dir);
}

/* Events counted inside programs: counted_runs and each event's cells after
 * run_ns (empty for a program without event counts). An agent started
 * again without them (trampolines refused now) writes another header: the
 * file of the old one is rotated away, as for a cgroup's changed events. */
static void test_prog_event_columns(void **state)
{
	static const char *const names[2] = { "cpu-clock", "cs" };
	const struct reading delta[2] = { { 5000, 1000, 500 }, { 0, 0, 0 } };
	char *dir = make_tmpdir(), *file = path_join(dir, "bpf-prog_cgperf_tprog_881.csv");
	char *other = path_join(dir, "bpf-prog_7.csv"), *rot = rotated(file, 1), *text;
	struct sink *s = new_sink(dir, 0, 3);
	struct sink_prog p = { 881, "cgperf_tprog", "59f4a931744dcdc6", "socket_filter" };
	struct sink_prog q = { 7, "", "0000000000000000", "xdp" };
	struct sink_prog_record r = { .time = { 1764849385, 0 },
				      .prog = &p,
				      .interval_ms = 999,
				      .runs = 500,
				      .run_ns = 11313,
				      .nr_events = 2,
				      .event_names = names,
				      .counted = true,
				      .counted_runs = 499,
				      .delta = delta,
				      .seq = 1 };

	assert_int_equal(s->ops->write_prog(s, &r), 0);
	r.prog = &q;
	r.counted = false;
	r.delta = NULL;
	assert_int_equal(s->ops->write_prog(s, &r), 0);
	text = test_read_file(file, NULL);
	assert_string_equal(text, "timestamp,prog_id,prog_name,prog_tag,prog_type,interval_ms,runs,"
				  "run_ns,counted_runs,cpu-clock,cpu-clock_running_pct,cs,"
				  "cs_running_pct\n"
				  "2025-12-04T11:56:25.000Z,881,cgperf_tprog,59f4a931744dcdc6,"
				  "socket_filter,999,500,11313,499,10000,50.00,0,\n");
	free(text);
	text = test_read_file(other, NULL);
	assert_non_null(strstr(text, "\n2025-12-04T11:56:25.000Z,7,,0000000000000000,xdp,999,500,"
				     "11313,,,,,\n"));
	free(text);
	s->ops->free(s);

	s = new_sink(dir, 0, 3);
	r = (struct sink_prog_record){ .time = { 1764849395, 0 }, .prog = &p, .runs = 1, .seq = 2 };
	assert_int_equal(s->ops->write_prog(s, &r), 0);
	text = test_read_file(file, NULL);
	assert_string_equal(text, "timestamp,prog_id,prog_name,prog_tag,prog_type,interval_ms,runs,"
				  "run_ns\n"
				  "2025-12-04T11:56:35.000Z,881,cgperf_tprog,59f4a931744dcdc6,"
				  "socket_filter,0,1,0\n");
	free(text);
	text = test_read_file(rot, NULL);
	assert_non_null(strstr(text, ",counted_runs,cpu-clock,"));
	free(text);
	s->ops->free(s);
	assert_int_equal(test_rmtemp(dir), 0);
	free(file);
	free(other);
	free(rot);
	free(dir);
}

static void test_permissions(void **state)
{
	char *dir = make_tmpdir(), *nested = path_join(dir, "p/q/csv"), *file;
	mode_t old = umask(077);
	struct sink *s = new_sink(nested, 0, 3);
	struct feed f;
	struct stat st;
	int fd;

	feed_init(&f, 3, "/perm");
	assert_int_equal(feed_step(s, &f, 1, false), 0);
	umask(old);
	assert_int_equal(stat(nested, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0750);
	file = file_of(nested, "/perm");
	assert_int_equal(stat(file, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0640);
	/* The whole directory removed under a running agent: made again. */
	{
		char *top = path_join(dir, "p"), *content;

		assert_int_equal(test_rmtemp(top), 0);
		umask(077);
		assert_int_equal(feed_step(s, &f, 2, false), 0);
		umask(old);
		assert_int_equal(stat(nested, &st), 0);
		assert_int_equal(st.st_mode & 07777, 0750);
		assert_int_equal(stat(file, &st), 0);
		assert_int_equal(st.st_mode & 07777, 0640);
		content = test_read_file(file, NULL);
		assert_int_equal(strncmp(content, "timestamp,", 10), 0);
		assert_int_equal(column_sum(file, "cycles", NULL), 2);
		free(content);
		free(top);
	}
	s->ops->free(s);

	/* Not a directory; not writable. */
	{
		struct csv_config cfg = { .enabled = true };
		struct sink *bad = NULL;

		snprintf(cfg.directory, sizeof(cfg.directory), "%s", file);
		assert_int_equal(csv_sink_new(&cfg, &bad), -ENOTDIR);
		assert_null(bad);
		snprintf(cfg.directory, sizeof(cfg.directory), "/proc/cgperf-no");
		assert_true(csv_sink_new(&cfg, &bad) < 0);
		cfg.directory[0] = '\0';
		assert_int_equal(csv_sink_new(&cfg, &bad), -EINVAL);
		assert_null(bad);
	}
	/* A planted symlink is refused, its target untouched. */
	{
		char *target = path_join(dir, "target"), *link = file_of(nested, "/sym");
		struct sink *s2 = new_sink(nested, 0, 3);
		size_t len;
		char *content;

		fd = open(target, O_CREAT | O_WRONLY, 0600);
		assert_true(fd >= 0);
		assert_int_equal(write(fd, "secret\n", 7), 7);
		close(fd);
		assert_int_equal(symlink(target, link), 0);
		feed_init(&f, 4, "/sym");
		assert_true(feed_step(s2, &f, 1, false) < 0);
		assert_int_equal(stats_of(s2).rows_failed, 1);
		content = test_read_file(target, &len);
		assert_string_equal(content, "secret\n");
		free(content);
		s2->ops->free(s2);
		free(target);
		free(link);
	}
	assert_int_equal(test_rmtemp(dir), 0);
	free(file);
	free(nested);
	free(dir);
}

/* An existing directory: a looser mode than 0750 is tightened (setgid
 * kept), a tighter one kept; one owned by another user is refused. */
static void test_directory_mode(void **state)
{
	static const struct {
		mode_t before, after;
	} cases[] = {
		{ 0755, 0750 }, { 0777, 0750 }, { 02775, 02750 }, { 0700, 0700 }, { 0750, 0750 },
	};
	char *dir = make_tmpdir(), *csv_dir = path_join(dir, "log");
	struct csv_config cfg = { .enabled = true };
	struct sink *s = NULL;
	struct stat st;

	snprintf(cfg.directory, sizeof(cfg.directory), "%s", csv_dir);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(mkdir(csv_dir, 0700), 0);
		assert_int_equal(chmod(csv_dir, cases[i].before), 0);
		assert_int_equal(csv_sink_new(&cfg, &s), 0);
		s->ops->free(s);
		assert_int_equal(stat(csv_dir, &st), 0);
		if ((st.st_mode & 07777) != cases[i].after)
			fail_msg("%04o became %04o, expected %04o", cases[i].before,
				 st.st_mode & 07777, cases[i].after);
		assert_int_equal(rmdir(csv_dir), 0);
	}
	if (geteuid() == 0) {
		assert_int_equal(mkdir(csv_dir, 0750), 0);
		assert_int_equal(chown(csv_dir, 65534, 65534), 0);
		s = NULL;
		assert_int_equal(csv_sink_new(&cfg, &s), -EPERM);
		assert_null(s);
	}
	assert_int_equal(test_rmtemp(dir), 0);
	free(csv_dir);
	free(dir);
}

/* safe_cells: name cells that start like a formula get a leading ', others
 * (and the path, and numbers) are untouched; off: byte for byte. */
static void test_safe_cells(void **state)
{
	static const struct {
		const char *name, *cell;
	} cases[] = {
		{ "=HYPERLINK(\"http://x\",\"y\")", "'=HYPERLINK(\"http://x\",\"y\")" },
		{ "+1", "'+1" },
		{ "-rf", "'-rf" },
		{ "@SUM(A1)", "'@SUM(A1)" },
		{ "\tx", "'\tx" },
		{ "\rx", "'\rx" },
		{ "a=b", "a=b" },
		{ "web", "web" },
		{ "", "" },
		{ " =x", " =x" },
	};
	char *dir = make_tmpdir();
	struct csv_config cfg = { .enabled = true, .safe_cells = true };
	struct sink *s = NULL;

	snprintf(cfg.directory, sizeof(cfg.directory), "%s", dir);
	assert_true(csv_cell_unsafe("=1") && csv_cell_unsafe("-") && !csv_cell_unsafe("1") &&
		    !csv_cell_unsafe("") && !csv_cell_unsafe(NULL));
	for (int safe = 1; safe >= 0; safe--) {
		cfg.safe_cells = safe;
		assert_int_equal(csv_sink_new(&cfg, &s), 0);
		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			struct feed f;
			struct table t;
			char path[64], *file;

			snprintf(path, sizeof(path), "/=cg%d-%zu", safe, i);
			feed_init(&f, 200 + i, path);
			f.cg.kind = "container";
			f.cg.runtime = "docker";
			f.cg.container_id = "0123456789ab";
			f.cg.container_name = cases[i].name;
			f.cg.pod = cases[i].name;
			f.cg.pod_namespace = cases[i].name;
			assert_int_equal(feed_step(s, &f, 5, false), 0);
			file = file_for(dir, &f.cg);
			assert_int_equal(table_load(file, &t), 0);
			for (int c = 0; c < 3; c++)
				assert_string_equal(cell(&t, 0,
							 (const char *[]){ "container_name", "pod",
									   "namespace" }[c]),
						    safe ? cases[i].cell : cases[i].name);
			assert_string_equal(cell(&t, 0, "cgroup"), path);
			assert_string_equal(cell(&t, 0, "cycles"), "5");
			table_free(&t);
			free(file);
		}
		s->ops->free(s);
	}
	assert_int_equal(test_rmtemp(dir), 0);
	free(dir);
}

static void test_bad_records(void **state)
{
	char *dir = make_tmpdir(), *file = file_of(dir, "/bad");
	struct sink *s = new_sink(dir, 0, 3);
	static const char *const nine[9] = { "a", "b", "c", "d", "e", "f", "g", "h", "i" };
	struct reading totals[9] = { { 0 } };
	struct sink_cgroup cg = { .id = 5, .path = "/bad" };
	struct sink_record rec = { .cgroup = &cg,
				   .nr_events = 9,
				   .event_names = nine,
				   .totals = totals,
				   .time = { T0, 0 } };
	struct feed f;

	assert_int_equal(write_now(s, &rec), -EINVAL);
	rec.nr_events = 1;
	rec.totals = NULL;
	assert_int_equal(write_now(s, &rec), -EINVAL);
	rec.totals = totals;
	rec.cgroup = NULL;
	assert_int_equal(write_now(s, &rec), -EINVAL);
	rec.cgroup = &cg;
	cg.path = "";
	assert_int_equal(write_now(s, &rec), -EINVAL);
	cg.path = "/bad";
	rec.time.tv_nsec = -1;
	assert_int_equal(write_now(s, &rec), -EINVAL);
	assert_false(file_exists(file));
	/* Zero events is a valid (if dull) record. */
	rec.time.tv_nsec = 0;
	rec.nr_events = 0;
	assert_int_equal(write_now(s, &rec), 0);
	assert_true(file_exists(file));
	assert_int_equal(csv_sink_get_stats(NULL, &(struct csv_sink_stats){ 0 }), -EINVAL);

	/* The row that could not be formatted is carried by the next. */
	feed_init(&f, 6, "/carry");
	assert_int_equal(feed_step(s, &f, 10, false), 0);
	f.now.tv_sec = 253402300800LL - 10; /* year 10000 after the step */
	assert_int_equal(feed_step(s, &f, 20, false), -ERANGE);
	f.now.tv_sec = T0 + 100;
	assert_int_equal(feed_step(s, &f, 30, false), 0);
	free(file);
	file = file_of(dir, "/carry");
	assert_int_equal(column_sum(file, "cycles", NULL), 60);
	assert_int_equal(column_sum(file, "cpu-clock", NULL), 120);
	s->ops->free(s);
	assert_int_equal(test_rmtemp(dir), 0);
	free(file);
	free(dir);
}

static void test_rotation_by_size(void **state)
{
	char *dir = make_tmpdir(), *base = file_of(dir, "/rot");
	struct sink *s = new_sink(dir, 400, 3);
	struct feed f;
	char name[PATH_MAX];
	size_t rows;

	feed_init(&f, 11, "/rot");
	for (int i = 0; i < 40; i++)
		assert_int_equal(feed_step(s, &f, 1, false), 0);
	assert_true(stats_of(s).rotations >= 4);
	for (int i = 1; i <= 3; i++) {
		struct stat st;
		char *content;

		snprintf(name, sizeof(name), "%s.%d", base, i);
		assert_int_equal(stat(name, &st), 0);
		/* Rotated right after the write that went past 400 bytes. */
		assert_true(st.st_size > 400 && st.st_size < 400 + 100);
		content = test_read_file(name, NULL);
		assert_int_equal(strncmp(content, "timestamp,", 10), 0);
		assert_int_equal(count_substr(content, "timestamp,"), 1);
		free(content);
		assert_true(column_sum(name, "cycles", &rows) == rows && rows > 0);
	}
	snprintf(name, sizeof(name), "%s.4", base);
	assert_false(file_exists(name));
	/* .1 is the newest rotated file, .3 the oldest: each one's rows all
	 * come before the next newer one's, and all 40 rows are there. */
	{
		uint64_t prev_last = 0, total_rows = 0;

		for (int i = 3; i >= 0; i--) {
			uint64_t first, last;

			if (i)
				snprintf(name, sizeof(name), "%s.%d", base, i);
			else
				snprintf(name, sizeof(name), "%s", base);
			if (i == 0 && !file_exists(name))
				break; /* rotated right after the last row */
			file_time_range(name, &first, &last, &rows);
			assert_true(first > prev_last);
			prev_last = last;
			total_rows += rows;
		}
		assert_int_equal(prev_last, T0 + 400);
		assert_true(total_rows < 40); /* older files were deleted */
	}

	/* max_files 0: a full file is dropped, nothing rotated is kept, and
	 * the current file starts again with a header and only newer rows. */
	s->ops->free(s);
	s = new_sink(dir, 400, 0);
	feed_init(&f, 12, "/rot0");
	free(base);
	base = file_of(dir, "/rot0");
	for (int i = 0; i < 20; i++)
		assert_int_equal(feed_step(s, &f, 1, false), 0);
	assert_true(stats_of(s).rotations >= 3);
	/* Dropped right after the last row, or holding it: nothing else. */
	assert_int_equal(count_files_with_prefix(dir, base + strlen(dir) + 1), file_exists(base));
	assert_int_equal(feed_step(s, &f, 1, false), 0);
	assert_int_equal(count_files_with_prefix(dir, base + strlen(dir) + 1), 1);
	{
		struct stat st;
		uint64_t first, last;
		char *content = test_read_file(base, NULL);

		assert_non_null(content);
		assert_int_equal(strncmp(content, "timestamp,", 10), 0);
		assert_int_equal(count_substr(content, "timestamp,"), 1);
		free(content);
		assert_int_equal(stat(base, &st), 0);
		assert_true(st.st_size <= 400);
		file_time_range(base, &first, &last, &rows);
		assert_int_equal(last, T0 + 210);
		assert_true(rows > 0 && rows < 10);
		assert_int_equal(first, last - 10 * (rows - 1));
		assert_int_equal(column_sum(base, "cycles", NULL), rows);
	}
	s->ops->free(s);
	assert_int_equal(test_rmtemp(dir), 0);
	free(base);
	free(dir);
}

static void test_logrotate_rename(void **state)
{
	char *dir = make_tmpdir(), *file = file_of(dir, "/lr"), *old = rotated(file, 1),
	     *older = rotated(file, 2);
	struct sink *s = new_sink(dir, 0, 3);
	struct feed f;
	size_t rows_new, rows_old, rows_older;
	uint64_t sum;

	feed_init(&f, 21, "/lr");
	assert_int_equal(feed_step(s, &f, 5, false), 0);
	assert_int_equal(feed_step(s, &f, 5, false), 0);
	/* logrotate's default (create): rename, and rows go on in a new file. */
	assert_int_equal(rename(file, old), 0);
	assert_int_equal(feed_step(s, &f, 7, false), 0);
	assert_int_equal(stats_of(s).external_rotations, 1);
	/* Again, now with SIGHUP's reopen() between. */
	assert_int_equal(rename(old, older), 0);
	assert_int_equal(rename(file, old), 0);
	assert_int_equal(s->ops->reopen(s), 0);
	assert_int_equal(feed_step(s, &f, 9, false), 0);
	assert_int_equal(feed_step(s, &f, 9, false), 0);
	/* Removed outright (logrotate with nocreate + a cleanup). */
	assert_int_equal(unlink(older), 0);
	sum = column_sum(file, "cycles", &rows_new) + column_sum(old, "cycles", &rows_old);
	assert_int_equal(rows_new, 2);
	assert_int_equal(rows_old, 1);
	assert_int_equal(sum, 25);
	assert_int_equal(unlink(file), 0);
	assert_int_equal(feed_step(s, &f, 11, false), 0);
	assert_int_equal(column_sum(file, "cycles", &rows_older), 11);
	assert_int_equal(rows_older, 1);
	s->ops->free(s);
	assert_int_equal(test_rmtemp(dir), 0);
	free(file);
	free(old);
	free(older);
	free(dir);
}

/* The file holds one header, at the top, and `rows` rows summing to `sum`. */
static void assert_one_header(const char *file, uint64_t sum, size_t rows)
{
	char *content = test_read_file(file, NULL);
	size_t got_rows;

	assert_non_null(content);
	assert_int_equal(strncmp(content, "timestamp,", 10), 0);
	assert_int_equal(count_substr(content, "timestamp,"), 1);
	free(content);
	assert_int_equal(column_sum(file, "cycles", &got_rows), sum);
	assert_int_equal(got_rows, rows);
}

/* A sink writing one cgroup's file, in a directory of its own. */
struct one_file {
	char *dir, *file;
	struct sink *s;
	struct feed f;
};

static void one_file_open(struct one_file *o, uint64_t id, const char *path)
{
	o->dir = make_tmpdir();
	o->file = file_of(o->dir, path);
	o->s = new_sink(o->dir, 0, 3);
	feed_init(&o->f, id, path);
}

static void one_file_close(struct one_file *o)
{
	o->s->ops->free(o->s);
	assert_int_equal(test_rmtemp(o->dir), 0);
	free(o->file);
	free(o->dir);
}

/* Cut file to size through a descriptor opened for writing, then closed
 * (what the directory watch sees as a writer's close). */
static void truncate_through_fd(const char *file, off_t size)
{
	int fd = open(file, O_WRONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, size), 0);
	close(fd);
}

/* copytruncate truncates through a descriptor (`: >file`, logrotate): its
 * close is seen by the directory watch, and the next row's file gets its
 * header again at once. */
static void test_copytruncate(void **state)
{
	struct one_file o;
	int fd;

	/* id 40: its next periodic look is 13 rows away (its period began 22 s
	 * before the first row), so only the close finds it. */
	one_file_open(&o, 40, "/ct");
	assert_int_equal(feed_step(o.s, &o.f, 5, false), 0);
	assert_int_equal(feed_step(o.s, &o.f, 6, false), 0);
	fd = open(o.file, O_WRONLY | O_TRUNC | O_CLOEXEC);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(feed_step(o.s, &o.f, 7, false), 0);
	assert_int_equal(stats_of(o.s).external_rotations, 1);
	assert_one_header(o.file, 7, 1);
	one_file_close(&o);
}

/* truncate(2) by path closes nothing: the file's end is looked at once in
 * each 160 s of collections (CSV_SIZE_CHECK_MS: every 16th row at the 10 s
 * feed_step takes), and then the header goes in front of every row written
 * since the truncation, in a new file renamed over the old one (the row that
 * found it follows). */
static void test_truncate_by_path(void **state)
{
	struct one_file o;
	int steps = 0;

	one_file_open(&o, 32, "/tp");
	assert_int_equal(feed_step(o.s, &o.f, 5, false), 0);
	assert_int_equal(truncate(o.file, 0), 0);
	while (stats_of(o.s).external_rotations == 0 && steps < 17) {
		assert_int_equal(feed_step(o.s, &o.f, 2, false), 0);
		steps++;
	}
	assert_int_equal(stats_of(o.s).external_rotations, 1);
	assert_one_header(o.file, 2 * steps, steps);
	/* Nothing more to repair: the rows go on after the header. */
	for (int i = 0; i < 20; i++)
		assert_int_equal(feed_step(o.s, &o.f, 1, false), 0);
	assert_int_equal(stats_of(o.s).external_rotations, 1);
	assert_one_header(o.file, 2 * steps + 20, steps + 20);
	one_file_close(&o);
}

/* One row ms after the last (feed_step adds 10 s); its answer. */
static int feed_step_ms(struct sink *s, struct feed *f, long ms, uint64_t add, bool final)
{
	long ns = f->now.tv_nsec + (ms % 1000) * 1000000L;

	f->now.tv_sec += ms / 1000 - 10 + ns / 1000000000L;
	f->now.tv_nsec = ns % 1000000000L;
	return feed_step(s, f, add, final);
}

static void step_ms(struct one_file *o, long ms, uint64_t add)
{
	assert_int_equal(feed_step_ms(o->s, &o->f, ms, add, false), 0);
}

/* Truncated by path now: rows ms apart until the sink finds it (at most
 * limit), then how many it took. */
static int rows_until_found(struct one_file *o, long ms, int limit)
{
	uint64_t found = stats_of(o->s).external_rotations + 1;
	int steps = 0;

	assert_int_equal(truncate(o->file, 0), 0);
	while (stats_of(o->s).external_rotations < found && steps < limit) {
		step_ms(o, ms, 2);
		steps++;
	}
	assert_int_equal(stats_of(o->s).external_rotations, found);
	return steps;
}

/* The look period of id 34 at the feed's time (csv_file.c csv_note_look_period). */
static int64_t period_34(const struct one_file *o)
{
	return ((int64_t)o->f.now.tv_sec * 1000 + o->f.now.tv_nsec / 1000000 - 34000) / 160000;
}

/* At a 1 s interval: by time, not every 16 rows: a truncation right after
 * the file's periodic look is found 160 rows later, at its next one; a
 * clock step back looks at once; at 10 ms, 1024 rows bound it (the repair
 * copies what was written since into CSV_PREPEND_MAX). */
static void test_truncate_by_path_1s(void **state)
{
	struct one_file o;
	int64_t period;
	int steps;

	one_file_open(&o, 34, "/t1");
	assert_int_equal(feed_step(o.s, &o.f, 5, false), 0);
	steps = rows_until_found(&o, 1000, 161);
	assert_one_header(o.file, 2 * steps, steps);
	/* To the file's next period: the row there looks (nothing found; the
	 * repair's own rename, seen by the watch, made one more look). */
	period = period_34(&o);
	while (period_34(&o) == period)
		step_ms(&o, 1000, 1);
	steps = rows_until_found(&o, 1000, 161);
	assert_int_equal(steps, 160);
	assert_int_equal(period_34(&o), period + 2);

	/* Past the look the repair's rename made, a step back of the clock:
	 * the next row looks. */
	for (int i = 0; i < 3; i++)
		step_ms(&o, 1000, 1);
	o.f.now.tv_sec -= 3600 + 10;
	assert_int_equal(rows_until_found(&o, 10000, 1), 1);
	for (int i = 0; i < 3; i++)
		step_ms(&o, 10, 1);
	steps = rows_until_found(&o, 10, 1025);
	assert_true(steps <= 1024);
	one_file_close(&o);
}

/* Truncated after this collection's look at the watch, before its row:
 * the row lands headerless at offset 0, and the next collection (the close
 * seen) puts the header in front of both rows. */
static void test_truncate_within_a_collection(void **state)
{
	struct one_file o;

	one_file_open(&o, 33, "/tw");
	assert_int_equal(feed_step(o.s, &o.f, 5, false), 0);
	truncate_through_fd(o.file, 0);
	o.f.now.tv_sec -= 10; /* the same collection time: the watch is not read */
	assert_int_equal(feed_step(o.s, &o.f, 6, false), 0);
	assert_int_equal(feed_step(o.s, &o.f, 7, false), 0);
	assert_int_equal(stats_of(o.s).external_rotations, 1);
	assert_one_header(o.file, 13, 2);
	one_file_close(&o);
}

/* Cut to a non-zero size through a descriptor (an admin's truncate -s):
 * the file still starts with the header, so none is added; the rows go on
 * after what is left. */
static void test_truncate_to_a_row(void **state)
{
	struct one_file o;
	char *content, *nl;
	off_t keep;

	one_file_open(&o, 35, "/nz");
	for (int i = 0; i < 3; i++)
		assert_int_equal(feed_step(o.s, &o.f, 5, false), 0);
	content = test_read_file(o.file, NULL);
	nl = strchr(strchr(content, '\n') + 1, '\n'); /* the header and one row */
	keep = nl + 1 - content;
	free(content);
	truncate_through_fd(o.file, keep);
	assert_int_equal(feed_step(o.s, &o.f, 7, false), 0);
	assert_int_equal(stats_of(o.s).external_rotations, 1);
	assert_one_header(o.file, 5 + 7, 2);
	one_file_close(&o);
}

/* sink.done counting answers: the cookie is the answer count of a row. */
static void count_answer(void *ctx, const void *cookie, int result)
{
	(void)ctx;
	if (result == 0)
		(*(int *)cookie)++;
}

/* Queued as the agent has it, in batches larger than one (512 rows per
 * io_submit): every row answered exactly once, at the latest by the flush,
 * some already inside write() when a batch filled; a row without a cookie
 * is answered at once. */
static void test_batches(void **state)
{
	enum {
		N = 700,
		COLLECTIONS = 3
	};
	static const char *const ev[] = { "cycles" };
	static int answers[N];
	char *dir = make_tmpdir();
	struct sink *s = new_sink(dir, 0, 3);
	struct reading totals[1], delta[1] = { { 3, 10, 10 } };
	struct sink_cgroup cg[N];
	char paths[N][16];
	int queued = 0;

	struct rlimit rl;

	/* As the agent does: files kept open up to half of the soft limit. */
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &rl), 0);
	rl.rlim_cur = rl.rlim_max;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &rl), 0);
	s->ops->free(s);
	s = new_sink(dir, 0, 3);
	s->done = count_answer;
	memset(answers, 0, sizeof(answers));
	for (int c = 0; c < COLLECTIONS; c++) {
		for (int i = 0; i < N; i++) {
			struct sink_record rec = { .cgroup = &cg[i],
						   .nr_events = 1,
						   .event_names = ev,
						   .totals = totals,
						   .delta = delta,
						   .interval_known = true,
						   .interval_ms = 10000,
						   /* first rows: each its own batch,
						    * never past the creation budget */
						   .time = { T0 + 10 * c, c ? 0 : i },
						   .cookie = &answers[i] };
			int r;

			snprintf(paths[i], sizeof(paths[i]), "/b%d", i);
			cg[i] = (struct sink_cgroup){ .id = 1000 + i,
						      .path = paths[i],
						      .kind = "other" };
			r = s->ops->write(s, &rec);
			if (r == 0)
				answers[i]++;
			queued += r == SINK_QUEUED;
			assert_true(r == 0 || r == SINK_QUEUED);
		}
		assert_int_equal(s->ops->flush(s), 0);
		for (int i = 0; i < N; i++)
			assert_int_equal(answers[i], c + 1);
	}
	/* First rows are written at once; every other row is queued (a file
	 * whose end is due a look is looked at when its row is queued, not
	 * written row by row, which would run the batch in pieces): more than
	 * a batch per collection, so full batches were answered inside write(). */
	assert_int_equal(queued, N * (COLLECTIONS - 1));
	for (int i = 0; i < N; i += 99) {
		char *file = file_of(dir, paths[i]);
		size_t rows;

		assert_int_equal(column_sum(file, "cycles", &rows), 3 * COLLECTIONS);
		assert_int_equal(rows, COLLECTIONS);
		free(file);
	}
	{
		struct sink_record rec = { .cgroup = &cg[0],
					   .nr_events = 1,
					   .event_names = ev,
					   .totals = totals,
					   .delta = delta,
					   .interval_known = true,
					   .interval_ms = 10000,
					   .time = { T0 + 100, 0 } };

		assert_int_equal(s->ops->write(s, &rec), 0);
	}
	s->ops->free(s);
	assert_int_equal(test_rmtemp(dir), 0);
	free(dir);
}

static void test_header_change_and_restart(void **state)
{
	static const char *const three[] = { "cycles", "cpu-clock", "context-switches" };
	char *dir = make_tmpdir(), *file = file_of(dir, "/hc"), *old = rotated(file, 1), *content;
	struct sink *s = new_sink(dir, 0, 3);
	struct feed f;
	size_t rows;

	feed_init(&f, 41, "/hc");
	assert_int_equal(feed_step(s, &f, 5, false), 0);
	/* The agent restarts: same events, the file is appended to. */
	s->ops->free(s);
	s = new_sink(dir, 0, 3);
	feed_restart(&f);
	assert_int_equal(feed_step(s, &f, 6, false), 0);
	content = test_read_file(file, NULL);
	assert_int_equal(count_substr(content, "timestamp,"), 1);
	free(content);
	assert_int_equal(column_sum(file, "cycles", &rows), 11);
	assert_int_equal(rows, 2);
	assert_int_equal(stats_of(s).rotations, 0);

	/* A new event set (reload: a new session): the old file moves away,
	 * a new one starts. */
	f.nr_events = 3;
	f.events = three;
	feed_restart(&f);
	assert_int_equal(feed_step(s, &f, 7, false), 0);
	assert_int_equal(stats_of(s).rotations, 1);
	assert_int_equal(column_sum(old, "cycles", &rows), 11);
	assert_int_equal(rows, 2);
	assert_int_equal(column_sum(file, "cycles", &rows), 7);
	assert_int_equal(column_sum(file, "context-switches", NULL), 21);

	/* An agent restarting with another event set finds the file's header
	 * different too. */
	s->ops->free(s);
	s = new_sink(dir, 0, 3);
	f.nr_events = 2;
	f.events = two_events;
	assert_int_equal(feed_step(s, &f, 1, false), 0);
	assert_int_equal(stats_of(s).rotations, 1);
	content = test_read_file(old, NULL);
	assert_non_null(strstr(content, "context-switches_running_pct"));
	free(content);
	s->ops->free(s);
	assert_int_equal(test_rmtemp(dir), 0);
	free(file);
	free(old);
	free(dir);
}

/* The agent's event names live in place and are rewritten by a reload,
 * which moves the events generation: rows of one generation skip the name
 * comparison, and a new generation with other names in the same place
 * starts a new file even though the pointers did not change. */
static void test_events_renamed_in_place(void **state)
{
	char names[2][32] = { "cycles", "cpu-clock" };
	const char *const in_place[] = { names[0], names[1] };
	char *dir = make_tmpdir(), *file = file_of(dir, "/rn"), *old = rotated(file, 1);
	struct sink *s = new_sink(dir, 0, 3);
	struct feed f;

	feed_init(&f, 61, "/rn");
	f.events = in_place;
	f.events_gen = 1;
	assert_int_equal(feed_step(s, &f, 5, false), 0);
	assert_int_equal(feed_step(s, &f, 6, false), 0);
	assert_int_equal(stats_of(s).rotations, 0);
	strcpy(names[0], "instructions");
	f.events_gen = 2;
	feed_restart(&f);
	assert_int_equal(feed_step(s, &f, 7, false), 0);
	assert_int_equal(stats_of(s).rotations, 1);
	assert_int_equal(column_sum(old, "cycles", NULL), 11);
	assert_int_equal(column_sum(file, "instructions", NULL), 7);
	/* The same names under another generation: still the same file. */
	f.events_gen = 3;
	assert_int_equal(feed_step(s, &f, 8, false), 0);
	assert_int_equal(stats_of(s).rotations, 1);
	assert_int_equal(column_sum(file, "instructions", NULL), 15);
	s->ops->free(s);
	assert_int_equal(test_rmtemp(dir), 0);
	free(file);
	free(old);
	free(dir);
}

static void test_unfinished_line(void **state)
{
	char *dir = make_tmpdir(), *file = file_of(dir, "/uf");
	struct sink *s = new_sink(dir, 0, 3);
	struct feed f;
	struct table t;
	char *header;
	size_t len;
	int fd;

	feed_init(&f, 51, "/uf");
	assert_int_equal(feed_step(s, &f, 5, false), 0);
	s->ops->free(s);
	/* A previous run died in the middle of a row, inside a quoted field
	 * holding a newline (what a full disk can leave): the newline inside
	 * the quotes is not taken for the end of a row. */
	header = test_read_file(file, &len);
	fd = open(file, O_WRONLY | O_APPEND);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "2026-12-02T11:59:00.000Z,\"/uf\nx", 31), 31);
	close(fd);
	s = new_sink(dir, 0, 3);
	feed_restart(&f); /* a new agent counts from zero */
	assert_int_equal(feed_step(s, &f, 6, false), 0);
	assert_int_equal(stats_of(s).partial_rows, 1);
	assert_int_equal(table_load(file, &t), 0);
	assert_int_equal(t.nr_rows, 3);
	assert_string_equal(cell(&t, 1, "cycles"), "6");
	table_free(&t);
	free(header);
	s->ops->free(s);
	assert_int_equal(test_rmtemp(dir), 0);
	free(file);
	free(dir);
}

/* ---- rows held (csv.flush_interval) ------------------------------------------ */

/* The end of a test of held rows: sink, feed, directory. */
static void hold_test_end(struct sink *s, struct feed *f, char *dir, char *file)
{
	/* Every row held was written or dropped by the end of each test. */
	assert_int_equal(stats_of(s).held_now, 0);
	s->ops->free(s);
	feed_free(f);
	assert_int_equal(test_rmtemp(dir), 0);
	free(file);
	free(dir);
}

/* Rows 1 s apart until one is held (want_held) or written: at most two
 * flush periods of them. */
static void step_until(struct sink *s, struct feed *f, uint64_t add, bool want_held)
{
	for (int i = 0; i < 12; i++) {
		int r = feed_step_ms(s, f, 1000, add, false);

		assert_true(r == 0 || r == SINK_HELD);
		if ((r == SINK_HELD) == want_held)
			return;
	}
	fail_msg("no row %s in 12 s of rows", want_held ? "held" : "written");
}

/* The file's rows and their cycles: what was written so far. */
static void assert_file_holds(const char *file, uint64_t cycles, size_t rows)
{
	size_t got;

	assert_int_equal(column_sum(file, "cycles", &got), cycles);
	assert_int_equal(got, rows);
}

/* At 1 s rows and a 5 s flush interval: the first row makes the file at
 * once; then a file's rows are written together, never one held longer than
 * the flush interval and one interval, and the file always holds exactly the
 * rows answered written (the record's last written totals: what a new agent
 * would go on from). A final row writes what is held. */
static void test_hold_rows(void **state)
{
	char *dir = make_tmpdir(), *file = file_of(dir, "/hold");
	struct sink *s = new_sink_flush(dir, 0, 3, 5000);
	uint64_t oldest_ms = 0;
	size_t written = 0, held = 0, appends = 0;
	struct feed f;

	assert_true(s->may_hold);
	feed_init(&f, 77, "/hold");
	assert_int_equal(feed_step(s, &f, 1, false), 0);
	written = 1;
	for (int i = 0; i < 60; i++) {
		int r = feed_step_ms(s, &f, 1000, 1, false);
		uint64_t now_ms = ns_of(&f.now) / 1000000;

		if (r == SINK_HELD) {
			if (!held)
				oldest_ms = now_ms;
			held++;
		} else {
			assert_int_equal(r, 0);
			if (held)
				assert_true(now_ms - oldest_ms <= 6000);
			written += held + 1;
			held = 0;
			appends++;
		}
		assert_true(held <= 5);
		assert_int_equal(stats_of(s).held_now, held);
		assert_file_holds(file, record_written(&f.rec, RECORD_OUT_CSV)->last[0].counter,
				  written);
		assert_int_equal(f.rec.held != 0, held != 0);
	}
	/* About one append per 5 s, not one per row. */
	assert_true(appends >= 11 && appends <= 13);
	assert_true(held > 0 || feed_step_ms(s, &f, 1000, 1, false) == SINK_HELD);
	assert_int_equal(feed_step_ms(s, &f, 1000, 1, true), 0);
	assert_file_holds(file, f.totals[0].counter, 62 + (held == 0));
	assert_int_equal(stats_of(s).rows_written, 62 + (held == 0));
	hold_test_end(s, &f, dir, file);
}

/* Not held: rows an interval at least as long as the flush interval apart
 * (the default 10 s against 5 s), a writer that cannot take SINK_HELD, the
 * agent's last rows before it stops (not may_hold), a clock step (what was
 * held goes with the row after it). */
static void test_hold_not(void **state)
{
	char *dir = make_tmpdir(), *file = file_of(dir, "/nohold");
	struct sink *s = new_sink_flush(dir, 0, 3, 5000);
	struct feed f;

	feed_init(&f, 78, "/nohold");
	for (int i = 0; i < 5; i++)
		assert_int_equal(feed_step(s, &f, 2, false), 0);
	assert_int_equal(stats_of(s).rows_held, 0);
	f.no_hold = true;
	for (int i = 0; i < 5; i++)
		assert_int_equal(feed_step_ms(s, &f, 1000, 2, false), 0);
	f.no_hold = false;
	step_until(s, &f, 2, true);
	/* The clock stepped back an hour: written now, with the held row. */
	assert_int_equal(feed_step_ms(s, &f, -3600 * 1000, 2, false), 0);
	assert_false(f.rec.held);
	assert_file_holds(file, f.totals[0].counter, 5 + 5 + stats_of(s).rows_held + 1);
	step_until(s, &f, 2, true);
	/* The agent's last collection (COLLECT_EXIT): not may_hold. */
	f.no_hold = true;
	assert_int_equal(feed_step_ms(s, &f, 1000, 2, false), 0);
	assert_file_holds(file, f.totals[0].counter, stats_of(s).rows_written);
	hold_test_end(s, &f, dir, file);
}

/* Bounds: a file holds at most 2 KiB of rows (long names: fewer rows held),
 * never past max_size (rotated right after passing it, as without holding),
 * and held rows count towards the rows bound of the next look at the file's
 * end: a truncation by path at 10 ms rows is found within 1024 rows (the
 * repair copies what was written since into CSV_PREPEND_MAX). */
static void test_hold_bounds(void **state)
{
	char *dir = make_tmpdir(), path[700], *file;
	struct sink *s = new_sink_flush(dir, 4000, 3, 5000);
	struct one_file o;
	int run = 0, most = 0, steps;
	struct stat st;
	struct feed f;

	memset(path, 'n', sizeof(path) - 1);
	path[0] = '/';
	path[sizeof(path) - 1] = '\0';
	feed_init(&f, 80, path);
	file = file_for(dir, &f.cg);
	assert_int_equal(feed_step(s, &f, 1, false), 0);
	for (int i = 0; i < 40; i++) {
		int r = feed_step_ms(s, &f, 1000, 1, false);

		run = r == SINK_HELD ? run + 1 : 0;
		most = run > most ? run : most;
		assert_true(r == 0 || r == SINK_HELD);
		/* Rotated right after passing max_size, never later. */
		for (int n = 1; n <= 2; n++) {
			char *rot = rotated(file, n);

			if (stat(rot, &st) == 0)
				assert_true(st.st_size > 4000 && st.st_size < 4000 + 800);
			free(rot);
		}
	}
	/* ~730 bytes a row: two held, the third goes out with them. */
	assert_int_equal(most, 2);
	assert_true(stats_of(s).rotations >= 3);
	s->ops->free(s);
	feed_free(&f);
	assert_int_equal(test_rmtemp(dir), 0);
	free(file);
	free(dir);

	one_file_open(&o, 81, "/tb");
	o.s->ops->free(o.s);
	o.s = new_sink_flush(o.dir, 0, 3, 1000);
	assert_int_equal(feed_step(o.s, &o.f, 5, false), 0);
	assert_int_equal(truncate(o.file, 0), 0);
	steps = 0;
	while (stats_of(o.s).external_rotations == 0 && steps < 1100) {
		assert_true(feed_step_ms(o.s, &o.f, 10, 2, false) >= 0);
		steps++;
	}
	assert_int_equal(stats_of(o.s).external_rotations, 1);
	assert_true(steps <= 1024);
	assert_int_equal(feed_step_ms(o.s, &o.f, 10, 2, true), 0);
	assert_one_header(o.file, 2 * (uint64_t)steps + 2, (size_t)steps + 1);
	assert_int_equal(stats_of(o.s).held_now, 0);
	feed_free(&o.f);
	one_file_close(&o);
}

/* A record the sink refuses (no path) while rows of its cgroup are held:
 * the failure drops them (sink.h), the agent goes back to its last written
 * row, and the next row holds every count: each once. */
static void test_hold_bad_record(void **state)
{
	char *dir = make_tmpdir(), *file = file_of(dir, "/hbr");
	struct sink *s = new_sink_flush(dir, 0, 3, 5000);
	struct sink_cgroup bad;
	struct sink_record rec;
	struct reading delta[2];
	struct feed f;

	feed_init(&f, 82, "/hbr");
	assert_int_equal(feed_step(s, &f, 4, false), 0);
	step_until(s, &f, 4, true);
	bad = f.cg;
	bad.path = NULL;
	record_row(&f.rec, RECORD_OUT_CSV, f.totals, f.nr_events, ns_of(&f.now), delta, &rec);
	rec.cgroup = &bad;
	rec.time = f.now;
	rec.event_names = f.events;
	assert_int_equal(write_now(s, &rec), -EINVAL);
	record_held_answered(&f.rec, RECORD_OUT_CSV, false);
	assert_int_equal(feed_step_ms(s, &f, 1000, 4, true), 0);
	assert_file_holds(file, f.totals[0].counter, stats_of(s).rows_written);
	hold_test_end(s, &f, dir, file);
}

/* logrotate with rows held: rename, then SIGHUP (reopen): the next row goes
 * out at once, with the held ones, into the new file (the file is not as
 * the sink left it); over both files every count once. */
static void test_hold_reopen(void **state)
{
	char *dir = make_tmpdir(), *file = file_of(dir, "/hro"), *old = rotated(file, 1);
	struct sink *s = new_sink_flush(dir, 0, 3, 5000);
	size_t rows_old, rows_new;
	uint64_t sum;
	struct feed f;

	feed_init(&f, 84, "/hro");
	assert_int_equal(feed_step(s, &f, 3, false), 0);
	step_until(s, &f, 3, true);
	/* To the first row held after a written one: one row held. */
	step_until(s, &f, 3, false);
	step_until(s, &f, 3, true);
	assert_int_equal(rename(file, old), 0);
	assert_int_equal(s->ops->reopen(s), 0);
	assert_int_equal(feed_step_ms(s, &f, 1000, 3, false), 0);
	assert_false(f.rec.held);
	sum = column_sum(old, "cycles", &rows_old) + column_sum(file, "cycles", &rows_new);
	assert_int_equal(sum, f.totals[0].counter);
	assert_int_equal(rows_new, 2); /* the held row and the row after the reopen */
	free(old);
	hold_test_end(s, &f, dir, file);
}

/* Events changed while rows are held: they have the old columns, so they
 * are dropped with the row (-EAGAIN, counted deferred) and the next row, in
 * the new file's columns, holds their counts: over both files, every count
 * once. */
static void test_hold_events_change(void **state)
{
	static const char *const three[] = { "cycles", "cpu-clock", "context-switches" };
	char *dir = make_tmpdir(), *file = file_of(dir, "/hev"), *old = rotated(file, 1);
	struct sink *s = new_sink_flush(dir, 0, 3, 5000);
	uint64_t before;
	struct feed f;
	size_t rows;

	feed_init(&f, 79, "/hev");
	assert_int_equal(feed_step(s, &f, 3, false), 0);
	step_until(s, &f, 3, true);
	f.events = three;
	f.nr_events = 3;
	assert_int_equal(feed_step_ms(s, &f, 1000, 3, false), -EAGAIN);
	assert_false(f.rec.held);
	assert_int_equal(stats_of(s).rows_deferred, 2);
	assert_int_equal(feed_step_ms(s, &f, 1000, 3, false), 0);
	before = column_sum(old, "cycles", &rows);
	assert_int_equal(before + column_sum(file, "cycles", NULL), f.totals[0].counter);
	assert_int_equal(stats_of(s).held_now, 0);
	s->ops->free(s);
	feed_free(&f);
	assert_int_equal(test_rmtemp(dir), 0);
	free(file);
	free(old);
	free(dir);
}

/* ---- a full file system ------------------------------------------------------ */

struct tiny_fs {
	char *dir, *mnt, *csv, *filler;
};

static bool tiny_fs_mount(struct tiny_fs *t)
{
	t->dir = make_tmpdir();
	t->mnt = path_join(t->dir, "fs");
	t->csv = path_join(t->mnt, "csv");
	t->filler = path_join(t->mnt, "filler");
	assert_int_equal(mkdir(t->mnt, 0755), 0);
	if (mount("tmpfs", t->mnt, "tmpfs", MS_NOSUID | MS_NODEV, "size=64k") < 0) {
		/* Root can always mount a tmpfs: that failing is a failure. */
		if (geteuid() == 0)
			fail_msg("cannot mount a tmpfs as root: %s", strerror(errno));
		return false;
	}
	cleanup_mount = xstrdup(t->mnt);
	return true;
}

static void tiny_fs_umount(struct tiny_fs *t)
{
	assert_int_equal(umount2(t->mnt, MNT_DETACH), 0);
	free(cleanup_mount);
	cleanup_mount = NULL;
	assert_int_equal(test_rmtemp(t->dir), 0);
	free(t->dir);
	free(t->mnt);
	free(t->csv);
	free(t->filler);
}

/* Fill the file system: big writes, then byte by byte into the last page. */
static void tiny_fs_fill(struct tiny_fs *t)
{
	static char chunk[4096];
	int fd = open(t->filler, O_WRONLY | O_CREAT | O_APPEND, 0600);

	assert_true(fd >= 0);
	while (write(fd, chunk, sizeof(chunk)) > 0)
		;
	while (write(fd, chunk, 1) > 0)
		;
	assert_int_equal(errno, ENOSPC);
	close(fd);
}

static void test_disk_full(void **state)
{
	struct tiny_fs t;
	struct sink *s;
	struct feed f, gone;
	struct csv_sink_stats st;
	char *file, *gone_file;
	size_t rows;
	int failed = 0, written = 0, gone_rows = 1;

	if (!tiny_fs_mount(&t)) {
		assert_int_equal(test_rmtemp(t.dir), 0);
		unit_skip("mounting a tiny tmpfs (a full disk) needs root");
	}
	s = new_sink(t.csv, 0, 3);
	feed_init(&f, 61,
		  "/full/a,very \"long\" cgroup path that makes rows long enough to "
		  "cross page boundaries soon/\xc3\xa9t\xc3\xa9");
	feed_init(&gone, 62, "/full/gone");
	file = file_for(t.csv, &f.cg);
	gone_file = file_for(t.csv, &gone.cg);
	assert_int_equal(feed_step(s, &f, 1000, false), 0);
	assert_int_equal(feed_step(s, &gone, 3, false), 0);
	written = 1;
	tiny_fs_fill(&t);
	/* The file's last page may still take a few rows; then writes fail. */
	for (int i = 0; i < 200 && failed < 5; i++) {
		if (feed_step(s, &f, 1000 + i, false) < 0)
			failed++;
		else if (!failed)
			written++;
	}
	assert_int_equal(failed, 5);
	st = stats_of(s);
	assert_int_equal(st.rows_failed, 5);
	print_message("disk full: %d rows written, then 5 failed (%" PRIu64
		      " partial rows cut off)\n",
		      written, st.partial_rows);
	/* Another cgroup: rows until its file's last page is full too; then
	 * its final row fails and is retried (by the agent) with nothing new. */
	for (int i = 0; i < 200; i++) {
		if (feed_step(s, &gone, 3, false) < 0)
			break;
		gone_rows++;
	}
	assert_true(feed_step(s, &gone, 4000, true) < 0);
	assert_true(feed_step(s, &gone, 0, true) < 0);
	/* Space again: the next row holds every count of the missed ones. */
	assert_int_equal(unlink(t.filler), 0);
	assert_int_equal(feed_step(s, &f, 1, false), 0);
	assert_int_equal(feed_step(s, &gone, 0, true), 0);
	assert_int_equal(column_sum(file, "cycles", &rows), f.totals[0].counter);
	assert_int_equal(column_sum(file, "cpu-clock", NULL), f.totals[1].counter);
	assert_int_equal(rows, (size_t)written + 1);
	assert_int_equal(column_sum(gone_file, "cycles", &rows), gone.totals[0].counter);
	assert_int_equal(column_sum(gone_file, "cpu-clock", NULL), gone.totals[1].counter);
	assert_int_equal(rows, (size_t)gone_rows + 1);
	s->ops->free(s);
	free(file);
	free(gone_file);
	tiny_fs_umount(&t);
}

/* Rows held when the disk fills: an append that fails takes the rows held
 * with it (the record goes back to its last written row), none is written
 * later on its own, and with room again the next row holds every count
 * missed: the column sums are the totals, each count once. */
static void test_hold_disk_full(void **state)
{
	struct tiny_fs t;
	struct sink *s;
	struct feed f;
	char *file;
	int failed = 0, r = -1;

	if (!tiny_fs_mount(&t)) {
		assert_int_equal(test_rmtemp(t.dir), 0);
		unit_skip("mounting a tiny tmpfs (a full disk) needs root");
	}
	s = new_sink_flush(t.csv, 0, 3, 5000);
	feed_init(&f, 63,
		  "/full/held rows of a long enough cgroup path to make the appends cross "
		  "page boundaries soon");
	file = file_for(t.csv, &f.cg);
	assert_int_equal(feed_step(s, &f, 1000, false), 0);
	tiny_fs_fill(&t);
	for (int i = 0; i < 400 && failed < 3; i++) {
		r = feed_step_ms(s, &f, 1000, 7, false);
		if (r < 0) {
			failed++;
			assert_false(f.rec.held);
		}
	}
	assert_int_equal(failed, 3);
	assert_true(stats_of(s).rows_failed > 3); /* held rows failed with them */
	assert_int_equal(unlink(t.filler), 0);
	for (int i = 0; i < 10 && (r = feed_step_ms(s, &f, 1000, 1, false)) == SINK_HELD; i++)
		;
	assert_int_equal(r, 0);
	assert_int_equal(feed_step_ms(s, &f, 1000, 1, true), 0);
	assert_int_equal(column_sum(file, "cycles", NULL), f.totals[0].counter);
	assert_int_equal(column_sum(file, "cpu-clock", NULL), f.totals[1].counter);
	assert_int_equal(stats_of(s).held_now, 0);
	s->ops->free(s);
	feed_free(&f);
	free(file);
	tiny_fs_umount(&t);
}

/* A truncation by path found while the disk is full: the rows written since
 * cannot get their header back (the copy does not fit) and stay where they
 * are, not lost; the row that found it is not written (its counts go into
 * the next); with room again the headerless file is rotated away whole and
 * a new one starts with the header. */
static void test_truncate_repair_disk_full(void **state)
{
	struct tiny_fs t;
	struct sink *s;
	struct feed f;
	char *file, *old, *tmp, *before, *after;

	if (!tiny_fs_mount(&t)) {
		assert_int_equal(test_rmtemp(t.dir), 0);
		unit_skip("mounting a tiny tmpfs (a full disk) needs root");
	}
	s = new_sink(t.csv, 0, 3);
	feed_init(&f, 48, "/rf");
	file = file_of(t.csv, "/rf");
	old = rotated(file, 1);
	assert_true(asprintf(&tmp, "%s.tmp", file) > 0);
	assert_int_equal(feed_step(s, &f, 5, false), 0);
	assert_int_equal(truncate(file, 0), 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(feed_step(s, &f, 10, false), 0);
	before = test_read_file(file, NULL);
	tiny_fs_fill(&t);
	close(open(file, O_WRONLY | O_CLOEXEC)); /* a writer's close: looked at */
	assert_true(feed_step(s, &f, 10, false) < 0);
	assert_int_equal(access(tmp, F_OK), -1);
	assert_int_equal(unlink(t.filler), 0);
	assert_int_equal(feed_step(s, &f, 1, false), 0);
	after = test_read_file(old, NULL);
	assert_string_equal(after, before);
	assert_one_header(file, 11, 1);
	s->ops->free(s);
	free(before);
	free(after);
	free(file);
	free(old);
	free(tmp);
	tiny_fs_umount(&t);
}

/* stderr of the calls between capture_begin() and capture_end(). */
static int saved_stderr = -1;
static char capture_path[64];

static void capture_begin(void)
{
	int fd;

	snprintf(capture_path, sizeof(capture_path), "/tmp/cgperf-test-csv-err.%d", (int)getpid());
	fd = open(capture_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	saved_stderr = dup(2);
	assert_true(saved_stderr >= 0);
	assert_int_equal(dup2(fd, 2), 2);
	close(fd);
}

static char *capture_end(void)
{
	char *text;

	assert_int_equal(dup2(saved_stderr, 2), 2);
	close(saved_stderr);
	text = test_read_file(capture_path, NULL);
	unlink(capture_path);
	assert_non_null(text);
	return text;
}

/* The failure line: one per kind of failure per CSV_REPORT_INTERVAL_S
 * however many rows fail, another kind has its own line, and the line
 * that says rows are written again comes once. */
static void test_failure_rate_limit(void **state)
{
	char *dir = make_tmpdir(), *target = path_join(dir, "target"), *link, *err;
	struct sink *s = new_sink(dir, 0, 3);
	struct feed f, g;
	struct sink_record bad = { 0 };

	feed_init(&f, 91, "/rl");
	feed_init(&g, 92, "/rl2");
	link = file_of(dir, "/rl");
	assert_int_equal(symlink(target, link), 0);
	capture_begin();
	for (int i = 0; i < 20; i++)
		assert_true(feed_step(s, &f, 1, false) < 0);
	for (int i = 0; i < 5; i++)
		assert_int_equal(write_now(s, &bad), -EINVAL);
	assert_int_equal(unlink(link), 0);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(feed_step(s, &f, 1, false), 0);
		assert_int_equal(feed_step(s, &g, 1, false), 0);
	}
	err = capture_end();
	print_message("%s", err);
	assert_int_equal(count_substr(err, "is a symbolic link"), 1);
	assert_int_equal(count_substr(err, "(1 rows not written since the last report"), 1);
	assert_int_equal(count_substr(err, "ignored a record"), 1);
	assert_int_equal(count_substr(err, "rows are written again after 20 failed"), 1);
	assert_int_equal(count_substr(err, "\n"), 3);
	assert_int_equal(stats_of(s).rows_failed, 20);
	/* The 23 rows of /rl that reached the file hold all 23 steps' counts. */
	assert_int_equal(column_sum(link, "cycles", NULL), 23);
	s->ops->free(s);
	assert_int_equal(test_rmtemp(dir), 0);
	free(err);
	free(link);
	free(target);
	free(dir);
}

/* ---- one write() per row, O_APPEND, no reopen (strace) ---------------------------------------- */

static int strace_child(const char *dir)
{
	struct sink *s = new_sink(dir, 0, 3);
	struct feed f;

	feed_init(&f, 81, "/st,\"q\"\nx");
	for (int i = 0; i < 3; i++)
		if (feed_step(s, &f, 1, false) < 0)
			return 1;
	s->ops->free(s);
	return 0;
}

/* The syscalls on one cgroup's file over 3 rows: one open, one fstat (the
 * checks on first use), then one write() per row with the whole row, O_APPEND,
 * no reopen and no stat per row; closed once, at the end. */
static void test_one_write_per_row(void **state)
{
	char *dir = make_tmpdir(), *log = path_join(dir, "strace.log"), *cmd, line[4096];
	FILE *in;
	int fd = -1, writes = 0, opens = 0, stats = 0, closes = 0;

	if (system("command -v strace >/dev/null 2>&1") != 0) {
		assert_int_equal(test_rmtemp(dir), 0);
		unit_skip("strace is not installed (Debian package strace)");
	}
	/* LeakSanitizer cannot run under ptrace (a sanitizer build). */
	if (getenv("ASAN_OPTIONS")) {
		char *opts;

		assert_true(asprintf(&opts, "%s:detect_leaks=0", getenv("ASAN_OPTIONS")) > 0);
		setenv("ASAN_OPTIONS", opts, 1);
		free(opts);
	}
	assert_true(asprintf(&cmd,
			     "%s=%s strace -f -qq -e trace=openat,write,close,fstat,newfstatat,"
			     "statx,stat,lstat -o %s /proc/%d/exe >/dev/null 2>&1",
			     STRACE_CHILD_ENV, dir, log, (int)getpid()) > 0);
	assert_int_equal(system(cmd), 0);
	in = fopen(log, "re");
	assert_non_null(in);
	while (fgets(line, sizeof(line), in)) {
		char *p, fdarg[16];
		int n, ret;

		snprintf(fdarg, sizeof(fdarg), "(%d,", fd);
		if ((p = strstr(line, "openat(")) && strstr(line, ".csv\"")) {
			assert_non_null(strstr(line, "O_APPEND"));
			p = strstr(line, ") = ");
			assert_non_null(p);
			if (atoi(p + 4) >= 0) {
				fd = atoi(p + 4);
				opens++;
			}
		} else if ((p = strstr(line, "write(")) && fd >= 0 && atoi(p + 6) == fd) {
			/* write(FD, "...", N) = N: the whole row at once. */
			p = strrchr(line, ')');
			assert_non_null(p);
			assert_int_equal(sscanf(strrchr(line, ',') + 1, "%d", &n), 1);
			assert_int_equal(sscanf(p, ") = %d", &ret), 1);
			assert_int_equal(n, ret);
			writes++;
		} else if (strstr(line, "stat") &&
			   (strstr(line, ".csv\"") || (fd >= 0 && strstr(line, fdarg))))
			stats++;
		else if ((p = strstr(line, "close(")) && fd >= 0 && atoi(p + 6) == fd) {
			closes++;
			fd = -1;
		}
	}
	fclose(in);
	assert_int_equal(opens, 1);
	assert_int_equal(writes, 3);
	assert_int_equal(stats, 1);
	assert_int_equal(closes, 1);
	assert_int_equal(test_rmtemp(dir), 0);
	free(cmd);
	free(log);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_timestamp, teardown),
		cmocka_unit_test_teardown(test_event_cells, teardown),
		cmocka_unit_test_teardown(test_quoting, teardown),
		cmocka_unit_test_teardown(test_file_names, teardown),
		cmocka_unit_test_teardown(test_round_trip, teardown),
		cmocka_unit_test_teardown(test_deltas_and_intervals, teardown),
		cmocka_unit_test_teardown(test_identity_cells, teardown),
		cmocka_unit_test_teardown(test_identity_follows_refresh, teardown),
		cmocka_unit_test_teardown(test_name_collision, teardown),
		cmocka_unit_test_teardown(test_prog_rows, teardown),
		cmocka_unit_test_teardown(test_prog_event_columns, teardown),
		cmocka_unit_test_teardown(test_permissions, teardown),
		cmocka_unit_test_teardown(test_directory_mode, teardown),
		cmocka_unit_test_teardown(test_safe_cells, teardown),
		cmocka_unit_test_teardown(test_bad_records, teardown),
		cmocka_unit_test_teardown(test_rotation_by_size, teardown),
		cmocka_unit_test_teardown(test_logrotate_rename, teardown),
		cmocka_unit_test_teardown(test_copytruncate, teardown),
		cmocka_unit_test_teardown(test_truncate_by_path, teardown),
		cmocka_unit_test_teardown(test_truncate_by_path_1s, teardown),
		cmocka_unit_test_teardown(test_truncate_within_a_collection, teardown),
		cmocka_unit_test_teardown(test_truncate_to_a_row, teardown),
		cmocka_unit_test_teardown(test_batches, teardown),
		cmocka_unit_test_teardown(test_header_change_and_restart, teardown),
		cmocka_unit_test_teardown(test_events_renamed_in_place, teardown),
		cmocka_unit_test_teardown(test_unfinished_line, teardown),
		cmocka_unit_test_teardown(test_hold_rows, teardown),
		cmocka_unit_test_teardown(test_hold_not, teardown),
		cmocka_unit_test_teardown(test_hold_events_change, teardown),
		cmocka_unit_test_teardown(test_hold_bounds, teardown),
		cmocka_unit_test_teardown(test_hold_bad_record, teardown),
		cmocka_unit_test_teardown(test_hold_reopen, teardown),
		cmocka_unit_test_teardown(test_disk_full, teardown),
		cmocka_unit_test_teardown(test_hold_disk_full, teardown),
		cmocka_unit_test_teardown(test_truncate_repair_disk_full, teardown),
		cmocka_unit_test_teardown(test_failure_rate_limit, teardown),
		cmocka_unit_test_teardown(test_one_write_per_row, teardown),
	};
	const char *strace_dir = getenv(STRACE_CHILD_ENV);

	if (strace_dir)
		return strace_child(strace_dir);
	initial_umask = umask(022);
	umask(initial_umask);
	if (cmocka_run_group_tests_name("rows answered at once", tests, NULL, NULL))
		return unit_result(1);
	queueing = true;
	return unit_result(
		cmocka_run_group_tests_name("rows queued (the agent's way)", tests, NULL, NULL));
}
