// SPDX-License-Identifier: GPL-2.0-only
#include "cmd/cli.h"
#include "bpf/counter.h"
#include "bpf/cpuhp_notify.h"
#include "events/event_probe.h"
#include "util/log.h"
#include "util/timer.h"
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int parse_u64(const char *s, uint64_t max, uint64_t *ret)
{
	char *end;
	unsigned long long v;

	if (!s || !*s || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v > max)
		return -EINVAL;
	*ret = v;
	return 0;
}

int parse_accum_request(const char *s, enum accum_request *ret)
{
	if (!strcmp(s, "auto"))
		*ret = ACCUM_AUTO;
	else if (!strcmp(s, "hash"))
		*ret = ACCUM_FORCE_HASH;
	else if (!strcmp(s, "array"))
		*ret = ACCUM_FORCE_ARRAY;
	else
		return -EINVAL;
	return 0;
}

int parse_seconds(const char *s, double *ret)
{
	char *end;
	double v, mult = 1;

	if (!s || !*s)
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s)
		return -EINVAL;
	if (!strcmp(end, "ms"))
		mult = 1e-3;
	else if (!strcmp(end, "m"))
		mult = 60;
	else if (!strcmp(end, "h"))
		mult = 3600;
	else if (*end && strcmp(end, "s"))
		return -EINVAL;
	v *= mult;
	if (!isfinite(v) || v <= 0 || v > 1e9)
		return -EINVAL;
	*ret = v;
	return 0;
}

int cli_usage_error(const char *cmd, const char *fmt, const char *arg)
{
	fprintf(stderr, "cgperf %s: ", cmd);
	if (arg)
		fprintf(stderr, fmt, log_name(arg));
	else
		fputs(fmt, stderr);
	fprintf(stderr, " (see 'cgperf %s --help')\n", cmd);
	return EXIT_USAGE;
}

int cli_exit_code(int r)
{
	return r == -EINVAL ? EXIT_USAGE : EXIT_RUNTIME;
}

/* ---- the -e list ---- */

static void remember_skipped(struct cli_events *e, const struct event_spec *ev, const char *msg)
{
	struct cli_skipped_event *s;

	if (!e->ret_skipped || e->nr_skipped >= e->max_skipped)
		return;
	s = &e->ret_skipped[e->nr_skipped++];
	s->spec = *ev;
	snprintf(s->reason, sizeof(s->reason), "%s", msg);
}

int cli_resolve_events(struct cli_events *e)
{
	struct event_spec all[64];
	char err[512], msg[512];
	int n, kept = 0;

	/* A group must be scheduled together on the PMU; a shared leader reads
	 * one event, so groups cannot be served. Say so rather than mis-parse. */
	if (strpbrk(e->list, "{}")) {
		fprintf(stderr,
			"%s: event groups ('{...}') are not supported: shared leaders "
			"read single events; list the events without braces\n",
			e->cmd);
		return -EINVAL;
	}
	n = event_parse_list(e->list, all, 64, err, sizeof(err));
	if (n < 0) {
		fprintf(stderr, "%s: %s\n", e->cmd, log_name(err));
		return -EINVAL;
	}
	e->nr_skipped = 0;
	for (int i = 0; i < n; i++) {
		int r = event_probe(&all[i], msg, sizeof(msg));

		if (r == -EACCES || r == -EPERM) {
			fprintf(stderr, "%s: %s\n", e->cmd, log_name(msg));
			return r;
		}
		if (r < 0) {
			if (e->strict) {
				fprintf(stderr, "%s: %s\n", e->cmd, log_name(msg));
				/* Not r: a probe's -EINVAL is the host's, not a usage error. */
				return -EOPNOTSUPP;
			}
			log_warn("%s; skipping it", log_name(msg));
			remember_skipped(e, &all[i], msg);
			continue;
		}
		if (kept == e->max) {
			fprintf(stderr, "%s: at most %d events per session\n", e->cmd, e->max);
			return -EINVAL;
		}
		e->ret_events[kept++] = all[i];
	}
	if (kept == 0) {
		fprintf(stderr, "%s: none of the events is supported on this host\n", e->cmd);
		return -EOPNOTSUPP;
	}
	return kept;
}

/* ---- the wait ---- */

/* What tells the wait to look at the online CPUs: the hotplug notification
 * (the process then sleeps between intervals), else a timer every
 * CPU_CHECK_MS. */
struct cpu_watch {
	struct cpuhp_notify *hp;
	int fd;
};

static void cpu_watch_open(struct cpu_watch *w, const struct cli_wait_ops *ops, void *ctx)
{
	int r;

	w->hp = NULL;
	w->fd = -1;
	if (!ops->cpu_check)
		return;
	r = cpuhp_notify_open(&w->hp);
	if (r < 0) {
		log_info("no CPU hotplug notification (%s): the online CPUs are read every %d ms",
			 strerror(-r), CPU_CHECK_MS);
		w->fd = timer_relative(CPU_CHECK_MS / 1000.0, true);
		return;
	}
	w->fd = cpuhp_notify_fd(w->hp);
	/* A change between the counter's start and the attach told nobody. */
	ops->cpu_check(ctx);
}

/* Whether the CPUs are to be looked at now (what woke the wait consumed). */
static bool cpu_watch_due(struct cpu_watch *w)
{
	if (w->hp)
		return cpuhp_notify_drain(w->hp) != 0; /* an error: look anyway */
	return timer_drain(w->fd);
}

static void cpu_watch_close(struct cpu_watch *w)
{
	if (w->hp)
		cpuhp_notify_close(w->hp);
	else if (w->fd >= 0)
		close(w->fd);
}

void cli_wait(int sig_fd, uint64_t interval_ms, double duration_s, const struct cli_wait_ops *ops,
	      void *ctx)
{
	int interval_fd = interval_ms ? timer_relative(interval_ms / 1000.0, true) : -1;
	int end_fd = duration_s > 0 ? timer_relative(duration_s, false) : -1;
	struct cpu_watch cpus;

	cpu_watch_open(&cpus, ops, ctx);
	for (;;) {
		struct pollfd p[4] = { { sig_fd, POLLIN, 0 },
				       { interval_fd, POLLIN, 0 },
				       { end_fd, POLLIN, 0 },
				       { cpus.fd, POLLIN, 0 } };
		struct signalfd_siginfo si;

		if (poll(p, 4, -1) < 0 && errno != EINTR)
			break;
		if (p[0].revents & POLLIN && read(sig_fd, &si, sizeof(si)) == sizeof(si) &&
		    ops->on_signal(ctx, &si))
			break;
		if (p[1].revents & POLLIN && timer_drain(interval_fd))
			ops->tick(ctx);
		if (p[3].revents & POLLIN && cpu_watch_due(&cpus))
			ops->cpu_check(ctx);
		if (p[2].revents & POLLIN)
			break;
	}
	if (interval_fd >= 0)
		close(interval_fd);
	if (end_fd >= 0)
		close(end_fd);
	cpu_watch_close(&cpus);
}
