/* SPDX-License-Identifier: GPL-2.0-only */
/* The times `cgperf plot --since/--until` take (docs/PLOT.md). */
#pragma once
#include <stdbool.h>
#include <stdint.h>

/* "2026-12-04 13:05[:30]", "2026-12-04T13:05:30[.123]" (local time, or UTC
 * with utc or a trailing "Z"), "2026-12-04" (midnight), "@SECONDS" (epoch),
 * "now", "-90s", "-30m", "-2h", "-1d" (before now_ms). ms since the epoch
 * in *ret; -EINVAL for anything else. */
int plot_parse_time(const char *s, bool utc, int64_t now_ms, int64_t *ret);
