/* SPDX-License-Identifier: GPL-2.0-only */
/* Files and temporary directories for unit tests (include after cmocka.h):
 * each fails the running test on an error it cannot report, so a test reads
 * as what it builds. */
#pragma once
#include <stddef.h>

/* Writes len bytes of data to path, created (0666 before the umask, as
 * fopen makes it) or truncated. */
void test_write_file(const char *path, const void *data, size_t len);
/* test_write_file() of the C string text. */
void test_write_str(const char *path, const char *text);
/* test_write_str() to dir/name. */
void test_write_at(const char *dir, const char *name, const char *text);
/* The whole file, NUL-terminated, malloc'd; its length (without the NUL)
 * in *ret_len unless ret_len is NULL. NULL (errno set) when it cannot be
 * opened: callers that expect no file test for that. */
char *test_read_file(const char *path, size_t *ret_len);

/* mkdtemp() of tmpl ("/tmp/NAME.XXXXXX"), as a malloc'd path. */
char *test_mkdtemp(const char *tmpl);
/* Removes dir and everything below it (never following symlinks); only
 * below /tmp/, where test_mkdtemp() puts them: a wrong path must not
 * empty another tree. 0 or -errno. */
int test_rmtemp(const char *dir);
