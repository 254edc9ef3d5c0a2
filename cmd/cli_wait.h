/* SPDX-License-Identifier: GPL-2.0-only */
/* The wait of a counting command: until its duration, or a signal that ends
 * it, calling tick at every interval. Shared by `cgperf stat` and `stat -b`. */
#pragma once
#include <stdbool.h>
#include <stdint.h>
#include <sys/signalfd.h>

struct cli_wait_ops {
	void (*tick)(void *ctx); /* every interval_ms (0: never) */
	/* A signal arrived: true ends the wait. */
	bool (*on_signal)(void *ctx, const struct signalfd_siginfo *si);
	/* When a CPU may have gone on- or offline (bpf/cpuhp_notify.h), else
	 * every CPU_CHECK_MS; NULL: never. */
	void (*cpu_check)(void *ctx);
};

void cli_wait(int sig_fd, uint64_t interval_ms, double duration_s, const struct cli_wait_ops *ops,
	      void *ctx);
