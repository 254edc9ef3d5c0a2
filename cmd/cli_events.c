// SPDX-License-Identifier: GPL-2.0-only
#include "cmd/cli_events.h"
#include "cmd/cli.h"
#include "events/event_probe.h"
#include "util/log.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>

static void remember_skipped(struct cli_events *e, const struct event_spec *ev, const char *msg)
{
	struct cli_skipped_event *s;

	if (!e->ret_skipped || e->nr_skipped >= e->max_skipped)
		return;
	s = &e->ret_skipped[e->nr_skipped++];
	s->spec = *ev;
	snprintf(s->reason, sizeof(s->reason), "%s", msg);
}

int cli_resolve_events(struct cli_events *e)
{
	struct event_spec all[64];
	char err[512], msg[512];
	int n, kept = 0;

	/* A group must be scheduled together on the PMU; a shared leader reads
	 * one event, so groups cannot be served. Say so rather than mis-parse. */
	if (strpbrk(e->list, "{}")) {
		fprintf(stderr,
			"%s: event groups ('{...}') are not supported: shared leaders "
			"read single events; list the events without braces\n",
			e->cmd);
		return -EXIT_USAGE;
	}
	n = event_parse_list(e->list, all, 64, err, sizeof(err));
	if (n < 0) {
		fprintf(stderr, "%s: %s\n", e->cmd, log_name(err));
		return -EXIT_USAGE;
	}
	e->nr_skipped = 0;
	for (int i = 0; i < n; i++) {
		int r = event_probe(&all[i], msg, sizeof(msg));

		if (r == -EACCES || r == -EPERM) {
			fprintf(stderr, "%s: %s\n", e->cmd, log_name(msg));
			return -EXIT_RUNTIME;
		}
		if (r < 0) {
			if (e->strict) {
				fprintf(stderr, "%s: %s\n", e->cmd, log_name(msg));
				return -EXIT_RUNTIME;
			}
			log_warn("%s; skipping it", log_name(msg));
			remember_skipped(e, &all[i], msg);
			continue;
		}
		if (kept == e->max) {
			fprintf(stderr, "%s: at most %d events per session\n", e->cmd, e->max);
			return -EXIT_USAGE;
		}
		e->ret_events[kept++] = all[i];
	}
	if (kept == 0) {
		fprintf(stderr, "%s: none of the events is supported on this host\n", e->cmd);
		return -EXIT_RUNTIME;
	}
	return kept;
}
