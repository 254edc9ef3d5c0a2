/* The CSV file name of a monitored cgroup: readable, filesystem-safe, unique.
 * The rules are documented in docs/CSV.md ("File names"). Pure: no I/O. */
#pragma once
#include "sink/sink.h"
#include <stddef.h>
#include <stdint.h>

/* Longest stem in bytes, without ".csv" and rotation suffixes (".csv.10"),
 * so every name stays far below NAME_MAX (255). */
#define CSV_STEM_MAX 200

/* The stem ("web_1a2b3c4d5e6f", "pod_default_api-0_0f1e2d3c", "cron.service",
 * "system.slice_x.scope") for cg into buf (at least CSV_STEM_MAX + 1 bytes).
 * Only [A-Za-z0-9._-] appear; every other byte of a name becomes "_XX" (hex).
 * Returns 0, -EINVAL (no cg or path), -ENOBUFS (buf too small), -ENOMEM. */
int csv_file_stem(const struct sink_cgroup *cg, char *buf, size_t len);

/* stem made distinct for cgroup id when another live cgroup already uses it:
 * "<stem>_cg<id>", shortened to CSV_STEM_MAX first when needed. */
int csv_file_stem_for_id(const char *stem, uint64_t id, char *buf, size_t len);
