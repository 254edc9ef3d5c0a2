// SPDX-License-Identifier: GPL-2.0-only
/* hidden_share() (bpf/hidden_share.h), the code the switch programs run: a
 * hidden task's faults, scaled to this CPU's share of its runtime. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "bpf/hidden_share.h"

static void test_ran_only_here(void **state)
{
	(void)state;
	assert_int_equal(hidden_share(800, 5000000, 5000000), 800);
	assert_int_equal(hidden_share(800, 6000000, 5000000), 800);
}

static void test_share(void **state)
{
	(void)state;
	assert_int_equal(hidden_share(800, 1000000, 4000000), 200);
	assert_int_equal(hidden_share(3, 1, 4), 0); /* rounded down: never more */
}

static void test_no_time(void **state)
{
	(void)state;
	/* Faults with no runtime to show for them are not taken. */
	assert_int_equal(hidden_share(800, 0, 0), 0);
	assert_int_equal(hidden_share(800, 0, 1000), 0);
}

static void test_no_overflow(void **state)
{
	(void)state;
	/* An hour without a switch here, a task that ran two hours and made
	 * 5 million faults: half of them, not a wrapped product. */
	__u64 hour = 3600ULL * 1000000000ULL;

	assert_int_equal(hidden_share(5000000, hour, 2 * hour), 2500000);
	/* Any 64-bit count (a PMU count, an enabled time), not capped at 2^32:
	 * half of it. */
	assert_int_equal(hidden_share(~0ULL, 1ULL << 62, 1ULL << 63), ~0ULL / 2);
	assert_int_equal(hidden_share(15000000000ULL, 5000000000ULL, 10000000000ULL),
			 7500000000ULL);
	assert_int_equal(hidden_share(1ULL << 40, 3, 4), 3ULL << 38);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ran_only_here),
		cmocka_unit_test(test_share),
		cmocka_unit_test(test_no_time),
		cmocka_unit_test(test_no_overflow),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
