// SPDX-License-Identifier: GPL-2.0-only
/* cgperf stat: perf-stat-like counting for troubleshooting, on the shared
 * BPF counters. See docs/STAT.md for the options and output formats. */
#include "cmd/commands.h"
#include "cmd/cli.h"
#include "cmd/stat/stat_bpf.h"
#include "cmd/stat/stat_output.h"
#include "cmd/stat/stat_targets.h"
#include "cmd/stat/workload.h"
#include "bpf/counter.h"
#include "events/derived.h"
#include "events/event_parse.h"
#include "util/log.h"
#include "util/timer.h"
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_EVENTS "cpu-clock,context-switches,cpu-migrations,page-faults,cycles,instructions"

struct stat_opts {
	char events_arg[4096];
	bool system_wide, strict;
	const char *cpu_list, *pid_list, *tid_list, *for_each_pattern;
	const char *bpf_ids, *bpf_glob; /* -b, --bpf-prog: BPF programs' statistics */
	char **cgroup_args;
	int nr_cgroup_args;
	uint64_t interval_ms;
	double duration_s;
	const char *sep, *output_path;
	bool json;
	enum follower_request follower;
	enum accum_request accum;
	char **cmd; /* after "--" */
};

static void usage(FILE *f)
{
	fputs("usage: cgperf stat [-e EV,...] [-a | -C CPUS | -p PID | -t TID | -G CG,... |\n"
	      "                    --for-each-cgroup PATTERN | -b ID,... | --bpf-prog GLOB]\n"
	      "                    [-I MS] [-x SEP | -j] [-o FILE]\n"
	      "                    [--strict] [-v] [--duration SEC | -- CMD ARGS...]\n"
	      "\n"
	      "  -e, --event EV,...        events (default " DEFAULT_EVENTS ")\n"
	      "  -a, --all-cpus            count everything on the host\n"
	      "  -C, --cpu CPUS            count on these CPUs (e.g. 0-3,8)\n"
	      "  -p, --pid PID,...         count these processes and what they fork\n"
	      "  -t, --tid TID,...         count these threads\n"
	      "  -G, --cgroup CG,...       count these cgroups (paths relative to the cgroup2 root);\n"
	      "                            each includes its descendants\n"
	      "      --for-each-cgroup P,...  count every cgroup matching each name or glob P\n"
	      "  -b, --bpf-prog-id ID,...  BPF programs: runs, run time, ns per run, % of a CPU;\n"
	      "                            events inside them where trampolines work\n"
	      "      --bpf-prog GLOB       the BPF programs whose names match GLOB (at start)\n"
	      "  -I, --interval-print MS   print deltas every MS milliseconds\n"
	      "  -x, --field-separator SEP CSV: value,unit,event,cgroup,running ns,percent running\n"
	      "  -j, --json                a JSON object per count, as perf stat --json\n"
	      "  -o, --output FILE         write counts to FILE\n"
	      "      --duration SEC        stop after SEC seconds\n"
	      "      --strict              an unsupported event is an error, not skipped\n"
	      "      --follower MODE       auto (default), fexit or tp\n"
	      "      --accumulators KIND   auto (default), hash or array\n"
	      "  -v, --verbose             say what is loaded and shared (-vv: more)\n",
	      f);
}

/* False when the list would be too long. */
static bool append_events(struct stat_opts *o, const char *arg)
{
	size_t used = strlen(o->events_arg);

	if (used + strlen(arg) + 2 > sizeof(o->events_arg))
		return false;
	if (used)
		strcat(o->events_arg, ",");
	strcat(o->events_arg, arg);
	return true;
}

/* Returns -1 to go on, else the exit status: EXIT_OK after --help,
 * EXIT_USAGE after a usage error. */
static int parse_opts(int argc, char **argv, struct stat_opts *o)
{
	enum {
		OPT_FOR_EACH = 256,
		OPT_DURATION,
		OPT_STRICT,
		OPT_FOLLOWER,
		OPT_ACCUM,
		OPT_BPF_PROG
	};
	static const struct option longopts[] = {
		{ "event", required_argument, NULL, 'e' },
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "pid", required_argument, NULL, 'p' },
		{ "tid", required_argument, NULL, 't' },
		{ "cgroup", required_argument, NULL, 'G' },
		{ "for-each-cgroup", required_argument, NULL, OPT_FOR_EACH },
		{ "bpf-prog-id", required_argument, NULL, 'b' },
		{ "bpf-prog", required_argument, NULL, OPT_BPF_PROG },
		{ "interval-print", required_argument, NULL, 'I' },
		{ "field-separator", required_argument, NULL, 'x' },
		{ "json", no_argument, NULL, 'j' },
		{ "output", required_argument, NULL, 'o' },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "strict", no_argument, NULL, OPT_STRICT },
		{ "follower", required_argument, NULL, OPT_FOLLOWER },
		{ "accumulators", required_argument, NULL, OPT_ACCUM },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int opt, verbose = 0;

	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "+:e:aC:p:t:G:I:x:jo:b:vh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'e':
			if (!*optarg)
				return cli_usage_error("stat", "empty event list", NULL);
			if (!append_events(o, optarg))
				return cli_usage_error("stat", "event list too long: '%s'", optarg);
			break;
		case 'a':
			o->system_wide = true;
			break;
		case 'C':
			o->cpu_list = optarg;
			break;
		case 'p':
			o->pid_list = optarg;
			break;
		case 't':
			o->tid_list = optarg;
			break;
		case 'G':
			o->cgroup_args =
				realloc(o->cgroup_args, (o->nr_cgroup_args + 1) * sizeof(char *));
			if (!o->cgroup_args)
				return EXIT_RUNTIME;
			o->cgroup_args[o->nr_cgroup_args++] = optarg;
			break;
		case OPT_FOR_EACH:
			o->for_each_pattern = optarg;
			break;
		case 'b':
			o->bpf_ids = optarg;
			break;
		case OPT_BPF_PROG:
			if (!*optarg)
				return cli_usage_error("stat", "empty program name glob '%s'",
						       optarg);
			o->bpf_glob = optarg;
			break;
		case 'I':
			if (parse_u64(optarg, 3600 * 1000, &o->interval_ms) < 0 ||
			    o->interval_ms < 10)
				return cli_usage_error(
					"stat", "invalid interval '%s' (milliseconds, at least 10)",
					optarg);
			break;
		case 'x':
			if (!*optarg || strpbrk(optarg, "\"\r\n"))
				return cli_usage_error("stat", "invalid field separator '%s'",
						       optarg);
			o->sep = optarg;
			break;
		case 'j':
			o->json = true;
			break;
		case 'o':
			o->output_path = optarg;
			break;
		case OPT_DURATION:
			if (parse_seconds(optarg, &o->duration_s) < 0)
				return cli_usage_error("stat",
						       "invalid duration '%s' (e.g. 2, 1.5, 500ms)",
						       optarg);
			break;
		case OPT_STRICT:
			o->strict = true;
			break;
		case OPT_FOLLOWER:
			if (!strcmp(optarg, "auto"))
				o->follower = FOLLOWER_AUTO;
			else if (!strcmp(optarg, "tp"))
				o->follower = FOLLOWER_FORCE_TP;
			else if (!strcmp(optarg, "fexit"))
				o->follower = FOLLOWER_FORCE_FEXIT;
			else
				return cli_usage_error(
					"stat", "invalid follower mode '%s' (auto, fexit or tp)",
					optarg);
			break;
		case OPT_ACCUM:
			if (parse_accum_request(optarg, &o->accum) < 0)
				return cli_usage_error(
					"stat", "invalid accumulators '%s' (auto, hash or array)",
					optarg);
			break;
		case 'v':
			verbose++;
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		case ':':
			return cli_usage_error("stat", "option '%s' needs an argument",
					       argv[optind - 1]);
		default:
			return cli_usage_error("stat", "unknown option '%s'", argv[optind - 1]);
		}
	}
	log_set_level(verbose >= 2 ? LOG_LVL_DEBUG : verbose ? LOG_LVL_INFO : LOG_LVL_WARN);
	if (optind < argc)
		o->cmd = &argv[optind];
	bool cgroups = o->nr_cgroup_args || o->for_each_pattern;
	/* perf's form: -G and --for-each-cgroup go with -a (all CPUs). */
	int nr_targets = (o->system_wide && !cgroups) + !!o->cpu_list + !!o->pid_list +
			 !!o->tid_list + cgroups;
	if (o->sep && o->json)
		return cli_usage_error("stat", "-x and --json cannot be combined", NULL);
	if (o->bpf_ids || o->bpf_glob)
		return -1; /* run_bpf() checks its own */
	if (nr_targets > 1)
		return cli_usage_error(
			"stat", "choose one target: -a, -C, -p, -t or -G/--for-each-cgroup", NULL);
	if (nr_targets == 0 && !o->cmd)
		return cli_usage_error(
			"stat", "nothing to count: give a target (-a, -C, -p, -t, -G) or a command",
			NULL);
	if (o->cmd && (o->pid_list || o->tid_list))
		return cli_usage_error("stat", "-p/-t and a command cannot be combined", NULL);
	if (o->cmd && o->duration_s > 0)
		return cli_usage_error("stat", "--duration and a command cannot be combined", NULL);
	if (!o->events_arg[0])
		strcpy(o->events_arg, DEFAULT_EVENTS);
	return -1;
}

static int resolve_targets(const struct stat_opts *o, struct stat_targets *t)
{
	int r = 0;

	if (o->cpu_list)
		return stat_targets_cpus(t, o->cpu_list);
	if (o->pid_list)
		return stat_targets_pids(t, o->pid_list, false);
	if (o->tid_list)
		return stat_targets_pids(t, o->tid_list, true);
	for (int i = 0; i < o->nr_cgroup_args && r == 0; i++)
		r = stat_targets_add_cgroups(t, o->cgroup_args[i]);
	if (r == 0 && o->for_each_pattern)
		r = stat_targets_for_each_cgroup(t, o->for_each_pattern);
	if (r < 0 || t->nr_keys)
		return r;
	if (o->system_wide) {
		t->filter = CGPERF_FILTER_GLOBAL;
		snprintf(t->desc, sizeof(t->desc), "'system wide'");
	} else if (o->cmd) {
		r = stat_targets_check_pid_namespace();
		if (r < 0)
			return r;
		/* The workload's pid is added once it is forked. */
		t->filter = CGPERF_FILTER_TGID;
		snprintf(t->desc, sizeof(t->desc), "'%s'", o->cmd[0]);
	}
	return 0;
}

struct stat_run {
	struct counter *counter;
	struct stat_targets targets;
	struct event_spec events[CGPERF_MAX_EVENTS];
	int nr_events, nr_slots;
	int *slot_of_key; /* per target key */
	struct reading *now, *last; /* nr_slots * nr_events */
	FILE *out;
	struct stat_format fmt;
	struct timespec start;
	double last_print_s; /* seconds since start at the last print */
	struct derived_map derived; /* which events feed IPC, CPUs utilized, ... */
};

static double seconds_since(const struct timespec *t0)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - t0->tv_sec) + (now.tv_nsec - t0->tv_nsec) / 1e9;
}

/* Print totals (or deltas since the last print when `delta`). */
/* The readings of group g (a target key, or all of them), each event's
 * change since the last print (delta) or total. */
static void group_readings(const struct stat_run *s, int g, bool delta, struct reading *ret)
{
	int first = s->targets.per_key_output ? g : 0;
	int last = s->targets.per_key_output ? g + 1 : s->nr_slots;

	memset(ret, 0, sizeof(*ret) * s->nr_events);
	for (int k = first; k < last; k++)
		for (int e = 0; e < s->nr_events; e++) {
			size_t i = (size_t)s->slot_of_key[k] * s->nr_events + e;
			struct reading d = s->now[i];

			if (delta)
				reading_delta(&s->now[i], &s->last[i], &d);
			reading_add(&ret[e], &d);
		}
}

/* The derived metric that rides on event e's row, if defined. */
static void add_metric(const struct stat_run *s, int e, const struct reading *d,
		       uint64_t interval_ns, struct stat_row *row)
{
	for (int m = 0; m < NR_DERIVED; m++)
		if (derived_row(m, &s->derived) == e &&
		    derived_compute(m, &s->derived, d, interval_ns, &row->metric)) {
			row->has_metric = true;
			row->metric_unit = derived_annotation(m);
		}
	if (!row->has_metric)
		row->has_metric = derived_rate(&s->derived, d, e, &row->metric, &row->metric_unit);
}

/* Print totals (or deltas since the last print when `delta`); `last`: no
 * read follows (every CPU synced: counter_sync_periodic leaves some out). */
static int print_counts(struct stat_run *s, bool delta, bool last)
{
	int r, groups = s->targets.per_key_output ? s->targets.nr_keys : 1;
	double now = seconds_since(&s->start), since = delta ? s->last_print_s : 0;
	struct reading *d = calloc((size_t)groups * s->nr_events, sizeof(*d));

	r = !d ? -ENOMEM : last ? counter_sync(s->counter) : counter_sync_periodic(s->counter);
	if (r == 0)
		r = counter_read_all(s->counter, s->nr_slots, s->now);
	if (r < 0) {
		log_error("reading the counters failed: %s", strerror(-r));
		free(d);
		return r;
	}
	for (int g = 0; g < groups; g++)
		group_readings(s, g, delta, &d[(size_t)g * s->nr_events]);
	for (int e = 0; e < s->nr_events; e++) {
		for (int g = 0; g < groups; g++) {
			const struct reading *gd = &d[(size_t)g * s->nr_events];
			struct stat_row row = { .event = &s->events[e], .reading = gd[e] };

			add_metric(s, e, gd, (uint64_t)((now - since) * 1e9), &row);
			if (s->targets.per_key_output) {
				row.cgroup = s->targets.keys[g].label;
				row.cgroup_path = s->targets.keys[g].path;
			}
			stat_print_row(s->out, &s->fmt, &row);
		}
	}
	memcpy(s->last, s->now, sizeof(*s->now) * s->nr_slots * s->nr_events);
	s->last_print_s = now;
	fflush(s->out);
	free(d);
	return 0;
}

static int open_counter(struct stat_run *s, const struct stat_opts *o, pid_t workload_pid)
{
	struct counter_opts co = {
		.events = s->events,
		.nr_events = s->nr_events,
		.filter = s->targets.filter,
		.follower = o->follower,
		.accum = o->accum,
		.inherit = s->targets.filter == CGPERF_FILTER_TGID,
	};
	int r;

	/* `-- CMD` alone: count the command's process, and what it forks. */
	if (workload_pid > 0 && s->targets.filter == CGPERF_FILTER_TGID &&
	    s->targets.nr_keys == 0 &&
	    (r = stat_targets_add_key(&s->targets, (uint64_t)workload_pid)) < 0)
		return r;

	s->nr_slots = s->targets.filter == CGPERF_FILTER_GLOBAL ? 1 : s->targets.nr_keys;
	co.max_slots = s->nr_slots;
	co.max_keys =
		s->targets.filter == CGPERF_FILTER_PID || s->targets.filter == CGPERF_FILTER_TGID
			? 65536
			: s->nr_slots;
	r = counter_open(&co, &s->counter);
	if (r < 0)
		return r;
	s->slot_of_key = calloc(s->nr_slots, sizeof(int));
	s->now = calloc((size_t)s->nr_slots * s->nr_events, sizeof(*s->now));
	s->last = calloc((size_t)s->nr_slots * s->nr_events, sizeof(*s->last));
	if (!s->slot_of_key || !s->now || !s->last)
		return -ENOMEM;
	if (s->targets.filter == CGPERF_FILTER_GLOBAL)
		return 0;
	for (int i = 0; i < s->targets.nr_keys; i++) {
		struct stat_target_key *k = &s->targets.keys[i];
		if (s->targets.filter == CGPERF_FILTER_CGROUP)
			r = counter_add_cgroup(s->counter, k->key, k->ancestors, k->nr_ancestors,
					       &s->slot_of_key[i]);
		else
			r = counter_add_key(s->counter, k->key, &s->slot_of_key[i]);
		if (r < 0) {
			log_error("cannot add %s to the filter: %s", k->label ? k->label : "target",
				  strerror(-r));
			return r;
		}
	}
	return 0;
}

struct waiting {
	struct stat_run *s;
	pid_t workload;
	int status;
};

static void tick(void *ctx)
{
	struct waiting *w = ctx;

	w->s->fmt.timestamp = seconds_since(&w->s->start);
	print_counts(w->s, true, false);
}

/* SIGCHLD ends the wait when the workload exited; SIGINT/SIGTERM always. */
static bool on_signal(void *ctx, const struct signalfd_siginfo *si)
{
	struct waiting *w = ctx;

	if (si->ssi_signo != SIGCHLD)
		return true;
	return w->workload > 0 && waitpid(w->workload, &w->status, WNOHANG) == w->workload;
}

/* A CPU that came online is counted as soon as the hotplug notification
 * says so (within CPU_CHECK_MS without it), also without -I.
 * A failure is reported by the next sync (the interval's, or the last). */
static void cpu_check(void *ctx)
{
	const struct waiting *w = ctx;

	(void)counter_follow_cpus(w->s->counter);
}

/* Wait for the end (duration, signal, workload exit), printing intervals.
 * Returns the workload's exit status (or 0). */
static int run_loop(struct stat_run *s, const struct stat_opts *o, int sig_fd, pid_t workload)
{
	struct waiting w = { .s = s, .workload = workload };

	cli_wait(sig_fd, o->interval_ms, o->duration_s,
		 &(const struct cli_wait_ops){
			 .tick = tick, .on_signal = on_signal, .cpu_check = cpu_check },
		 &w);
	return w.status;
}

static void run_free(struct stat_run *s)
{
	counter_close(s->counter);
	stat_targets_free(&s->targets);
	free(s->slot_of_key);
	free(s->now);
	free(s->last);
	if (s->out && s->out != stdout)
		fclose(s->out);
}

/* Signals through a signalfd, so the loop sees them in order. */
static int block_signals(void)
{
	sigset_t mask;

	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGCHLD);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	return signalfd(-1, &mask, SFD_CLOEXEC);
}

/* -b / --bpf-prog: BPF programs are the targets, nothing else is. */
static int run_bpf(const struct stat_opts *o)
{
	struct stat_bpf_opts bo = {
		.ids = o->bpf_ids,
		.glob = o->bpf_glob,
		.events = o->events_arg[0] ? o->events_arg : DEFAULT_EVENTS,
		.events_given = o->events_arg[0] != '\0',
		.strict = o->strict,
		.interval_ms = o->interval_ms,
		.duration_s = o->duration_s,
		.sep = o->sep,
		.json = o->json,
		.out = stdout,
	};
	int sig_fd, rc;

	if (o->system_wide || o->cpu_list || o->pid_list || o->tid_list || o->nr_cgroup_args ||
	    o->for_each_pattern || o->cmd) {
		return cli_usage_error(
			"stat", "-b/--bpf-prog count BPF programs; they take no other target",
			NULL);
	}
	if (o->output_path && !(bo.out = fopen(o->output_path, "we"))) {
		fprintf(stderr, "cgperf stat: cannot open '%s': %s\n", log_name(o->output_path),
			strerror(errno));
		return EXIT_RUNTIME;
	}
	sig_fd = block_signals();
	rc = sig_fd < 0 ? EXIT_RUNTIME : stat_bpf_run(&bo, sig_fd);
	if (sig_fd >= 0)
		close(sig_fd);
	if (bo.out != stdout)
		fclose(bo.out);
	return rc;
}

/* A kernel that hides some switches from sched_switch (bpf/unseen_switch.bpf.h):
 * say how often, and how much time and how many page faults of hidden tasks
 * were set apart from the task switched out (-v). */
static void log_unseen_switches(const struct counter *c)
{
	struct unseen_stats u;

	if (counter_unseen_switches(c, &u) < 0 || !(u.switches || u.faults || u.left_ns))
		return;
	log_info("%llu switches out of tasks sched_switch did not show switching in; "
		 "%.3f ms and %llu page faults that hidden tasks made before them "
		 "charged to the hidden tasks' cgroups (the cgroup hub) or to nobody; "
		 "up to %.3f ms more may be charged to tasks (chains of hidden tasks)",
		 (unsigned long long)u.switches, u.ns / 1e6, (unsigned long long)u.faults,
		 u.left_ns / 1e6);
}

/* How many CPU syncs ran, and how many idle CPUs were left out (-v). */
static void log_syncs(const struct counter *c)
{
	uint64_t synced, skipped;

	counter_sync_stats(c, &synced, &skipped);
	log_info("syncs ran on %llu CPUs and left %llu idle ones out", (unsigned long long)synced,
		 (unsigned long long)skipped);
}

int do_stat(int argc, char **argv)
{
	struct stat_opts o = { 0 };
	struct stat_run s = { 0 };
	struct workload w = { .pid = -1, .gate_fd = -1 };
	int sig_fd = -1, status = 0, rc = EXIT_RUNTIME, r;

	r = parse_opts(argc, argv, &o);
	if (r >= 0 || o.bpf_ids || o.bpf_glob) {
		free(o.cgroup_args);
		return r >= 0 ? r : run_bpf(&o);
	}
	r = cli_resolve_events(&(struct cli_events){ .cmd = "cgperf stat",
						     .list = o.events_arg,
						     .strict = o.strict,
						     .ret_events = s.events,
						     .max = CGPERF_MAX_EVENTS });
	if (r < 0) {
		rc = cli_exit_code(r);
		goto out;
	}
	s.nr_events = r;
	derived_map_events(s.events, s.nr_events, &s.derived);
	r = resolve_targets(&o, &s.targets);
	if (r < 0) {
		rc = cli_exit_code(r);
		goto out;
	}
	s.out = stdout;
	if (o.output_path && !(s.out = fopen(o.output_path, "we"))) {
		fprintf(stderr, "cgperf stat: cannot open '%s': %s\n", log_name(o.output_path),
			strerror(errno));
		goto out;
	}
	s.fmt.sep = o.sep;
	s.fmt.json = o.json;
	s.fmt.interval = o.interval_ms > 0;

	sig_fd = block_signals();

	if (o.cmd && (r = workload_prepare(o.cmd, &w)) < 0) {
		fprintf(stderr, "cgperf stat: cannot start '%s': %s\n", log_name(o.cmd[0]),
			strerror(-r));
		goto out;
	}
	r = open_counter(&s, &o, w.pid);
	if (r < 0) {
		if (r == -EPERM || r == -EACCES)
			fprintf(stderr, "cgperf stat: permission denied: counting needs root "
					"(CAP_BPF, CAP_PERFMON and CAP_SYS_ADMIN)\n");
		else if (r != -EOPNOTSUPP)
			fprintf(stderr, "cgperf stat: cannot set up counting: %s\n", strerror(-r));
		goto out;
	}
	r = counter_enable(s.counter);
	if (r < 0) {
		fprintf(stderr, "cgperf stat: cannot start counting: %s\n", strerror(-r));
		goto out;
	}
	clock_gettime(CLOCK_MONOTONIC, &s.start);
	log_info("counting started (%s, %s accumulators)", counter_mode_name(s.counter),
		 accum_kind_name(counter_accum_kind(s.counter)));
	stat_print_header(s.out, &s.fmt, s.targets.desc);
	if (w.pid > 0)
		workload_start(&w);
	status = run_loop(&s, &o, sig_fd, w.pid);
	s.fmt.timestamp = seconds_since(&s.start);
	if (print_counts(&s, s.fmt.interval, true) < 0)
		goto out;
	stat_print_footer(s.out, &s.fmt, seconds_since(&s.start));
	if (counter_filter_drops(s.counter))
		log_warn("%llu forked tasks could not be tracked (filter map full)",
			 (unsigned long long)counter_filter_drops(s.counter));
	log_unseen_switches(s.counter);
	log_syncs(s.counter);
	rc = EXIT_OK;
	if (w.pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 127)
		rc = EXIT_RUNTIME; /* the command could not be run */
out:
	if (w.gate_fd >= 0)
		close(w.gate_fd); /* an unreleased workload exits without running */
	if (w.pid > 0 && rc != EXIT_OK)
		waitpid(w.pid, NULL, 0);
	if (sig_fd >= 0)
		close(sig_fd);
	run_free(&s);
	free(o.cgroup_args);
	return rc;
}
