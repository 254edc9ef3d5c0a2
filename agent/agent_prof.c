/* bpf_programs: events counted inside the programs logged, where the kernel
 * allows BPF trampolines (the fentry/fexit profiler of cgperf stat -b,
 * bpf/prog_profiler.h), with the agent's events.
 *
 * A profiled program is held by the kernel for our trampoline: its owner's
 * unload does not free it, so the agent's walk would find it forever. The
 * rule: a program is profiled only while it runs. Every program that can
 * run is held by someone else (an fd, a link, a hook, a prog array: each
 * holds a reference); one held only by our links cannot run at all. So a
 * collection that finds a profiled program's run count unchanged detaches
 * it (its counts read first); if that was the last reference the program is
 * gone at once and gets its final row. One that runs again is attached
 * again at the next collection (its runs before that are in `runs`, not in
 * `counted_runs`). */
#include "agent/agent_int.h"
#include "bpf/probe.h"
#include "bpf/prog_profiler.h"
#include <errno.h>
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

static void attach(struct agent *a, struct prog_record *r, int *budget)
{
	enum prof_failure why;
	char reason[256];

	if (a->nr_profiled >= AGENT_PROF_MAX || *budget <= 0) {
		a->prof_skipped++;
		log_ratelimited(&a->prof_max_rl, 60, LOG_LVL_WARN,
				"bpf_programs: BPF program %u (%s) ran without event counts: at "
				"most %d programs are profiled at once, %d attached per "
				"collection (%llu such runs so far)",
				(unsigned)r->id, log_name(r->name), AGENT_PROF_MAX,
				AGENT_PROF_ATTACHES, a->prof_skipped);
		return;
	}
	(*budget)--;
	if (prog_profiler_attach(a->prof, r->id, &r->prof.idx, &why, reason, sizeof(reason)) < 0) {
		r->prof.idx = -1;
		not_profiled(a, r, why, reason);
		return;
	}
	r->prof.counted = true;
	a->nr_profiled++;
}

bool agent_prof_update(struct agent *a, struct prog_record *r, int *budget)
{
	bool ran = r->runs != r->prof.runs_seen, detached = false;

	r->prof.runs_seen = r->runs;
	if (!a->prof || r->prof.never)
		return false;
	if (r->prof.idx >= 0 && read_counts(a, r) < 0)
		ran = false; /* unreadable: let it go, attach again if it runs */
	if (r->prof.idx >= 0 && !ran) {
		agent_prof_detach(a, r);
		detached = true;
	} else if (r->prof.idx < 0 && (ran || !r->prof.counted)) {
		attach(a, r, budget);
	}
	return detached;
}

void agent_prof_stop(struct agent *a)
{
	if (a->prof && a->prof_skipped)
		log_info("bpf_programs: %llu times a program ran without event counts (at most %d "
			 "profiled at once, %d attached per collection)",
			 a->prof_skipped, AGENT_PROF_MAX, AGENT_PROF_ATTACHES);
	prog_profiler_close(a->prof); /* every target detached */
	a->prof = NULL;
	a->nr_profiled = 0;
}
