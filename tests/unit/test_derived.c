// SPDX-License-Identifier: GPL-2.0-only
/* Derived metrics (events/derived.c): from multiplex-scaled deltas, only
 * when their inputs were counted; undefined is never 0 or NaN. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <string.h>

#include "events/derived.h"

static void parse(const char *const *names, int n, struct event_spec *ev)
{
	char err[256];

	for (int i = 0; i < n; i++)
		assert_int_equal(event_parse(names[i], &ev[i], err, sizeof(err)), 0);
}

static void test_map(void **state)
{
	static const char *const names[] = { "cpu-clock",  "cycles",	    "instructions",
					     "task-clock", "branch-misses", "branches" };
	struct event_spec ev[6];
	struct derived_map m;

	parse(names, 6, ev);
	derived_map_events(ev, 6, &m);
	assert_int_equal(m.cycles, 1);
	assert_int_equal(m.instructions, 2);
	assert_int_equal(m.clock, 3); /* task-clock preferred over cpu-clock */
	assert_int_equal(m.branch_misses, 4);
	assert_int_equal(m.branches, 5);
	assert_int_equal(m.cache_refs, -1);
	assert_int_equal(derived_row(DERIVED_IPC, &m), 2);
	assert_int_equal(derived_row(DERIVED_CPU_CORES, &m), 3);
	assert_int_equal(derived_row(DERIVED_CACHE_MISS_PCT, &m), -1);
}

static void test_compute(void **state)
{
	struct derived_map m = { .cycles = 0,
				 .instructions = 1,
				 .clock = 2,
				 .cache_refs = -1,
				 .cache_misses = -1,
				 .branches = 3,
				 .branch_misses = 4 };
	struct reading d[5] = {
		{ 1000, 100, 50 }, /* cycles, multiplexed: scaled to 2000 */
		{ 3000, 100, 100 }, /* instructions */
		{ 1500000000, 1, 1 }, /* task-clock: 1.5 s of CPU */
		{ 400, 10, 10 }, /* branches */
		{ 10, 10, 10 }, /* branch-misses */
	};
	double v;

	assert_true(derived_compute(DERIVED_IPC, &m, d, 1000000000, &v));
	assert_true(fabs(v - 1.5) < 1e-9);
	assert_true(derived_compute(DERIVED_CPI, &m, d, 1000000000, &v));
	assert_true(fabs(v - 2000.0 / 3000.0) < 1e-9);
	assert_true(derived_compute(DERIVED_CPU_CORES, &m, d, 1000000000, &v));
	assert_true(fabs(v - 1.5) < 1e-9);
	assert_true(derived_compute(DERIVED_BRANCH_MISS_PCT, &m, d, 1000000000, &v));
	assert_true(fabs(v - 2.5) < 1e-9);
	/* Inputs not counted: undefined. */
	assert_false(derived_compute(DERIVED_CACHE_MISS_PCT, &m, d, 1000000000, &v));
	d[0] = (struct reading){ 0, 100, 0 }; /* cycles never on a counter */
	assert_false(derived_compute(DERIVED_IPC, &m, d, 1000000000, &v));
	d[0] = (struct reading){ 0, 0, 0 }; /* nothing ran */
	assert_false(derived_compute(DERIVED_IPC, &m, d, 1000000000, &v));
	d[0] = (struct reading){ 0, 100, 100 }; /* zero cycles: no ratio */
	assert_false(derived_compute(DERIVED_IPC, &m, d, 1000000000, &v));
	assert_true(derived_compute(DERIVED_CPI, &m, d, 1000000000, &v) && v == 0);
	assert_false(derived_compute(DERIVED_CPU_CORES, &m, d, 0, &v));
	assert_string_equal(derived_name(DERIVED_CPU_CORES), "cpu_cores");
	assert_string_equal(derived_annotation(DERIVED_IPC), "insn per cycle");
}

/* Output cells: fixed decimals, '.', rounded; undefined is "", never 0. */
static void test_cell(void **state)
{
	struct derived_map m = DERIVED_MAP_NONE;
	struct reading d[3] = {
		{ 2000, 10, 10 }, /* cycles */
		{ 2469, 10, 10 }, /* instructions: IPC 1.2345 */
		{ 250000000, 1, 1 }, /* cpu-clock: 0.25 s */
	};
	char cell[DERIVED_CELL_MAX];
	enum derived_metric e;

	m.cycles = 0;
	m.instructions = 1;
	m.clock = 2;
	derived_cell(DERIVED_IPC, &m, d, 1000000000, cell);
	assert_string_equal(cell, "1.235"); /* 1.2345 rounds up */
	derived_cell(DERIVED_CPI, &m, d, 1000000000, cell);
	assert_string_equal(cell, "0.810");
	derived_cell(DERIVED_CPU_CORES, &m, d, 10000000000ULL, cell);
	assert_string_equal(cell, "0.025");
	derived_cell(DERIVED_CPU_CORES, &m, d, 0, cell); /* interval unknown */
	assert_string_equal(cell, "");
	d[2] = (struct reading){ 0, 0, 0 }; /* nothing ran: 0 cores, exactly */
	derived_cell(DERIVED_CPU_CORES, &m, d, 1000000000, cell);
	assert_string_equal(cell, "0.000");
	d[2] = (struct reading){ 0, 10, 0 }; /* enabled, never counted: unknown */
	derived_cell(DERIVED_CPU_CORES, &m, d, 1000000000, cell);
	assert_string_equal(cell, "");
	derived_cell(DERIVED_BRANCH_MISS_PCT, &m, d, 1000000000, cell); /* not counted */
	assert_string_equal(cell, "");
	derived_cell(DERIVED_IPC, NULL, d, 1000000000, cell);
	assert_string_equal(cell, "");
	d[0] = (struct reading){ 1, 10, 10 }; /* IPC 2469: big, still exact */
	derived_cell(DERIVED_IPC, &m, d, 1000000000, cell);
	assert_string_equal(cell, "2469.000");
	m.cache_misses = 0;
	m.cache_refs = 1;
	derived_cell(DERIVED_CACHE_MISS_PCT, &m, d, 1000000000, cell);
	assert_string_equal(cell, "0.04"); /* 100 * 1 / 2469 = 0.0405 */
	d[0] = (struct reading){ 0, 10, 10 };
	derived_cell(DERIVED_CACHE_MISS_PCT, &m, d, 1000000000, cell);
	assert_string_equal(cell, "0.00"); /* 0 misses counted: a real 0 */
	assert_true(derived_counted(DERIVED_CPU_CORES, &m));
	assert_false(derived_counted(DERIVED_BRANCH_MISS_PCT, &m));
	assert_int_equal(derived_parse("branch_miss_pct", &e), 0);
	assert_int_equal(e, DERIVED_BRANCH_MISS_PCT);
	assert_int_equal(derived_parse("IPC", &e), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_map),
		cmocka_unit_test(test_compute),
		cmocka_unit_test(test_cell),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
