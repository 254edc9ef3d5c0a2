/* SPDX-License-Identifier: GPL-2.0-only */
/* The Prometheus exposition, built in memory from a neutral array of
 * per-cgroup series: text format 0.0.4 or OpenMetrics 1.0. Pure: no I/O, no
 * clock, no locale (every number is printed from integers). Families, labels
 * and formats: docs/PROMETHEUS.md. */
#pragma once
#include "sink/sink.h"
#include "util/buf.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* Append s as the inside of a label value: '\\', '"' and newline escaped,
 * bytes that are not UTF-8 replaced by U+FFFD (both formats require UTF-8). */
int prom_escape_label_value(struct buf *b, const char *s);

/* The label pairs of a cgroup, minus `event`, escaped, ready to be pasted
 * after `{event="…",`: cgroup="…",kind="…",runtime="…",container_id="…",
 * container_name="…",pod="…",namespace="…". Computed once per cgroup. */
int prom_cgroup_labels(struct buf *b, const struct sink_cgroup *cg);

/* The same cgroup in cAdvisor's labels, which sort around `event`: first
 * container_label_<key>="…" for each of label_names (label_names[i] is the
 * made name of the key whose value is cg->labels[order[i]]; sorted) and
 * cpu="" (the sum over CPUs: cAdvisor without per-CPU metrics), then after
 * event: id="<path>",image="…",name="<container name>". *ret_split: where
 * `event` goes. */
int prom_cadvisor_labels(struct buf *b, const struct sink_cgroup *cg,
			 const char *const *label_names, const int *order, int nr,
			 size_t *ret_split);

enum prom_format {
	PROM_FORMAT_TEXT,
	PROM_FORMAT_OPENMETRICS
};

#define PROM_CONTENT_TYPE_TEXT "text/plain; version=0.0.4; charset=utf-8"
#define PROM_CONTENT_TYPE_OPENMETRICS "application/openmetrics-text; version=1.0.0; charset=utf-8"

/* Which names the per-cgroup families are exposed under (bits, as the
 * config's enum prom_names). */
#define PROM_NAMES_CGPERF_BIT 1u
#define PROM_NAMES_CADVISOR_BIT 2u

/* One cgroup's series. */
struct prom_series {
	const char *labels; /* from prom_cgroup_labels() */
	size_t labels_len;
	const char *cadvisor; /* from prom_cadvisor_labels() (cAdvisor's names) */
	size_t cadvisor_len, cadvisor_split;
	const uint64_t *totals; /* [nr_events]: scaled counts since `created` */
	const double *running_ratio; /* [nr_events]: over the last interval; < 0: not known yet
	                               * (no sample is written) */
	struct timespec created; /* CLOCK_REALTIME when the cgroup was first counted */
};

/* The agent's own numbers. A `have_*` false leaves that family out (the
 * output is not configured). */
struct prom_health {
	uint64_t cgroups_monitored;
	uint64_t cgroups_over_cap;
	double collection_duration_s;
	bool have_csv;
	uint64_t csv_rows_written, csv_rows_failed;
	uint64_t csv_rows_held; /* now: held, to be appended with a later row */
	bool have_syslog;
	uint64_t syslog_sent, syslog_dropped;
	bool watch_limit_reached;
	bool have_unseen; /* the follower's count of switches sched_switch hid */
	uint64_t unseen_switches, unseen_ns, unseen_faults;
	/* CPUs the counter's syncs ran on, and those left out (idle, owing
	 * nothing: bpf/sync_skip.h). */
	uint64_t cpu_syncs, cpu_syncs_skipped;
	const char *version;
	const char *follower_mode;
	struct timespec since; /* CLOCK_REALTIME the health counters started from (_created) */
};

struct prom_input {
	unsigned names; /* PROM_NAMES_*_BIT; 0: cgperf's */
	int nr_events;
	const char *const *event_names;
	const struct prom_series *series;
	size_t nr_series;
	const struct prom_health *health;
};

/* Build the whole exposition into b (appended). Series whose escaped labels
 * equal an earlier series' (two cgroup names that differ only in bytes that
 * are not UTF-8 escape to the same value) are left out, since a scrape with
 * a duplicate series is rejected as a whole; their number (the larger of
 * the two namings') goes to *ret_dropped. Returns 0 or -ENOMEM. */
int prom_build(const struct prom_input *in, enum prom_format fmt, struct buf *b,
	       size_t *ret_dropped);
