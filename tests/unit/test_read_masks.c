// SPDX-License-Identifier: GPL-2.0-only
/* What the sched_switch followers derive instead of reading, from a
 * session's events (bpf/read_masks.c): clocks only where idle is never
 * counted, the switch count, the page-fault events a hidden task's own
 * fault counts are taken out of, and when a switch from idle may skip its
 * read. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "bpf/read_masks.h"
#include "events/event_parse.h"
#include <stdio.h>

static struct read_masks masks_of(const char *list, bool never_idle)
{
	struct event_spec specs[8];
	struct read_masks m;
	char err[256];
	int n = event_parse_list(list, specs, 8, err, sizeof(err));

	if (n < 0)
		fail_msg("%s: %s", list, err);
	read_masks_of(specs, n, never_idle, &m);
	return m;
}

static void test_faults(void **state)
{
	struct read_masks m = masks_of("page-faults,minor-faults,major-faults,cpu-clock", true);

	(void)state;
	assert_int_equal(m.minflt, 0x3); /* page-faults counts both kinds */
	assert_int_equal(m.majflt, 0x5);
	assert_int_equal(m.clock, 0x8);
	assert_int_equal(m.software, 0xf);
	assert_true(m.idle_skips_reads);
}

static void test_idle_moves_it(void **state)
{
	(void)state;
	/* Idle may move a migration count; nothing read may skip then. */
	assert_false(masks_of("page-faults,cpu-migrations", true).idle_skips_reads);
	/* -a and -C count idle: no clock derived, no skipping. */
	struct read_masks m = masks_of("cpu-clock,context-switches,page-faults", false);
	assert_int_equal(m.clock, 0);
	assert_int_equal(m.switches, 0x2);
	assert_int_equal(m.minflt, 0x4);
	assert_false(m.idle_skips_reads);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_faults),
		cmocka_unit_test(test_idle_moves_it),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
