// SPDX-License-Identifier: GPL-2.0-only
/* Files and temporary directories for unit tests; see test_files.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tests/lib/test_files.h"
#include "tests/lib/rm_tree.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void test_write_file(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	assert_int_equal(close(fd), 0);
}

void test_write_str(const char *path, const char *text)
{
	test_write_file(path, text, strlen(text));
}

void test_write_at(const char *dir, const char *name, const char *text)
{
	char *path;

	assert_true(asprintf(&path, "%s/%s", dir, name) > 0);
	test_write_str(path, text);
	free(path);
}

char *test_read_file(const char *path, size_t *ret_len)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t len = 0;
	FILE *mem;
	char chunk[65536];
	size_t n;

	if (!f)
		return NULL;
	mem = open_memstream(&buf, &len);
	assert_non_null(mem);
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		assert_int_equal(fwrite(chunk, 1, n, mem), n);
	assert_int_equal(ferror(f), 0);
	fclose(f);
	/* open_memstream NUL-terminates, also when the file is empty. */
	assert_int_equal(fclose(mem), 0);
	if (ret_len)
		*ret_len = len;
	return buf;
}

char *test_mkdtemp(const char *tmpl)
{
	char *dir = strdup(tmpl);

	assert_non_null(dir);
	assert_non_null(mkdtemp(dir));
	return dir;
}

int test_rmtemp(const char *dir)
{
	if (strncmp(dir, "/tmp/", 5) != 0 || strstr(dir, "/.."))
		return -EINVAL;
	return rm_tree_at(AT_FDCWD, dir, true);
}
