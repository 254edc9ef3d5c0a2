// SPDX-License-Identifier: GPL-2.0-only
#include "plot/csv_reader.h"
#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int csv_reader_open(const char *path, struct csv_reader *ret)
{
	struct stat st;
	void *map = NULL;
	int fd, r = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		r = -errno;
	else if (!S_ISREG(st.st_mode))
		r = -EINVAL;
	else if (st.st_size > 0) {
		map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (map == MAP_FAILED)
			r = -errno;
	}
	close(fd);
	if (r < 0)
		return r;
	csv_reader_init(ret, map, map ? (size_t)st.st_size : 0);
	ret->mapped = map != NULL;
	return 0;
}

void csv_reader_init(struct csv_reader *r, const char *buf, size_t len)
{
	r->data = buf;
	r->size = len;
	r->pos = 0;
	r->mapped = false;
	r->nr_fields = 0;
}

void csv_reader_prefetch(const struct csv_reader *r)
{
	if (!r->mapped)
		return;
	madvise((void *)r->data, r->size, MADV_SEQUENTIAL);
	/* The page tables in one call, not a fault per 64 KiB (Linux 5.14);
	 * else read ahead only. */
	if (madvise((void *)r->data, r->size, MADV_POPULATE_READ) < 0)
		madvise((void *)r->data, r->size, MADV_WILLNEED);
}

void csv_reader_release(const struct csv_reader *r)
{
	if (r->mapped)
		madvise((void *)r->data, r->size, MADV_DONTNEED);
}

void csv_reader_close(struct csv_reader *r)
{
	if (!r)
		return;
	if (r->mapped)
		munmap((void *)r->data, r->size);
	r->data = NULL;
	r->size = r->pos = 0;
	r->mapped = false;
}

/* A quoted field starting at *pos (its opening quote); *pos ends after the
 * closing quote. -EBADMSG when the data ends inside it. */
static int parse_quoted(const struct csv_reader *r, size_t *pos, struct csv_field *f)
{
	size_t i = *pos + 1;
	const char *q;

	f->p = r->data + i;
	f->quoted = true;
	for (;;) {
		q = memchr(r->data + i, '"', r->size - i);
		if (!q)
			return -EBADMSG;
		i = (size_t)(q - r->data) + 1;
		if (i < r->size && r->data[i] == '"') {
			i++;
			continue;
		}
		f->len = (size_t)(q - f->p);
		*pos = i;
		return 0;
	}
}

/* The bytes an unquoted field ends at (or is malformed at). */
static const bool field_stop[256] = { [','] = true, ['\n'] = true, ['"'] = true };

/* An unquoted field at *pos, up to a comma, a line break or the end. */
static int parse_plain(const struct csv_reader *r, size_t *pos, struct csv_field *f)
{
	const char *p = r->data + *pos, *end = r->data + r->size;

	f->p = p;
	f->quoted = false;
	while (p < end && !field_stop[(unsigned char)*p])
		p++;
	if (p < end && *p == '"')
		return -EINVAL;
	f->len = (size_t)(p - f->p);
	*pos = (size_t)(p - r->data);
	return 0;
}

/* One record from *pos; *pos ends after its line break. Fields beyond the
 * maximum are not stored (-E2BIG at the end). */
static int parse_record(struct csv_reader *r, size_t *pos)
{
	struct csv_field f;
	size_t n = 0;
	int err;

	for (;;) {
		if (*pos < r->size && r->data[*pos] == '"')
			err = parse_quoted(r, pos, &f);
		else
			err = parse_plain(r, pos, &f);
		if (err < 0)
			return err;
		if (n < CSV_READER_MAX_FIELDS)
			r->fields[n] = f;
		n++;
		if (*pos >= r->size)
			return -EBADMSG;
		if (r->data[*pos] == '\n')
			break;
		if (r->data[*pos] != ',')
			return -EINVAL;
		(*pos)++;
	}
	(*pos)++;
	r->nr_fields = n < CSV_READER_MAX_FIELDS ? n : CSV_READER_MAX_FIELDS;
	return n > CSV_READER_MAX_FIELDS ? -E2BIG : 1;
}

int csv_reader_next(struct csv_reader *r)
{
	size_t pos = r->pos;
	const char *nl;
	int ret;

	if (r->pos >= r->size)
		return 0;
	ret = parse_record(r, &pos);
	if (ret == -EINVAL || ret == -E2BIG) {
		/* Skip the rest of the line the error is on. */
		nl = pos < r->size ? memchr(r->data + pos, '\n', r->size - pos) : NULL;
		pos = nl ? (size_t)(nl - r->data) + 1 : r->size;
	} else if (ret == -EBADMSG) {
		pos = r->size;
	}
	r->pos = pos;
	return ret;
}

void csv_reader_seek(struct csv_reader *r, size_t offset)
{
	r->pos = offset < r->size ? offset : r->size;
}

/* Quotes in [from, to): a record start has an even number before it. */
static size_t count_quotes(const char *data, size_t from, size_t to)
{
	const char *p = data + from, *end = data + to;
	size_t n = 0;

	while (p < end && (p = memchr(p, '"', (size_t)(end - p))) != NULL) {
		n++;
		p++;
	}
	return n;
}

/* The last line break at or before *pos - 1 with an even number of quotes
 * between from and it: a record end (not a break inside a quoted field).
 * *pos becomes its offset and *quotes the quotes before it; false if none. */
static bool even_break_before(const char *data, size_t from, size_t *pos, size_t *quotes)
{
	size_t i = *pos, q = *quotes;

	while (i > from) {
		i--;
		if (data[i] == '"')
			q--;
		else if (data[i] == '\n' && q % 2 == 0) {
			*pos = i;
			*quotes = q;
			return true;
		}
	}
	return false;
}

/* The last record's start, quotes: the parity of the quotes in [from,
 * size) (only the parity counts: even_break_before counts down). */
static int last_start_with(struct csv_reader *r, size_t from, size_t nr_fields, size_t quotes,
			   size_t *ret_offset)
{
	size_t end = r->size, start, pos;

	if (!even_break_before(r->data, from, &end, &quotes))
		return -ENOENT;
	start = end;
	if (!even_break_before(r->data, from, &start, &quotes))
		start = from;
	else
		start++;
	pos = start;
	if (parse_record(r, &pos) != 1 || pos != end + 1 || r->nr_fields != nr_fields)
		return -ENOENT;
	*ret_offset = start;
	return 0;
}

int csv_reader_last_start(struct csv_reader *r, size_t from, size_t nr_fields, size_t *ret_offset)
{
	/* A line break is a record end only outside quotes, counted from a
	 * known record start: a name holding a line break and text shaped
	 * like a row (a tenant's) must not pass for the last record. A file
	 * that ends with a complete record has an even number of quotes, so
	 * the parity from the end is the parity from the start: try that
	 * first (no pass over the file); a last record that does not parse
	 * means the tail is broken, count from the start then. */
	if (r->size > from && r->data[r->size - 1] == '\n' &&
	    last_start_with(r, from, nr_fields, 0, ret_offset) == 0)
		return 0;
	return last_start_with(r, from, nr_fields, count_quotes(r->data, from, r->size),
			       ret_offset);
}

int csv_field_u64(const struct csv_field *f, uint64_t *ret)
{
	uint64_t v = 0;

	if (f->len == 0 || f->quoted)
		return -EINVAL;
	for (size_t i = 0; i < f->len; i++) {
		unsigned d = (unsigned char)f->p[i] - '0';

		if (d > 9)
			return -EINVAL;
		if (v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	*ret = v;
	return 0;
}

/* "[-]DIGITS[.DIGITS]" with at most 15 digits: exact as an integer over a
 * power of ten, so one division rounds it as strtod does. -EINVAL else. */
static int fixed_decimal(const struct csv_field *f, double *ret)
{
	static const double pow10[] = { 1e0, 1e1, 1e2,	1e3,  1e4,  1e5,  1e6,	1e7,
					1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15 };
	size_t i = f->len && f->p[0] == '-', digits = 0, frac = 0;
	bool dot = false;
	int64_t v = 0;

	for (; i < f->len; i++) {
		unsigned d = (unsigned char)f->p[i] - '0';

		if (f->p[i] == '.' && !dot) {
			dot = true;
			continue;
		}
		if (d > 9 || ++digits > 15)
			return -EINVAL;
		v = v * 10 + d;
		frac += dot;
	}
	if (!digits)
		return -EINVAL;
	*ret = (f->p[0] == '-' ? -(double)v : (double)v) / pow10[frac];
	return 0;
}

int csv_field_double(const struct csv_field *f, double *ret)
{
	char buf[64], *end;
	double d;

	if (f->len == 0 || f->quoted)
		return -EINVAL;
	if (fixed_decimal(f, ret) == 0)
		return 0;
	if (f->len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, f->p, f->len);
	buf[f->len] = '\0';
	d = strtod(buf, &end);
	if (*end || end == buf || !isfinite(d))
		return -EINVAL;
	*ret = d;
	return 0;
}

bool csv_field_is(const struct csv_field *f, const char *s)
{
	size_t n = strlen(s);

	return !f->quoted && f->len == n && memcmp(f->p, s, n) == 0;
}

char *csv_field_dup(const struct csv_field *f)
{
	char *s = malloc(f->len + 1), *w = s;

	if (!s)
		return NULL;
	for (size_t i = 0; i < f->len; i++) {
		*w++ = f->p[i];
		if (f->quoted && f->p[i] == '"')
			i++; /* the second of a doubled quote */
	}
	*w = '\0';
	return s;
}

/* digits decimal digits at p, -1 if one is not a digit. */
static int digits(const char *p, int n)
{
	int v = 0;

	for (int i = 0; i < n; i++) {
		unsigned d = (unsigned char)p[i] - '0';

		if (d > 9)
			return -1;
		v = v * 10 + (int)d;
	}
	return v;
}

/* Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's). */
static int64_t days_from_civil(int y, int m, int d)
{
	int64_t era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

int csv_field_time_ms(const struct csv_field *f, int64_t *ret)
{
	static const char shape[] = "0000-00-00T00:00:00.000Z";
	const char *p = f->p;
	int y, mo, d, h, mi, s, ms;

	if (f->quoted || f->len != sizeof(shape) - 1)
		return -EINVAL;
	for (size_t i = 0; i < sizeof(shape) - 1; i++)
		if (shape[i] != '0' && p[i] != shape[i])
			return -EINVAL;
	y = digits(p, 4);
	mo = digits(p + 5, 2);
	d = digits(p + 8, 2);
	h = digits(p + 11, 2);
	mi = digits(p + 14, 2);
	s = digits(p + 17, 2);
	ms = digits(p + 20, 3);
	if (y < 0 || mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 || h > 23 || mi < 0 || mi > 59 ||
	    s < 0 || s > 60 || ms < 0)
		return -EINVAL;
	*ret = ((days_from_civil(y, mo, d) * 24 + h) * 60 + mi) * 60000LL + s * 1000LL + ms;
	return 0;
}
