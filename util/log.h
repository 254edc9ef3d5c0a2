/* SPDX-License-Identifier: GPL-2.0-only */
/* The program's own diagnostics: one line each, to stderr, "cgperf: " prefixed.
 * Levels: error and warning always, info with -v, debug with -vv. */
#pragma once
#include "util/escape.h"
#include <stdarg.h>

/* A line, an escaped cgroup path of PATH_MAX bytes included. */
#define LOG_LINE_MAX (4 * 4096 + 1024)

/* Every string a tenant (or anyone but the program) chose — cgroup paths,
 * container and file names, command-line words — goes into a log line as
 * log_name(s): escaped by the one escaper (util/escape.h) into a buffer that
 * lives until the end of the caller's block. Long strings are cut ("..."). */
#define LOG_NAME_MAX (4 * 4096 + 8) /* a whole PATH_MAX path, every byte escaped */
#define log_name(s) text_escape_control((s), (char[LOG_NAME_MAX]){ 0 }, LOG_NAME_MAX)

enum log_level {
	LOG_LVL_ERROR,
	LOG_LVL_WARN,
	LOG_LVL_INFO,
	LOG_LVL_DEBUG
};

void log_set_level(enum log_level max);
void log_msg(enum log_level lvl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define log_error(...) log_msg(LOG_LVL_ERROR, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_LVL_WARN, __VA_ARGS__)
#define log_info(...) log_msg(LOG_LVL_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_LVL_DEBUG, __VA_ARGS__)

/* At most one line per `interval_s` for one call site; the next printed line
 * says how many were suppressed in between. Keep one static state per site. */
struct log_ratelimit {
	long long last; /* CLOCK_MONOTONIC seconds of the last printed line */
	unsigned suppressed;
};
void log_ratelimited(struct log_ratelimit *rl, int interval_s, enum log_level lvl, const char *fmt,
		     ...) __attribute__((format(printf, 4, 5)));
