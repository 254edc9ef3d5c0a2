/* SPDX-License-Identifier: GPL-2.0-only */
/* Where the agent's per-cgroup counts go: one small interface, one file per
 * output (CSV, syslog, ...). Outputs are formatters and writers only: the
 * agent's per-cgroup record keeps, for every output, the totals of the last
 * row that output wrote, and hands it the delta since then (util/readings.h
 * computes it). A row that could not be written is not lost: the output says
 * so (write() < 0), the agent does not advance that output's totals, and the
 * next row it writes holds those counts too. */
#pragma once
#include "events/derived.h"
#include "util/readings.h"
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

/* Runtime labels a cgroup carries to the outputs (cgroup/metadata.h's
 * METADATA_MAX_LABELS). */
#define SINK_MAX_LABELS 4

struct sink_cgroup {
	uint64_t id; /* cgroup id */
	const char *path; /* relative to the cgroup2 root; any bytes but NUL */
	const char *kind; /* container, pod, service, slice, other */
	const char *runtime;
	const char *container_id; /* 12-char short id or "" */
	const char *container_name;
	const char *pod;
	const char *pod_namespace;
	const char *image; /* "" if unknown */
	/* The values of the runtime labels asked for (outputs.prometheus.
	 * container_labels), in that order; "" where the container has none. */
	const char *labels[SINK_MAX_LABELS];
	/* Changes whenever a field above does (0: unknown, as if it always
	 * did): outputs may keep what they made of the fields until then. */
	uint32_t gen;
};

struct sink_record {
	struct timespec time; /* CLOCK_REALTIME of the collection's read: the
	                                      * same for every row of one collection */
	const struct sink_cgroup *cgroup;
	int nr_events;
	const char *const *event_names; /* perf-style names */
	/* Changes whenever nr_events or event_names' strings do (0: unknown,
	 * as if it always did): outputs may keep what they made of them. */
	uint32_t events_gen;
	const struct reading *totals; /* cumulative since counting the cgroup started */
	const struct reading *delta; /* since this output's last written row */
	/* Which events feed which derived metric (outputs' `derived:`); NULL:
	 * none can be computed. */
	const struct derived_map *derived;
	bool interval_known; /* false: where the delta starts is unknown */
	uint64_t interval_ms; /* length of the delta's interval (CLOCK_BOOTTIME) */
	uint64_t seq; /* 1 for the first row this output writes for
	                                      * the cgroup, then 2, ... (across agent restarts) */
	bool final; /* the cgroup is gone: its last row */
	struct timespec created; /* CLOCK_REALTIME when counting the cgroup started */
	const void *cookie; /* handed back with a queued row's result (sink.done) */
	/* The writer can take SINK_HELD for this row (never a final row). */
	bool may_hold;
};

/* A BPF program the agent logs (bpf_programs:), and one row of it: the
 * kernel's run count and run time since that output's last written row,
 * and where the agent counts events inside programs (fentry/fexit), the
 * runs it counted and each event's change inside them. */
struct sink_prog {
	uint32_t id;
	const char *name; /* the kernel's name, at most 15 bytes */
	const char *tag; /* 16 hex digits */
	const char *type; /* "socket_filter", "xdp", ... */
};

struct sink_prog_record {
	struct timespec time; /* CLOCK_REALTIME of the collection's read */
	const struct sink_prog *prog;
	uint64_t interval_ms; /* length of the row's interval (CLOCK_BOOTTIME) */
	uint64_t runs, run_ns; /* in that interval */
	/* Events counted inside programs: the agent's events (the columns; 0:
	 * the agent counts none, no columns). */
	int nr_events;
	const char *const *event_names;
	bool counted; /* this program's events are counted (else empty cells) */
	uint64_t counted_runs; /* runs whose entry and exit were both seen */
	const struct reading *delta; /* nr_events changes inside those runs */
	uint64_t seq; /* 1 for the first row this output writes for the program */
	bool final; /* the program is gone (or the agent stops): its last row */
};

/* r can be written: the program's names, and where it has event columns
 * their names and (counted) its changes. */
static inline bool sink_prog_record_valid(const struct sink_prog_record *r)
{
	return r && r->prog && r->prog->name && r->prog->tag && r->prog->type &&
	       r->nr_events >= 0 && r->nr_events <= READINGS_MAX_EVENTS &&
	       (!r->nr_events || (r->event_names && (!r->counted || r->delta)));
}

struct sink;

/* write() queued the row (CSV: appended with many others in one system
 * call): its result comes through sink.done, at the latest from flush(). */
#define SINK_QUEUED 1
/* write() held the row (only when sink_record.may_hold): it is written
 * with a later row of the same cgroup, in one append, and that row's answer
 * is theirs too. Until then the writer makes the next row's delta from this
 * one, but keeps the last row written as what survives it (the agent's
 * persisted totals): a failure, or an agent killed meanwhile, puts the held
 * rows' counts into a later row. An output drops what it holds for a
 * cgroup whenever it answers one of its rows with an error. */
#define SINK_HELD 2

/* A queued row's result: 0 written, or negative errno, as write() would
 * have returned; cookie is the record's. */
typedef void (*sink_done_fn)(void *ctx, const void *cookie, int result);

struct sink_ops {
	const char *name;
	/* Write (or queue) one row. 0: written, the agent advances this
	 * output's last-written totals; negative errno: not written, counted and
	 * reported by the output itself (rate-limited), the counts go into the
	 * next row; SINK_QUEUED (only when sink.done is set, never for a final
	 * row): the same answer comes later through sink.done. */
	int (*write)(struct sink *s, const struct sink_record *r);
	/* The same for a BPF program's row. Optional: outputs without it
	 * (Prometheus) get no BPF program rows. */
	int (*write_prog)(struct sink *s, const struct sink_prog_record *r);
	/* Called after rows: once per collection, and after the final rows of a
	 * cgroup removed between collections. Every queued row's result is in
	 * when it returns. Optional. */
	int (*flush)(struct sink *s);
	/* Called once per collection (interval), after flush: upkeep with
	 * bounded work (CSV retention). Optional. */
	int (*tick)(struct sink *s);
	/* SIGHUP: reopen files / reconnect. */
	int (*reopen)(struct sink *s);
	void (*free)(struct sink *s);
};

struct sink {
	const struct sink_ops *ops;
	/* Set by a writer that can take results later (the agent): outputs
	 * may then queue rows. NULL: every write() answers at once. */
	sink_done_fn done;
	void *done_ctx;
	/* Set by the output: it may answer SINK_HELD (where a row allows). */
	bool may_hold;
};
