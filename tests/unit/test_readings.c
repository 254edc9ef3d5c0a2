// SPDX-License-Identifier: GPL-2.0-only
/* The neutral readings module (util/readings.c): deltas across wraps and
 * restarts, multiplex scaling, zero running, intervals. The agent's record
 * of them: test_record.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "util/readings.h"

static void test_delta(void **state)
{
	struct reading total = { 50, 40, 30 }, last = { 20, 10, 10 }, d;

	assert_false(reading_delta(&total, &last, &d));
	assert_true(d.counter == 30 && d.enabled == 30 && d.running == 20);
	/* Any field going backwards: counting restarted underneath. */
	last.running = 31;
	assert_true(reading_delta(&total, &last, &d));
	assert_true(d.counter == 50 && d.enabled == 40 && d.running == 30);
	/* Near the top of the range: exact, no overflow. */
	total = (struct reading){ UINT64_MAX, UINT64_MAX, UINT64_MAX };
	last = (struct reading){ UINT64_MAX - 5, UINT64_MAX - 7, UINT64_MAX - 7 };
	assert_false(reading_delta(&total, &last, &d));
	assert_true(d.counter == 5 && d.enabled == 7 && d.running == 7);
}

static void test_scale(void **state)
{
	uint64_t v, pct;
	double fv, fpct;

	assert_int_equal(reading_scale(&(struct reading){ 1000, 500, 500 }, &v, &pct),
			 READING_COUNTED);
	assert_true(v == 1000 && pct == 10000);
	/* Multiplexed: ran half of the enabled time, scaled x2. */
	assert_int_equal(reading_scale(&(struct reading){ 1000, 1000, 500 }, &v, &pct),
			 READING_COUNTED);
	assert_true(v == 2000 && pct == 5000);
	/* Truncated value, rounded percentage. */
	assert_int_equal(reading_scale(&(struct reading){ 100, 3, 2 }, &v, &pct), READING_COUNTED);
	assert_true(v == 150 && pct == 6667);
	/* Enabled but never on a counter: unknown, not zero. */
	assert_int_equal(reading_scale(&(struct reading){ 0, 800, 0 }, &v, &pct),
			 READING_NOT_COUNTED);
	assert_true(v == 0 && pct == 0);
	/* Nothing ran: an exact zero without percentage. */
	assert_int_equal(reading_scale(&(struct reading){ 0, 0, 0 }, &v, &pct), READING_IDLE);
	assert_true(v == 0 && pct == 0);
	/* Saturates instead of wrapping. */
	assert_int_equal(reading_scale(&(struct reading){ UINT64_MAX / 2, 1000, 1 }, &v, NULL),
			 READING_COUNTED);
	assert_true(v == UINT64_MAX);
	/* The floating-point twin agrees. */
	assert_int_equal(reading_scale_f(&(struct reading){ 1000, 1000, 500 }, &fv, &fpct),
			 READING_COUNTED);
	assert_true(fv == 2000.0 && fpct == 50.0);
	assert_int_equal(reading_scale_f(&(struct reading){ 0, 800, 0 }, &fv, &fpct),
			 READING_NOT_COUNTED);
}

static void test_interval(void **state)
{
	assert_int_equal(readings_interval_ms(100999000000ULL, 110001000000ULL), 9002);
	assert_int_equal(readings_interval_ms(5, 5), 0);
	assert_int_equal(readings_interval_ms(10, 5), 0);
	assert_true(readings_now_boot_ns() > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_delta),
		cmocka_unit_test(test_scale),
		cmocka_unit_test(test_interval),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
