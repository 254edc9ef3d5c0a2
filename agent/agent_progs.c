// SPDX-License-Identifier: GPL-2.0-only
/* bpf_programs: the BPF programs the agent logs, by name. The kernel's
 * statistics of BPF programs (run count, run time) are on through one
 * BPF_ENABLE_STATS fd for as long as the agent runs (bpf/prog_stats.h);
 * every collection walks the host's programs and writes one row per
 * program logged to every output that takes program rows (with the events
 * counted inside it where trampolines allow: agent_prof.c). */
#include "agent/agent_int.h"
#include "bpf/prog_stats.h"
#include <errno.h>
#include <fnmatch.h>
#include <string.h>
#include <unistd.h>

static bool matches_any(const char (*globs)[CONFIG_PROG_GLOB_MAX], int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (fnmatch(globs[i], name, 0) == 0)
			return true;
	return false;
}

static bool wanted(const struct agent *a, const char *name)
{
	return matches_any(a->cfg.bpf_programs.include, a->cfg.bpf_programs.nr_include, name) &&
	       !matches_any(a->cfg.bpf_programs.exclude, a->cfg.bpf_programs.nr_exclude, name);
}

/* A program seen for the first time. Loaded since the statistics are on,
 * it has counted since its load: its rows start there, from zero. Loaded
 * before, its totals may hold runs of any earlier time: from now. */
static struct prog_record *track(struct agent *a, const struct prog_sample *s, uint64_t now_ns)
{
	bool since_load = s->load_time_ns >= a->progs_since_ns;
	char type[32];
	struct prog_record *r = record_prog_add(
		&a->progs, s->id, s->name, s->tag,
		prog_stats_type_name(s->type, type, sizeof(type)), since_load ? 0 : s->run_cnt,
		since_load ? 0 : s->run_time_ns, since_load ? s->load_time_ns : now_ns);

	if (!r) {
		log_ratelimited(&a->add_rl, 60, LOG_LVL_WARN, "cannot log BPF program %u: %s",
				(unsigned)s->id, strerror(ENOMEM));
		return NULL;
	}
	log_debug("logging BPF program %u (%s, %s%s)", (unsigned)s->id, log_name(s->name), r->type,
		  agent_prof_track(a, r) ? ", cgperf's own: no events counted inside it" : "");
	return r;
}

/* Every program on the host: those logged get their totals now, new ones a
 * record. One not found is gone (a failure to read it is not). */
static void walk(struct agent *a, uint64_t now_ns)
{
	uint32_t id = 0;

	for (int i = 0; i < a->progs.nr; i++)
		a->progs.items[i]->seen = false;
	while (prog_stats_next_id(id, &id) == 0) {
		struct prog_record *r = record_prog_find(&a->progs, id);
		struct prog_sample s;
		int err = prog_stats_sample(id, &s);

		if (err < 0) {
			if (r && err != -ENOENT)
				r->seen = true; /* keeps its totals of the last read */
			continue;
		}
		if (!r && (!wanted(a, s.name) || !(r = track(a, &s, now_ns))))
			continue;
		r->runs = s.run_cnt;
		r->run_ns = s.run_time_ns;
		r->seen = true;
	}
}

/* The events inside each program still running; one detached by the
 * profiler may have been held by it alone: then it is gone now. The last
 * collection attaches nothing (all is detached right after it). */
static void profile(struct agent *a, bool last)
{
	int budget = last ? 0 : AGENT_PROF_ATTACHES;
	struct prog_sample s;

	a->prof_round++;
	for (int i = 0; i < a->progs.nr; i++) {
		struct prog_record *r = a->progs.items[i];

		if (!r->removed && r->seen && agent_prof_update(a, r, &budget) &&
		    prog_stats_sample(r->id, &s) == -ENOENT)
			r->seen = false;
	}
}

static uint32_t prog_outputs_mask(const struct agent *a)
{
	uint32_t mask = 0;

	for (int i = 0; i < a->nr_outputs; i++)
		if (a->outputs[i].sink->ops->write_prog)
			mask |= 1u << a->outputs[i].id;
	return mask;
}

/* One row per output that takes program rows and still owes one. */
static void emit(struct agent *a, struct prog_record *r, const struct collection *col,
		 enum collection_kind kind)
{
	for (int i = 0; i < a->nr_outputs; i++) {
		const struct agent_output *o = &a->outputs[i];
		uint32_t bit = 1u << o->id;
		struct reading delta[READINGS_MAX_EVENTS];
		struct sink_prog_record rec;

		if (!o->sink->ops->write_prog || (r->removed && (r->outputs_done & bit)))
			continue;
		record_prog_row(r, o->id, col->now_ns, agent_prof_events(a), delta, &rec);
		rec.event_names = a->event_names;
		rec.time = col->now;
		if (o->sink->ops->write_prog(o->sink, &rec) == 0) {
			record_prog_commit(r, o->id, col->now_ns);
			if (r->removed)
				r->outputs_done |= bit;
		} else if (r->removed &&
			   agent_final_failed(a, o, &r->out[o->id].final_tries, kind,
					      "BPF program %u (%s)", (unsigned)r->id, r->name)) {
			r->outputs_done |= bit;
		}
	}
}

/* The program statistics end with the agent, whatever becomes of its
 * session: its last read is every program's last. The collection that
 * finds a program gone is its removal (its failed row is not a retry). */
void agent_progs_collect(struct agent *a, const struct collection *col)
{
	uint32_t mask = prog_outputs_mask(a);
	bool last = col->kind == COLLECT_EXIT || col->kind == COLLECT_LAST;

	if (!a->progs_on)
		return;
	walk(a, col->now_ns);
	profile(a, last);
	for (int i = a->progs.nr - 1; i >= 0; i--) {
		struct prog_record *r = a->progs.items[i];
		enum collection_kind kind = last ? COLLECT_LAST : COLLECT_INTERVAL;

		if (!r->removed && (!r->seen || last)) {
			r->removed = true;
			agent_prof_detach(a, r);
			if (!last)
				kind = COLLECT_REMOVAL;
		}
		emit(a, r, col, kind);
		if (r->removed && (r->outputs_done & mask) == mask) {
			log_debug("BPF program %u (%s) is gone", (unsigned)r->id,
				  log_name(r->name));
			record_prog_remove(&a->progs, r->id);
		}
	}
}

int agent_progs_start(struct agent *a)
{
	bool already = false;
	int r;

	if (a->cfg.bpf_programs.nr_include == 0 || a->release)
		return 0;
	a->progs_since_ns = readings_now_boot_ns();
	r = prog_stats_enable(&a->prog_stats_fd, &already);
	if (r < 0) {
		log_error("bpf_programs: cannot turn on the kernel's BPF statistics: %s",
			  strerror(-r));
		return r;
	}
	if (already)
		log_info(
			"bpf_programs: kernel.bpf_stats_enabled is on already; it is left as it is");
	a->progs_on = true;
	agent_prof_start(a);
	/* The first read: the base of programs loaded before now. */
	walk(a, readings_now_boot_ns());
	profile(a, false);
	log_info("logging %d BPF programs (run count and run time%s)", a->progs.nr,
		 a->prof ? ", events inside them" : "");
	return 0;
}

void agent_progs_stop(struct agent *a)
{
	if (a->prog_stats_fd >= 0)
		close(a->prog_stats_fd); /* the statistics stop with the last holder */
	a->prog_stats_fd = -1;
	a->progs_on = false;
	agent_prof_stop(a);
	record_prog_clear(&a->progs);
}
