// SPDX-License-Identifier: GPL-2.0-only
/* cgperf stat's number formatting: multiplex scaling, CSV quoting, table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmd/stat/stat_output.h"

static char *render(const struct stat_format *f, const struct stat_row *row)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	stat_print_row(out, f, row);
	fclose(out);
	return buf;
}

static void test_scaling(void **state)
{
	struct reading full = { 1000, 500, 500 }, half = { 1000, 1000, 500 }, never = { 0, 800, 0 };
	double v, pct;

	assert_true(stat_scaled(&full, &v, &pct));
	assert_true(v == 1000 && pct == 100);
	/* Ran half of the enabled time: extrapolated like perf. */
	assert_true(stat_scaled(&half, &v, &pct));
	assert_true(v == 2000 && pct == 50);
	assert_false(stat_scaled(&never, &v, &pct));
}

static void test_csv_fields(void **state)
{
	struct event_spec clock = { .name = "cpu-clock", .is_time = true }, cs = { .name = "cs" };
	struct stat_format f = { .sep = "," };
	struct stat_row row = { .event = &clock,
				.cgroup = "/a,b \"q\"",
				.reading = { 1234567890, 2000, 1000 } };
	char *s = render(&f, &row);

	/* 1234567890 ns scaled x2 = 2469.14 ms; running 1000 ns, 50%. */
	assert_string_equal(s, "2469.14,msec,cpu-clock,\"/a,b \"\"q\"\"\",1000,50.00,,\n");
	free(s);
	row = (struct stat_row){ .event = &cs, .reading = { 42, 10, 10 } };
	f.interval = true;
	f.timestamp = 1.5;
	/* perf's order: no cgroup field without cgroups; the metric's value
	 * and unit last. */
	row.has_metric = true;
	row.metric = 1.5;
	row.metric_unit = "K/sec";
	s = render(&f, &row);
	assert_string_equal(s, "1.500000000,42,,cs,10,100.00,1.500,K/sec\n");
	row.has_metric = false;
	free(s);
	row.reading = (struct reading){ 0, 0, 0 };
	f.interval = false;
	f.sep = ";";
	s = render(&f, &row);
	assert_string_equal(s, "<not counted>;;cs;0;0.00;;\n");
	free(s);
	/* Quoted when a field holds the separator; a comma needs none under ";". */
	row.cgroup = "/a;b,c";
	s = render(&f, &row);
	assert_string_equal(s, "<not counted>;;cs;\"/a;b,c\";0;0.00;;\n");
	free(s);
}

static void test_table(void **state)
{
	struct event_spec cs = { .name = "context-switches" };
	struct stat_format f = { 0 };
	struct stat_row row = { .event = &cs, .cgroup = "/x", .reading = { 1234567, 5, 5 } };
	char *s = render(&f, &row);

	assert_non_null(strstr(s, "1,234,567"));
	assert_non_null(strstr(s, "context-switches"));
	assert_non_null(strstr(s, "/x"));
	assert_non_null(strstr(s, "(100.00%)"));
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scaling),
		cmocka_unit_test(test_csv_fields),
		cmocka_unit_test(test_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
