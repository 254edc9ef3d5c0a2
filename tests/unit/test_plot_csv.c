// SPDX-License-Identifier: GPL-2.0-only
/* cgperf plot's input side (plot/csv_reader.c, plot/plot_input.c,
 * plot/plot_model.c, plot/plot_time.c) on tricky CSV: quoted names with
 * commas, quotes and line breaks (a tenant's row shaped text must not pass
 * for a row), a truncated last line, a different header, non-CSV files, an
 * empty directory, rotated files and restarts (time going back), gaps,
 * counts turned into rates. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plot/csv_reader.h"
#include "plot/plot_input.h"
#include "plot/plot_model.h"
#include "plot/plot_time.h"
#include "tests/lib/test_files.h"

#define HEADER                                                                                   \
	"timestamp,cgroup,cgroup_id,kind,runtime,container_id,container_name,pod,namespace,"     \
	"interval_ms,cpu-clock,cpu-clock_running_pct,context-switches,context-switches_running_" \
	"pct\n"
/* 2026-12-04T12:00:00.000Z */
#define T0 1796385600000LL

static char dir[64];

static int setup(void **state)
{
	snprintf(dir, sizeof(dir), "/tmp/test_plot_csv.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	return test_rmtemp(dir);
}

static void put(const char *name, const char *text)
{
	test_write_at(dir, name, text);
}

/* A row at T0 + sec seconds of /c with name (a CSV field as written). */
static char *row(char *buf, size_t len, const char *cg, const char *name, int sec, int iv_ms,
		 long long clock_ns, long long cs)
{
	int s = sec % 60, m = sec / 60 % 60, h = 12 + sec / 3600;

	snprintf(buf, len,
		 "2026-12-04T%02d:%02d:%02d.000Z,%s,7,container,docker,abc,%s,,,%d,%lld,100.00,"
		 "%lld,100.00\n",
		 h, m, s, cg, name, iv_ms, clock_ns, cs);
	return buf;
}

static void test_quoted_fields(void **state)
{
	static const char text[] = "a,\"b,c\",\"say \"\"hi\"\"\",\"two\nlines\",\n";
	struct csv_reader r;
	char *s;

	csv_reader_init(&r, text, strlen(text));
	assert_int_equal(csv_reader_next(&r), 1);
	assert_int_equal(r.nr_fields, 5);
	s = csv_field_dup(&r.fields[1]);
	assert_string_equal(s, "b,c");
	free(s);
	s = csv_field_dup(&r.fields[2]);
	assert_string_equal(s, "say \"hi\"");
	free(s);
	s = csv_field_dup(&r.fields[3]);
	assert_string_equal(s, "two\nlines");
	free(s);
	assert_int_equal(r.fields[4].len, 0);
	assert_int_equal(csv_reader_next(&r), 0);
}

static void test_truncated_and_malformed(void **state)
{
	static const char text[] = "x,1\nbad\"quote,2\ny,3\nz,\"4";
	struct csv_reader r;
	size_t off;

	csv_reader_init(&r, text, strlen(text));
	assert_int_equal(csv_reader_next(&r), 1);
	assert_int_equal(csv_reader_next(&r), -EINVAL); /* skipped to its line's end */
	assert_int_equal(csv_reader_next(&r), 1);
	assert_true(csv_field_is(&r.fields[0], "y"));
	assert_int_equal(csv_reader_next(&r), -EBADMSG); /* no line break: truncated */
	assert_int_equal(csv_reader_next(&r), 0);
	/* The last complete record is y,3, not the truncated tail. */
	csv_reader_init(&r, text + 16, strlen(text + 16));
	assert_int_equal(csv_reader_last_start(&r, 0, 2, &off), 0);
	assert_int_equal(off, 0);
	csv_reader_init(&r, text, 4);
	assert_int_equal(csv_reader_last_start(&r, 0, 2, &off), 0);
	assert_int_equal(off, 0);
	assert_int_equal(csv_reader_last_start(&r, 0, 3, &off), -ENOENT);
}

/* A tenant's container name holding line breaks around a whole fake row,
 * cut short (the agent was killed mid-write): the search for the last row
 * from the end must not take the fake row, which parses as one from its line
 * start (its time would stretch the range to the year 9999). */
static void test_forged_row_in_name(void **state)
{
	static const char forged[] = "9999-12-31T23:59:59.000Z,/c,7,container,docker,abc,x,,,"
				     "10000,1,100.00,1,100.00\n";
	char text[1024], a[256];
	struct csv_reader r;
	size_t off, nr, at;

	row(a, sizeof(a), "/c", "web", 0, 10000, 1000000000, 5);
	snprintf(text, sizeof(text),
		 "%s%s2026-12-04T12:00:10.000Z,/c,7,container,docker,abc,"
		 "\"evil\n%smor",
		 HEADER, a, forged);
	at = strlen(text) - strlen(forged) - 3;
	csv_reader_init(&r, text, strlen(text));
	assert_int_equal(csv_reader_next(&r), 1);
	nr = r.nr_fields;
	assert_int_equal(csv_reader_next(&r), 1);
	assert_int_equal(csv_reader_next(&r), -EBADMSG); /* the cut row, forgery and all */
	assert_int_equal(csv_reader_next(&r), 0);
	assert_int_equal(csv_reader_last_start(&r, strlen(HEADER), nr, &off), 0);
	assert_int_equal(off, strlen(HEADER)); /* the real row a */
	/* The forgery does parse as a row of nr fields from its line start:
	 * the test is worth something only if it does. */
	csv_reader_seek(&r, at);
	assert_int_equal(csv_reader_next(&r), 1);
	assert_int_equal(r.nr_fields, nr);
	assert_true(csv_field_is(&r.fields[0], "9999-12-31T23:59:59.000Z"));
}

/* The same fake row inside a complete last row (the file ends with a line
 * break): the search from the end (no pass over the file) takes the real
 * row's start, not the fake row's line. */
static void test_forged_row_in_last_row(void **state)
{
	static const char forged[] = "9999-12-31T23:59:59.000Z,/c,7,container,docker,abc,x,,,"
				     "10000,1,100.00,1,100.00";
	char text[1024], a[256];
	struct csv_reader r;
	size_t off, at;

	row(a, sizeof(a), "/c", "web", 0, 10000, 1000000000, 5);
	snprintf(text, sizeof(text),
		 "%s%s2026-12-04T12:00:10.000Z,/c,7,container,docker,abc,"
		 "\"evil\n%s\",,,10000,1,100.00,1,100.00\n",
		 HEADER, a, forged);
	at = strlen(HEADER) + strlen(a);
	csv_reader_init(&r, text, strlen(text));
	assert_int_equal(csv_reader_last_start(&r, strlen(HEADER), 14, &off), 0);
	assert_int_equal(off, at);
	csv_reader_seek(&r, off);
	assert_int_equal(csv_reader_next(&r), 1);
	assert_true(csv_field_is(&r.fields[0], "2026-12-04T12:00:10.000Z"));
	assert_int_equal(csv_reader_next(&r), 0);
}

static void test_field_double(void **state)
{
	static const char *const good[] = { "0.000", "1.250", "-2.5", "17", "1e3", "0.1" };
	static const double want[] = { 0, 1.25, -2.5, 17, 1000, 0.1 };
	static const char *const bad[] = { "", "-", ".", "1.2.3", "1x", "nan", "inf", "1e999" };
	struct csv_field f = { 0 };
	double d;

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		f.p = good[i];
		f.len = strlen(good[i]);
		assert_int_equal(csv_field_double(&f, &d), 0);
		assert_true(d == want[i]); /* exact: as strtod rounds */
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		f.p = bad[i];
		f.len = strlen(bad[i]);
		assert_int_equal(csv_field_double(&f, &d), -EINVAL);
	}
}

static void test_time(void **state)
{
	static const char s[] = "2026-12-04T12:00:01.234Z";
	struct csv_field f = { s, strlen(s), false };
	int64_t t;

	assert_int_equal(csv_field_time_ms(&f, &t), 0);
	assert_int_equal(t, T0 + 1234);
	assert_int_equal(plot_parse_time("2026-12-04 12:00", true, 0, &t), 0);
	assert_int_equal(t, T0);
	assert_int_equal(plot_parse_time("2026-12-04T12:00:01.5Z", false, 0, &t), 0);
	assert_int_equal(t, T0 + 1500);
	assert_int_equal(plot_parse_time("-2h", false, T0, &t), 0);
	assert_int_equal(t, T0 - 7200000);
	assert_int_equal(plot_parse_time("@1796385600", false, 0, &t), 0);
	assert_int_equal(t, T0);
	assert_int_equal(plot_parse_time("yesterday", false, 0, &t), -EINVAL);
	assert_int_equal(plot_parse_time("-2x", false, 0, &t), -EINVAL);
}

static struct plot_model *model_of(struct plot_input *in, int64_t start, int64_t end)
{
	struct plot_model *m;

	assert_int_equal(
		plot_model_new((const char *const *)in->metrics, in->gauge, in->nr_metrics, &m), 0);
	assert_int_equal(plot_model_set_range(m, start, end, 880), 0);
	return m;
}

/* Column values of series s, metric k, in time order, into v; how many.
 * Bit i of *breaks: value i starts a line. */
static int values(const struct plot_model *m, const struct plot_series *s, size_t k, double *v,
		  int *breaks)
{
	int n = 0;

	*breaks = 0;
	for (int i = 0; i < m->columns; i++) {
		const struct plot_column *c = &s->tracks[k].cols[i];

		if (!(c->flags & PLOT_COL_DATA))
			continue;
		*breaks |= (c->flags & PLOT_COL_BREAK) ? 1 << n : 0;
		v[n++] = c->first;
	}
	return n;
}

/* Bad files are skipped with a line each; good rows still count. */
static void test_bad_inputs(void **state)
{
	struct plot_input in = { 0 };
	char text[4096], a[256], b[256], c[256], sub[128];

	snprintf(sub, sizeof(sub), "%s/empty", dir);
	assert_int_equal(mkdir(sub, 0755), 0);
	assert_int_equal(plot_input_add(&in, sub), 0);
	assert_int_equal(in.nr_files, 0);

	put("empty_00.csv", "");
	put("notes.txt", "hello\n");
	put("other_00.csv", "a,b,c\n1,2,3\n");
	snprintf(text, sizeof(text), "%s%s%s%s", HEADER,
		 row(a, sizeof(a), "/c", "web", 0, 10000, 5000000000, 10),
		 row(b, sizeof(b), "/c", "web", 10, 10000, 10000000000, 20),
		 row(c, sizeof(c), "/c", "web", 20, 10000, 10000000000, 30));
	text[strlen(text) - 20] = '\0'; /* the last line cut short */
	put("web_00.csv", text);
	assert_int_equal(plot_input_add(&in, dir), 0);
	assert_int_equal(in.nr_files, 1);
	/* the directory empty/, an empty file, not a log's name, another header */
	assert_int_equal(in.skipped, 4);
	assert_int_equal(in.nr_metrics, 2);
	assert_string_equal(in.metrics[0], "cpu-clock");
	assert_false(in.gauge[0]);

	struct plot_model *m = model_of(&in, T0, T0 + 20000);
	size_t rows;
	double v[16];
	int br;

	assert_int_equal(plot_input_feed(&in, m, NULL, &rows), 0);
	assert_int_equal(rows, 2); /* the truncated row is not one */
	assert_int_equal(m->nr_series, 1);
	assert_string_equal(m->series[0]->name, "web");
	assert_int_equal(values(m, m->series[0], 0, v, &br), 2);
	assert_float_equal(v[0], 0.5, 1e-6); /* 5 s of CPU in 10 s: 0.5 cores */
	assert_float_equal(v[1], 1.0, 1e-6);
	assert_int_equal(values(m, m->series[0], 1, v, &br), 2);
	assert_float_equal(v[0], 1.0, 1e-6); /* 10 switches in 10 s */
	plot_model_free(m);
	plot_input_free(&in);
}

/* Rotated files (web.csv.2 oldest) stitch in time order whatever their
 * names' order; a restart whose clock went back (rows not after the last
 * one) drops those rows; rows more than 1.5 intervals apart break the line,
 * 1.4 do not. */
static void test_stitch_and_gaps(void **state)
{
	struct plot_input in = { 0 };
	char t1[1024], t2[1024], t3[1024], r1[256], r2[256], r3[256];
	struct plot_model *m;
	size_t rows;
	double v[16];
	int br;

	snprintf(t1, sizeof(t1), "%s%s%s", HEADER,
		 row(r1, sizeof(r1), "/c", "web", 0, 10000, 1000000000, 0),
		 row(r2, sizeof(r2), "/c", "web", 10, 10000, 2000000000, 0));
	snprintf(t2, sizeof(t2), "%s%s%s", HEADER,
		 row(r1, sizeof(r1), "/c", "web", 20, 10000, 3000000000, 0),
		 row(r2, sizeof(r2), "/c", "web", 34, 14000, 4000000000, 0)); /* 1.4 intervals */
	snprintf(t3, sizeof(t3), "%s%s%s%s", HEADER,
		 row(r1, sizeof(r1), "/c", "web", 30, 10000, 9000000000, 0), /* clock back */
		 row(r2, sizeof(r2), "/c", "web", 60, 26000, 5000000000, 0), /* 2.6: a gap */
		 row(r3, sizeof(r3), "/c", "web", 70, 10000, 6000000000, 0));
	put("web_00.csv.2", t1);
	put("web_00.csv.1", t2);
	put("web_00.csv", t3);
	assert_int_equal(plot_input_add(&in, dir), 0);
	assert_int_equal(in.nr_files, 3);
	m = model_of(&in, T0, T0 + 70000);
	assert_int_equal(plot_input_feed(&in, m, NULL, &rows), 0);
	assert_int_equal(rows, 6);
	assert_int_equal(m->nr_series, 1);
	assert_int_equal(m->series[0]->dropped, 1);
	assert_int_equal(values(m, m->series[0], 0, v, &br), 6);
	assert_float_equal(v[0], 0.1, 1e-6);
	assert_float_equal(v[1], 0.2, 1e-6);
	assert_float_equal(v[2], 0.3, 1e-6);
	assert_float_equal(v[3], 4.0 / 14, 1e-6);
	assert_float_equal(v[4], 5.0 / 26, 1e-6);
	assert_float_equal(v[5], 0.6, 1e-6);
	assert_int_equal(br, 1 << 0 | 1 << 4); /* the first row and the one after the gap */
	plot_model_free(m);
	plot_input_free(&in);
}

/* --cgroup matches the path or the display name; a quoted name with a
 * comma and a line break is the legend's, escaped. */
static void test_select_and_names(void **state)
{
	struct plot_input in = { 0 };
	char t1[1024], t2[1024], r1[256];
	struct plot_model *m;
	size_t rows;

	snprintf(t1, sizeof(t1), "%s%s", HEADER,
		 row(r1, sizeof(r1), "/a", "\"db, main\nx\"", 0, 10000, 1, 0));
	snprintf(t2, sizeof(t2), "%s%s", HEADER, row(r1, sizeof(r1), "/b", "web", 0, 10000, 1, 0));
	put("a_00.csv", t1);
	put("b_00.csv", t2);
	assert_int_equal(plot_input_add(&in, dir), 0);
	m = model_of(&in, T0, T0);
	assert_int_equal(plot_input_feed(&in, m, "db,*", &rows), 0);
	assert_int_equal(rows, 1);
	assert_int_equal(m->nr_series, 1);
	assert_string_equal(m->series[0]->name, "db, main\\nx");
	assert_string_equal(m->series[0]->path, "/a");
	plot_model_free(m);
	m = model_of(&in, T0, T0);
	assert_int_equal(plot_input_feed(&in, m, "/b", &rows), 0);
	assert_int_equal(m->nr_series, 1);
	assert_string_equal(m->series[0]->name, "web");
	plot_model_free(m);
	plot_input_free(&in);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_quoted_fields),
		cmocka_unit_test(test_truncated_and_malformed),
		cmocka_unit_test(test_forged_row_in_name),
		cmocka_unit_test(test_forged_row_in_last_row),
		cmocka_unit_test(test_field_double),
		cmocka_unit_test(test_time),
		cmocka_unit_test_setup_teardown(test_bad_inputs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stitch_and_gaps, setup, teardown),
		cmocka_unit_test_setup_teardown(test_select_and_names, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
