/* SPDX-License-Identifier: GPL-2.0-only */
/* The Prometheus output (sink/sink.h): keeps, per cgroup, the scaled totals
 * since it was first counted, the running ratio of the last interval and its
 * labels; after each collection the agent calls prom_sink_publish(), which
 * builds the exposition (sink/prom_format.h), hands it to the HTTP endpoint
 * (sink/prom_http.h) and/or writes the node_exporter textfile. A removed
 * cgroup stays with its final values for keep_removed, then goes. */
#pragma once
#include "sink/prom_format.h"
#include "sink/prom_http.h"
#include "sink/sink.h"
#include <stdint.h>

struct prom_sink_opts {
	struct prom_http *http; /* NULL: no endpoint; not owned */
	const char *textfile; /* NULL: no textfile (copied) */
	uint64_t keep_removed_ms;
	/* The events counted, in the agent's order (not copied: valid while the
	 * sink is). Rows of another event set (a drained session's) are
	 * matched to them by name; their other events are not exported. */
	int nr_events;
	const char *const *event_names;
	unsigned names; /* PROM_NAMES_*_BIT (sink/prom_format.h); 0: cgperf's */
	/* cAdvisor's names: the runtime label keys shown as container_label_<key>
	 * (copied), whose values come in sink_cgroup.labels in this order. */
	int nr_label_keys;
	const char *const *label_keys;
};

/* -EINVAL when neither an endpoint nor a textfile is given, or more than
 * SINK_MAX_LABELS keys, or two keys that make one label name; -ENOMEM. */
int prom_sink_new(const struct prom_sink_opts *o, struct sink **ret);

/* After a collection's records: build and publish. h: the agent's numbers.
 * Failures (memory, the textfile) are counted and reported by the sink
 * (rate-limited); returns 0 or the first negative errno. */
int prom_sink_publish(struct sink *s, const struct prom_health *h);

struct prom_sink_stats {
	uint64_t publishes;
	uint64_t series; /* cgroups in the last exposition (removed ones kept included) */
	uint64_t text_bytes; /* size of the last text exposition */
	uint64_t duplicates; /* series left out for duplicate labels, last exposition */
	uint64_t textfile_writes, textfile_failures;
};
int prom_sink_get_stats(const struct sink *s, struct prom_sink_stats *ret);
