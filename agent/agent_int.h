/* SPDX-License-Identifier: GPL-2.0-only */
/* The agent's state, shared by its files (agent.c: lifecycle and loop,
 * agent_cgroups.c: cgroups coming and going, agent_admit.c: who gets a slot,
 * agent_count.c: counting a cgroup, agent_collect.c: collections and last
 * rows, agent_final.c: last rows that fail, agent_progs.c: BPF programs,
 * agent_prof.c: events inside them,
 * persist.c: the persistent session's records). Internal to agent/.
 * Calls run one way: cgroups -> admit -> count, collect -> progs -> prof,
 * final. */
#pragma once
#include "agent/admission.h"
#include "agent/agent.h"
#include "agent/record.h"
#include "bpf/counter.h"
#include "bpf/session_pin.h"
#include "cgroup/metadata.h"
#include "cgroup/select.h"
#include "cgroup/watch.h"
#include "events/derived.h"
#include "events/event_parse.h"
#include "sink/prom_http.h"
#include "sink/sink.h"
#include "util/log.h"

#define AGENT_MAX_OUTPUTS 4
/* bpf_programs: programs whose events are counted at once, and fentry/fexit
 * attaches per collection (each loads two programs: milliseconds that must
 * not stall the loop); a program whose attach failed for a reason that may
 * pass is tried again after this many collections. */
#define AGENT_PROF_MAX 64
#define AGENT_PROF_ATTACHES 8
#define AGENT_PROF_RETRY 6

struct prog_profiler;
struct pending_row; /* agent_collect.c */
struct cpuhp_notify;

struct agent_output {
	struct sink *sink;
	enum record_output_id id;
	const char *name;
};

struct agent {
	struct agent_config cfg;
	struct event_spec events[READINGS_MAX_EVENTS];
	const char *event_names[READINGS_MAX_EVENTS];
	int nr_events;
	uint32_t events_gen; /* moved by every resolve_events (sink_record.events_gen) */
	struct derived_map derived; /* which events feed which derived metric */
	struct counter *counter;
	/* Wakes the loop when CPUs go on- or offline; NULL: read every second. */
	struct cpuhp_notify *cpuhp;
	struct cg_watch *watch;
	struct agent_output outputs[AGENT_MAX_OUTPUTS];
	int nr_outputs;
	struct sink *syslog; /* also in outputs[], driven by the loop */
	struct sink *csv; /* also in outputs[] */
	struct sink *prom; /* also in outputs[]: Prometheus endpoint and/or textfile */
	/* The HTTP endpoint outlives agent_stop/agent_start (reload): scrapers see
	 * no gap, and a new address that cannot be bound leaves the old one. */
	struct prom_http *http;
	struct timespec started; /* CLOCK_REALTIME of agent_start: health counters' _created */
	struct record_set recs;
	/* Some record in recs may be removed with its last rows to write: the
	 * next collection syncs every CPU (agent_collect.c read_all). Set where
	 * records are removed outside a collection, recomputed after each. */
	bool last_rows_pending;
	struct metadata_roots roots;
	struct name_lookup *names;
	struct cg_selector sel;
	bool sel_needs_names; /* name: patterns: containers wait for their names */
	const char *include[CONFIG_MAX_PATTERNS], *exclude[CONFIG_MAX_PATTERNS];
	struct reading *vals; /* cfg.cgroups.max * nr_events */
	/* Rows an output queued (sink.h SINK_QUEUED), answered by the outputs'
	 * flush: what each answer needs (agent_collect.c). */
	struct pending_row *pending;
	int nr_pending, cap_pending;
	/* The persistent session (cfg.persist): its directory, held locked. */
	char pin_dir[600];
	int lock_fd, state_fd;
	struct persist_totals *totals; /* every record's totals, saved per collection */
	uint64_t *keys; /* save_blobs' buffers: a batch of keys and blobs */
	unsigned char *blobs;
	bool release; /* `cgperf release`: last rows, then remove the pins */
	enum accum_request accum; /* a new session's accumulators (--accumulators) */
	/* bpf_programs (agent_progs.c). */
	struct prog_set progs;
	bool progs_on;
	/* Events inside them (agent_prof.c, bpf_programs.events): NULL when
	 * off or where trampolines are refused. */
	struct prog_profiler *prof;
	/* The counting session's programs: cgperf's own, never profiled. */
	uint32_t own_ids[COUNTER_MAX_PROGS];
	int nr_own;
	uint64_t prof_round; /* collections since the start (for retries) */
	int nr_profiled; /* programs attached now */
	unsigned long long prof_skipped; /* attaches refused: AGENT_PROF_MAX attached */
	struct log_ratelimit prof_target_rl, prof_fail_rl, prof_max_rl;
	int prog_stats_fd; /* BPF_ENABLE_STATS, or -1 (off, or the sysctl was on) */
	uint64_t progs_since_ns; /* CLOCK_BOOTTIME just before the statistics were on */
	/* Selected cgroups without a slot (agent_admit.c); while starting every
	 * one waits here while admit_held. */
	struct adm_waiting waiting;
	bool admit_held, in_watch_cb; /* held: the initial scan, the stop */
	/* For the summary line. */
	unsigned long long cgroups_seen, finals_lost, resumed, gone_while_down;
	unsigned over_cap, evicted;
	struct log_ratelimit cap_rl, delegated_rl, evict_rl, add_rl, write_rl, watch_rl, final_rl,
		persist_rl;
};

/* agent_cgroups.c */
extern const struct cg_watch_ops agent_watch_ops;
/* Names looked up off the loop (name_lookup_collect's callback). */
void agent_on_names(void *ctx, uint64_t id, const char *path, const struct cg_identity *ident,
		    const struct cg_metadata *meta);

/* agent_collect.c */
/* sink.done of every output: a queued row's answer. */
void agent_row_done(void *ctx, const void *cookie, int result);
/* What a read is, which decides what a failed final row means: at a
 * cgroup's removal (between intervals) or at the collection that finds a
 * BPF program gone it is not a retry; at each later collection it uses up
 * one of RECORD_FINAL_TRIES; at the session's last read nothing comes after
 * it. EXIT: the agent's last read while its persistent session goes on
 * (cgroups' rows are not final, pending ones stay for the next agent; BPF
 * programs' are: their statistics end with the agent). */
enum collection_kind {
	COLLECT_REMOVAL,
	COLLECT_INTERVAL,
	COLLECT_EXIT,
	COLLECT_LAST,
};

struct collection {
	uint64_t now_ns; /* CLOCK_BOOTTIME of the read */
	struct timespec now; /* CLOCK_REALTIME of the same read: every row's timestamp */
	enum collection_kind kind;
};

/* The configured outputs with a last-written state: a mask of
 * record_output_id. */
static inline uint32_t agent_outputs_mask(const struct agent *a)
{
	uint32_t mask = 0;

	for (int i = 0; i < a->nr_outputs; i++)
		mask |= 1u << a->outputs[i].id;
	return mask;
}

/* Read every slot in use once and write a row per record to every output;
 * LAST: every cgroup's last row (the session ends). */
void agent_collect(struct agent *a, enum collection_kind kind);
/* A pinned session that counts something else: its last rows (with its
 * own events), then it is removed. */
void agent_drain(struct agent *a);
/* The cgroup's last rows (removed, or giving its slot up): its key goes,
 * one read, final rows to every output; the slot goes back once all are out. */
void agent_finish_counting(struct agent *a, struct cg_record *r);

/* agent_final.c: output o could not write a final row in a read of this
 * kind: false while it is kept for a retry (*tries counts them), true once
 * it is given up now, logged (rate-limited, fmt names whose row it was) and
 * counted in finals_lost. */
bool agent_final_failed(struct agent *a, const struct agent_output *o, unsigned *tries,
			enum collection_kind kind, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* agent_count.c */
/* Count the cgroup: in the slot of its adopted record r, or a new one;
 * says why it cannot (rate-limited). */
void agent_count_now(struct agent *a, struct cg_record *r, const struct cg_watch *w,
		     const char *path, uint64_t id, const struct cg_identity *ident,
		     const struct cg_metadata *meta);
/* A waiting cgroup gets its slot: counted from now on, its names looked up. */
void agent_count_waiting(struct agent *a, const struct cg_watch *w, uint64_t id);
/* Only containers and pods have names in the runtimes' files. */
bool agent_has_names(const struct cg_identity *ident);
void agent_names_pending(struct agent *a, uint64_t id);

/* agent_admit.c */
/* A selected cgroup without a record: true when it can be counted now (a
 * free slot, or one a worse class gave up), else it waits. */
bool agent_slot_for(struct agent *a, uint64_t id, const char *path,
		    const struct cg_identity *ident);
/* Gone or counted: no longer waiting. */
void agent_wait_forget(struct agent *a, uint64_t id);
/* Free slots to the best waiting cgroups (and worse classes' slots to
 * better waiting ones); w: the watcher, from its callbacks too. */
void agent_fill_slots(struct agent *a, const struct cg_watch *w);
/* The initial scan is done: slots by class and age, not readdir order. */
void agent_admit_started(struct agent *a);
/* A waiting cgroup needs no inotify watch unless host containers can
 * appear below it. */
bool agent_waiting_unwatched(const struct agent *a, uint64_t id, const char *path);

/* agent_metrics.c: after a collection that took collection_s, the
 * exposition with the agent's own numbers (no-op without a Prometheus output). */
void agent_publish_metrics(struct agent *a, double collection_s);

/* agent_progs.c: turn the BPF statistics on and read the programs'
 * bases (no-op without bpf_programs.include); each collection's program
 * rows (EXIT, LAST: every program's last row); off again, records dropped. */
int agent_progs_start(struct agent *a);
void agent_progs_collect(struct agent *a, const struct collection *col);
void agent_progs_stop(struct agent *a);

/* agent_prof.c: events counted inside the programs logged, with
 * bpf_programs.events, where the kernel allows trampolines (else one line
 * says why, at start). */
void agent_prof_start(struct agent *a);
/* A program seen first: true when it is cgperf's own (its counting
 * session's, its profiler's), which is logged but never profiled. */
bool agent_prof_track(struct agent *a, struct prog_record *r);
/* The event columns of program rows: the agent's events, or 0. */
int agent_prof_events(const struct agent *a);
/* After r's statistics were read: its event totals, and fentry/fexit on
 * it while it runs (attached when its run count moved, or at first sight,
 * using up one of *budget's attaches, none when *budget is 0; detached
 * when it did not move). Once per collection for each program.
 * True when it was detached now: it may be gone (ours were its last
 * references). */
bool agent_prof_update(struct agent *a, struct prog_record *r, int *budget);
/* r is let go (removed): its trampolines closed. */
void agent_prof_detach(struct agent *a, struct prog_record *r);
/* Every target detached, the profiler closed. */
void agent_prof_stop(struct agent *a);

/* persist.c */
/* Session dir, counter, state map; adopts. -ESTALE: a session that counts
 * something else is pinned (agent_drain it, then open again); -ENOENT:
 * releasing and nothing is pinned. */
int persist_open(struct agent *a);
struct persist_drained {
	struct counter *old;
	struct session_meta meta;
	const char *names[READINGS_MAX_EVENTS];
	struct derived_map derived; /* of the drained session's events */
	struct record_set recs;
	struct reading *vals; /* meta.max_slots * meta.nr_events */
};
/* Read the pinned session one last time (< 0: unreadable, removed, said). */
int persist_drain_begin(struct agent *a, struct persist_drained *ret);
void persist_drain_end(struct agent *a, struct persist_drained *d); /* says so, removes it */
void persist_close(struct agent *a, bool release);
int persist_load(struct agent *a); /* adopted: records from the state map */
void persist_reconcile(struct agent *a); /* after the initial scan: gone while down */
void persist_put(struct agent *a, struct cg_record *r);
void persist_save(struct agent *a); /* every record's totals, after a collection */
void persist_forget(struct agent *a, uint64_t id);
/* Every instance but `except` released without rows; -EBUSY if one runs. */
int persist_release_all(const char *except);
