// SPDX-License-Identifier: GPL-2.0-only
#include "cmd/cli_wait.h"
#include "bpf/counter.h"
#include "bpf/cpuhp_notify.h"
#include "util/log.h"
#include "util/timer.h"
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

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
