// SPDX-License-Identifier: GPL-2.0-only
/* cgperf top's model (cmd/top/top_model.c): columns from the counted events
 * (and why others are missing), per-interval rates, sorting, filtering and
 * the tree. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cmd/top/top_model.h"

#define SEC 1000000000ULL

static struct event_spec ev[8];

static int parse(const char *const *names, int n)
{
	char err[256];

	for (int i = 0; i < n; i++)
		assert_int_equal(event_parse(names[i], &ev[i], err, sizeof(err)), 0);
	return n;
}

static int col(const struct top_model *m, const char *title)
{
	for (int c = 0; c < m->nr_cols; c++)
		if (!strcmp(m->cols[c].title, title))
			return c;
	return -1;
}

/* cpu-clock, context-switches, page-faults counted; cycles skipped. */
static void sw_model(struct top_model *m)
{
	static const char *const names[] = { "cpu-clock", "context-switches", "page-faults" };
	struct cli_skipped_event sk = { .reason = "event 'cycles' is not supported here" };
	char err[256];

	assert_int_equal(event_parse("cycles", &sk.spec, err, sizeof(err)), 0);
	assert_int_equal(top_model_init(m, ev, parse(names, 3), &sk, 1), 0);
}

static void test_columns_sw(void **state)
{
	struct top_model m;

	sw_model(&m);
	assert_int_equal(m.nr_cols, 4);
	assert_string_equal(m.cols[0].title, "CPU%");
	assert_string_equal(m.cols[1].title, "CORES");
	assert_string_equal(m.cols[2].title, "CS/s");
	assert_string_equal(m.cols[3].title, "FAULTS/s");
	assert_string_equal(m.cols[2].json_key, "context-switches_per_s");
	assert_int_equal(col(&m, "IPC"), -1);
	assert_int_equal(col(&m, "%RUN"), -1);
	/* IPC needs cycles (skipped, with its reason); %RUN a hardware event. */
	assert_non_null(strstr(m.missing, "no IPC: event 'cycles' is not supported here"));
	assert_non_null(strstr(m.missing, "no %RUN:"));
	assert_null(strstr(m.missing, "MISS%")); /* not asked for: nothing to say */
	assert_int_equal(m.sort_col, 0); /* CPU% */
	top_model_free(&m);
}

static void test_columns_hw(void **state)
{
	static const char *const names[] = { "cycles",	 "instructions",  "cpu-clock",
					     "branches", "branch-misses", "cache-misses" };
	struct top_model m;

	assert_int_equal(top_model_init(&m, ev, parse(names, 6), NULL, 0), 0);
	assert_true(col(&m, "IPC") >= 0);
	assert_true(col(&m, "BMISS%") >= 0);
	assert_true(col(&m, "%RUN") >= 0);
	/* cache-misses without cache-references: a rate of its own. */
	assert_int_equal(col(&m, "MISS%"), -1);
	assert_true(col(&m, "cache-miss/s") >= 0);
	assert_int_equal(col(&m, "cycles/s"), -1); /* shown as IPC */
	assert_string_equal(m.missing, "");
	top_model_free(&m);
}

static void set_totals(struct reading *t, uint64_t clock_ns, uint64_t cs, uint64_t faults)
{
	t[0] = (struct reading){ clock_ns, clock_ns, clock_ns };
	t[1] = (struct reading){ cs, clock_ns, clock_ns };
	t[2] = (struct reading){ faults, clock_ns, clock_ns };
}

static void test_rates(void **state)
{
	struct reading t[3] = { 0 };
	struct top_model m;
	struct top_row *r;

	sw_model(&m);
	assert_int_equal(top_model_add(&m, 7, "/a", "a", "container", 0), 0);
	assert_int_equal(top_model_add(&m, 7, "/a", "a", "container", 0), -EEXIST);
	r = top_model_find(&m, 7);
	top_model_sample(&m, r, t, 10 * SEC);
	assert_false(r->has[0]); /* first sample: no interval yet */
	set_totals(t, SEC, 100, 30); /* 1 s of CPU in 2 s */
	top_model_sample(&m, r, t, 12 * SEC);
	assert_true(r->has[0]);
	assert_float_equal(r->val[col(&m, "CPU%")], 50.0, 1e-9);
	assert_float_equal(r->val[col(&m, "CORES")], 0.5, 1e-9);
	assert_float_equal(r->val[col(&m, "CS/s")], 50.0, 1e-9);
	assert_float_equal(r->val[col(&m, "FAULTS/s")], 15.0, 1e-9);
	/* Nothing ran: exact zeros, not undefined. */
	top_model_sample(&m, r, t, 13 * SEC);
	assert_true(r->has[0]);
	assert_float_equal(r->val[0], 0.0, 0);
	assert_float_equal(r->val[col(&m, "CS/s")], 0.0, 0);
	top_model_free(&m);
}

static void test_multiplexed(void **state)
{
	static const char *const names[] = { "cycles", "instructions", "cpu-clock" };
	struct reading z[3] = { 0 }, t[3] = {
		{ 1000, 100, 50 }, /* cycles on the counter half the time: 2000 */
		{ 3000, 100, 100 },
		{ SEC / 4, SEC / 4, SEC / 4 },
	};
	struct top_model m;
	struct top_row *r;

	assert_int_equal(top_model_init(&m, ev, parse(names, 3), NULL, 0), 0);
	assert_int_equal(top_model_add(&m, 1, "/x", "x", "other", 3), 0);
	r = top_model_find(&m, 1);
	top_model_sample(&m, r, z, SEC);
	top_model_sample(&m, r, t, 2 * SEC);
	assert_float_equal(r->val[col(&m, "IPC")], 1.5, 1e-9);
	assert_float_equal(r->val[col(&m, "%RUN")], 50.0, 1e-9);
	assert_float_equal(r->val[col(&m, "CPU%")], 25.0, 1e-9);
	/* Enabled but never on a counter: IPC undefined, 0 % running. */
	t[0] = (struct reading){ 1000, 200, 50 };
	t[1].enabled += 100;
	top_model_sample(&m, r, t, 3 * SEC);
	assert_false(r->has[col(&m, "IPC")]);
	assert_true(r->has[col(&m, "%RUN")]);
	assert_float_equal(r->val[col(&m, "%RUN")], 0.0, 0);
	top_model_free(&m);
}

/* MISS% and BMISS% from the interval's deltas; no references or branches in
 * an interval: undefined, not 0. */
static void test_miss_rates(void **state)
{
	static const char *const names[] = { "cache-references", "cache-misses", "branches",
					     "branch-misses" };
	struct reading z[4] = { 0 }, t[4] = {
		{ 1000, SEC, SEC },
		{ 50, SEC, SEC },
		{ 2000, SEC, SEC },
		{ 30, SEC, SEC },
	};
	struct top_model m;
	struct top_row *r;
	int miss, bmiss;

	assert_int_equal(top_model_init(&m, ev, parse(names, 4), NULL, 0), 0);
	miss = col(&m, "MISS%");
	bmiss = col(&m, "BMISS%");
	assert_true(miss >= 0 && bmiss >= 0);
	assert_int_equal(top_model_col_by_key(&m, 'M'), miss);
	assert_int_equal(top_model_col_by_key(&m, 'B'), bmiss);
	assert_int_equal(top_model_add(&m, 1, "/x", "x", "other", 0), 0);
	r = top_model_find(&m, 1);
	top_model_sample(&m, r, z, SEC);
	top_model_sample(&m, r, t, 2 * SEC);
	assert_float_equal(r->val[miss], 5.0, 1e-9);
	assert_float_equal(r->val[bmiss], 1.5, 1e-9);
	for (int i = 0; i < 4; i++)
		t[i].enabled = t[i].running = 2 * SEC;
	top_model_sample(&m, r, t, 3 * SEC);
	assert_false(r->has[miss]);
	assert_false(r->has[bmiss]);
	top_model_free(&m);
}

/* Rows with CPU% values (negative: none). */
static void add_rows(struct top_model *m, const char *const *paths, const double *cpu, int n)
{
	for (int i = 0; i < n; i++) {
		const char *last = strrchr(paths[i], '/') + 1;
		struct top_row *r;

		assert_int_equal(top_model_add(m, (uint64_t)i + 1, paths[i], last, "other", i), 0);
		r = top_model_find(m, (uint64_t)i + 1);
		r->has[0] = cpu[i] >= 0;
		r->val[0] = cpu[i];
	}
}

static void order_is(struct top_model *m, const char *const *names, int n)
{
	assert_int_equal(top_model_view(m), 0);
	assert_int_equal(m->nr_order, n);
	for (int i = 0; i < n; i++)
		assert_string_equal(m->rows[m->order[i]]->name, names[i]);
}

static const char *const paths[] = { "/kubepods/podA", "/kubepods/podA/web", "/kubepods/podA/db",
				     "/kubepods", "/system.slice/cron.service" };
static const double cpus[] = { 60, 10, 50, 70, -1 };

static void test_sort(void **state)
{
	struct top_model m;

	sw_model(&m);
	add_rows(&m, paths, cpus, 5);
	order_is(&m, (const char *const[]){ "kubepods", "podA", "db", "web", "cron.service" }, 5);
	top_model_sort_by(&m, 0); /* the same column again: reversed */
	assert_true(m.reverse);
	/* Rows without a value stay last either way. */
	order_is(&m, (const char *const[]){ "web", "db", "podA", "kubepods", "cron.service" }, 5);
	top_model_sort_by(&m, top_model_col_by_key(&m, 'N'));
	assert_false(m.reverse);
	order_is(&m, (const char *const[]){ "cron.service", "db", "kubepods", "podA", "web" }, 5);
	assert_int_equal(top_model_col_by_key(&m, 'S'), col(&m, "CS/s"));
	assert_int_equal(top_model_col_by_key(&m, 'I'), -2); /* no IPC here */
	top_model_free(&m);
}

static void test_tree_and_filter(void **state)
{
	struct top_model m;

	sw_model(&m);
	add_rows(&m, paths, cpus, 5);
	m.tree = true;
	order_is(&m, (const char *const[]){ "kubepods", "podA", "db", "web", "cron.service" }, 5);
	assert_int_equal(m.rows[m.order[0]]->depth, 0);
	assert_int_equal(m.rows[m.order[1]]->depth, 1);
	assert_int_equal(m.rows[m.order[2]]->depth, 2);
	assert_int_equal(m.rows[m.order[4]]->depth, 0); /* /system.slice has no row */
	/* A match keeps its ancestors in a tree, only itself flat. */
	snprintf(m.filter, sizeof(m.filter), "WEB");
	order_is(&m, (const char *const[]){ "kubepods", "podA", "web" }, 3);
	m.tree = false;
	order_is(&m, (const char *const[]){ "web" }, 1);
	snprintf(m.filter, sizeof(m.filter), "system.slice"); /* the path matches */
	order_is(&m, (const char *const[]){ "cron.service" }, 1);
	/* A dropped parent: its children hang from the next ancestor with a row. */
	m.filter[0] = '\0';
	m.tree = true;
	assert_int_equal(top_model_remove(&m, 1), 0); /* podA */
	assert_int_equal(top_model_remove(&m, 1), -ENOENT);
	order_is(&m, (const char *const[]){ "kubepods", "db", "web", "cron.service" }, 4);
	assert_int_equal(m.rows[m.order[1]]->depth, 1);
	top_model_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_columns_sw),	cmocka_unit_test(test_columns_hw),
		cmocka_unit_test(test_rates),		cmocka_unit_test(test_multiplexed),
		cmocka_unit_test(test_miss_rates),	cmocka_unit_test(test_sort),
		cmocka_unit_test(test_tree_and_filter),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
