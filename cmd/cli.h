/* SPDX-License-Identifier: GPL-2.0-only */
/* What every command of the cgperf program shares: the exit codes, the one
 * usage error, small parsers, and the -e list and the wait of the counting
 * commands (`stat`, `top`). */
#pragma once
#include "bpf/accum.h"
#include "events/event_parse.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/signalfd.h>

/* Exit codes of every command. */
enum {
	EXIT_OK = 0,
	EXIT_RUNTIME = 1,
	EXIT_USAGE = 2
};

/* The usage error of every command: "cgperf CMD: " + fmt with arg in its
 * one %s (escaped: it may be anything the user typed; NULL: fmt has no %s
 * and is printed as it is) + " (see 'cgperf CMD --help')" on stderr.
 * Returns EXIT_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, const char *arg);
/* A command's exit code for a helper's -errno: -EINVAL (what the command
 * line asks cannot be) is EXIT_USAGE, any other failure EXIT_RUNTIME. */
int cli_exit_code(int r);

/* ---- parsers: each returns 0 or -EINVAL ---- */

int parse_u64(const char *s, uint64_t max, uint64_t *ret);
/* "2", "2.5", "2s", "500ms", "1m": seconds as a positive double. */
int parse_seconds(const char *s, double *ret);
/* --accumulators: "auto", "hash" or "array". */
int parse_accum_request(const char *s, enum accum_request *ret);

/* ---- the -e list ---- */

/* The -e list of a counting command (`cgperf stat`, `cgperf top`): parsed,
 * each event probed on this host; unsupported ones are skipped with one
 * warning each (or are fatal with strict). */

/* An event that was asked for and cannot be counted here, and why. */
struct cli_skipped_event {
	struct event_spec spec;
	char reason[512]; /* event_probe()'s message */
};

struct cli_events {
	const char *cmd; /* "cgperf stat": prefix of the messages */
	const char *list; /* "cycles,cs,..." */
	bool strict;
	struct event_spec *ret_events; /* room for max events */
	int max;
	struct cli_skipped_event *ret_skipped; /* NULL, or room for max_skipped */
	int max_skipped, nr_skipped;
};

/* Returns the number of usable events, or after printing why: -EINVAL (a
 * group, a list that does not parse, more than max events), -EACCES or
 * -EPERM (not allowed to count), -EOPNOTSUPP (an event not counted here
 * with strict, or none of them). */
int cli_resolve_events(struct cli_events *e);

/* ---- the wait ---- */

/* The wait of a counting command: until its duration, or a signal that ends
 * it, calling tick at every interval. Shared by `cgperf stat` and `stat -b`. */
struct cli_wait_ops {
	void (*tick)(void *ctx); /* every interval_ms (0: never) */
	/* A signal arrived: true ends the wait. */
	bool (*on_signal)(void *ctx, const struct signalfd_siginfo *si);
	/* When a CPU may have gone on- or offline (bpf/cpuhp_notify.h), else
	 * every CPU_CHECK_MS; NULL: never. */
	void (*cpu_check)(void *ctx);
};

void cli_wait(int sig_fd, uint64_t interval_ms, double duration_s, const struct cli_wait_ops *ops,
	      void *ctx);
