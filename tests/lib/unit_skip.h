/* SPDX-License-Identifier: GPL-2.0-only */
/* A unit test that cannot run here must show up as a ctest SKIP with its
 * reason, never as a pass: cmocka's skip() alone makes the program succeed.
 * Use unit_skip("why") in a test (after including cmocka.h) and end main()
 * with `return unit_result(cmocka_run_group_tests(...));`; the unit tests are
 * registered with SKIP_RETURN_CODE 77. */
#pragma once

#define UNIT_SKIP_CODE 77

/* Print "SKIP: <reason>" and remember that a test was skipped. */
void unit_skip_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* failed (cmocka's count) when non-zero, else UNIT_SKIP_CODE if any test
 * was skipped, else 0. */
int unit_result(int failed);

#define unit_skip(...)                       \
	do {                                 \
		unit_skip_note(__VA_ARGS__); \
		skip();                      \
	} while (0)
