/* SPDX-License-Identifier: GPL-2.0-only */
/* libFuzzer harness for the Accept / Accept-Encoding parser of the metrics
 * endpoint (sink/http_accept.c): a scraper (or anyone who reaches the port)
 * sends these bytes. The input is "accept\0accept-encoding". Checked: a
 * format of the enum, one served only if acceptable, the same answer twice,
 * and what the list grammar fixes whatever came before: an element appended
 * after a comma is parsed on its own, so "X,application/openmetrics-text;
 * version=1.0.0" (the most specific range, q=1) picks OpenMetrics and
 * "X,gzip" accepts gzip, and an element naming neither ("X,identity")
 * changes nothing. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "sink/http_accept.h"

#define H "fuzz_http_accept"

static bool same(const struct http_accept *a, const struct http_accept *b)
{
	return a->best == b->best && a->ok[0] == b->ok[0] && a->ok[1] == b->ok[1];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *part[2];
	char *buf = fuzz_split(data, size, part, 2);
	struct http_accept a, again;
	char *more;
	bool gz;

	if (!buf)
		return 0;
	http_negotiate(part[0], &a);
	fuzz_check(a.best == PROM_FORMAT_TEXT || a.best == PROM_FORMAT_OPENMETRICS, H,
		   "a known format");
	fuzz_check(a.ok[a.best] || (!a.ok[PROM_FORMAT_TEXT] && !a.ok[PROM_FORMAT_OPENMETRICS]), H,
		   "the format served is acceptable");
	http_negotiate(part[0], &again);
	fuzz_check(same(&a, &again), H, "same answer twice");
	gz = http_accepts_gzip(part[1]);
	fuzz_check(http_accepts_gzip(part[1]) == gz, H, "same gzip answer twice");

	more = malloc(strlen(part[0]) + strlen(part[1]) + 64);
	if (more) {
		sprintf(more, "%s,application/openmetrics-text;version=1.0.0", part[0]);
		http_negotiate(more, &again);
		fuzz_check(again.best == PROM_FORMAT_OPENMETRICS && again.ok[PROM_FORMAT_OPENMETRICS],
			   H, "an appended openmetrics element wins");
		sprintf(more, "%s,identity", part[0]);
		http_negotiate(more, &again);
		fuzz_check(same(&a, &again), H, "an unrelated element changes nothing");
		sprintf(more, "%s,gzip", part[1]);
		fuzz_check(http_accepts_gzip(more), H, "an appended gzip element accepts gzip");
		sprintf(more, "%s,identity", part[1]);
		fuzz_check(http_accepts_gzip(more) == gz, H, "an unrelated coding changes nothing");
	}
	free(more);
	free(buf);
	return 0;
}
