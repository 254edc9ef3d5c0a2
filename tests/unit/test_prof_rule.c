// SPDX-License-Identifier: GPL-2.0-only
/* When the agent's fentry/fexit is on a BPF program (agent/prof_rule.h):
 * attached while it runs, let go as soon as its run count stands still (a
 * program its owner dropped is then freed: the agent never keeps it
 * alive), attached again when it runs again; never tried again where it
 * cannot take fentry or is cgperf's own; after a failure that may pass, not
 * before its retry is due. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "agent/prof_rule.h"

static void test_attached(void **state)
{
	assert_int_equal(prof_rule_step(true, false, false, true, true), PROF_STAY);
	assert_int_equal(prof_rule_step(true, false, false, true, false), PROF_DETACH);
	/* A program idle since it was first seen is let go too. */
	assert_int_equal(prof_rule_step(true, false, false, false, false), PROF_DETACH);
}

static void test_not_attached(void **state)
{
	/* First sight: at once, ran or not (counts from its first run on). */
	assert_int_equal(prof_rule_step(false, false, false, false, false), PROF_ATTACH);
	assert_int_equal(prof_rule_step(false, false, false, false, true), PROF_ATTACH);
	/* Let go before: again only once it runs. */
	assert_int_equal(prof_rule_step(false, false, false, true, false), PROF_STAY);
	assert_int_equal(prof_rule_step(false, false, false, true, true), PROF_ATTACH);
}

static void test_never(void **state)
{
	assert_int_equal(prof_rule_step(false, true, false, false, true), PROF_STAY);
	assert_int_equal(prof_rule_step(false, true, false, false, false), PROF_STAY);
	assert_int_equal(prof_rule_step(false, true, false, true, true), PROF_STAY);
}

static void test_held_off(void **state)
{
	/* A failed attach whose retry is not due: not tried, ran or not. */
	assert_int_equal(prof_rule_step(false, false, true, false, true), PROF_STAY);
	assert_int_equal(prof_rule_step(false, false, true, false, false), PROF_STAY);
	assert_int_equal(prof_rule_step(false, false, true, true, true), PROF_STAY);
	/* Due: as any program not attached. */
	assert_int_equal(prof_rule_step(false, false, false, false, false), PROF_ATTACH);
	assert_int_equal(prof_rule_step(false, false, false, true, true), PROF_ATTACH);
	assert_int_equal(prof_rule_step(false, false, false, true, false), PROF_STAY);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_attached),
		cmocka_unit_test(test_not_attached),
		cmocka_unit_test(test_never),
		cmocka_unit_test(test_held_off),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
