/* SPDX-License-Identifier: GPL-2.0-only */
/* A streaming reader of the agent's CSV logs (docs/CSV.md): RFC 4180 records
 * split in a read-only mapping of the file. No allocation per record or
 * field: a field points into the mapping; a quoted field is its text between
 * the quotes, doubled quotes still doubled (csv_field_dup unescapes it, for
 * the few fields that are kept). Reading never changes the data, so a
 * record can be read again. */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Enough for the fixed columns and every event pair the agent writes, with
 * room for derived columns. A record with more is refused (-E2BIG). */
#define CSV_READER_MAX_FIELDS 64

struct csv_field {
	const char *p; /* not NUL-terminated */
	size_t len;
	bool quoted; /* p..len is the text between the quotes, "" doubled */
};

struct csv_reader {
	const char *data;
	size_t size, pos;
	bool mapped; /* data is our mapping (csv_reader_open), else the caller's */
	size_t nr_fields;
	struct csv_field fields[CSV_READER_MAX_FIELDS];
};

/* Map path (a regular file) privately. An empty file is fine (no records). */
int csv_reader_open(const char *path, struct csv_reader *ret);
/* Read records from the caller's buffer (unit tests). */
void csv_reader_init(struct csv_reader *r, const char *buf, size_t len);
void csv_reader_close(struct csv_reader *r); /* NULL is fine */
/* A mapped file about to be read from start to end: read ahead. */
void csv_reader_prefetch(const struct csv_reader *r);
/* Give the mapped pages read so far back (the process' memory); they are
 * read from the file again when touched. Fields stay valid. */
void csv_reader_release(const struct csv_reader *r);

/* The next record into r->fields. Returns 1 for a record, 0 at the end,
 * -EBADMSG for a last record without its line break (a truncated line: the
 * reader is then at the end), -EINVAL for a malformed record (a quote inside
 * an unquoted field, text after a closing quote) and -E2BIG for too many
 * fields: both skipped up to the next line break, the reader goes on. */
int csv_reader_next(struct csv_reader *r);
/* Move to offset (the start of a record, e.g. from csv_reader_last_start). */
void csv_reader_seek(struct csv_reader *r, size_t offset);
/* Offset of the last complete record's start: the record after the last
 * two line breaks outside quotes (counted from from, a record start, e.g.
 * the first row's), if it has nr_fields fields. A truncated tail is not a
 * record. -ENOENT when there is none. Reads the last two records only when
 * the file ends with a line break after a complete record, else every
 * quote from from on (memchr). A file cut inside a quoted field just after
 * a line break in it (a crash mid-row, in a name with a line break) may
 * give the row-shaped text after that break: only the range drawn by
 * default, never a row fed, depends on it. */
int csv_reader_last_start(struct csv_reader *r, size_t from, size_t nr_fields, size_t *ret_offset);

/* Field helpers: exact decimal numbers (no sign, no spaces; -EINVAL for
 * anything else, -ERANGE past the type), field equality with a C string. */
int csv_field_u64(const struct csv_field *f, uint64_t *ret);
bool csv_field_is(const struct csv_field *f, const char *s);
/* A finite decimal number as strtod reads it (the agent's fixed decimals fast);
 * -EINVAL for an empty, quoted or partly numeric field. */
int csv_field_double(const struct csv_field *f, double *ret);
/* The field's text, unescaped, as a new C string (NULL: out of memory). */
char *csv_field_dup(const struct csv_field *f);
/* "2026-12-02T11:58:12.345Z" (the agent's form) as ms since the epoch. */
int csv_field_time_ms(const struct csv_field *f, int64_t *ret);
