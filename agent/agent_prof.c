// SPDX-License-Identifier: GPL-2.0-only
/* bpf_programs: events counted inside the programs logged, with
 * bpf_programs.events (off by default), where the kernel allows BPF
 * trampolines (the fentry/fexit profiler of cgperf stat -b,
 * bpf/prog_profiler.h), with the agent's events; attached while a program
 * runs (agent/prof_rule.h: why the agent then never keeps a program its
 * owner dropped alive). A program detached is read first; one that runs
 * again is attached again at the next collection (its runs before that are
 * in `runs`, not in `counted_runs`). */
#include "agent/agent_int.h"
#include "agent/prof_rule.h"
#include "bpf/cpuhp_notify.h"
#include "bpf/probe.h"
#include "bpf/prog_profiler.h"
#include <string.h>

int agent_prof_events(const struct agent *a)
{
	return a->prof ? a->nr_events : 0;
}

/* The counting session's programs: cgperf's own. */
static int read_own_ids(struct agent *a)
{
	int r = counter_prog_ids(a->counter, a->own_ids, &a->nr_own);
	uint32_t notify_id = cpuhp_notify_prog_id(a->cpuhp);

	if (r == 0 && notify_id && a->nr_own < COUNTER_MAX_PROGS)
		a->own_ids[a->nr_own++] = notify_id;
	if (r < 0)
		log_warn("bpf_programs: cannot tell cgperf's own BPF programs: %s; not counting "
			 "events inside programs, logging run counts and run time only",
			 strerror(-r));
	return r;
}

void agent_prof_start(struct agent *a)
{
	char why[256];
	int r;

	a->nr_profiled = 0;
	a->prof_skipped = 0;
	a->prof_round = 0;
	if (!a->cfg.bpf_programs.events || read_own_ids(a) < 0)
		return;
	r = probe_trampolines(why, sizeof(why));
	if (r < 0) {
		log_warn("bpf_programs: event counts inside BPF programs need BPF trampolines "
			 "(fentry/fexit), and %s; logging run counts and run time only",
			 why);
		return;
	}
	r = prog_profiler_open(a->events, a->nr_events, &a->prof);
	if (r < 0) {
		log_warn("bpf_programs: cannot open the events to count inside BPF programs: %s; "
			 "logging run counts and run time only",
			 strerror(-r));
		return;
	}
	log_info("bpf_programs: counting %d events inside the programs logged (fentry/fexit, "
		 "at most %d programs at once)",
		 a->nr_events, AGENT_PROF_MAX);
}

bool agent_prof_track(struct agent *a, struct prog_record *r)
{
	bool own = prog_profiler_owns(a->prof, r->id);

	for (int i = 0; !own && i < a->nr_own; i++)
		own = a->own_ids[i] == r->id;
	if (own)
		r->prof.never = true;
	return own;
}

/* Totals: what earlier attachments counted plus what this one did. */
static int read_counts(struct agent *a, struct prog_record *r)
{
	struct prof_counts c;
	int err = prog_profiler_read(a->prof, r->prof.idx, &c);

	if (err < 0)
		return err;
	r->counted_runs = r->prof.base_runs + c.runs;
	for (int e = 0; e < a->nr_events; e++) {
		r->ev[e] = r->prof.base[e];
		reading_add(&r->ev[e], &c.ev[e]);
	}
	return 0;
}

void agent_prof_detach(struct agent *a, struct prog_record *r)
{
	if (r->prof.idx < 0)
		return;
	prog_profiler_detach(a->prof, r->prof.idx);
	r->prof.idx = -1;
	r->prof.base_runs = r->counted_runs;
	memcpy(r->prof.base, r->ev, sizeof(r->prof.base));
	a->nr_profiled--;
}

/* Says (rate-limited) why r gets no event counts: for good when the cause
 * is the program itself, else until its retry is due. */
static void not_profiled(struct agent *a, struct prog_record *r, const struct prof_error *err)
{
	bool never = err->why == PROF_TARGET;

	if (never)
		r->prof.never = true;
	else
		r->prof.retry_at = a->prof_round + AGENT_PROF_RETRY;
	log_ratelimited(never ? &a->prof_target_rl : &a->prof_fail_rl, 60,
			never ? LOG_LVL_INFO : LOG_LVL_WARN,
			"BPF program %u (%s): no event counts inside it%s: %s", (unsigned)r->id,
			log_name(r->name), never ? "" : " now (tried again later)", err->reason);
}

/* One of AGENT_PROF_MAX programs profiled already: not this one now. */
static void over_cap(struct agent *a, const struct prog_record *r)
{
	a->prof_skipped++;
	log_ratelimited(&a->prof_max_rl, 60, LOG_LVL_WARN,
			"bpf_programs: no event counts inside BPF program %u (%s) now: at most %d "
			"programs are profiled at once (%llu times so far)",
			(unsigned)r->id, log_name(r->name), AGENT_PROF_MAX, a->prof_skipped);
}

/* Unless this collection's attaches are used up (the next one tries
 * again) or AGENT_PROF_MAX programs are profiled (counted, said once a
 * minute). */
static void attach(struct agent *a, struct prog_record *r, int *budget)
{
	struct prof_target on;
	struct prof_error err;

	if (*budget <= 0)
		return;
	if (a->nr_profiled >= AGENT_PROF_MAX) {
		over_cap(a, r);
		return;
	}
	(*budget)--;
	if (prog_profiler_attach(a->prof, r->id, &on, &err) < 0) {
		not_profiled(a, r, &err);
		return;
	}
	r->prof.idx = on.idx;
	r->prof.counted = true;
	a->nr_profiled++;
	log_debug("BPF program %u (%s): counting events inside it (fentry/fexit on its function "
		  "'%s')",
		  (unsigned)r->id, log_name(r->name), log_name(on.func));
}

/* A failed read leaves the totals of the previous one. Still running: read
 * again at the next collection (the counts stay in the profiler's map);
 * else it is let go now and what was counted since that read is lost. */
static void read_failed(struct agent *a, const struct prog_record *r, int err, bool ran)
{
	log_ratelimited(&a->prof_fail_rl, 60, LOG_LVL_WARN,
			"BPF program %u (%s): cannot read the events counted inside it: %s%s",
			(unsigned)r->id, log_name(r->name), strerror(-err),
			ran ? "; read again at the next collection"
			    : "; what was counted since the previous read is lost");
}

bool agent_prof_update(struct agent *a, struct prog_record *r, int *budget)
{
	bool ran = r->runs != r->prof.runs_seen;
	bool attached = r->prof.idx >= 0;
	enum prof_step step;
	int err;

	r->prof.runs_seen = r->runs;
	if (!a->prof)
		return false;
	if (attached && (err = read_counts(a, r)) < 0)
		read_failed(a, r, err, ran);
	step = prof_rule_step(attached, r->prof.never, a->prof_round < r->prof.retry_at,
			      r->prof.counted, ran);
	if (step == PROF_ATTACH)
		attach(a, r, budget);
	else if (step == PROF_DETACH)
		agent_prof_detach(a, r);
	return step == PROF_DETACH;
}

void agent_prof_stop(struct agent *a)
{
	if (a->prof_skipped)
		log_info("bpf_programs: %llu times a program was not profiled: at most %d at once",
			 a->prof_skipped, AGENT_PROF_MAX);
	prog_profiler_close(a->prof); /* every target detached */
	a->prof = NULL;
	a->nr_profiled = 0;
	a->nr_own = 0;
}
