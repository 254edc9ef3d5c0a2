/* SPDX-License-Identifier: GPL-2.0-only */
/* Pure formatting for the CSV sink: RFC 4180 fields and rows built in memory
 * (so the sink can write a whole row with one write()), the RFC 3339
 * timestamp, and the per-event value/percent cells. No I/O, no locale: every
 * number is printed from integers, so the decimal point is always '.'. */
#pragma once
#include "events/derived.h"
#include "util/buf.h"
#include "util/readings.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* One or more CSV lines: their bytes (the first failure sticks: later
 * appends do nothing), and the fields on the line being built. */
struct csv_row {
	struct buf buf;
	size_t nr_fields;
};

#define CSV_ROW_INIT ((struct csv_row){ 0 })

void csv_row_free(struct csv_row *row); /* NULL and never-used rows are fine */
void csv_row_clear(struct csv_row *row); /* empty it, keep the memory */

/* The one quoting rule of cgperf's CSV: a field that holds the separator, a
 * quote, CR or LF is written between quotes with each quote doubled; any
 * other field as it is. The separator is a parameter because there are two
 * writers: the sink's files are RFC 4180 (sep ","), while `cgperf stat -x
 * SEP` writes perf's -x rows with the separator the user chose (";", "\t",
 * "::"), where a comma needs no quotes but SEP does.
 * csv_needs_quotes: whether s (len bytes) must be quoted; sep is not empty. */
bool csv_needs_quotes(const char *s, size_t len, const char *sep);
/* Append s (len bytes; NULL is empty) by that rule, with no separator before
 * it. Returns 0 or the row's error. */
int csv_row_add_quoted(struct csv_row *row, const char *s, size_t len, const char *sep);

/* Append one field of the sink's CSV (sep ","), quoted by that rule. NULL is
 * the empty field. Returns 0 or the row's error. */
int csv_row_add_field(struct csv_row *row, const char *s);
/* Append a field known to need no quoting (numbers). */
int csv_row_add_plain(struct csv_row *row, const char *s);
int csv_row_add_u64(struct csv_row *row, uint64_t v);
/* A name cell (container name, pod, namespace: tenant-chosen). With safe, a
 * cell starting like a spreadsheet formula (csv_cell_unsafe) gets a leading
 * "'" so spreadsheets show it as text; the rest is kept byte for byte. */
int csv_row_add_name(struct csv_row *row, const char *s, bool safe);
/* s starts with '=', '+', '-', '@', tab or CR. */
bool csv_cell_unsafe(const char *s);

/* v in decimal into buf (NUL-terminated, no stdio: the rows' hot path);
 * returns its length. */
#define CSV_U64_MAX 21
size_t csv_format_u64(char buf[CSV_U64_MAX], uint64_t v);
/* Append raw bytes (no field handling): header prefixes, repair bytes. */
int csv_row_append(struct csv_row *row, const char *bytes, size_t len);
/* Terminate the line ("\n") and start a new one. */
int csv_row_end(struct csv_row *row);

/* Whether bytes[0..len) leave an RFC 4180 reader inside a quoted field (an odd
 * number of '"'): used to terminate a partial row cleanly. */
bool csv_inside_quotes(const char *bytes, size_t len);

/* "2026-12-02T11:58:12.345Z": UTC, milliseconds (truncated, never rounded up
 * into the next second). Needs CSV_TIMESTAMP_MAX bytes. -EINVAL for tv_nsec
 * out of range, -ERANGE for years outside 0000..9999. */
#define CSV_TIMESTAMP_MAX 32
int csv_format_timestamp(const struct timespec *ts, char *buf, size_t len);

/* The two cells of one event for one delta:
 *  value: counter scaled by enabled/running when multiplexed (integer,
 *         truncated; saturates at UINT64_MAX); "" when the event was enabled
 *         but never ran (not counted: the true count is unknown);
 *  running_pct: 100 * running / enabled with two decimals, rounded; "" when
 *         enabled is 0 (no task of the cgroup ran: value is the exact 0). */
struct csv_event_cells {
	char value[24];
	char running_pct[32];
};
void csv_format_event(const struct reading *delta, struct csv_event_cells *ret);
/* Append the two cells of each of nr events (csv_format_event). */
int csv_row_add_events(struct csv_row *row, int nr, const struct reading *delta);

/* The fixed leading columns, in order. */
extern const char *const csv_fixed_columns[];
#define CSV_NR_FIXED_COLUMNS 10

/* The columns of a BPF program's file (bpf_programs:), in order; with
 * events counted inside programs (nr_events > 0) then "counted_runs" and
 * "<event>,<event>_running_pct" per event. */
extern const char *const csv_prog_columns[];
#define CSV_NR_PROG_COLUMNS 8
int csv_format_prog_header(struct csv_row *row, int nr_events, const char *const *event_names);

/* Header line: the fixed columns, then "<event>,<event>_running_pct" per
 * event, then one column per derived metric (its name, "ipc", ...). */
int csv_format_header(struct csv_row *row, int nr_events, const char *const *event_names,
		      const struct derived_list *derived);
