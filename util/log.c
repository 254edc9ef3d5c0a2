// SPDX-License-Identifier: GPL-2.0-only
#include "util/log.h"
#include <stdio.h>

static enum log_level max_level = LOG_LVL_WARN;

void log_set_level(enum log_level max)
{
	max_level = max;
}

void log_msg(enum log_level lvl, const char *fmt, ...)
{
	static const char *const prefix[] = { "error: ", "warning: ", "", "debug: " };
	va_list ap;

	if (lvl > max_level)
		return;
	/* One fprintf per line so concurrent writers do not interleave mid-line.
	 * Room for an escaped cgroup path of PATH_MAX bytes (4 per byte). */
	char line[LOG_LINE_MAX];
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fprintf(stderr, "cgperf: %s%s\n", prefix[lvl], line);
}

#include <time.h>

void log_ratelimited(struct log_ratelimit *rl, int interval_s, enum log_level lvl, const char *fmt,
		     ...)
{
	struct timespec now;
	char line[LOG_LINE_MAX - 128];
	va_list ap;

	clock_gettime(CLOCK_MONOTONIC, &now);
	if (rl->last && now.tv_sec - rl->last < interval_s) {
		rl->suppressed++;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (rl->suppressed)
		log_msg(lvl, "%s (%u similar messages suppressed)", line, rl->suppressed);
	else
		log_msg(lvl, "%s", line);
	rl->last = now.tv_sec ? now.tv_sec : 1;
	rl->suppressed = 0;
}
