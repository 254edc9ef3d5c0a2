/* SPDX-License-Identifier: GPL-2.0-only */
/* The agent's one record per monitored cgroup: its counter slot, identity
 * and names, when counting it started, and for every output the totals of
 * the last row that output wrote (so a row is always the delta since the
 * last one written, whatever failed in between or restarted). The record is
 * what a persistent session keeps across agent restarts (record_encode /
 * record_decode); nothing else of the agent's state needs to survive. */
#pragma once
#include "cgroup/display_name.h"
#include "cgroup/identity.h"
#include "cgroup/metadata.h"
#include "sink/sink.h"
#include "util/id_map.h"
#include "util/readings.h"
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

/* Outputs with a last-written state, by a fixed index (persisted). */
enum record_output_id {
	RECORD_OUT_CSV,
	RECORD_OUT_SYSLOG,
	/* Its rows' deltas add up to the exposed counters (a series new to it
	 * starts from the totals); the index also marks its final row done. */
	RECORD_OUT_PROMETHEUS,
	RECORD_MAX_OUTPUTS = 4
};
/* A mask of every record_output_id (bit n: output n). */
#define RECORD_ALL_OUTPUTS ((1u << RECORD_MAX_OUTPUTS) - 1)

/* A final row that cannot be written at the removal is retried at this many
 * collections before it is reported lost (agent_cgroups.c). */
#define RECORD_FINAL_TRIES 10

struct record_output {
	uint64_t last_ns; /* CLOCK_BOOTTIME of that row's read */
	uint64_t seq; /* rows written */
	unsigned final_tries; /* failed retries of the final row at collections */
	/* Totals of the last row written; last, so that a row with few events
	 * touches few cache lines of it. */
	struct reading last[READINGS_MAX_EVENTS];
};

/* No generation: the kernel never reuses a cgroup id, so the id alone tells
 * a slot's new owner from its old one (agent_cgroups.c gives a slot back
 * only after every output wrote its old owner's final row). */
struct cg_record {
	/* What every collection touches first, together (a collection walks
	 * every record: each cache line here is a miss per row); the names
	 * the view points into last, read only when they change. */
	uint64_t id;
	int slot;
	bool adopted; /* decoded from a persisted session, not seen live yet */
	bool removed; /* gone: its slot holds its last totals */
	bool unsaved; /* persisted: its blob is to be written (again) */
	/* New, its names still being looked up: no interval rows yet
	 * (agent_collect.c), so every row of a container carries its name. */
	bool names_pending;
	uint32_t outputs_done; /* removed: bit n set once output n wrote (or lost) the final row */
	uint64_t created_ns; /* CLOCK_BOOTTIME when counting started */
	uint64_t created_real_ns; /* the same instant on CLOCK_REALTIME */
	struct sink_cgroup view; /* what outputs see: views into the fields below */
	/* Bit n: output n holds rows it formatted but has not written yet
	 * (sink.h SINK_HELD); out[n] is then the base of the rows it formats,
	 * written[n] its last row actually written: what is persisted, and
	 * what a failure goes back to. */
	uint32_t held;
	struct record_output out[RECORD_MAX_OUTPUTS];
	struct record_output *written[RECORD_MAX_OUTPUTS]; /* kept once made */
	char *path;
	char short_id[CG_SHORT_ID_SIZE];
	struct cg_identity ident;
	struct cg_metadata meta;
};

/* Zeroed is empty. */
struct record_set {
	/* The order of a collection's rows: insertion order, a removed
	 * record's place taken by the last one. */
	struct cg_record **items;
	int nr, cap;
	struct id_map by_id;
};

/* A new record (copies path, identity and names). NULL on ENOMEM. */
struct cg_record *record_add(struct record_set *set, uint64_t id, int slot, const char *path,
			     const struct cg_identity *ident, const struct cg_metadata *meta);
/* The cgroup seen live again (adopted records): path, identity, names. */
int record_refresh(struct cg_record *r, const char *path, const struct cg_identity *ident,
		   const struct cg_metadata *meta);
struct cg_record *record_find(const struct record_set *set, uint64_t id);
void record_remove(struct record_set *set, uint64_t id);
void record_clear(struct record_set *set);
/* Live records: not removed. */
int record_count_live(const struct record_set *set);

/* Fetch into the cache what a collection's rows read of r (its head, its
 * view, the last totals of the outputs in the mask, bit n for output n),
 * ahead of them: a record is cold after an interval, and a thousand of
 * them walked one after the other each miss. */
void record_prefetch(const struct cg_record *r, uint32_t outputs, int nr_events);

/* The row an output gets for totals read at now_ns / now_real: the delta
 * since that output's last written row (or since counting started). */
void record_row(const struct cg_record *r, enum record_output_id out, const struct reading *totals,
		int nr_events, uint64_t now_ns, struct reading *ret_delta,
		struct sink_record *ret_rec);
/* The output wrote that row: it becomes the output's base. */
void record_commit(struct cg_record *r, enum record_output_id out, const struct reading *totals,
		   int nr_events, uint64_t now_ns);

/* Rows held by outputs (sink.h SINK_HELD). Before a row that output `out`
 * may hold: room to remember its last written row (-ENOMEM: the row is not
 * to be held). */
int record_hold_ready(struct cg_record *r, enum record_output_id out);
/* The output held the row: it becomes the base of its next row (as
 * record_commit), its last written row stays what is persisted. */
void record_hold(struct cg_record *r, enum record_output_id out, const struct reading *totals,
		 int nr_events, uint64_t now_ns);
/* Whether the output's held rows reached it (with the row answered now):
 * written, nothing is held any more; not, they are dropped and the base
 * goes back to its last written row (their counts go into the next row). */
void record_held_answered(struct cg_record *r, enum record_output_id out, bool written);
/* The output's last row actually written (held rows aside). */
static inline const struct record_output *record_written(const struct cg_record *r,
							 enum record_output_id out)
{
	return (r->held & (1u << out)) ? r->written[out] : &r->out[out];
}

/* The part of a record every collection changes (the last-written totals,
 * time and seq of each output in `outputs`, a mask of record_output_id: the
 * configured ones; removed, outputs_done), saved apart from the blob
 * (persist_totals.h): record_totals_size() bytes. The same mask decodes it. */
size_t record_totals_size(int nr_events, uint32_t outputs);
void record_totals_encode(const struct cg_record *r, int nr_events, uint32_t outputs, void *buf);
/* r's saved totals from buf, output by output where buf's last row is as
 * late or later (its read time, then seq), removed / outputs_done where set: -ENOENT when buf holds
 * another record's (another id, or the same cgroup counted again since:
 * created_ns), another version's, or other events'; r is then untouched.
 * Outputs not in the mask keep r's (its blob's). */
int record_totals_apply(struct cg_record *r, int nr_events, uint32_t outputs, const void *buf);

/* ---- BPF programs (bpf_programs:) ----
 * One record per program logged: its identity, the kernel's run totals at
 * the latest read, and per output the totals of its last written row. Not
 * persisted: the kernel collects the statistics only while the agent holds
 * them on. */
struct prog_output {
	uint64_t runs, run_ns; /* totals of the last row written (or the start) */
	uint64_t counted_runs; /* ... and of the events counted inside it */
	struct reading ev[READINGS_MAX_EVENTS];
	uint64_t last_ns; /* CLOCK_BOOTTIME of that row's read (or the start) */
	uint64_t seq;
	unsigned final_tries;
};

/* The agent's fentry/fexit on one program (agent_prof.c). */
struct prog_prof {
	int idx; /* index in the agent's profiler while attached, else -1 */
	/* cannot take fentry (said once), or cgperf's own: never tried */
	bool never;
	uint64_t retry_at; /* an attach failed: not tried before this collection */
	bool counted; /* attached at least once: its rows have event cells */
	uint64_t runs_seen; /* the kernel's run count at the previous collection */
	/* counted_runs / ev totals when the current attachment began */
	uint64_t base_runs;
	struct reading base[READINGS_MAX_EVENTS];
};

struct prog_record {
	uint32_t id;
	char name[16], tag[17], type[32];
	uint64_t runs, run_ns; /* the kernel's totals at the latest read */
	/* Events counted inside it (agent_prof.c): totals since the record
	 * started, over every time fentry/fexit was attached. */
	uint64_t counted_runs;
	struct reading ev[READINGS_MAX_EVENTS];
	struct prog_prof prof;
	bool seen; /* found by the latest walk */
	bool removed; /* gone (or the agent stops): last rows owed */
	uint32_t outputs_done; /* removed: bit n set once output n wrote (or lost) it */
	struct sink_prog view;
	struct prog_output out[RECORD_MAX_OUTPUTS];
};

struct prog_set {
	struct prog_record **items;
	int nr, cap;
};

/* A new record whose rows count from totals runs/run_ns at from_ns
 * (CLOCK_BOOTTIME). NULL on ENOMEM. */
struct prog_record *record_prog_add(struct prog_set *set, uint32_t id, const char *name,
				    const char *tag, const char *type, uint64_t runs,
				    uint64_t run_ns, uint64_t from_ns);
struct prog_record *record_prog_find(const struct prog_set *set, uint32_t id);
void record_prog_remove(struct prog_set *set, uint32_t id);
void record_prog_clear(struct prog_set *set);
/* The row an output gets now: the change since its last written row; with
 * nr_events > 0 (events counted inside programs) also counted_runs and the
 * events' changes (into ret_delta, nr_events of them). */
void record_prog_row(const struct prog_record *r, enum record_output_id out, uint64_t now_ns,
		     int nr_events, struct reading *ret_delta, struct sink_prog_record *ret);
void record_prog_commit(struct prog_record *r, enum record_output_id out, uint64_t now_ns);

/* Persisted form: a fixed-size blob (RECORD_BLOB_SIZE bytes) holding the
 * numbers and the strings a final row needs when the cgroup is gone by the
 * time a new agent reads it. -ENAMETOOLONG: the strings do not fit (the
 * record is then kept without a persisted form; see docs/AGENT.md). */
#define RECORD_BLOB_SIZE 2048
#define RECORD_BLOB_VERSION 1
/* labels_tag: which runtime label keys meta.labels holds the values of
 * (record_labels_tag()); 0: none kept. They are kept when they fit. */
int record_encode(const struct cg_record *r, int nr_events, uint32_t labels_tag, void *blob);
/* A record from a blob, added to set (adopted = true); its identity is
 * decided again from the path below ROOT (cgroups.root: anchoring is by
 * the configured root, also for cgroups gone while the agent was down).
 * -EINVAL: not a record of this version / event count. Labels (see
 * record_encode) are taken when labels_tag is the one they were kept with. */
int record_decode(struct record_set *set, const char *root, const void *blob, int nr_events,
		  uint32_t labels_tag, struct cg_record **ret);
/* The tag of nr label keys (0 for none): labels persisted under other keys
 * (a changed config) are not taken for these. */
uint32_t record_labels_tag(const char (*keys)[METADATA_LABEL_MAX], int nr);
