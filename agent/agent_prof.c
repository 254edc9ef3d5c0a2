/* bpf_programs: events counted inside the programs logged, where the kernel
 * allows BPF trampolines (the fentry/fexit profiler of cgperf stat -b,
 * bpf/prog_profiler.h), with the agent's events; attached while a program
 * runs (agent/prof_rule.h: why the agent then never keeps a program its
 * owner dropped alive). A program detached is read first; one that runs
 * again is attached again at the next collection (its runs before that are
 * in `runs`, not in `counted_runs`). */
#include "agent/agent_int.h"
#include "agent/prof_rule.h"
#include "bpf/probe.h"
#include "bpf/prog_profiler.h"
#include <string.h>

int agent_prof_events(const struct agent *a)
{
	return a->prof ? a->nr_events : 0;
}

void agent_prof_start(struct agent *a)
{
	char why[256];
	int r = probe_trampolines(why, sizeof(why));

	a->nr_profiled = 0;
	a->prof_skipped = 0;
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

/* Says (rate-limited) why r gets no event counts; never tried again. */
static void not_profiled(struct agent *a, struct prog_record *r, enum prof_failure why,
			 const char *reason)
{
	r->prof.never = true;
	log_ratelimited(why == PROF_TARGET ? &a->prof_target_rl : &a->prof_fail_rl, 60,
			why == PROF_TARGET ? LOG_LVL_INFO : LOG_LVL_WARN,
			"BPF program %u (%s): no event counts inside it: %s", (unsigned)r->id,
			log_name(r->name), reason);
}

/* Unless AGENT_PROF_MAX programs are profiled (counted, said once a minute)
 * or this collection's attaches are used up (the next one tries again). */
static void attach(struct agent *a, struct prog_record *r, int *budget)
{
	enum prof_failure why;
	char reason[256];

	if (a->nr_profiled >= AGENT_PROF_MAX) {
		a->prof_skipped++;
		log_ratelimited(&a->prof_max_rl, 60, LOG_LVL_WARN,
				"bpf_programs: no event counts inside BPF program %u (%s) now: at "
				"most %d programs are profiled at once (%llu times so far)",
				(unsigned)r->id, log_name(r->name), AGENT_PROF_MAX,
				a->prof_skipped);
		return;
	}
	if (*budget <= 0)
		return;
	(*budget)--;
	if (prog_profiler_attach(a->prof, r->id, &r->prof.idx, &why, reason, sizeof(reason)) < 0) {
		not_profiled(a, r, why, reason);
		return;
	}
	r->prof.counted = true;
	a->nr_profiled++;
}

bool agent_prof_update(struct agent *a, struct prog_record *r, int *budget)
{
	bool ran = r->runs != r->prof.runs_seen;
	enum prof_step step;

	r->prof.runs_seen = r->runs;
	if (!a->prof)
		return false;
	if (r->prof.idx >= 0 && read_counts(a, r) < 0)
		ran = false; /* unreadable: let it go, attach again if it runs */
	step = prof_rule_step(r->prof.idx >= 0, r->prof.never, r->prof.counted, ran);
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
}
