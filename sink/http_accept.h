/* SPDX-License-Identifier: GPL-2.0-only */
/* HTTP content negotiation for the metrics endpoint: which exposition
 * format an Accept header prefers, and whether Accept-Encoding allows gzip.
 * Pure string functions (RFC 9110 lists with q-values). */
#pragma once
#include "sink/prom_format.h"
#include <stdbool.h>

/* What an Accept header allows: whether each format is acceptable (a
 * matching range with q > 0; a range naming another version does not match)
 * and the one to serve (best: the higher q, then the more specific match,
 * then OpenMetrics when both are named alike, text for wildcards). NULL, or
 * a header with no media range in it: both, text first. Neither
 * acceptable: the endpoint answers 406. */
struct http_accept {
	enum prom_format best;
	bool ok[2]; /* by enum prom_format */
};
void http_negotiate(const char *accept, struct http_accept *ret);

/* gzip (or *) listed with a q-value above 0. NULL: no. */
bool http_accepts_gzip(const char *accept_encoding);
