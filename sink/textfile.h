/* SPDX-License-Identifier: GPL-2.0-only */
/* Replace a file's content atomically: readers (node_exporter's textfile
 * collector) see the old file or the new one, never a partial write. */
#pragma once
#include <stddef.h>

/* Write data to a temporary file in path's directory (a name that does not
 * end in .prom, so the collector never reads it), then rename it over path.
 * Mode 0644. Returns 0 or -errno; on failure path is untouched and the
 * temporary file removed. */
int textfile_write(const char *path, const char *data, size_t len);
