/* cgperf stat -b: BPF programs' run counts and run time per interval, from
 * the kernel's BPF statistics, enabled through a BPF_ENABLE_STATS fd held
 * only while counting. perf's `stat -b` counts events inside the programs
 * with fentry/fexit programs on them; that needs BPF trampolines, and is not
 * built here yet (this machine refuses trampolines): one line says so. */
#include "agent/stat_bpf.h"
#include "agent/cli_util.h"
#include "agent/cli_wait.h"
#include "bpf/probe.h"
#include "bpf/prog_stats.h"
#include "util/log.h"
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
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
};

struct bpf_run {
	const struct stat_bpf_opts *o;
	struct target t[MAX_PROGS];
	int nr;
	double start_s, last_s; /* CLOCK_MONOTONIC */
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
	b->nr++;
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
	if (b->o->sep) {
		static const char *const cols[] = { "prog_id",	  "prog_name", "prog_tag",
						    "prog_type",  "runs",      "run_ns",
						    "ns_per_run", "cpu_pct",   "state" };

		if (b->o->interval_ms)
			fprintf(b->o->out, "time%s", b->o->sep);
		for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++)
			fprintf(b->o->out, "%s%s", i ? b->o->sep : "", cols[i]);
		fputc('\n', b->o->out);
		return;
	}
	fprintf(b->o->out,
		"\n BPF program statistics for %d program%s (run count and run time):\n\n", b->nr,
		b->nr == 1 ? "" : "s");
	fprintf(b->o->out, "%s%8s  %-16s %-16s %14s %14s %9s %8s\n",
		b->o->interval_ms ? "          time " : "", "id", "name", "type", "runs",
		"run time ms", "ns/run", "% CPU");
}

static void print_line(const struct bpf_run *b, const struct prog_sample *now,
		       const struct prog_sample *before, double elapsed_s, bool gone)
{
	uint64_t runs = now->run_cnt - before->run_cnt, ns = now->run_time_ns - before->run_time_ns;
	double per_run = runs ? (double)ns / runs : 0,
	       cpu = elapsed_s > 0 ? ns / (elapsed_s * 1e7) : 0;
	char type[32];
	const char *tn = prog_stats_type_name(now->type, type, sizeof(type));
	const char *sep = b->o->sep;

	if (sep) {
		if (b->o->interval_ms)
			fprintf(b->o->out, "%.9f%s", now_s() - b->start_s, sep);
		fprintf(b->o->out,
			"%" PRIu32 "%s%s%s%s%s%s%s%" PRIu64 "%s%" PRIu64 "%s%.0f%s%.4f%s%s\n",
			now->id, sep, now->name, sep, now->tag, sep, tn, sep, runs, sep, ns, sep,
			per_run, sep, cpu, sep, gone ? "gone" : "");
		return;
	}
	if (b->o->interval_ms)
		fprintf(b->o->out, "%14.9f ", now_s() - b->start_s);
	fprintf(b->o->out, "%8" PRIu32 "  %-16s %-16s %14" PRIu64 " %14.3f %9.0f %7.3f%%%s\n",
		now->id, now->name, tn, runs, ns / 1e6, per_run, cpu, gone ? "  (gone)" : "");
}

/* One line per program: the change since its previous line (the start,
 * without -I). A program gone since gets its last line, once. */
static void print_counts(struct bpf_run *b)
{
	double t = now_s(), elapsed = t - b->last_s;

	for (int i = 0; i < b->nr; i++) {
		struct target *tg = &b->t[i];
		struct prog_sample now;
		bool gone;

		if (tg->gone)
			continue;
		gone = prog_stats_sample(tg->last.id, &now) == -ENOENT;
		if (gone)
			now = tg->last; /* all that is known of it */
		print_line(b, &now, &tg->last, elapsed, gone);
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

static void say_what_is_counted(const struct stat_bpf_opts *o)
{
	char reason[256];
	int r = probe_trampolines(reason, sizeof(reason));

	if (r < 0)
		log_warn(
			"event counts inside BPF programs need BPF trampolines (fentry/fexit), and "
			"%s; counting run counts and run time from the kernel's BPF statistics",
			reason);
	else if (o->events_given)
		log_warn(
			"event counts inside BPF programs (fentry/fexit on them) are not built yet; "
			"counting run counts and run time from the kernel's BPF statistics");
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
	say_what_is_counted(o);
	r = prog_stats_enable(&stats_fd, &already);
	if (r < 0) {
		log_error("cannot enable the kernel's BPF statistics: %s", strerror(-r));
		free(b);
		return EXIT_RUNTIME;
	}
	if (already)
		log_info("kernel.bpf_stats_enabled is on already; it is left as it is");
	/* The baseline after enabling: counts before it are not this run's. */
	for (int i = 0; i < b->nr; i++)
		b->t[i].gone = prog_stats_sample(b->t[i].last.id, &b->t[i].last) < 0;
	b->start_s = b->last_s = now_s();
	log_info("counting started (BPF statistics of %d programs)", b->nr);
	print_header(b);
	cli_wait(sig_fd, o->interval_ms, o->duration_s,
		 &(const struct cli_wait_ops){ .tick = tick, .on_signal = on_signal }, b);
	print_counts(b);
	if (stats_fd >= 0)
		close(stats_fd); /* collection stops with the last holder */
	free(b);
	return rc;
}
