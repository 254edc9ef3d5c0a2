#include "agent/cli_wait.h"
#include "bpf/counter.h"
#include "util/timer.h"
#include <errno.h>
#include <poll.h>
#include <unistd.h>

void cli_wait(int sig_fd, uint64_t interval_ms, double duration_s, const struct cli_wait_ops *ops,
	      void *ctx)
{
	int interval_fd = interval_ms ? timer_relative(interval_ms / 1000.0, true) : -1;
	int end_fd = duration_s > 0 ? timer_relative(duration_s, false) : -1;
	int cpu_fd = ops->cpu_check ? timer_relative(CPU_CHECK_MS / 1000.0, true) : -1;

	for (;;) {
		struct pollfd p[4] = { { sig_fd, POLLIN, 0 },
				       { interval_fd, POLLIN, 0 },
				       { end_fd, POLLIN, 0 },
				       { cpu_fd, POLLIN, 0 } };
		struct signalfd_siginfo si;

		if (poll(p, 4, -1) < 0 && errno != EINTR)
			break;
		if (p[0].revents & POLLIN && read(sig_fd, &si, sizeof(si)) == sizeof(si) &&
		    ops->on_signal(ctx, &si))
			break;
		if (p[1].revents & POLLIN && timer_drain(interval_fd))
			ops->tick(ctx);
		if (p[3].revents & POLLIN && timer_drain(cpu_fd))
			ops->cpu_check(ctx);
		if (p[2].revents & POLLIN)
			break;
	}
	if (interval_fd >= 0)
		close(interval_fd);
	if (end_fd >= 0)
		close(end_fd);
	if (cpu_fd >= 0)
		close(cpu_fd);
}
