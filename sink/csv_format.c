// SPDX-License-Identifier: GPL-2.0-only
#include "sink/csv_format.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const csv_fixed_columns[CSV_NR_FIXED_COLUMNS] = {
	"timestamp",	"cgroup",	  "cgroup_id", "kind",	    "runtime",
	"container_id", "container_name", "pod",       "namespace", "interval_ms",
};

const char *const csv_prog_columns[CSV_NR_PROG_COLUMNS] = {
	"timestamp", "prog_id",	    "prog_name", "prog_tag",
	"prog_type", "interval_ms", "runs",	 "run_ns",
};

void csv_row_free(struct csv_row *row)
{
	if (!row)
		return;
	buf_free(&row->buf);
	*row = CSV_ROW_INIT;
}

void csv_row_clear(struct csv_row *row)
{
	buf_reset(&row->buf);
	row->nr_fields = 0;
}

int csv_row_append(struct csv_row *row, const char *bytes, size_t len)
{
	return buf_append(&row->buf, bytes, len);
}

bool csv_needs_quotes(const char *s, size_t len, const char *sep)
{
	size_t sep_len = strlen(sep);

	for (size_t i = 0; i < len; i++) {
		if (s[i] == '"' || s[i] == '\r' || s[i] == '\n')
			return true;
		if (s[i] == sep[0] && len - i >= sep_len && !memcmp(s + i, sep, sep_len))
			return true;
	}
	return false;
}

static int add_separator(struct csv_row *row)
{
	if (row->nr_fields++ == 0)
		return row->buf.error;
	return csv_row_append(row, ",", 1);
}

int csv_row_add_field(struct csv_row *row, const char *s)
{
	int r = add_separator(row);

	if (r < 0)
		return r;
	return csv_row_add_quoted(row, s, s ? strlen(s) : 0, ",");
}

int csv_row_add_quoted(struct csv_row *row, const char *s, size_t len, const char *sep)
{
	int r;

	if (!csv_needs_quotes(s, len, sep))
		return csv_row_append(row, s, len);
	/* Worst case every byte is a quote and doubles, plus the two around. */
	r = buf_reserve(&row->buf, 2 * len + 2);
	if (r < 0)
		return r;
	row->buf.data[row->buf.len++] = '"';
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '"')
			row->buf.data[row->buf.len++] = '"';
		row->buf.data[row->buf.len++] = s[i];
	}
	row->buf.data[row->buf.len++] = '"';
	return 0;
}

int csv_row_add_plain(struct csv_row *row, const char *s)
{
	int r = add_separator(row);

	if (r < 0)
		return r;
	return csv_row_append(row, s, strlen(s));
}

size_t csv_format_u64(char buf[CSV_U64_MAX], uint64_t v)
{
	char tmp[CSV_U64_MAX];
	size_t n = 0, len;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	len = n;
	for (size_t i = 0; i < len; i++)
		buf[i] = tmp[--n];
	buf[len] = '\0';
	return len;
}

int csv_row_add_u64(struct csv_row *row, uint64_t v)
{
	char buf[CSV_U64_MAX];
	size_t n = csv_format_u64(buf, v);
	int r = add_separator(row);

	return r < 0 ? r : csv_row_append(row, buf, n);
}

bool csv_cell_unsafe(const char *s)
{
	return s && (s[0] == '=' || s[0] == '+' || s[0] == '-' || s[0] == '@' || s[0] == '\t' ||
		     s[0] == '\r');
}

int csv_row_add_name(struct csv_row *row, const char *s, bool safe)
{
	size_t len;
	char *cell;
	int r;

	if (!safe || !csv_cell_unsafe(s))
		return csv_row_add_field(row, s);
	/* Rare: only names that start like a formula get here. */
	len = strlen(s);
	cell = malloc(len + 2);
	if (!cell)
		return row->buf.error = row->buf.error ? row->buf.error : -ENOMEM;
	cell[0] = '\'';
	memcpy(cell + 1, s, len + 1);
	r = csv_row_add_field(row, cell);
	free(cell);
	return r;
}

int csv_row_end(struct csv_row *row)
{
	row->nr_fields = 0;
	return csv_row_append(row, "\n", 1);
}

bool csv_inside_quotes(const char *bytes, size_t len)
{
	bool inside = false;

	/* An escaped quote is two quotes: parity alone tells where we are. */
	for (size_t i = 0; i < len; i++)
		if (bytes[i] == '"')
			inside = !inside;
	return inside;
}

/* Write v as exactly `digits` decimal digits at p; returns p + digits. */
static char *put_digits(char *p, unsigned v, int digits)
{
	for (int i = digits - 1; i >= 0; i--, v /= 10)
		p[i] = (char)('0' + v % 10);
	return p + digits;
}

int csv_format_timestamp(const struct timespec *ts, char *buf, size_t len)
{
	struct tm tm;
	char *p = buf;

	if (ts->tv_nsec < 0 || ts->tv_nsec >= 1000000000L)
		return -EINVAL;
	if (!gmtime_r(&ts->tv_sec, &tm))
		return -ERANGE;
	/* RFC 3339 has exactly four year digits. */
	if (tm.tm_year < -1900 || tm.tm_year > 9999 - 1900)
		return -ERANGE;
	if (len < sizeof("2026-12-02T11:58:12.345Z"))
		return -ENOBUFS;
	p = put_digits(p, tm.tm_year + 1900, 4);
	*p++ = '-';
	p = put_digits(p, tm.tm_mon + 1, 2);
	*p++ = '-';
	p = put_digits(p, tm.tm_mday, 2);
	*p++ = 'T';
	p = put_digits(p, tm.tm_hour, 2);
	*p++ = ':';
	p = put_digits(p, tm.tm_min, 2);
	*p++ = ':';
	p = put_digits(p, tm.tm_sec, 2);
	*p++ = '.';
	p = put_digits(p, ts->tv_nsec / 1000000L, 3);
	*p++ = 'Z';
	*p = '\0';
	return 0;
}

void csv_format_event(const struct reading *d, struct csv_event_cells *ret)
{
	uint64_t value, pct;
	enum reading_state state = reading_scale(d, &value, &pct);
	size_t n;

	ret->value[0] = '\0';
	ret->running_pct[0] = '\0';
	/* IDLE: nothing of the cgroup ran, the count (0 in practice) is exact
	 * and there is no percentage; NOT_COUNTED: unknown, not zero. */
	if (state != READING_NOT_COUNTED)
		csv_format_u64(ret->value, value);
	if (state != READING_IDLE) {
		n = csv_format_u64(ret->running_pct, pct / 100);
		ret->running_pct[n] = '.';
		put_digits(ret->running_pct + n + 1, (unsigned)(pct % 100), 2);
		ret->running_pct[n + 3] = '\0';
	}
}

int csv_row_add_events(struct csv_row *row, int nr, const struct reading *delta)
{
	for (int i = 0; i < nr; i++) {
		struct csv_event_cells cells;

		csv_format_event(&delta[i], &cells);
		csv_row_add_plain(row, cells.value);
		csv_row_add_plain(row, cells.running_pct);
	}
	return row->buf.error;
}

/* "<event>,<event>_running_pct" per event. */
static int add_event_columns(struct csv_row *row, int nr_events, const char *const *event_names)
{
	for (int i = 0; i < nr_events; i++) {
		const char *name = event_names[i] ? event_names[i] : "";
		size_t n = strlen(name) + sizeof("_running_pct");
		char *pct = malloc(n);

		if (!pct)
			return row->buf.error = row->buf.error ? row->buf.error : -ENOMEM;
		snprintf(pct, n, "%s_running_pct", name);
		csv_row_add_field(row, name);
		csv_row_add_field(row, pct);
		free(pct);
	}
	return row->buf.error;
}

int csv_format_header(struct csv_row *row, int nr_events, const char *const *event_names,
		      const struct derived_list *derived)
{
	for (int i = 0; i < CSV_NR_FIXED_COLUMNS; i++)
		csv_row_add_field(row, csv_fixed_columns[i]);
	add_event_columns(row, nr_events, event_names);
	for (int i = 0; derived && i < derived->nr; i++)
		csv_row_add_plain(row, derived_name(derived->m[i]));
	return csv_row_end(row);
}

int csv_format_prog_header(struct csv_row *row, int nr_events, const char *const *event_names)
{
	for (int i = 0; i < CSV_NR_PROG_COLUMNS; i++)
		csv_row_add_field(row, csv_prog_columns[i]);
	if (nr_events > 0)
		csv_row_add_plain(row, "counted_runs");
	add_event_columns(row, nr_events, event_names);
	return csv_row_end(row);
}
