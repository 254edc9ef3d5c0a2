/* SPDX-License-Identifier: GPL-2.0-only */
/* The -e list of a counting command (`cgperf stat`, `cgperf top`): parsed,
 * each event probed on this host; unsupported ones are skipped with one
 * warning each (or are fatal with strict). */
#pragma once
#include "events/event_parse.h"
#include <stdbool.h>
#include <stddef.h>

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

/* Returns the number of usable events, or minus an exit code (EXIT_USAGE,
 * EXIT_RUNTIME) after printing why. */
int cli_resolve_events(struct cli_events *e);
