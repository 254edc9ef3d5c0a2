// SPDX-License-Identifier: GPL-2.0-only
/* A final row that could not be written: kept for a retry or given up, by
 * the same rules for cgroups (agent_collect.c) and BPF programs
 * (agent_progs.c); see enum collection_kind. */
#include "agent/agent_int.h"
#include <stdarg.h>
#include <stdio.h>

bool agent_final_failed(struct agent *a, const struct agent_output *o, unsigned *tries,
			enum collection_kind kind, const char *fmt, ...)
{
	char what[LOG_NAME_MAX + 64], when[48] = "at the end of the counting session";
	va_list ap;

	if (kind == COLLECT_REMOVAL || (kind != COLLECT_LAST && ++*tries < RECORD_FINAL_TRIES))
		return false;
	if (kind != COLLECT_LAST)
		snprintf(when, sizeof(when), "after %d retries", RECORD_FINAL_TRIES);
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	a->finals_lost++;
	log_ratelimited(&a->final_rl, 60, LOG_LVL_ERROR,
			"%s: gave up the last row of %s %s: its counts since the previous row are "
			"lost (%llu final rows lost so far)",
			o->name, what, when, a->finals_lost);
	return true;
}
