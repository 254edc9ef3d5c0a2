/* SPDX-License-Identifier: GPL-2.0-only */
/* Retention of the CSV directory: files no live cgroup writes are deleted
 * keep_removed after their last row, and the directory is kept under
 * max_total_size (oldest files of removed cgroups first, then the oldest
 * rotated files; never the current file of a live cgroup). Work is bounded
 * per step (one step per interval): a pass over the directory reads a few
 * hundred entries per step and starts at most once a minute, unless the
 * previous one left work. Rules and the
 * reasoning: docs/CSV.md ("Retention"). */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* Entries read per step, files deleted per step, files remembered per pass
 * as deletion candidates of each kind, seconds between pass starts (a pass
 * that found more to delete than it could remember is followed at once). */
#define CSV_RETENTION_SCAN 512
#define CSV_RETENTION_DELETE 256
#define CSV_RETENTION_CANDIDATES 256
#define CSV_RETENTION_PASS_S 60

/* Whether name is one of the sink's files: STEM.csv or STEM.csv.N (N >= 1),
 * STEM of [A-Za-z0-9._-] (today's and earlier naming schemes alike). Sets
 * *ret_stem_len and *ret_rotation (0: the current file). Pure. */
bool csv_retention_parse_name(const char *name, size_t *ret_stem_len, unsigned *ret_rotation);

/* Whether a live cgroup writes the file STEM.csv (stem is not NUL-terminated).
 * ret_size (may be NULL): set to the file's size when the writer knows it
 * without a stat (it holds the file open and nothing but its own rows changed
 * it since its last look, docs/CSV.md "Retention"), else to -1. */
typedef bool (*csv_stem_live_fn)(void *ctx, const char *stem, size_t len, int64_t *ret_size);

struct csv_retention_stats {
	uint64_t deleted_removed; /* files of removed cgroups, older than keep_removed */
	uint64_t deleted_for_size; /* files deleted to stay under max_total_size */
	uint64_t bytes_deleted;
	uint64_t passes; /* complete passes over the directory */
	uint64_t last_total; /* bytes of the sink's files seen in the last pass */
	uint64_t sizes_known; /* current files counted with the writer's size, not stat'ed */
};

struct csv_retention;

/* keep_removed_ms 0: files of removed cgroups are kept (only max_total_size
 * deletes them); max_total_size 0: no limit. Both 0: nothing to do, *ret is
 * NULL. Returns 0 or -ENOMEM. */
int csv_retention_new(const char *dir, uint64_t keep_removed_ms, uint64_t max_total_size,
		      struct csv_retention **ret);
void csv_retention_free(struct csv_retention *r);

/* One bounded step. now: CLOCK_REALTIME (file ages are mtimes); mono_s:
 * CLOCK_MONOTONIC seconds (pass cadence). */
void csv_retention_step(struct csv_retention *r, csv_stem_live_fn live, void *ctx,
			const struct timespec *now, long long mono_s);

/* NULL r: all zero. */
void csv_retention_get_stats(const struct csv_retention *r, struct csv_retention_stats *ret);
