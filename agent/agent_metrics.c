// SPDX-License-Identifier: GPL-2.0-only
/* The agent's own numbers for the Prometheus output, from the outputs' and
 * the watcher's getters, handed over after each collection. */
#include "agent/agent_int.h"
#include "bpf/probe.h"
#include "sink/csv_sink.h"
#include "sink/prom_sink.h"
#include "sink/syslog_sink.h"

void agent_publish_metrics(struct agent *a, double collection_s)
{
	struct prom_health h;
	struct csv_sink_stats cs;
	struct syslog_sink_stats ss;
	char reason[256];
	struct unseen_stats unseen;

	/* Nothing to count without the output (the count walks every record). */
	if (!a->prom)
		return;
	h = (struct prom_health){
		.cgroups_monitored = (uint64_t)record_count_live(&a->recs),
		.cgroups_over_cap = a->over_cap,
		.collection_duration_s = collection_s,
		.version = CGPERF_PROJECT_VERSION, /* the project() line, as cgperf --version */
		.follower_mode = follower_mode_key(counter_mode(a->counter)),
		.since = a->started,
	};
	if (a->csv && csv_sink_get_stats(a->csv, &cs) == 0) {
		h.have_csv = true;
		h.csv_rows_written = cs.rows_written;
		h.csv_rows_failed = cs.rows_failed;
		h.csv_rows_held = cs.held_now;
	}
	if (a->syslog && syslog_sink_get_stats(a->syslog, &ss) == 0) {
		h.have_syslog = true;
		h.syslog_sent = ss.sent;
		h.syslog_dropped = ss.dropped;
	}
	if (counter_unseen_switches(a->counter, &unseen) == 0) {
		h.have_unseen = true;
		h.unseen_switches = unseen.switches;
		h.unseen_ns = unseen.ns;
		h.unseen_faults = unseen.faults;
	}
	counter_sync_stats(a->counter, &h.cpu_syncs, &h.cpu_syncs_skipped);
	h.watch_limit_reached = a->watch && cg_watch_limit_reason(a->watch, reason, sizeof(reason));
	prom_sink_publish(a->prom, &h);
}
