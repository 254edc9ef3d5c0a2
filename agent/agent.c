/* The agent: one poll loop over a wall-clock-aligned interval timer, signals,
 * the cgroup watcher and the sinks' sockets. See docs/AGENT.md. */
#include "agent/agent.h"
#include "agent/cli_util.h"
#include "agent/metadata_roots.h"
#include "agent/monitored.h"
#include "agent/name_lookup.h"
#include "bpf/counter.h"
#include "cgroup/cgroup2.h"
#include "cgroup/identity.h"
#include "cgroup/metadata.h"
#include "cgroup/select.h"
#include "cgroup/watch.h"
#include "events/event_parse.h"
#include "events/event_probe.h"
#include "sink/csv_sink.h"
#include "sink/syslog_sink.h"
#include "util/log.h"
#include "util/timer.h"
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#define RESCAN_INTERVAL_S 60
#define MAX_SINKS 4

struct agent {
	struct agent_config cfg;
	struct event_spec events[CGPERF_MAX_EVENTS];
	const char *event_names[CGPERF_MAX_EVENTS];
	int nr_events;
	struct counter *counter;
	struct cg_watch *watch;
	struct sink *sinks[MAX_SINKS];
	int nr_sinks;
	struct sink *syslog; /* also in sinks[], driven by the loop */
	struct sink *csv;    /* also in sinks[] */
	unsigned long long cgroups_seen; /* ever counted, for the summary */
	struct monitored_set mon;
	struct metadata_roots roots;
	struct name_lookup *names;
	struct cg_selector sel;
	bool sel_needs_names; /* name: patterns: containers wait for their names */
	const char *include[CONFIG_MAX_PATTERNS], *exclude[CONFIG_MAX_PATTERNS];
	struct cgperf_reading *vals; /* cfg.cgroups.max * nr_events */
	unsigned over_cap;
	struct log_ratelimit cap_rl, add_rl, write_rl, watch_rl;
};

/* ---- configuration ---- */

static int load_config(const struct agent_opts *o, struct agent_config *cfg)
{
	char err[1024];
	int r;

	if (o->config_path)
		r = config_load_file(o->config_path, cfg, err, sizeof(err));
	else
		r = config_load_default(cfg);
	if (r < 0) {
		fprintf(stderr, "%s\n", o->config_path ? err : "cgperf: the embedded default config is broken");
		return r;
	}
	if (o->interval_ms)
		cfg->interval_ms = o->interval_ms;
	if (o->csv_dir) {
		cfg->csv.enabled = true;
		snprintf(cfg->csv.directory, sizeof(cfg->csv.directory), "%s", o->csv_dir);
	}
	if (o->syslog_target) {
		r = config_parse_syslog_target(o->syslog_target, &cfg->syslog, err, sizeof(err));
		if (r < 0) {
			fprintf(stderr, "cgperf agent: --syslog: %s\n", err);
			return r;
		}
		cfg->syslog.enabled = true;
	}
	if (o->events) {
		struct event_spec ev[CONFIG_MAX_EVENTS];
		int n = event_parse_list(o->events, ev, CONFIG_MAX_EVENTS, err, sizeof(err));
		if (n < 0) {
			fprintf(stderr, "cgperf agent: -e: %s\n", err);
			return -EINVAL;
		}
		cfg->nr_events = n;
		for (int i = 0; i < n; i++)
			snprintf(cfg->events[i], sizeof(cfg->events[i]), "%.127s", ev[i].name);
	}
	return 0;
}

/* Unsupported events are skipped with one warning each, as in cgperf stat. */
static int resolve_events(struct agent *a)
{
	char err[512];

	a->nr_events = 0;
	for (int i = 0; i < a->cfg.nr_events; i++) {
		struct event_spec ev;
		int r = event_parse(a->cfg.events[i], &ev, err, sizeof(err));

		if (r < 0) {
			log_error("%s", err);
			return r;
		}
		r = event_probe(&ev, err, sizeof(err));
		if (r == -EACCES || r == -EPERM) {
			log_error("%s", err);
			return r;
		}
		if (r < 0) {
			log_warn("%s; skipping it", err);
			continue;
		}
		a->events[a->nr_events] = ev;
		a->event_names[a->nr_events] = a->events[a->nr_events].name;
		a->nr_events++;
	}
	if (a->nr_events == 0) {
		log_error("none of the configured events is supported on this host");
		return -EOPNOTSUPP;
	}
	return 0;
}

static void setup_selector(struct agent *a)
{
	for (int i = 0; i < a->cfg.cgroups.nr_include; i++)
		a->include[i] = a->cfg.cgroups.include[i];
	for (int i = 0; i < a->cfg.cgroups.nr_exclude; i++)
		a->exclude[i] = a->cfg.cgroups.exclude[i];
	a->sel = (struct cg_selector){
		.include = a->include,
		.nr_include = a->cfg.cgroups.nr_include,
		.exclude = a->exclude,
		.nr_exclude = a->cfg.cgroups.nr_exclude,
		.containers_only = a->cfg.cgroups.containers_only,
		.include_infrastructure = a->cfg.cgroups.include_infrastructure,
		.max_depth = a->cfg.cgroups.max_depth,
	};
	a->sel_needs_names = cg_select_uses_names(&a->sel);
}

/* ---- sinks ---- */

static void write_record(struct agent *a, struct monitored *m, const struct cgperf_reading *totals,
			 bool final)
{
	struct sink_record rec = {
		.cgroup = &m->sink,
		.nr_events = a->nr_events,
		.event_names = a->event_names,
		.totals = totals,
		.final = final,
		.since = m->since,
	};

	clock_gettime(CLOCK_REALTIME, &rec.time);
	for (int i = 0; i < a->nr_sinks; i++)
		a->sinks[i]->ops->write(a->sinks[i], &rec);
}

static void flush_sinks(struct agent *a)
{
	for (int i = 0; i < a->nr_sinks; i++)
		if (a->sinks[i]->ops->flush)
			a->sinks[i]->ops->flush(a->sinks[i]);
}

static int open_sinks(struct agent *a)
{
	int r;

	if (a->cfg.csv.enabled) {
		r = csv_sink_new(&a->cfg.csv, &a->sinks[a->nr_sinks]);
		if (r < 0) {
			log_error("cannot write CSV files to %s: %s", a->cfg.csv.directory, strerror(-r));
			return r;
		}
		a->csv = a->sinks[a->nr_sinks++];
	}
	if (a->cfg.syslog.enabled) {
		r = syslog_sink_new(&a->cfg.syslog, &a->sinks[a->nr_sinks]);
		if (r < 0) {
			log_error("cannot set up syslog to %s: %s", a->cfg.syslog.target, strerror(-r));
			return r;
		}
		a->syslog = a->sinks[a->nr_sinks++];
	}
	if (a->nr_sinks == 0)
		log_warn("no output configured (neither CSV nor syslog): counting without logging");
	return 0;
}

/* ---- cgroups coming and going ---- */

static void start_counting(struct agent *a, const char *path, uint64_t id,
			   const struct cg_identity *ident, const struct cg_metadata *meta)
{
	uint64_t anc[CGPERF_MAX_CGROUP_DEPTH];
	int nr_anc, slot, r;

	if ((unsigned)a->mon.nr >= a->cfg.cgroups.max) {
		a->over_cap++;
		log_ratelimited(&a->cap_rl, 60, LOG_LVL_WARN,
				"monitored cgroup cap (%u) reached: %u cgroups not counted (raise cgroups.max)",
				a->cfg.cgroups.max, a->over_cap);
		return;
	}
	nr_anc = cgroup2_ancestor_ids(path, anc, CGPERF_MAX_CGROUP_DEPTH);
	if (nr_anc < 0)
		return; /* gone already */
	r = counter_add_cgroup(a->counter, id, anc, nr_anc, &slot);
	if (r < 0) {
		log_ratelimited(&a->add_rl, 60, LOG_LVL_WARN, "cannot count cgroup %s: %s", path,
				r == -E2BIG ? "more than 8 nested monitored levels" : strerror(-r));
		return;
	}
	if (!monitored_add(&a->mon, id, slot, path, ident, meta)) {
		counter_remove(a->counter, id, NULL);
		return;
	}
	a->cgroups_seen++;
	log_debug("counting %s (%s %s)", path, cg_kind_name(ident->kind), ident->runtime);
}

/* Only containers and pods have names in the runtimes' files. */
static bool has_names(const struct cg_identity *ident)
{
	return ident->kind == CG_KIND_CONTAINER || ident->kind == CG_KIND_POD;
}

/* A new cgroup is counted at once; its names are looked up off the loop
 * and follow (on_names). Only a selection by name: has to wait for them. */
static void on_cgroup_added(void *ctx, const char *path, uint64_t id)
{
	static const struct cg_metadata no_names;
	struct agent *a = ctx;
	struct cg_identity ident;
	bool wait = false;

	if (monitored_find(&a->mon, id) || cg_identify_at(a->cfg.cgroups.root, path, &ident) < 0)
		return;
	if (has_names(&ident)) {
		wait = a->sel_needs_names;
		if (name_lookup_submit(a->names, id, path, &ident) < 0 && wait)
			return;
	}
	if (!wait && cg_select(&a->sel, path, &ident, &no_names))
		start_counting(a, path, id, &ident, &no_names);
}

static void on_names(void *ctx, uint64_t id, const char *path, const struct cg_identity *ident,
		     const struct cg_metadata *meta)
{
	struct agent *a = ctx;
	struct monitored *m = monitored_find(&a->mon, id);

	if (m)
		monitored_set_meta(m, meta);
	else if (a->sel_needs_names && cg_select(&a->sel, path, ident, meta))
		start_counting(a, path, id, ident, meta);
}

static void on_cgroup_removed(void *ctx, const char *path, uint64_t id)
{
	struct agent *a = ctx;
	struct cgperf_reading final[CGPERF_MAX_EVENTS];
	struct monitored *m = monitored_find(&a->mon, id);

	if (!m)
		return;
	/* One last read after the key is gone, then the final row. */
	if (counter_remove(a->counter, id, final) == 0) {
		write_record(a, m, final, true);
		flush_sinks(a);
	}
	log_debug("stopped counting %s", m->path);
	monitored_remove(&a->mon, id);
}

/* inotify limits: new cgroups under unwatched directories are only found by
 * the periodic rescan (late, not lost): say so, once a minute at most. */
static void report_watch_limits(struct agent *a)
{
	char reason[256];

	if (cg_watch_limit_reason(a->watch, reason, sizeof(reason)))
		log_ratelimited(&a->watch_rl, 60, LOG_LVL_WARN, "%s", reason);
}

/* ---- intervals ---- */

static int read_all(struct agent *a)
{
	int r = counter_sync(a->counter);

	/* Only as far as slots are used: with per-CPU values, reading all of
	 * cgroups.max on a many-CPU host would copy megabytes per interval. */
	if (r == 0)
		r = counter_read_all(a->counter, counter_slot_bound(a->counter), a->vals);
	if (r < 0)
		log_ratelimited(&a->write_rl, 60, LOG_LVL_ERROR, "reading the counters failed: %s",
				strerror(-r));
	return r;
}

static void interval_tick(struct agent *a, bool final)
{
	if (read_all(a) < 0)
		return;
	for (int i = 0; i < a->mon.nr; i++) {
		struct monitored *m = a->mon.items[i];
		write_record(a, m, &a->vals[(size_t)m->slot * a->nr_events], final);
	}
	flush_sinks(a);
}

/* ---- lifecycle ---- */

/* One line for whoever reads the log after a stop or reload: what was
 * counted and whether every row got out. */
static void log_summary(struct agent *a)
{
	char csv[160] = "", sys[200] = "";
	struct csv_sink_stats cs;
	struct syslog_sink_stats ss;

	if (a->csv && csv_sink_get_stats(a->csv, &cs) == 0)
		snprintf(csv, sizeof(csv), "; CSV: %llu rows written, %llu failed, %llu final rows lost",
			 (unsigned long long)cs.rows_written, (unsigned long long)cs.rows_failed,
			 (unsigned long long)cs.finals_lost);
	if (a->syslog && syslog_sink_get_stats(a->syslog, &ss) == 0)
		snprintf(sys, sizeof(sys), "; syslog: %llu messages sent, %llu dropped, %zu undelivered",
			 (unsigned long long)ss.sent, (unsigned long long)ss.dropped, ss.queued);
	log_info("summary: %llu cgroups counted, %u over the cap%s%s", a->cgroups_seen, a->over_cap,
		 csv, sys);
}

static void agent_stop(struct agent *a, bool final_rows)
{
	if (final_rows && a->counter)
		interval_tick(a, true);
	cg_watch_free(a->watch);
	a->watch = NULL;
	/* Give queued syslog messages a moment to reach the receiver. */
	if (a->syslog)
		syslog_sink_drain(a->syslog, 2000);
	if (final_rows)
		log_summary(a);
	for (int i = 0; i < a->nr_sinks; i++)
		a->sinks[i]->ops->free(a->sinks[i]);
	a->nr_sinks = 0;
	a->syslog = NULL;
	a->csv = NULL;
	a->cgroups_seen = 0;
	a->over_cap = 0;
	counter_close(a->counter);
	a->counter = NULL;
	monitored_clear(&a->mon);
	name_lookup_free(a->names);
	a->names = NULL;
	free(a->vals);
	a->vals = NULL;
}

static int agent_start(struct agent *a)
{
	static const struct cg_watch_ops ops = { .added = on_cgroup_added,
						 .removed = on_cgroup_removed };
	struct counter_opts co = { .filter = CGPERF_FILTER_CGROUP };
	struct cg_watch_opts wo = { .max_depth = 0 };
	const char *root;
	int r;

	if (cgroup2_root(&root, NULL) < 0) {
		log_error("no cgroup2 hierarchy is mounted: per-cgroup counting needs cgroup2 "
			  "(unified or hybrid mode)");
		return -ENOENT;
	}
	r = resolve_events(a);
	if (r < 0)
		return r;
	setup_selector(a);
	metadata_roots_from_config(&a->cfg.metadata, NULL, &a->roots);
	r = name_lookup_new(&a->roots, &a->names);
	if (r < 0) {
		log_error("cannot start the name lookup thread: %s", strerror(-r));
		return r;
	}
	a->vals = calloc((size_t)a->cfg.cgroups.max * a->nr_events, sizeof(*a->vals));
	if (!a->vals)
		return -ENOMEM;
	co.events = a->events;
	co.nr_events = a->nr_events;
	co.max_slots = a->cfg.cgroups.max;
	co.max_keys = a->cfg.cgroups.max;
	r = counter_open(&co, &a->counter);
	if (r < 0) {
		log_error("cannot set up counting: %s", strerror(-r));
		return r;
	}
	r = open_sinks(a);
	if (r < 0)
		return r;
	counter_enable(a->counter);
	/* The initial scan reports every existing cgroup through on_cgroup_added. */
	r = cg_watch_new(&wo, &ops, a, &a->watch);
	if (r < 0) {
		log_error("cannot watch the cgroup tree under %s: %s", root, strerror(-r));
		return r;
	}
	report_watch_limits(a);
	log_info("counting %d cgroups under %s, %d events, every %llu ms (%s)", a->mon.nr, root,
		 a->nr_events, (unsigned long long)a->cfg.interval_ms,
		 follower_mode_name(counter_mode(a->counter)));
	return 0;
}

/* ---- timers and the loop ---- */

/* Fire at wall-clock multiples of the interval (10:00:00, 10:00:10, ...), so
 * rows from many hosts line up. */
static int arm_interval_timer(int fd, uint64_t interval_ms)
{
	struct timespec now;
	struct itimerspec its = { 0 };
	uint64_t now_ms, next_ms;

	clock_gettime(CLOCK_REALTIME, &now);
	now_ms = (uint64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
	next_ms = (now_ms / interval_ms + 1) * interval_ms;
	its.it_value.tv_sec = next_ms / 1000;
	its.it_value.tv_nsec = (next_ms % 1000) * 1000000;
	its.it_interval.tv_sec = interval_ms / 1000;
	its.it_interval.tv_nsec = (interval_ms % 1000) * 1000000;
	return timerfd_settime(fd, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET, &its, NULL) < 0 ? -errno
												 : 0;
}

static void drain(int fd)
{
	uint64_t v;
	while (read(fd, &v, sizeof(v)) > 0)
		;
}

/* SIGHUP: a valid new config replaces the old one (final rows, restart of
 * counting with the new settings); an invalid one is reported and ignored.
 * Either way output files are reopened. */
static int reload(struct agent *a, const struct agent_opts *o)
{
	struct agent_config next;

	log_info("SIGHUP: reloading %s", o->config_path ? o->config_path : "the embedded config");
	if (load_config(o, &next) < 0) {
		log_error("keeping the running configuration");
	} else if (memcmp(&next, &a->cfg, sizeof(next)) != 0) {
		struct agent_config previous = a->cfg;

		agent_stop(a, true);
		a->cfg = next;
		if (agent_start(a) == 0)
			return 0;
		/* Valid on paper but it cannot run here (an unwritable CSV
		 * directory, no supported event, ...): keep counting as before. */
		log_error("the new configuration cannot run; going back to the previous one");
		agent_stop(a, false);
		a->cfg = previous;
		return agent_start(a);
	}
	for (int i = 0; i < a->nr_sinks; i++)
		if (a->sinks[i]->ops->reopen)
			a->sinks[i]->ops->reopen(a->sinks[i]);
	return 0;
}

enum { FD_SIGNAL, FD_INTERVAL, FD_RESCAN, FD_END, FD_WATCH, FD_SYSLOG, FD_NAMES, NR_FDS };

static int loop(struct agent *a, const struct agent_opts *o, int sig_fd)
{
	int interval_fd = timerfd_create(CLOCK_REALTIME, TFD_CLOEXEC | TFD_NONBLOCK);
	int rescan_fd = timer_relative(RESCAN_INTERVAL_S, true);
	int end_fd = o->duration_s > 0 ? timer_relative(o->duration_s, false) : -1;
	int rc = EXIT_OK;

	if (interval_fd < 0 || rescan_fd < 0 || arm_interval_timer(interval_fd, a->cfg.interval_ms) < 0) {
		log_error("cannot create timers: %s", strerror(errno));
		rc = EXIT_RUNTIME;
		goto out;
	}
	for (;;) {
		struct pollfd p[NR_FDS] = {
			[FD_SIGNAL] = { sig_fd, POLLIN, 0 },
			[FD_INTERVAL] = { interval_fd, POLLIN, 0 },
			[FD_RESCAN] = { rescan_fd, POLLIN, 0 },
			[FD_END] = { end_fd, POLLIN, 0 },
			[FD_WATCH] = { a->watch ? cg_watch_fd(a->watch) : -1, POLLIN, 0 },
			[FD_SYSLOG] = { -1, 0, 0 },
			[FD_NAMES] = { a->names ? name_lookup_fd(a->names) : -1, POLLIN, 0 },
		};
		if (a->syslog)
			p[FD_SYSLOG] = (struct pollfd){ syslog_sink_fd(a->syslog), POLLIN, 0 };

		if (poll(p, NR_FDS, -1) < 0 && errno != EINTR) {
			log_error("poll: %s", strerror(errno));
			rc = EXIT_RUNTIME;
			break;
		}
		if (p[FD_SYSLOG].revents & POLLIN)
			syslog_sink_process(a->syslog);
		if (p[FD_WATCH].revents & POLLIN)
			cg_watch_process(a->watch);
		if (p[FD_NAMES].revents & POLLIN)
			name_lookup_collect(a->names, on_names, a);
		if (p[FD_INTERVAL].revents & POLLIN) {
			uint64_t ticks;
			if (read(interval_fd, &ticks, sizeof(ticks)) < 0 && errno == ECANCELED)
				arm_interval_timer(interval_fd, a->cfg.interval_ms); /* clock was set */
			interval_tick(a, false);
		}
		if (p[FD_RESCAN].revents & POLLIN) {
			drain(rescan_fd);
			if (a->watch) {
				cg_watch_rescan(a->watch);
				report_watch_limits(a);
			}
		}
		if (p[FD_END].revents & POLLIN)
			break;
		if (p[FD_SIGNAL].revents & POLLIN) {
			struct signalfd_siginfo si;
			if (read(sig_fd, &si, sizeof(si)) != sizeof(si))
				continue;
			if (si.ssi_signo == SIGHUP) {
				if (reload(a, o) < 0) {
					rc = EXIT_RUNTIME;
					break;
				}
				arm_interval_timer(interval_fd, a->cfg.interval_ms);
				continue;
			}
			log_info("%s: writing final rows and exiting", strsignal(si.ssi_signo));
			break;
		}
	}
out:
	if (interval_fd >= 0)
		close(interval_fd);
	if (rescan_fd >= 0)
		close(rescan_fd);
	if (end_fd >= 0)
		close(end_fd);
	return rc;
}

int agent_run(const struct agent_opts *o)
{
	struct agent a = { 0 };
	sigset_t mask;
	int sig_fd, rc;

	if (load_config(o, &a.cfg) < 0)
		return EXIT_USAGE;
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	signal(SIGPIPE, SIG_IGN); /* a closed syslog TCP peer is an error code, not a death */
	sig_fd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sig_fd < 0)
		return EXIT_RUNTIME;

	if (agent_start(&a) < 0) {
		agent_stop(&a, false);
		close(sig_fd);
		return EXIT_RUNTIME;
	}
	rc = loop(&a, o, sig_fd);
	agent_stop(&a, true);
	close(sig_fd);
	return rc;
}
