/* SPDX-License-Identifier: GPL-2.0-only */
/* The CSV sink's own parts (csv_sink.c: the cgroup table, the directory
 * watch, rows, held rows, batches;
 * csv_file.c: each cgroup's file, and failure reports), not for other
 * layers: they use csv_sink.h. */
#pragma once
#include "config/config.h"
#include "sink/csv_format.h"
#include "sink/csv_sink.h"
#include "util/id_map.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

struct csv_batch;
struct csv_retention;

#define CSV_STEM_BUCKETS 1024
#define FILE_MODE 0640
/* Descriptors kept open: at most this, and at most half of RLIMIT_NOFILE. */
#define CSV_MAX_OPEN_FILES 65536
/* A kept file's end is looked at (lseek) before its first row in each
 * period of this much collection time (periods shifted by the file's id: the
 * files' looks spread over it), or after this many rows, whichever comes
 * first, and before the next row after the directory watch saw a writer
 * close it: a truncation by path (truncate(2), no descriptor) is found with
 * at most 160 s or 1024 rows written after it (one interval when that is
 * longer). By time, not every 16 rows as before: the same at the default
 * 10 s, not 63 lseeks a collection at 1000 files and 1 s (3 % of the
 * agent's CPU time on a VM where system calls are dear). The rows bound,
 * for intervals under 160 ms only (above, the period comes first and the
 * two never make two looks in a row), keeps a repair within
 * CSV_PREPEND_MAX. */
#define CSV_SIZE_CHECK_MS 160000
#define CSV_SIZE_CHECK_ROWS 1024
/* The rows found after a truncation, read back to put the header in front. */
#define CSV_PREPEND_MAX (1 << 20)
/* Rows appended per io_submit (csv_batch.h). Each agent takes as many from
 * the host's fs.aio-max-nr (65536 by default, shared with tenants' databases). */
#define CSV_BATCH_ROWS 256
/* Bytes of rows a file holds (flush_interval) before they are written: a
 * few rows of ordinary names (~200 bytes each), so memory stays ~2 KiB per
 * file at most, whatever the names. */
#define CSV_HOLD_MAX 2048

/* Kinds of failure, each reported at most once per CSV_REPORT_INTERVAL_S. */
enum csv_failure {
	FAIL_NO_SPACE, /* ENOSPC, EDQUOT, EFBIG */
	FAIL_IO, /* EIO */
	FAIL_PARTIAL, /* a row only partly written */
	FAIL_OPEN, /* open/fstat/read of the file */
	FAIL_ROTATE, /* rename/unlink while rotating */
	FAIL_TRUNCATED, /* looking at (or repairing) a file after a truncation */
	FAIL_WRITE, /* any other write() error */
	FAIL_RECORD, /* the record itself is unusable */
	NR_FAILURES,
};

struct csv_report {
	long long last; /* CLOCK_MONOTONIC seconds of the last line; 0: never */
	uint64_t unreported; /* failures since that line */
};

struct csv_cgroup {
	/* What every row looks at first, together (a collection walks a
	 * thousand cold entries: each cache line here is a miss per row). */
	uint64_t id;
	bool prog; /* a BPF program's file (id: the program's), not a cgroup's */
	bool started; /* a row was written (or tried) in this run */
	/* The file as we left it after our last write: when the path still
	 * leads there and it did not shrink, no checks are needed. */
	bool known;
	bool check_size; /* look at the next row (a writer closed the file) */
	bool queued; /* a row of it waits in the batch */
	unsigned held_rows; /* rows in `held`, written with a later one */
	/* Written before the next row when an unfinished line could not be cut
	 * off: a closing quote if it ended inside a quoted field, a newline. */
	char repair[3];
	int fd; /* kept open (then `known` is true), or -1 */
	int order_pos; /* its place in csv_sink.order, or -1 */
	/* Collection time (ms) the look period of the last look at the end
	 * began (csv_note_look_period): kept, not divided out at every row. */
	int64_t period_ms;
	unsigned unchecked; /* rows since then */
	int nr_events;
	uint32_t events_gen; /* sink_record.events_gen of event_names (0: none) */
	uint32_t ident_gen;
	off_t size;
	/* The identity cells (path to namespace, each with its leading comma)
	 * as of sink_cgroup.gen ident_gen (0: none kept). */
	struct csv_row ident;
	/* Rows formatted but not written yet (csv.flush_interval), and the
	 * flush period they belong to (hold_due). */
	struct csv_row held;
	int64_t hold_period;

	struct csv_cgroup *next_stem; /* hash chain by stem */
	char *file; /* directory/stem.csv */
	char *stem;
	char *path; /* the cgroup path the stem was made from */
	dev_t dev;
	ino_t ino;
	char *event_names[READINGS_MAX_EVENTS];
	struct csv_row header;
};

struct csv_sink {
	struct sink base;
	struct csv_config cfg;
	/* Entries by id, cgroups' ([0]) and BPF programs' ([1]) apart: the
	 * ids are of two kinds. */
	struct id_map by_id[2];
	struct csv_cgroup *stem_buckets[CSV_STEM_BUCKETS];
	/* The cgroups in the order of the last collection's rows (NULL: gone),
	 * and the place of the next row in it: see cgroup_lookup(). */
	struct csv_cgroup **order;
	int nr_order, cap_order, cursor;
	size_t nr_fds, max_fds; /* descriptors kept open, and the bound */
	int watch_fd; /* inotify on the directory, or -1 */
	bool watch_reported; /* "cannot watch" said once */
	struct timespec checked; /* collection time of the last watch read */
	int64_t batch_ms; /* the same, in ms (csv_note_look_period) */
	long long first_open_ns; /* this batch's time spent on cgroups' first rows */
	struct timespec ts_time; /* the timestamp cell formatted last, for ... */
	char ts_text[CSV_TIMESTAMP_MAX]; /* ... every row of one collection */
	struct csv_retention *retention;
	struct csv_row row; /* scratch: the row being built */
	struct csv_row out; /* scratch: header/repair + row, the bytes written */
	/* Rows of kept files appended together (NULL: row by row), and for
	 * each queued row its file and the record's cookie. */
	struct csv_batch *batch;
	struct csv_queued {
		struct csv_cgroup *cg;
		const void *cookie;
		unsigned rows; /* the row and those held with it */
	} queued[CSV_BATCH_ROWS];
	struct csv_sink_stats stats;
	struct csv_report reports[NR_FAILURES];
	struct csv_report recovered; /* "writing again": unreported = failed rows before */
};

/* The number of the period of len_ms time t_ms is in, periods starting at
 * phase_ms (floor division: times before the phase too). The looks at a
 * file's end and the held rows' flushes each go by such periods, shifted by
 * the file's id so that files spread over the period. */
static inline int64_t csv_period_of(int64_t t_ms, int64_t phase_ms, int64_t len_ms)
{
	int64_t at = t_ms - phase_ms;

	return at >= 0 ? at / len_ms : -((len_ms - 1 - at) / len_ms);
}

/* ---- csv_file.c ---- */

/* cg->period_ms from the collection time (csv_file.c: the looks at a kept
 * file's end). */
void csv_note_look_period(const struct csv_sink *s, struct csv_cgroup *cg);
long long csv_monotonic_s(void);
/* One failure of `kind`, reported at most once per CSV_REPORT_INTERVAL_S. */
void csv_fail(struct csv_sink *s, enum csv_failure kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Close cg's kept descriptor, still remembering the file as we left it. */
void csv_file_drop(struct csv_sink *s, struct csv_cgroup *cg);
/* Close and forget: the next row checks the file from scratch. */
void csv_file_close(struct csv_sink *s, struct csv_cgroup *cg);
void csv_files_drop_all(struct csv_sink *s, bool forget_files);

/* The bytes of a row in s->out: the header into an empty file, else what
 * closes an unfinished line; then the rows cg holds, then the row.
 * Returns 0 or -errno. */
int csv_file_frame(struct csv_sink *s, struct csv_cgroup *cg, bool need_header, const char *data,
		   size_t len);
/* Before a row on cg's kept descriptor: its end looked at if due. Returns 0
 * or -errno (reported; the file is closed). */
int csv_file_look(struct csv_sink *s, struct csv_cgroup *cg, bool *ret_need_header);
/* write() until done or an error: the bytes written (*ret_err: the error). */
size_t csv_file_write_some(int fd, const char *buf, size_t len, int *ret_err);
/* A row of len bytes went to fd: done of them, r the error if not all;
 * start: the file's size before it when known (else -1). On failure the
 * file is left as it was. Returns 0 or -errno. */
int csv_file_appended(struct csv_sink *s, struct csv_cgroup *cg, int fd, off_t start, size_t len,
		      size_t done, int r);
/* Append data (complete lines) to cg's file with one write(). Returns 0 or
 * -errno (reported). */
int csv_file_append(struct csv_sink *s, struct csv_cgroup *cg, const char *data, size_t len);
