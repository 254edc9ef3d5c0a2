/* SPDX-License-Identifier: GPL-2.0-only */
/* HTTP content negotiation for the metrics endpoint: which exposition
 * format an Accept header prefers, and whether Accept-Encoding allows gzip.
 * Pure string functions (RFC 9110 lists with q-values). */
#pragma once
#include "sink/prom_format.h"
#include <stdbool.h>

/* OpenMetrics when the header ranks application/openmetrics-text (version
 * 1.0.0, 0.0.1 or none) at least as high as text/plain (or * / *), text
 * 0.0.4 otherwise (also for NULL: no header). */
enum prom_format http_pick_format(const char *accept);

/* gzip (or *) listed with a q-value above 0. NULL: no. */
bool http_accepts_gzip(const char *accept_encoding);
