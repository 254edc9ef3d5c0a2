/* Derived metrics (events/derived.c): from multiplex-scaled deltas, only
 * when their inputs were counted; undefined is never 0 or NaN. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_map),
		cmocka_unit_test(test_compute),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
