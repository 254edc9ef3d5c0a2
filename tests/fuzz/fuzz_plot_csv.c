/* SPDX-License-Identifier: GPL-2.0-only */
/* libFuzzer harness for `cgperf plot`'s CSV reader (plot/csv_reader.c): the
 * files it reads hold tenant-chosen names, and may be cut or mangled.
 *   - The input as a file (not NUL-terminated): every record's fields lie
 *     inside it; a quoted field re-quoted from csv_field_dup() is its raw
 *     text; a u64 field is all digits; at most one record per byte (the
 *     reader always moves on); the last record found by
 *     csv_reader_last_start() reads back with the fields asked for.
 *   - Round trip with the agent's writer (sink/csv_format.c): the input
 *     split at NUL bytes into up to 8 fields, written as one row, reads
 *     back as one record of those fields, byte for byte. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "plot/csv_reader.h"
#include "sink/csv_format.h"

#define H "fuzz_plot_csv"

static void check_field(const struct csv_field *f, const char *data, size_t size)
{
	uint64_t v;
	double d;
	int64_t t;
	char *s;

	fuzz_check(f->p >= data && f->p + f->len <= data + size, H, "field inside the input");
	if (csv_field_u64(f, &v) == 0) {
		fuzz_check(f->len > 0 && !f->quoted, H, "a u64 field is unquoted text");
		for (size_t i = 0; i < f->len; i++)
			fuzz_check(f->p[i] >= '0' && f->p[i] <= '9', H, "a u64 field is digits");
	}
	(void)csv_field_double(f, &d);
	(void)csv_field_time_ms(f, &t);
	s = csv_field_dup(f);
	if (s && f->quoted) {
		size_t w = 0, n = strlen(s);
		char *requoted = malloc(2 * n + 1);

		for (size_t i = 0; requoted && i < n; i++) {
			requoted[w++] = s[i];
			if (s[i] == '"')
				requoted[w++] = '"';
		}
		/* A field with a NUL byte is cut at it by dup: compare up to there. */
		fuzz_check(!requoted || (w <= f->len && !memcmp(requoted, f->p, w)), H,
			   "a quoted field is its unescaped text re-quoted");
		free(requoted);
	}
	free(s);
}

static void read_file(const uint8_t *data, size_t size)
{
	char *buf = malloc(size ? size : 1);
	struct csv_reader r;
	size_t records = 0, first_fields = 0, off;
	int n;

	if (!buf)
		return;
	memcpy(buf, data, size);
	csv_reader_init(&r, buf, size);
	while ((n = csv_reader_next(&r)) != 0) {
		fuzz_check(n == 1 || n == -EBADMSG || n == -EINVAL || n == -E2BIG, H, "next's value");
		fuzz_check(++records <= size + 1, H, "the reader moves on");
		if (n != 1)
			continue;
		fuzz_check(r.nr_fields <= CSV_READER_MAX_FIELDS, H, "field count");
		if (!first_fields)
			first_fields = r.nr_fields;
		for (size_t i = 0; i < r.nr_fields; i++)
			check_field(&r.fields[i], buf, size);
	}
	if (first_fields && csv_reader_last_start(&r, 0, first_fields, &off) == 0) {
		fuzz_check(off < size, H, "last record inside the input");
		csv_reader_seek(&r, off);
		n = csv_reader_next(&r);
		fuzz_check(n == 1 && r.nr_fields == first_fields, H,
			   "the last record has the fields asked for");
	}
	csv_reader_close(&r);
	free(buf);
}

static void round_trip(const uint8_t *data, size_t size)
{
	const char *part[8];
	char *buf = fuzz_split(data, size, part, 8);
	struct csv_row row = CSV_ROW_INIT;
	struct csv_reader r;

	if (!buf)
		return;
	for (size_t i = 0; i < 8; i++)
		csv_row_add_field(&row, part[i]);
	csv_row_end(&row);
	if (row.buf.error == 0) {
		csv_reader_init(&r, row.buf.data, row.buf.len);
		fuzz_check(csv_reader_next(&r) == 1 && r.nr_fields == 8, H,
			   "a written row reads back as one record");
		for (size_t i = 0; i < 8; i++) {
			char *s = csv_field_dup(&r.fields[i]);

			fuzz_check(!s || !strcmp(s, part[i]), H, "a written field reads back");
			free(s);
		}
		fuzz_check(csv_reader_next(&r) == 0, H, "and nothing after it");
		csv_reader_close(&r);
	}
	csv_row_free(&row);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	read_file(data, size);
	round_trip(data, size);
	return 0;
}
