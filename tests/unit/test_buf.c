// SPDX-License-Identifier: GPL-2.0-only
/* buf: the one growable byte buffer (linked with --wrap=realloc, so that
 * an allocation can be made to fail). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "util/buf.h"

static bool fail_realloc;

void *__real_realloc(void *p, size_t size);
void *__wrap_realloc(void *p, size_t size)
{
	return fail_realloc ? NULL : __real_realloc(p, size);
}

static void test_empty(void **state)
{
	struct buf b = BUF_INIT;

	assert_string_equal(buf_cstr(&b), "");
	assert_int_equal(buf_append(&b, NULL, 0), 0);
	assert_null(b.data); /* nothing appended, nothing allocated */
	buf_reset(&b);
	buf_free(&b);
	buf_free(&b); /* twice is fine */
	buf_free(NULL);
}

static void test_append(void **state)
{
	struct buf b = BUF_INIT;

	assert_int_equal(buf_append(&b, "ab\0c", 4), 0); /* bytes, NULs included */
	assert_int_equal(buf_puts(&b, "de"), 0);
	assert_int_equal(buf_printf(&b, "|%d|%s|", 42, "x"), 0);
	assert_int_equal(buf_printf(&b, "%s", ""), 0);
	assert_int_equal(b.len, 12);
	assert_memory_equal(b.data, "ab\0cde|42|x|", 12);
	assert_true(b.cap > b.len); /* the NUL's room */
	assert_string_equal(buf_cstr(&b) + 4, "de|42|x|");
	buf_reset(&b);
	assert_int_equal(b.len, 0);
	assert_non_null(b.data); /* the memory is kept */
	assert_string_equal(buf_cstr(&b), "");
	buf_free(&b);
	assert_true(b.data == NULL && b.len == 0 && b.cap == 0);
}

/* Growth by many small appends and by one large one: every byte kept. */
static void test_grow(void **state)
{
	struct buf b = BUF_INIT;
	static char big[1 << 20];

	for (int i = 0; i < 100000; i++)
		assert_int_equal(buf_append(&b, &"0123456789"[i % 10], 1), 0);
	for (int i = 0; i < 100000; i++)
		assert_int_equal(b.data[i], '0' + i % 10);
	memset(big, 'y', sizeof(big) - 1);
	assert_int_equal(buf_printf(&b, "%s", big), 0);
	assert_int_equal(b.len, 100000 + sizeof(big) - 1);
	assert_int_equal(strlen(buf_cstr(&b)), b.len);
	buf_free(&b);
}

/* An allocation that fails sticks: nothing is appended after it, not even
 * what would fit, until a reset. */
static void test_failure_sticks(void **state)
{
	struct buf b = BUF_INIT;
	char big[1024];

	memset(big, 'z', sizeof(big));
	assert_int_equal(buf_puts(&b, "abc"), 0);
	fail_realloc = true;
	assert_int_equal(buf_append(&b, big, sizeof(big)), -ENOMEM);
	fail_realloc = false;
	assert_int_equal(buf_puts(&b, "d"), -ENOMEM);
	assert_int_equal(buf_printf(&b, "e"), -ENOMEM);
	assert_int_equal(buf_reserve(&b, 1), -ENOMEM);
	assert_int_equal(b.error, -ENOMEM);
	assert_string_equal(buf_cstr(&b), "abc"); /* what came before stays */
	buf_reset(&b);
	assert_int_equal(buf_puts(&b, "f"), 0);
	assert_string_equal(buf_cstr(&b), "f");
	/* A size that cannot be allocated is the same failure. */
	assert_int_equal(buf_reserve(&b, SIZE_MAX), -ENOMEM);
	assert_int_equal(b.len, 1);
	buf_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_append),
		cmocka_unit_test(test_grow),
		cmocka_unit_test(test_failure_sticks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
