/* SPDX-License-Identifier: GPL-2.0-only */
/* The CSV sink: one file per monitored cgroup in a directory, one row per
 * interval holding the counts since the previous row WRITTEN to it, so a row
 * that could not be written (disk full, EIO) is carried by the next one.
 * Columns, file names, rotation and failure behaviour: docs/CSV.md. */
#pragma once
#include "config/config.h"
#include "sink/sink.h"
#include <stdint.h>

/* Time per batch (collection) spent on cgroups' first rows (creating their
 * files) before the rest wait for the next batch. */
#define CSV_FIRST_ROWS_BUDGET_MS 200
/* At most one report line per kind of failure per this many seconds. */
#define CSV_REPORT_INTERVAL_S 60

struct csv_sink_stats {
	uint64_t rows_written;
	uint64_t rows_failed; /* not written; their counts went into a later row */
	uint64_t rows_deferred; /* first rows left to the next batch (CSV_FIRST_ROWS_BUDGET_MS),
				 * rows held in old columns when the events changed */
	uint64_t rows_held; /* rows held to be written with a later one (flush_interval) */
	uint64_t held_now; /* ... of them not written (nor dropped) yet */
	uint64_t
		partial_rows; /* short writes (and unfinished lines found on open), cut off again */
	uint64_t rotations; /* own: past max_size, or the file had another header */
	uint64_t
		external_rotations; /* the file was renamed, removed or truncated by someone else */
	uint64_t files_deleted_removed; /* retention: files of removed cgroups past keep_removed */
	uint64_t files_deleted_for_size; /* retention: deleted to stay under max_total_size */
	uint64_t bytes_deleted;
	uint64_t retention_passes; /* complete passes over the directory */
	uint64_t retention_total; /* bytes of the sink's files, as the last pass counted them */
	uint64_t retention_sizes_known; /* live current files counted by the size the sink
					 * knows, without a stat (docs/CSV.md "Retention") */
	size_t files_open; /* descriptors kept open, now */
};

/* Create the sink writing to cfg->directory, which is created (mode 0750,
 * parents 0755) when missing, tightened to 0750 when looser. Returns 0,
 * -EINVAL (empty directory), -ENOTDIR, -EPERM (owned by another user),
 * -EACCES/-EROFS (not writable), -ENOMEM, or mkdir's/chmod's error. */
int csv_sink_new(const struct csv_config *cfg, struct sink **ret);

/* Counters since creation. -EINVAL when s is not a CSV sink. */
int csv_sink_get_stats(const struct sink *s, struct csv_sink_stats *ret);
