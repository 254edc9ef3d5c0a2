// SPDX-License-Identifier: GPL-2.0-only
/* cgperf stat -b: BPF programs' run counts and run time per interval, from
 * the kernel's BPF statistics, enabled through a BPF_ENABLE_STATS fd held
 * only while counting; and, as perf's `stat -b` does, the events counted
 * inside the programs, by fentry/fexit programs on them. Those need BPF
 * trampolines: where the kernel refuses them, one line says so and the run
 * counts and run time are what is shown. */
#include "cmd/stat/stat_bpf.h"
#include "cmd/cli.h"
#include "bpf/probe.h"
#include "bpf/prog_profiler.h"
#include "bpf/prog_stats.h"
#include "events/event_parse.h"
#include "util/log.h"
#include "util/text.h"
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#define MAX_PROGS 256

struct target {
	struct prog_sample last; /* at the previous line (or the start) */
	bool gone; /* got its final line */
	int prof; /* index in the profiler, -1: no event counts */
	struct prof_counts prof_last; /* at the previous line */
};

struct bpf_run {
	const struct stat_bpf_opts *o;
	struct target t[MAX_PROGS];
	int nr;
	double start_s, last_s; /* CLOCK_MONOTONIC */
	/* Events counted inside the programs (none without trampolines). */
	struct prog_profiler *prof;
	struct event_spec events[CGPERF_MAX_EVENTS];
	int nr_events;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int add_target(struct bpf_run *b, uint32_t id)
{
	for (int i = 0; i < b->nr; i++)
		if (b->t[i].last.id == id)
			return 0;
	if (b->nr == MAX_PROGS) {
		fprintf(stderr, "cgperf stat: more than %d BPF programs\n", MAX_PROGS);
		return -E2BIG;
	}
	if (prog_stats_sample(id, &b->t[b->nr].last) < 0) {
		fprintf(stderr, "cgperf stat: no BPF program with id %" PRIu32 "\n", id);
		return -ENOENT;
	}
	b->t[b->nr++].prof = -1;
	return 0;
}

static int add_ids(struct bpf_run *b, const char *list)
{
	char *copy = strdup(list), *save = NULL;
	int r = copy ? 0 : -ENOMEM;

	for (char *tok = copy ? strtok_r(copy, ",", &save) : NULL; tok && r == 0;
	     tok = strtok_r(NULL, ",", &save)) {
		char *end;
		unsigned long id = strtoul(tok, &end, 10);

		if (*end || !*tok || id == 0 || id > UINT32_MAX) {
			fprintf(stderr, "cgperf stat: -b: '%s' is not a BPF program id\n", tok);
			r = -EINVAL;
		} else {
			r = add_target(b, (uint32_t)id);
		}
	}
	free(copy);
	return r;
}

static int add_glob(struct bpf_run *b, const char *glob)
{
	uint32_t id = 0;
	int found = 0, r = 0;

	while (r == 0 && prog_stats_next_id(id, &id) == 0) {
		struct prog_sample s;

		if (prog_stats_sample(id, &s) < 0 || fnmatch(glob, s.name, 0) != 0)
			continue; /* gone meanwhile, or another name */
		r = add_target(b, id);
		found++;
	}
	if (r == 0 && !found) {
		fprintf(stderr, "cgperf stat: no BPF program is named like '%s'\n", log_name(glob));
		r = -ENOENT;
	}
	return r;
}

/* ---- output ---- */

static void print_header(const struct bpf_run *b)
{
	const char *sep = b->o->sep;

	if (b->o->json)
		return;
	if (sep) {
		static const char *const cols[] = { "prog_id",	  "prog_name", "prog_tag",
						    "prog_type",  "runs",      "run_ns",
						    "ns_per_run", "cpu_pct",   "state" };

		if (b->o->interval_ms)
			fprintf(b->o->out, "time%s", sep);
		for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++)
			fprintf(b->o->out, "%s%s", i ? sep : "", cols[i]);
		if (b->prof)
			fprintf(b->o->out, "%scounted_runs", sep);
		for (int e = 0; b->prof && e < b->nr_events; e++)
			fprintf(b->o->out, "%s%s%s%s_running_pct", sep, b->events[e].name, sep,
				b->events[e].name);
		fputc('\n', b->o->out);
		return;
	}
	fprintf(b->o->out,
		"\n BPF program statistics for %d program%s (run count and run time%s):\n\n", b->nr,
		b->nr == 1 ? "" : "s",
		b->prof ? "; events counted inside them by fentry/fexit" : "");
	fprintf(b->o->out, "%s%8s  %-16s %-16s %14s %14s %9s %8s\n",
		b->o->interval_ms ? "          time " : "", "id", "name", "type", "runs",
		"run time ms", "ns/run", "% CPU");
}

/* What the target's events counted inside it since its previous line. */
static void prof_delta(struct target *tg, const struct prof_counts *now, int nr_events,
		       struct prof_counts *ret)
{
	ret->entries = now->entries - tg->prof_last.entries;
	ret->runs = now->runs - tg->prof_last.runs;
	for (int e = 0; e < nr_events; e++)
		reading_delta(&now->ev[e], &tg->prof_last.ev[e], &ret->ev[e]);
	tg->prof_last = *now;
}

/* -x: counted_runs, then each event's count (multiplex-scaled) and percent
 * running; empty cells for a target without event counts. */
static void print_prof_cells(const struct bpf_run *b, const struct prof_counts *d)
{
	const char *sep = b->o->sep;

	if (!b->prof)
		return;
	if (!d) {
		for (int e = 0; e < 2 * b->nr_events + 1; e++)
			fputs(sep, b->o->out);
		return;
	}
	fprintf(b->o->out, "%s%" PRIu64, sep, d->runs);
	for (int e = 0; e < b->nr_events; e++) {
		uint64_t v, pct;

		reading_scale(&d->ev[e], &v, &pct);
		fprintf(b->o->out, "%s%" PRIu64 "%s%.2f", sep, v, sep, pct / 100.0);
	}
}

/* Table: one line per event below the target's line. */
static void print_prof_lines(const struct bpf_run *b, const struct prof_counts *d)
{
	fprintf(b->o->out, "%s%26" PRIu64 "  runs counted by fentry/fexit\n",
		b->o->interval_ms ? "               " : "", d->runs);
	for (int e = 0; e < b->nr_events; e++) {
		uint64_t v, pct;
		double per_run;

		reading_scale(&d->ev[e], &v, &pct);
		per_run = d->runs ? (double)v / d->runs : 0;
		fprintf(b->o->out, "%s%26" PRIu64 "  %-20s %14.2f /run  (%.2f%%)\n",
			b->o->interval_ms ? "               " : "", v, b->events[e].name, per_run,
			pct / 100.0);
	}
}

/* --json: an object per program and print, the -x columns as keys; the
 * events counted inside it (fentry/fexit) as an array of perf-like counts. */
static void print_json(const struct bpf_run *b, const struct prog_sample *now, const char *type,
		       uint64_t runs, uint64_t ns, double per_run, double cpu, bool gone,
		       const struct prof_counts *d)
{
	json_object *o = json_object_new_object(), *evs;

	if (!o)
		return;
	if (b->o->interval_ms)
		json_object_object_add(o, "interval", json_object_new_double(now_s() - b->start_s));
	json_object_object_add(o, "prog-id", json_object_new_uint64(now->id));
	json_object_object_add(o, "prog-name", json_string_utf8(now->name));
	json_object_object_add(o, "prog-tag", json_string_utf8(now->tag));
	json_object_object_add(o, "prog-type", json_string_utf8(type));
	json_object_object_add(o, "runs", json_object_new_uint64(runs));
	json_object_object_add(o, "run-ns", json_object_new_uint64(ns));
	json_object_object_add(o, "ns-per-run", json_object_new_double(per_run));
	json_object_object_add(o, "cpu-pct", json_object_new_double(cpu));
	json_object_object_add(o, "state", json_object_new_string(gone ? "gone" : ""));
	if (d && (evs = json_object_new_array())) {
		json_object_object_add(o, "counted-runs", json_object_new_uint64(d->runs));
		for (int e = 0; e < b->nr_events; e++) {
			json_object *ev = json_object_new_object();
			uint64_t v, pct;

			if (!ev)
				continue;
			reading_scale(&d->ev[e], &v, &pct);
			json_object_object_add(ev, "event", json_string_utf8(b->events[e].name));
			json_object_object_add(ev, "counter-value", json_object_new_uint64(v));
			json_object_object_add(ev, "pcnt-running", json_object_new_double(pct / 100.0));
			json_object_array_add(evs, ev);
		}
		json_object_object_add(o, "events", evs);
	}
	fprintf(b->o->out, "%s\n",
		json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
							  JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
}

static void print_line(const struct bpf_run *b, const struct prog_sample *now,
		       const struct prog_sample *before, double elapsed_s, bool gone,
		       const struct prof_counts *d)
{
	uint64_t runs = now->run_cnt - before->run_cnt, ns = now->run_time_ns - before->run_time_ns;
	double per_run = runs ? (double)ns / runs : 0,
	       cpu = elapsed_s > 0 ? ns / (elapsed_s * 1e7) : 0;
	char type[32];
	const char *tn = prog_stats_type_name(now->type, type, sizeof(type));
	const char *sep = b->o->sep;

	if (b->o->json) {
		print_json(b, now, tn, runs, ns, per_run, cpu, gone, d);
		return;
	}
	if (sep) {
		if (b->o->interval_ms)
			fprintf(b->o->out, "%.9f%s", now_s() - b->start_s, sep);
		fprintf(b->o->out,
			"%" PRIu32 "%s%s%s%s%s%s%s%" PRIu64 "%s%" PRIu64 "%s%.0f%s%.4f%s%s",
			now->id, sep, now->name, sep, now->tag, sep, tn, sep, runs, sep, ns, sep,
			per_run, sep, cpu, sep, gone ? "gone" : "");
		print_prof_cells(b, d);
		fputc('\n', b->o->out);
		return;
	}
	if (b->o->interval_ms)
		fprintf(b->o->out, "%14.9f ", now_s() - b->start_s);
	fprintf(b->o->out, "%8" PRIu32 "  %-16s %-16s %14" PRIu64 " %14.3f %9.0f %7.3f%%%s\n",
		now->id, now->name, tn, runs, ns / 1e6, per_run, cpu, gone ? "  (gone)" : "");
	if (d)
		print_prof_lines(b, d);
}

/* One line per program: the change since its previous line (the start,
 * without -I). A program gone since gets its last line, once. */
static void print_counts(struct bpf_run *b)
{
	double t = now_s(), elapsed = t - b->last_s;

	for (int i = 0; i < b->nr; i++) {
		struct target *tg = &b->t[i];
		struct prof_counts pnow, d;
		struct prog_sample now;
		bool gone, counted;

		if (tg->gone)
			continue;
		gone = prog_stats_sample(tg->last.id, &now) == -ENOENT;
		if (gone)
			now = tg->last; /* all that is known of it */
		counted = tg->prof >= 0 && prog_profiler_read(b->prof, tg->prof, &pnow) == 0;
		if (counted)
			prof_delta(tg, &pnow, b->nr_events, &d);
		print_line(b, &now, &tg->last, elapsed, gone, counted ? &d : NULL);
		tg->gone = gone;
		tg->last = now;
	}
	b->last_s = t;
	fflush(b->o->out);
}

static void tick(void *ctx)
{
	print_counts(ctx);
}

static bool on_signal(void *ctx, const struct signalfd_siginfo *si)
{
	return si->ssi_signo != SIGCHLD;
}

/* ---- events inside the programs ---- */

static void say_not_counted(const char *why)
{
	log_warn("event counts inside BPF programs need BPF trampolines (fentry/fexit), and %s; "
		 "counting run counts and run time from the kernel's BPF statistics",
		 why);
}

/* fentry/fexit on one target, or a line saying why it gets no event counts.
 * Returns the kernel's refusal of trampolines (-errno, refusal set): no
 * other target will fare better. */
static int profile_target(struct bpf_run *b, struct target *tg, char *refusal, size_t len)
{
	struct prof_target on;
	struct prof_error err;
	int r = prog_profiler_attach(b->prof, tg->last.id, &on, &err);

	if (r == 0) {
		tg->prof = on.idx;
		log_info("BPF program %" PRIu32 ": counting events inside it (fentry/fexit on its "
			 "function '%s')",
			 tg->last.id, log_name(on.func));
		return 0;
	}
	if (err.why == PROF_REFUSED) {
		snprintf(refusal, len, "%s", err.reason);
		return r;
	}
	if (err.why == PROF_TARGET)
		log_warn("BPF program %" PRIu32 " (%s): no event counts inside it: %s", tg->last.id,
			 tg->last.name, err.reason);
	else
		log_error("BPF program %" PRIu32 " (%s): no event counts inside it: %s",
			  tg->last.id, tg->last.name, err.reason);
	return 0;
}

static int attach_targets(struct bpf_run *b, int probed)
{
	char refusal[PROF_REASON_MAX];
	int attached = 0;

	for (int i = 0; i < b->nr; i++) {
		struct target *tg = &b->t[i];

		if (profile_target(b, tg, refusal, sizeof(refusal)) == 0) {
			attached += tg->prof >= 0;
			continue;
		}
		if (probed == 0) { /* the probe's fexit attached: not the host's refusal */
			log_warn("BPF program %" PRIu32 " (%s): no event counts inside it: %s",
				 tg->last.id, tg->last.name, refusal);
			continue;
		}
		say_not_counted(refusal);
		break;
	}
	return attached;
}

/* Where the probe says trampolines work, or -e asks for events (then the
 * refusal named is the kernel's answer to cgperf's own profiler, not only
 * to the probe), the events are counted inside every target that can take
 * fentry. Returns 0 or minus an exit code. */
static int start_profiling(struct bpf_run *b)
{
	char probe[256];
	int probed = probe_trampolines(probe, sizeof(probe)), r;

	log_info("fexit probe: %s", probe);
	if (probe_refused(probed) && !b->o->events_given) {
		say_not_counted(probe);
		return 0;
	}
	r = cli_resolve_events(&(struct cli_events){ .cmd = "cgperf stat",
						     .list = b->o->events,
						     .strict = b->o->strict,
						     .ret_events = b->events,
						     .max = CGPERF_MAX_EVENTS });
	if (r < 0)
		return -cli_exit_code(r);
	b->nr_events = r;
	r = prog_profiler_open(b->events, b->nr_events, &b->prof);
	if (r < 0) {
		log_error("cannot open the events to count inside BPF programs: %s", strerror(-r));
		return -EXIT_RUNTIME;
	}
	if (attach_targets(b, probed) == 0) {
		prog_profiler_close(b->prof);
		b->prof = NULL;
	}
	return 0;
}

int stat_bpf_run(const struct stat_bpf_opts *o, int sig_fd)
{
	struct bpf_run *b = calloc(1, sizeof(*b));
	bool already = false;
	int stats_fd = -1, r, rc = EXIT_OK;

	if (!b)
		return EXIT_RUNTIME;
	b->o = o;
	r = o->ids ? add_ids(b, o->ids) : 0;
	if (r == 0 && o->glob)
		r = add_glob(b, o->glob);
	if (r < 0) {
		free(b);
		return r == -ENOENT || r == -EINVAL ? EXIT_USAGE : EXIT_RUNTIME;
	}
	r = start_profiling(b);
	if (r == 0)
		r = prog_stats_enable(&stats_fd, &already);
	else
		rc = -r;
	if (r < 0) {
		if (rc == EXIT_OK) {
			log_error("cannot enable the kernel's BPF statistics: %s", strerror(-r));
			rc = EXIT_RUNTIME;
		}
		prog_profiler_close(b->prof);
		free(b);
		return rc;
	}
	if (already)
		log_info("kernel.bpf_stats_enabled is on already; it is left as it is");
	/* The baseline after enabling: counts before it are not this run's. */
	for (int i = 0; i < b->nr; i++) {
		struct target *tg = &b->t[i];

		tg->gone = prog_stats_sample(tg->last.id, &tg->last) < 0;
		if (tg->prof >= 0 && prog_profiler_read(b->prof, tg->prof, &tg->prof_last) < 0)
			tg->prof = -1;
	}
	b->start_s = b->last_s = now_s();
	log_info("counting started (BPF statistics of %d programs)", b->nr);
	print_header(b);
	cli_wait(sig_fd, o->interval_ms, o->duration_s,
		 &(const struct cli_wait_ops){ .tick = tick, .on_signal = on_signal }, b);
	print_counts(b);
	if (stats_fd >= 0)
		close(stats_fd); /* collection stops with the last holder */
	prog_profiler_close(b->prof);
	free(b);
	return rc;
}
