// SPDX-License-Identifier: GPL-2.0-only
/* The agent: one poll loop over a wall-clock-aligned interval timer, signals,
 * the cgroup watcher and the sinks' sockets. See docs/AGENT.md. */
#include "agent/agent_int.h"
#include "agent/config_selector.h"
#include "agent/metadata_roots.h"
#include "agent/name_lookup.h"
#include "bpf/cpuhp_notify.h"
#include "cgroup/cgroup2.h"
#include "events/event_probe.h"
#include "sink/csv_sink.h"
#include "sink/prom_sink.h"
#include "sink/syslog_sink.h"
#include "util/sd_notify.h"
#include "util/timer.h"
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

/* ---- configuration ---- */

int agent_load_config(const struct agent_opts *o, struct agent_config *cfg)
{
	char err[1024];
	int r;

	if (o->config_path)
		r = config_load_file(o->config_path, cfg, err, sizeof(err));
	else
		r = config_load_default(cfg);
	if (r < 0) {
		fprintf(stderr, "%s\n",
			o->config_path ? err : "cgperf: the embedded default config is broken");
		return r;
	}
	if (o->interval_ms)
		cfg->interval_ms = o->interval_ms;
	/* persist: auto keeps counting in the kernel between runs of a service
	 * (systemd, a DaemonSet: stdin is not a terminal), not after a try in
	 * a terminal (scripts/run, Ctrl-C). */
	if (o->no_persist || o->persist) {
		cfg->persist = o->persist;
		cfg->persist_auto = false;
	} else if (cfg->persist_auto) {
		/* `cgperf release` ends the pinned session, from a terminal too. */
		cfg->persist = o->release || !isatty(STDIN_FILENO);
	}
	if (o->instance) {
		memset(cfg->instance, 0, sizeof(cfg->instance));
		snprintf(cfg->instance, sizeof(cfg->instance), "%s", o->instance);
	}
	if (o->csv_dir) {
		cfg->csv.enabled = true;
		snprintf(cfg->csv.directory, sizeof(cfg->csv.directory), "%s", o->csv_dir);
	}
	if (o->syslog_target) {
		r = config_parse_syslog_target(o->syslog_target, &cfg->syslog, err, sizeof(err));
		if (r < 0) {
			fprintf(stderr, "cgperf agent: --syslog: %s\n", log_name(err));
			return r;
		}
		cfg->syslog.enabled = true;
	}
	if (o->prometheus_listen) {
		r = config_parse_listen(o->prometheus_listen, &cfg->prometheus, err, sizeof(err));
		if (r < 0) {
			fprintf(stderr, "cgperf agent: --prometheus: %s\n", err);
			return r;
		}
		cfg->prometheus.enabled = true;
	}
	if (o->events) {
		struct event_spec ev[CONFIG_MAX_EVENTS];
		int n = event_parse_list(o->events, ev, CONFIG_MAX_EVENTS, err, sizeof(err));
		if (n < 0) {
			fprintf(stderr, "cgperf agent: -e: %s\n", log_name(err));
			return -EINVAL;
		}
		cfg->nr_events = n;
		for (int i = 0; i < n; i++)
			snprintf(cfg->events[i], sizeof(cfg->events[i]), "%.127s", ev[i].name);
	}
	return 0;
}

/* A derived column whose events are not counted (skipped as unsupported,
 * or -e) stays empty: say so once. */
static void warn_derived_list(const struct agent *a, const char *output,
			      const struct derived_list *l)
{
	for (int i = 0; i < l->nr; i++)
		if (!derived_counted(l->m[i], &a->derived))
			log_warn("outputs.%s.derived: %s needs the events %s, not counted here; "
				 "its column stays empty",
				 output, derived_name(l->m[i]), derived_inputs(l->m[i]));
}

/* Unsupported events are skipped with one warning each, as in cgperf stat. */
static int resolve_events(struct agent *a)
{
	char err[512];

	/* The names are rewritten in place (a reload): rows say so. */
	if (++a->events_gen == 0)
		a->events_gen = 1;
	a->nr_events = 0;
	for (int i = 0; i < a->cfg.nr_events; i++) {
		struct event_spec ev;
		int r = event_parse(a->cfg.events[i], &ev, err, sizeof(err));

		if (r < 0) {
			log_error("%s", log_name(err));
			return r;
		}
		r = event_probe(&ev, err, sizeof(err));
		if (r == -EACCES || r == -EPERM) {
			log_error("%s", log_name(err));
			return r;
		}
		if (r < 0) {
			log_warn("%s; skipping it", log_name(err));
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
	derived_map_events(a->events, a->nr_events, &a->derived);
	if (a->cfg.csv.enabled)
		warn_derived_list(a, "csv", &a->cfg.csv.derived);
	if (a->cfg.syslog.enabled)
		warn_derived_list(a, "syslog", &a->cfg.syslog.derived);
	return 0;
}

static void setup_selector(struct agent *a)
{
	config_selector(&a->cfg, a->include, a->exclude, &a->sel);
	a->sel_needs_names = cg_select_uses_names(&a->sel);
}

/* ---- outputs ---- */

static void add_output(struct agent *a, struct sink *s, enum record_output_id id)
{
	s->done = agent_row_done; /* rows may be queued: answered by the flush */
	s->done_ctx = a;
	a->outputs[a->nr_outputs++] = (struct agent_output){ s, id, s->ops->name };
}

static int open_outputs(struct agent *a)
{
	struct sink *s;
	int r;

	if (a->cfg.csv.enabled) {
		r = csv_sink_new(&a->cfg.csv, &s);
		if (r == -EPERM) {
			log_error(
				"refusing to write CSV files to %s: the directory belongs to another "
				"user, who could replace the files under cgperf; chown it to cgperf's "
				"user or choose another directory",
				a->cfg.csv.directory);
			return r;
		}
		if (r < 0) {
			log_error("cannot write CSV files to %s: %s",
				  log_name(a->cfg.csv.directory), strerror(-r));
			return r;
		}
		/* Rows are held only at intervals shorter than flush_interval:
		 * the configured interval, not the one a row measures (the
		 * collection at start is off the timer's grid, a clock set
		 * too), so that at the default 10 s no row ever waits. */
		s->may_hold = s->may_hold && a->cfg.interval_ms < a->cfg.csv.flush_interval_ms;
		add_output(a, s, RECORD_OUT_CSV);
		a->csv = s;
	}
	if (a->cfg.syslog.enabled) {
		r = syslog_sink_new(&a->cfg.syslog, &s);
		if (r < 0) {
			log_error("cannot set up syslog to %s: %s", log_name(a->cfg.syslog.target),
				  strerror(-r));
			return r;
		}
		add_output(a, s, RECORD_OUT_SYSLOG);
		a->syslog = s;
	}
	/* Last, so that the health numbers it publishes include this
	 * collection's CSV rows and syslog messages. */
	if (a->http || a->cfg.textfile.enabled) {
		const struct prometheus_config *pc = &a->cfg.prometheus;
		const char *keys[METADATA_MAX_LABELS];
		struct prom_sink_opts po = {
			.http = a->http,
			.textfile = a->cfg.textfile.enabled ? a->cfg.textfile.path : NULL,
			.keep_removed_ms = pc->keep_removed_ms,
			.nr_events = a->nr_events,
			.event_names = a->event_names,
			.names = (pc->names & PROM_NAMES_CGPERF ? PROM_NAMES_CGPERF_BIT : 0) |
				 (pc->names & PROM_NAMES_CADVISOR ? PROM_NAMES_CADVISOR_BIT : 0),
			.nr_label_keys = pc->nr_container_labels,
			.label_keys = keys,
		};

		for (int i = 0; i < pc->nr_container_labels; i++)
			keys[i] = pc->container_labels[i];
		r = prom_sink_new(&po, &s);
		if (r < 0) {
			log_error("cannot set up the Prometheus output: %s", strerror(-r));
			return r;
		}
		add_output(a, s, RECORD_OUT_PROMETHEUS);
		a->prom = s;
	}
	if (a->nr_outputs == 0)
		log_warn(
			"no output configured (neither CSV, syslog nor Prometheus): counting without "
			"logging");
	return 0;
}

static void close_outputs(struct agent *a)
{
	for (int i = 0; i < a->nr_outputs; i++)
		a->outputs[i].sink->ops->free(a->outputs[i].sink);
	a->nr_outputs = 0;
	a->syslog = NULL;
	a->csv = NULL;
	a->prom = NULL;
}

/* ---- the cgroup tree ---- */

/* Nothing matched at start (a try on a host without containers, a
 * selection too narrow): one line on what there is and how to see it; the
 * agent goes on and counts what appears. */
static void log_nothing_selected(const char *root)
{
	int n = cgroup2_for_each_matching("/**", NULL, NULL);

	if (n == 0)
		log_info("nothing to count yet: the cgroup v2 tree at %s has no cgroup below its "
			 "root (processes only in cgroup v1 hierarchies, as on a hybrid host); "
			 "cgroups made there are counted as they appear",
			 log_name(root));
	else if (n > 0)
		log_info("nothing to count yet: none of the %d cgroups under %s matches the "
			 "selection (cgroups: include, exclude, containers_only, "
			 "include_infrastructure); 'cgperf list --all' with the agent's -c FILE "
			 "shows what the selection makes of them",
			 n, log_name(root));
}

/* inotify limits: new cgroups under unwatched directories are only found by
 * the periodic rescan (late, not lost): say so, once a minute at most. */
static void report_watch_limits(struct agent *a)
{
	char reason[256];

	if (cg_watch_limit_reason(a->watch, reason, sizeof(reason)))
		log_ratelimited(&a->watch_rl, 60, LOG_LVL_WARN, "%s", reason);
}

/* ---- lifecycle ---- */

/* One line for whoever reads the log after a stop or reload: what was
 * counted and whether every row got out. */
static void log_summary(struct agent *a)
{
	char csv[300] = "", sys[200] = "";
	struct csv_sink_stats cs;
	struct syslog_sink_stats ss;
	struct cg_watch_stats ws = { 0 };

	if (a->csv && csv_sink_get_stats(a->csv, &cs) == 0)
		snprintf(
			csv, sizeof(csv),
			"; CSV: %llu rows written, %llu failed, %llu held first, %llu files deleted "
			"(%llu of removed cgroups, %llu for max_total_size)",
			(unsigned long long)cs.rows_written, (unsigned long long)cs.rows_failed,
			(unsigned long long)cs.rows_held,
			(unsigned long long)(cs.files_deleted_removed + cs.files_deleted_for_size),
			(unsigned long long)cs.files_deleted_removed,
			(unsigned long long)cs.files_deleted_for_size);
	if (a->syslog && syslog_sink_get_stats(a->syslog, &ss) == 0)
		snprintf(sys, sizeof(sys),
			 "; syslog: %llu messages sent, %llu dropped, %zu undelivered",
			 (unsigned long long)ss.sent, (unsigned long long)ss.dropped, ss.queued);
	if (a->watch)
		cg_watch_get_stats(a->watch, &ws);
	log_info(
		"summary: %llu cgroups counted, %llu resumed, %u over the cap (%zu waiting at the "
		"end, %u gave their slot up), %llu final rows lost%s%s; %u inotify watches (cap %u), "
		"%u directories lacking one",
		a->cgroups_seen, a->resumed, a->over_cap, a->waiting.nr, a->evicted, a->finals_lost,
		csv, sys, ws.watches, a->cfg.cgroups.max_watches, ws.unwatched);
}

/* KEEP: a persistent session goes on counting in the kernel (restart,
 * upgrade); FINAL: every cgroup's last row, and a persistent session is
 * released; ABORT: a start that failed, nothing to write. */
enum stop_mode {
	STOP_ABORT,
	STOP_KEEP,
	STOP_FINAL
};

static void agent_stop(struct agent *a, enum stop_mode mode)
{
	bool kept = mode == STOP_KEEP && a->cfg.persist && a->counter;

	a->admit_held = true; /* the last rows admit no one */

	if (a->counter && mode != STOP_ABORT)
		agent_collect(a, mode == STOP_FINAL ? COLLECT_LAST : COLLECT_EXIT);
	/* Give queued syslog messages a moment to reach the receiver. */
	if (a->syslog)
		syslog_sink_drain(a->syslog, 2000);
	if (mode != STOP_ABORT)
		log_summary(a);
	cg_watch_free(a->watch);
	a->watch = NULL;
	close_outputs(a);
	agent_progs_stop(a);
	cpuhp_notify_close(a->cpuhp);
	a->cpuhp = NULL;
	persist_close(a, mode == STOP_FINAL);
	if (kept)
		log_info(
			"instance '%s': counting goes on in the kernel until the next agent adopts "
			"it ('cgperf release' gives the counters back)",
			a->cfg.instance);
	counter_close(a->counter);
	a->counter = NULL;
	record_clear(&a->recs);
	name_lookup_free(a->names);
	a->names = NULL;
	free(a->vals);
	a->vals = NULL;
	free(a->pending);
	a->pending = NULL;
	a->nr_pending = a->cap_pending = 0;
	a->cgroups_seen = a->finals_lost = a->resumed = a->gone_while_down = 0;
	a->over_cap = a->evicted = 0;
	adm_wait_clear(&a->waiting);
	a->admit_held = false;
}

/* The endpoint a configuration asks for: the running one when the address
 * is the same (its path follows the new config), else a new one, bound now so
 * that a bind failure is known before anything is stopped. NULL when off. */
static int http_for(struct agent *a, const struct agent_config *cfg, struct prom_http **ret)
{
	char err[512];
	int r;

	*ret = NULL;
	if (!cfg->prometheus.enabled)
		return 0;
	/* Parsed and checked (check-config), not applied: serving plain HTTP
	 * would let the file's readers believe the endpoint is protected. */
	if (cfg->prometheus.web_config[0]) {
		log_error("outputs.prometheus.web_config: TLS serving is not built yet; remove "
			  "the key (the endpoint would not be protected)");
		return -EOPNOTSUPP;
	}
	if (prom_http_same_listen(a->http, &cfg->prometheus)) {
		if (a->cfg.prometheus.max_connections != cfg->prometheus.max_connections)
			log_warn(
				"outputs.prometheus.max_connections: the new value takes effect when the "
				"agent restarts (the endpoint keeps serving)");
		prom_http_set_path(a->http, cfg->prometheus.path);
		*ret = a->http;
		return 0;
	}
	r = prom_http_new(&cfg->prometheus, ret, err, sizeof(err));
	if (r < 0)
		log_error("%s", err);
	return r;
}

static int agent_start(struct agent *a)
{
	/* Watches only where the selection can match (agent_watch_ops), at most
	 * cgroups.max_watches of them; deeper than max_depth nothing is walked. */
	struct cg_watch_opts wo = { .max_depth = a->cfg.cgroups.max_depth,
				    .max_watches = a->cfg.cgroups.max_watches };
	const char *root;
	int r;

	if (cgroup2_root(&root, NULL) < 0) {
		log_error("no cgroup2 hierarchy is mounted: per-cgroup counting needs cgroup2 "
			  "(unified or hybrid mode)");
		return -ENOENT;
	}
	/* Before anything is counted: a port in use is one line and exit 1. */
	if (!a->http && a->cfg.prometheus.enabled && !a->release) {
		r = http_for(a, &a->cfg, &a->http);
		if (r < 0)
			return r;
	}
	clock_gettime(CLOCK_REALTIME, &a->started);
	a->last_rows_pending = true; /* an adopted session may bring some */
	r = resolve_events(a);
	if (r < 0)
		return r;
	setup_selector(a);
	metadata_roots_from_config(&a->cfg.metadata, NULL, &a->roots);
	/* Runtime labels are read only for the output that shows them. */
	if ((a->cfg.prometheus.enabled || a->cfg.textfile.enabled) &&
	    (a->cfg.prometheus.names & PROM_NAMES_CADVISOR)) {
		memcpy(a->roots.label_keys, a->cfg.prometheus.container_labels,
		       sizeof(a->roots.label_keys));
		a->roots.nr_label_keys = a->cfg.prometheus.nr_container_labels;
	}
	r = name_lookup_new(&a->roots, &a->names);
	if (r < 0) {
		log_error("cannot start the name lookup thread: %s", strerror(-r));
		return r;
	}
	a->vals = calloc((size_t)a->cfg.cgroups.max * a->nr_events, sizeof(*a->vals));
	if (!a->vals)
		return -ENOMEM;
	/* Outputs first: a pinned session that is replaced writes its last rows. */
	r = open_outputs(a);
	if (r == 0)
		r = persist_open(a);
	if (r == -ESTALE) {
		agent_drain(a);
		r = persist_open(a); /* releasing: the drained one was all there was */
	}
	if (r < 0)
		return r;
	r = counter_enable(a->counter);
	if (r < 0) {
		log_error("cannot start counting: %s", strerror(-r));
		return r;
	}
	/* Before the BPF programs are looked at: its program is cgperf's own. */
	r = cpuhp_notify_open(&a->cpuhp);
	if (r < 0)
		log_info("no CPU hotplug notification (%s): the online CPUs are read every "
			 "%d ms",
			 strerror(-r), CPU_CHECK_MS);
	r = agent_progs_start(a);
	if (r < 0)
		return r;
	/* Every selected cgroup waits until the scan is done: slots by class
	 * and age then, not by readdir order. */
	a->admit_held = true;
	a->waiting.bulk = true;
	/* The initial scan reports every existing cgroup through the callbacks. */
	r = cg_watch_new(&wo, &agent_watch_ops, a, &a->watch);
	if (r < 0) {
		log_error("cannot watch the cgroup tree under %s: %s", log_name(root),
			  strerror(-r));
		return r;
	}
	persist_reconcile(a);
	agent_admit_started(a);
	report_watch_limits(a);
	log_info("counting %d cgroups under %s, %d events, every %llu ms (%s)",
		 record_count_live(&a->recs), log_name(root), a->nr_events,
		 (unsigned long long)a->cfg.interval_ms, counter_mode_name(a->counter));
	if (record_count_live(&a->recs) == 0)
		log_nothing_selected(root);
	/* Adopted: the rows of the time no agent ran, and the last rows of
	 * cgroups gone meanwhile, now rather than at the next tick. */
	if (counter_adopted(a->counter))
		agent_collect(a, COLLECT_INTERVAL);
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
	return timerfd_settime(fd, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET, &its, NULL) < 0
		       ? -errno
		       : 0;
}

/* SIGHUP: a valid new config replaces the old one (final rows, restart of
 * counting with the new settings); an invalid one is reported and ignored.
 * Either way output files are reopened. */
static int reload(struct agent *a, const struct agent_opts *o)
{
	struct agent_config next;
	struct prom_http *http = NULL;

	log_info("SIGHUP: reloading %s",
		 o->config_path ? log_name(o->config_path) : "the embedded config");
	if (agent_load_config(o, &next) < 0 || http_for(a, &next, &http) < 0) {
		log_error("keeping the running configuration");
	} else if (memcmp(&next, &a->cfg, sizeof(next)) != 0) {
		struct agent_config previous = a->cfg;
		struct prom_http *old_http = a->http;

		agent_stop(a, STOP_FINAL);
		a->cfg = next;
		a->http = http;
		if (agent_start(a) == 0) {
			if (old_http != http)
				prom_http_free(old_http);
			return 0;
		}
		/* Valid on paper but it cannot run here (an unwritable CSV
		 * directory, no supported event, ...): keep counting as before. */
		log_error("the new configuration cannot run; going back to the previous one");
		agent_stop(a, STOP_ABORT);
		if (old_http != http)
			prom_http_free(http);
		else if (http)
			prom_http_set_path(http, previous.prometheus.path);
		a->cfg = previous;
		a->http = old_http;
		return agent_start(a);
	}
	for (int i = 0; i < a->nr_outputs; i++)
		if (a->outputs[i].sink->ops->reopen)
			a->outputs[i].sink->ops->reopen(a->outputs[i].sink);
	return 0;
}

/* The per-second CPU check runs only without the notification: a timer
 * nobody polls would still fire in the kernel every second. */
static void arm_cpu_check(const struct agent *a, int timer_fd)
{
	if (a->cpuhp)
		timer_disarm(timer_fd);
	else
		timer_rearm(timer_fd, CPU_CHECK_MS / 1000.0, true);
}

/* The CPU check's descriptor was readable: drained, whether the online
 * CPUs are worth reading (the list is read after the drain). */
static bool cpus_changed(struct agent *a, int timer_fd)
{
	if (a->cpuhp)
		return cpuhp_notify_drain(a->cpuhp) != 0;
	return timer_drain(timer_fd);
}

enum {
	FD_SIGNAL,
	FD_INTERVAL,
	FD_RESCAN,
	FD_END,
	FD_WATCH,
	FD_SYSLOG,
	FD_NAMES,
	FD_CPUS,
	FD_WATCHDOG,
	NR_FDS
};

/* Under systemd's Type=notify (util/sd_notify.h). A manager that cannot be
 * told is said once, and counting goes on. */
static void notify(const char *state)
{
	static bool failed;
	int r = sd_notify_send(state);

	if (r < 0 && !failed) {
		failed = true;
		log_error("cannot notify the service manager at $NOTIFY_SOCKET: %s", strerror(-r));
	}
}

/* RELOADING=1 with the time it began (systemd's notify-reload wants it). */
static void reloading_notify(void)
{
	struct timespec t;
	char state[64];

	clock_gettime(CLOCK_MONOTONIC, &t);
	snprintf(state, sizeof(state), "RELOADING=1\nMONOTONIC_USEC=%llu",
		 (unsigned long long)t.tv_sec * 1000000ULL + (unsigned long long)t.tv_nsec / 1000);
	notify(state);
}

/* READY=1 once counting runs (the session adopted and its catch-up rows
 * written, or a new one started): not after the first interval, which may
 * be hours away. STATUS= then and after each collection. */
static void notify_status(const struct agent *a, bool ready, unsigned long long collections)
{
	char state[256];

	snprintf(state, sizeof(state), "%sSTATUS=counting %d cgroups, %d events; %llu collections",
		 ready ? "READY=1\n" : "", record_count_live(&a->recs), a->nr_events, collections);
	notify(state);
}

static int loop(struct agent *a, const struct agent_opts *o, int sig_fd)
{
	int interval_fd = timerfd_create(CLOCK_REALTIME, TFD_CLOEXEC | TFD_NONBLOCK);
	/* One-shot, re-armed after each rescan and reload: the period follows
	 * cgroups.rescan_interval of the running configuration. */
	int rescan_fd = timer_relative(a->cfg.cgroups.rescan_interval_ms / 1000.0, false);
	int end_fd = o->duration_s > 0 ? timer_relative(o->duration_s, false) : -1;
	/* A CPU that came online is counted within a second, not at the next
	 * interval's sync (counter_follow_cpus): notified (a->cpuhp), or else
	 * checked every second. */
	int cpus_fd = timer_relative(CPU_CHECK_MS / 1000.0, true);
	/* systemd's watchdog (WatchdogSec=): pinged at half its interval from
	 * this loop, so a loop that stalls is restarted. */
	uint64_t watchdog_usec = sd_watchdog_usec();
	int watchdog_fd = watchdog_usec ? timer_relative(watchdog_usec / 2e6, true) : -1;
	unsigned long long collections = 0;
	int rc = 0;

	if (watchdog_usec && watchdog_fd < 0)
		log_error("cannot ping systemd's watchdog: %s", strerror(-watchdog_fd));
	if (interval_fd < 0 || rescan_fd < 0 || cpus_fd < 0 ||
	    arm_interval_timer(interval_fd, a->cfg.interval_ms) < 0) {
		rc = -errno;
		log_error("cannot create timers: %s", strerror(errno));
		goto out;
	}
	arm_cpu_check(a, cpus_fd);
	notify_status(a, true, collections);
	for (;;) {
		struct pollfd p[NR_FDS] = {
			[FD_SIGNAL] = { sig_fd, POLLIN, 0 },
			[FD_INTERVAL] = { interval_fd, POLLIN, 0 },
			[FD_RESCAN] = { rescan_fd, POLLIN, 0 },
			[FD_END] = { end_fd, POLLIN, 0 },
			[FD_WATCH] = { a->watch ? cg_watch_fd(a->watch) : -1, POLLIN, 0 },
			[FD_SYSLOG] = { -1, 0, 0 },
			[FD_NAMES] = { a->names ? name_lookup_fd(a->names) : -1, POLLIN, 0 },
			[FD_CPUS] = { a->cpuhp ? cpuhp_notify_fd(a->cpuhp) : cpus_fd, POLLIN, 0 },
			[FD_WATCHDOG] = { watchdog_fd, POLLIN, 0 },
		};
		if (a->syslog)
			p[FD_SYSLOG] = (struct pollfd){ syslog_sink_fd(a->syslog), POLLIN, 0 };

		if (poll(p, NR_FDS, -1) < 0 && errno != EINTR) {
			rc = -errno;
			log_error("poll: %s", strerror(errno));
			break;
		}
		if (p[FD_WATCHDOG].revents & POLLIN && timer_drain(watchdog_fd))
			notify("WATCHDOG=1");
		if (p[FD_SYSLOG].revents & POLLIN)
			syslog_sink_process(a->syslog);
		if (p[FD_WATCH].revents & POLLIN)
			cg_watch_process(a->watch);
		if (p[FD_NAMES].revents & POLLIN)
			name_lookup_collect(a->names, agent_on_names, a);
		if (p[FD_CPUS].revents & POLLIN && cpus_changed(a, cpus_fd) && a->counter)
			(void)counter_follow_cpus(a->counter); /* the next sync reports */
		if (p[FD_INTERVAL].revents & POLLIN) {
			uint64_t ticks;
			if (read(interval_fd, &ticks, sizeof(ticks)) < 0 && errno == ECANCELED)
				arm_interval_timer(interval_fd,
						   a->cfg.interval_ms); /* clock was set */
			agent_collect(a, COLLECT_INTERVAL);
			/* Slots whose last rows took retries are free now. */
			agent_fill_slots(a, a->watch);
			notify_status(a, false, ++collections);
		}
		if (p[FD_RESCAN].revents & POLLIN) {
			timer_arm_ms(rescan_fd, (long long)a->cfg.cgroups.rescan_interval_ms);
			if (a->watch) {
				cg_watch_rescan(a->watch);
				report_watch_limits(a);
			}
		}
		if (p[FD_END].revents & POLLIN) {
			notify("STOPPING=1");
			break;
		}
		if (p[FD_SIGNAL].revents & POLLIN) {
			struct signalfd_siginfo si;
			if (read(sig_fd, &si, sizeof(si)) != sizeof(si))
				continue;
			if (si.ssi_signo == SIGHUP) {
				reloading_notify();
				rc = reload(a, o);
				if (rc < 0) {
					notify("STOPPING=1");
					break;
				}
				notify_status(a, true, collections);
				arm_interval_timer(interval_fd, a->cfg.interval_ms);
				arm_cpu_check(a, cpus_fd);
				timer_arm_ms(rescan_fd,
					     (long long)a->cfg.cgroups.rescan_interval_ms);
				continue;
			}
			log_info("%s: writing %s rows and exiting", strsignal(si.ssi_signo),
				 a->cfg.persist ? "the last" : "final");
			notify("STOPPING=1");
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
	if (cpus_fd >= 0)
		close(cpus_fd);
	if (watchdog_fd >= 0)
		close(watchdog_fd);
	return rc;
}

/* The CSV sink keeps a descriptor per cgroup file (up to half the soft
 * limit): raise the soft limit to the hard one, as systemd advises for
 * programs that need many descriptors and use poll(), not select(). */
static void raise_nofile_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
			log_debug("cannot raise the open-file limit: %s", strerror(errno));
	}
}

int agent_run(const struct agent_opts *o, const struct agent_config *cfg)
{
	struct agent a = {
		.lock_fd = -1,
		.state_fd = -1,
		.prog_stats_fd = -1,
		.release = o->release,
		.accum = o->accum,
		.cfg = *cfg,
	};
	sigset_t mask;
	int sig_fd, rc, r;

	raise_nofile_limit();
	if (cfg->persist_auto && !cfg->persist && !o->release)
		log_info("run from a terminal: counting ends with this run (persist: auto; "
			 "--persist keeps it counting in the kernel across restarts)");
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	signal(SIGPIPE, SIG_IGN); /* a closed syslog TCP peer is an error code, not a death */
	sig_fd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sig_fd < 0)
		return -errno;

	r = agent_start(&a);
	if (r < 0) {
		agent_stop(&a, STOP_ABORT);
		/* Releasing what is not there is done. */
		rc = a.release && r == -ENOENT ? 0 : r;
	} else {
		rc = a.release ? 0 : loop(&a, o, sig_fd);
		agent_stop(&a, a.release || !a.cfg.persist ? STOP_FINAL : STOP_KEEP);
	}
	prom_http_free(a.http);
	close(sig_fd);
	if (o->release_all && rc == 0)
		rc = persist_release_all(a.cfg.instance);
	return rc < 0 ? rc : 0;
}
