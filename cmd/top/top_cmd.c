// SPDX-License-Identifier: GPL-2.0-only
/* cgperf top: a live view of the monitored cgroups' rates. The model
 * (top_model.c) holds rows and rates, the views print it (top_view.c: -b and
 * --json, top_curses.c: the full screen); this file counts, follows the
 * tree (cgroup/watch.c) and names (agent/name_lookup.c), and runs the loop.
 * See docs/TOP.md. */
#include "cmd/commands.h"
#include "cmd/cli.h"
#include "agent/config_selector.h"
#include "agent/metadata_roots.h"
#include "agent/name_lookup.h"
#include "cmd/stat/stat_targets.h"
#include "cmd/top/top_curses.h"
#include "cmd/top/top_model.h"
#include "cmd/top/top_view.h"
#include "bpf/counter.h"
#include "cgroup/cgroup2.h"
#include "cgroup/display_name.h"
#include "cgroup/watch.h"
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
#include <unistd.h>

#define DEFAULT_EVENTS \
	"cpu-clock,context-switches,page-faults,cycles,instructions,cache-references,cache-misses"

struct top_opts {
	char events_arg[4096];
	char **cgroup_args;
	int nr_cgroup_args;
	const char *for_each, *config_path, *sort;
	double delay_s;
	uint64_t iterations; /* 0: until quit */
	bool batch, json, tree, strict;
};

struct top {
	struct top_opts o;
	struct agent_config cfg;
	struct event_spec events[CGPERF_MAX_EVENTS];
	struct cli_skipped_event skipped[64];
	struct top_model model;
	struct stat_targets targets; /* -G, --for-each-cgroup: these; else the selection */
	bool explicit_targets;
	struct cg_selector sel;
	const char *include[CONFIG_MAX_PATTERNS], *exclude[CONFIG_MAX_PATTERNS];
	bool sel_needs_names;
	struct metadata_roots roots;
	struct name_lookup *names;
	struct counter *counter;
	struct cg_watch *watch;
	struct reading *vals; /* cgroups.max * nr_events */
	struct top_status st;
	struct top_curses *ui; /* NULL in batch mode */
	uint64_t printed;
	unsigned over_cap;
};

static void usage(FILE *f)
{
	fputs("usage: cgperf top [-e EV,...] [-G CG,... | --for-each-cgroup PATTERN] [-c FILE]\n"
	      "                  [-d SEC] [-b | --json] [-n N] [-s COLUMN] [--tree] [--strict] [-v]\n"
	      "\n"
	      "  -e, --event EV,...        events (default " DEFAULT_EVENTS ")\n"
	      "  -G, --cgroup CG,...       show these cgroups (paths relative to the cgroup2 root)\n"
	      "      --for-each-cgroup P,...  every cgroup matching each name or glob P (also new ones)\n"
	      "  -c, --config FILE         default targets: what this agent config monitors\n"
	      "                            (without -G: the embedded default's selection)\n"
	      "  -d, --delay SEC           seconds between updates (default 2)\n"
	      "  -b, --batch               plain text tables, one per interval, no terminal needed\n"
	      "      --json                one JSON object per interval and line\n"
	      "  -n, --iterations N        stop after N intervals\n"
	      "  -s, --sort COLUMN         sort by this column (title or JSON key, or name)\n"
	      "      --tree                slices, pods and containers as a tree\n"
	      "      --strict              an unsupported event is an error, not skipped\n"
	      "  -v, --verbose             say what is loaded (-vv: more)\n"
	      "\n"
	      "keys: < > or a column's letter sort, r reverse, t tree, / filter, space pause,\n"
	      "      d delay, h help, q quit\n",
	      f);
}

static int add_cgroup_arg(struct top_opts *o, char *arg)
{
	char **args = realloc(o->cgroup_args, (o->nr_cgroup_args + 1) * sizeof(char *));

	if (!args)
		return -ENOMEM;
	o->cgroup_args = args;
	o->cgroup_args[o->nr_cgroup_args++] = arg;
	return 0;
}

/* One option; returns -1 to go on, else the exit status: EXIT_OK after
 * --help, EXIT_USAGE after a usage error. */
static int parse_one(struct top_opts *o, int opt, char *arg, char **argv)
{
	switch (opt) {
	case 'e':
		if (!*arg || strlen(arg) >= sizeof(o->events_arg))
			return cli_usage_error("top", "invalid event list '%s'", arg);
		snprintf(o->events_arg, sizeof(o->events_arg), "%s", arg);
		return -1;
	case 'G':
		return add_cgroup_arg(o, arg) < 0 ? EXIT_RUNTIME : -1;
	case 'F':
		o->for_each = arg;
		return -1;
	case 'c':
		o->config_path = arg;
		return -1;
	case 'd':
		if (parse_seconds(arg, &o->delay_s) < 0 || o->delay_s < 0.1)
			return cli_usage_error("top", "invalid delay '%s' (seconds, at least 0.1)",
					       arg);
		return -1;
	case 'n':
		if (parse_u64(arg, 1000000000, &o->iterations) < 0 || o->iterations == 0)
			return cli_usage_error("top", "invalid number of iterations '%s'", arg);
		return -1;
	case 'b':
		o->batch = true;
		return -1;
	case 'J':
		o->json = o->batch = true;
		return -1;
	case 's':
		o->sort = arg;
		return -1;
	case 'T':
		o->tree = true;
		return -1;
	case 'S':
		o->strict = true;
		return -1;
	case 'h':
		usage(stdout);
		return EXIT_OK;
	case ':':
		return cli_usage_error("top", "option '%s' needs an argument", argv[optind - 1]);
	default:
		return cli_usage_error("top", "unknown option '%s'", argv[optind - 1]);
	}
}

static int parse_opts(int argc, char **argv, struct top_opts *o)
{
	static const struct option longopts[] = {
		{ "event", required_argument, NULL, 'e' },
		{ "cgroup", required_argument, NULL, 'G' },
		{ "for-each-cgroup", required_argument, NULL, 'F' },
		{ "config", required_argument, NULL, 'c' },
		{ "delay", required_argument, NULL, 'd' },
		{ "iterations", required_argument, NULL, 'n' },
		{ "batch", no_argument, NULL, 'b' },
		{ "json", no_argument, NULL, 'J' },
		{ "sort", required_argument, NULL, 's' },
		{ "tree", no_argument, NULL, 'T' },
		{ "strict", no_argument, NULL, 'S' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int opt, verbose = 0, r;

	opterr = 0;
	optind = 1;
	o->delay_s = 2;
	while ((opt = getopt_long(argc, argv, ":e:G:c:d:n:bs:vh", longopts, NULL)) != -1) {
		if (opt == 'v') {
			verbose++;
			continue;
		}
		r = parse_one(o, opt, optarg, argv);
		if (r >= 0)
			return r;
	}
	log_set_level(verbose >= 2 ? LOG_LVL_DEBUG : verbose ? LOG_LVL_INFO : LOG_LVL_WARN);
	if (optind < argc)
		return cli_usage_error("top", "unexpected argument '%s'", argv[optind]);
	if (!o->events_arg[0])
		snprintf(o->events_arg, sizeof(o->events_arg), "%s", DEFAULT_EVENTS);
	return -1;
}

/* -s: a column's title or JSON key (any case), or "name". False when no
 * column has that name. */
static bool apply_sort(struct top_model *m, const char *name)
{
	if (!strcasecmp(name, "name")) {
		m->sort_col = TOP_SORT_NAME;
		return true;
	}
	for (int c = 0; c < m->nr_cols; c++)
		if (!strcasecmp(name, m->cols[c].title) || !strcasecmp(name, m->cols[c].json_key)) {
			m->sort_col = c;
			return true;
		}
	return false;
}

/* ---- rows: what is shown, added and dropped as the tree changes ---- */

static bool for_each_matches(const char *pattern, const char *path)
{
	char copy[4096], *save = NULL;

	if (cgroup2_path_matches(pattern, path))
		return true;
	snprintf(copy, sizeof(copy), "%s", pattern);
	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		if (cgroup2_path_matches(tok, path))
			return true;
	return false;
}

static bool wanted(const struct top *t, const char *path, uint64_t id,
		   const struct cg_identity *ident, const struct cg_metadata *md)
{
	if (!t->explicit_targets)
		return cg_select(&t->sel, path, ident, md);
	for (int i = 0; i < t->targets.nr_keys; i++)
		if (t->targets.keys[i].key == id)
			return true;
	return t->o.for_each && for_each_matches(t->o.for_each, path);
}

static void admit(struct top *t, const struct cg_watch *w, const char *path, uint64_t id,
		  const struct cg_identity *ident, const struct cg_metadata *md)
{
	static const struct reading zero[READINGS_MAX_EVENTS];
	uint64_t anc[CGPERF_MAX_CGROUP_DEPTH];
	char name[CG_DISPLAY_NAME_SIZE];
	int nr_anc, slot, r;

	if (t->model.nr_rows >= (int)t->cfg.cgroups.max) {
		if (t->over_cap++ == 0)
			log_warn("more than %u cgroups: the rest is not shown (raise cgroups.max)",
				 t->cfg.cgroups.max);
		return;
	}
	nr_anc = cg_watch_ancestors(w, id, anc, CGPERF_MAX_CGROUP_DEPTH);
	if (nr_anc < 0)
		return; /* gone already, or too deep to count */
	r = counter_add_cgroup(t->counter, id, anc, nr_anc, &slot);
	if (r < 0) {
		log_warn("cannot count cgroup %s: %s", log_name(path), strerror(-r));
		return;
	}
	cg_display_name(path, ident, md, name, sizeof(name));
	r = top_model_add(&t->model, id, path, name, cg_kind_name(ident->kind), slot);
	if (r < 0) {
		counter_remove(t->counter, id, NULL);
		return;
	}
	/* A new slot counts from zero: the first interval is since now. */
	top_model_sample(&t->model, top_model_find(&t->model, id), zero, readings_now_boot_ns());
}

static bool has_names(const struct cg_identity *ident)
{
	return ident->kind == CG_KIND_CONTAINER || ident->kind == CG_KIND_POD;
}

/* Shown at once under its id; names follow from the lookup thread. Only a
 * selection by name waits for them. */
static void on_added(void *ctx, const struct cg_watch *w, const char *path, uint64_t id)
{
	static const struct cg_metadata no_names;
	struct top *t = ctx;
	struct cg_identity ident;
	bool wait = false;

	if (cg_identify_at(t->cfg.cgroups.root, path, &ident) < 0)
		return;
	if (has_names(&ident)) {
		wait = t->sel_needs_names;
		if (name_lookup_submit(t->names, id, path, &ident) < 0 && wait)
			return;
	}
	if (!wait && wanted(t, path, id, &ident, &no_names))
		admit(t, w, path, id, &ident, &no_names);
}

static void on_names(void *ctx, uint64_t id, const char *path, const struct cg_identity *ident,
		     const struct cg_metadata *meta)
{
	struct top *t = ctx;
	char name[CG_DISPLAY_NAME_SIZE];

	if (top_model_find(&t->model, id)) {
		cg_display_name(path, ident, meta, name, sizeof(name));
		top_model_set_name(&t->model, id, name);
	} else if (t->sel_needs_names && wanted(t, path, id, ident, meta)) {
		admit(t, t->watch, path, id, ident, meta);
	}
}

static void on_removed(void *ctx, const struct cg_watch *w, const char *path, uint64_t id)
{
	struct top *t = ctx;

	name_lookup_forget(t->names, id);
	if (top_model_remove(&t->model, id) == 0)
		counter_remove(t->counter, id, NULL);
}

static const struct cg_watch_ops watch_ops = { .added = on_added, .removed = on_removed };

/* ---- setup ---- */

static int load_config(struct top *t)
{
	char err[1024];

	if (t->o.config_path) {
		if (config_load_file(t->o.config_path, &t->cfg, err, sizeof(err)) < 0) {
			fprintf(stderr, "%s\n", err);
			return -EINVAL;
		}
	} else if (config_load_default(&t->cfg) < 0) {
		fputs("cgperf top: the embedded default config is broken\n", stderr);
		return -EINVAL;
	}
	config_selector(&t->cfg, t->include, t->exclude, &t->sel);
	t->sel_needs_names = cg_select_uses_names(&t->sel);
	metadata_roots_from_config(&t->cfg.metadata, NULL, &t->roots);
	return 0;
}

static int resolve_targets(struct top *t)
{
	int r = 0;

	for (int i = 0; i < t->o.nr_cgroup_args && r == 0; i++)
		r = stat_targets_add_cgroups(&t->targets, t->o.cgroup_args[i]);
	if (r == 0 && t->o.for_each)
		r = stat_targets_for_each_cgroup(&t->targets, t->o.for_each);
	t->explicit_targets = t->o.nr_cgroup_args || t->o.for_each;
	/* Given by name: these are shown whatever the selection says. */
	if (t->explicit_targets)
		t->sel_needs_names = false;
	return r;
}

static int resolve_events(struct top *t)
{
	struct cli_events e = { .cmd = "cgperf top",
				.list = t->o.events_arg,
				.strict = t->o.strict,
				.ret_events = t->events,
				.max = CGPERF_MAX_EVENTS,
				.ret_skipped = t->skipped,
				.max_skipped = 64 };
	int n = cli_resolve_events(&e);

	if (n < 0)
		return n;
	top_model_init(&t->model, t->events, n, t->skipped, e.nr_skipped);
	t->model.tree = t->o.tree;
	if (!strcmp(t->o.events_arg, DEFAULT_EVENTS))
		top_model_note(&t->model, "BMISS%",
			       "not among the default events (a session counts at most 8); "
			       "give -e with branches,branch-misses");
	if (t->o.sort && !apply_sort(&t->model, t->o.sort)) {
		cli_usage_error("top", "no column '%s' to sort by", t->o.sort);
		return -EINVAL;
	}
	return 0;
}

static int open_counter(struct top *t)
{
	struct counter_opts co = { .events = t->events,
				   .nr_events = t->model.nr_events,
				   .filter = CGPERF_FILTER_CGROUP,
				   .max_slots = (int)t->cfg.cgroups.max,
				   .max_keys = (int)t->cfg.cgroups.max };
	int r = counter_open(&co, &t->counter);

	if (r == -EPERM || r == -EACCES)
		fputs("cgperf top: permission denied: counting needs root "
		      "(CAP_BPF, CAP_PERFMON and CAP_SYS_ADMIN)\n",
		      stderr);
	else if (r < 0 && r != -EOPNOTSUPP)
		fprintf(stderr, "cgperf top: cannot set up counting: %s\n", strerror(-r));
	if (r < 0)
		return r;
	t->vals = calloc((size_t)t->cfg.cgroups.max * t->model.nr_events, sizeof(*t->vals));
	return t->vals ? counter_enable(t->counter) : -ENOMEM;
}

static int start_watching(struct top *t)
{
	struct cg_watch_opts wo = { .max_depth = t->explicit_targets ? 0 : t->cfg.cgroups.max_depth,
				    .max_watches = t->cfg.cgroups.max_watches };
	int r = name_lookup_new(&t->roots, &t->names);

	if (r < 0) {
		fprintf(stderr, "cgperf top: cannot start the name lookup thread: %s\n",
			strerror(-r));
		return r;
	}
	r = cg_watch_new(&wo, &watch_ops, t, &t->watch);
	if (r < 0)
		fprintf(stderr, "cgperf top: cannot watch the cgroup tree: %s\n", strerror(-r));
	return r;
}

static int block_signals(bool curses)
{
	sigset_t mask;

	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	if (curses)
		sigaddset(&mask, SIGWINCH);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	return signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
}

/* ---- the loop ---- */

static int sample(struct top *t)
{
	uint64_t now_ns;
	int r = counter_sync_periodic(t->counter);

	if (r == 0)
		r = counter_read_all(t->counter, counter_slot_bound(t->counter), t->vals);
	if (r < 0) {
		log_error("reading the counters failed: %s", strerror(-r));
		return r;
	}
	now_ns = readings_now_boot_ns();
	for (int i = 0; i < t->model.nr_rows; i++) {
		struct top_row *row = t->model.rows[i];

		top_model_sample(&t->model, row, &t->vals[(size_t)row->slot * t->model.nr_events],
				 now_ns);
	}
	clock_gettime(CLOCK_REALTIME, &t->st.now);
	return 0;
}

static int show(struct top *t)
{
	int r = top_model_view(&t->model);

	if (r < 0)
		return r;
	if (t->ui)
		return top_curses_draw(t->ui, &t->model, &t->st);
	return t->o.json ? top_print_json(stdout, &t->model, &t->st)
			 : top_print_table(stdout, &t->model, &t->st);
}

/* An interval: sample and show. Returns 1 when the last one is done. */
static int tick(struct top *t)
{
	int r;

	if (t->st.paused)
		return 0;
	r = sample(t);
	if (r == 0)
		r = show(t);
	if (r < 0)
		return r;
	return t->o.iterations && ++t->printed >= t->o.iterations;
}

enum {
	FD_SIG,
	FD_TIMER,
	FD_WATCH,
	FD_NAMES,
	FD_KEYS,
	NR_FDS
};

/* Returns 0 or a negative errno (a read or write that failed). */
static int run_loop(struct top *t, int sig_fd, int timer_fd)
{
	struct pollfd p[NR_FDS] = {
		[FD_SIG] = { sig_fd, POLLIN, 0 },
		[FD_TIMER] = { timer_fd, POLLIN, 0 },
		[FD_WATCH] = { cg_watch_fd(t->watch), POLLIN, 0 },
		[FD_NAMES] = { name_lookup_fd(t->names), POLLIN, 0 },
		[FD_KEYS] = { t->ui ? STDIN_FILENO : -1, POLLIN, 0 },
	};
	int r = t->ui ? show(t) : 0;

	while (r == 0) {
		struct signalfd_siginfo si;
		bool redraw = false;
		uint64_t n;

		if (poll(p, NR_FDS, -1) < 0 && errno != EINTR)
			return -errno;
		if (p[FD_SIG].revents & POLLIN && read(sig_fd, &si, sizeof(si)) == sizeof(si)) {
			if (si.ssi_signo != SIGWINCH)
				return 0;
			top_curses_resize(t->ui);
			redraw = true;
		}
		if (p[FD_TIMER].revents & POLLIN && read(timer_fd, &n, sizeof(n)) > 0 &&
		    (r = tick(t)) != 0)
			return r < 0 ? r : 0;
		if (p[FD_WATCH].revents & POLLIN) {
			cg_watch_process(t->watch);
			redraw = true;
		}
		if (p[FD_NAMES].revents & POLLIN) {
			name_lookup_collect(t->names, on_names, t);
			redraw = true;
		}
		if (p[FD_KEYS].revents & POLLIN) {
			unsigned what = top_curses_keys(t->ui, &t->model, &t->st);

			if (what & TOP_KEY_QUIT)
				return 0;
			if (what & TOP_KEY_DELAY)
				timer_rearm(timer_fd, t->st.interval_s, true);
			redraw |= (what & TOP_KEY_REDRAW) != 0;
		}
		if (redraw && t->ui)
			r = show(t);
	}
	return r;
}

static int run(struct top *t)
{
	int sig_fd = block_signals(!t->o.batch), timer_fd = -1, r;

	if (sig_fd < 0)
		return -errno;
	if (!t->o.batch)
		top_curses_locale();
	r = start_watching(t);
	if (r == 0 && !t->o.batch)
		r = top_curses_open(&t->ui);
	if (r == 0 && (timer_fd = timer_relative(t->st.interval_s, true)) < 0)
		r = timer_fd;
	if (r == 0)
		r = run_loop(t, sig_fd, timer_fd);
	top_curses_close(t->ui);
	t->ui = NULL;
	if (timer_fd >= 0)
		close(timer_fd);
	close(sig_fd);
	return r;
}

static void top_free(struct top *t)
{
	cg_watch_free(t->watch);
	name_lookup_free(t->names);
	counter_close(t->counter);
	top_model_free(&t->model);
	stat_targets_free(&t->targets);
	free(t->vals);
	free(t->o.cgroup_args);
}

int do_top(int argc, char **argv)
{
	static struct top t;
	int rc = EXIT_RUNTIME, r;

	memset(&t, 0, sizeof(t));
	r = parse_opts(argc, argv, &t.o);
	if (r >= 0) {
		free(t.o.cgroup_args);
		return r;
	}
	t.st.interval_s = t.o.delay_s;
	if (!t.o.batch && !isatty(STDOUT_FILENO)) {
		fputs("cgperf top: the output is not a terminal: use -b (plain text) or --json\n",
		      stderr);
		rc = EXIT_USAGE;
		goto out;
	}
	if (load_config(&t) < 0) {
		rc = EXIT_USAGE;
		goto out;
	}
	r = resolve_targets(&t);
	if (r == 0)
		r = resolve_events(&t);
	if (r < 0) {
		rc = cli_exit_code(r);
		goto out;
	}
	if (open_counter(&t) < 0)
		goto out;
	log_info("counting started (%s)", counter_mode_name(t.counter));
	r = run(&t);
	if (r < 0 && r != -EIO)
		fprintf(stderr, "cgperf top: %s\n", strerror(-r));
	rc = r < 0 ? EXIT_RUNTIME : EXIT_OK;
out:
	top_free(&t);
	return rc;
}
