/* SPDX-License-Identifier: GPL-2.0-only */
/* `cgperf stat -- CMD`: start CMD held at a gate, so counting is in place
 * before its first instruction, then release it. */
#pragma once
#include <sys/types.h>

struct workload {
	pid_t pid;
	int gate_fd; /* write end; closing it (or writing) releases the child */
};

/* Fork; the child waits for the gate then execvp()s argv. If exec fails the
 * child exits 127 after printing why. Returns 0 or negative errno. */
int workload_prepare(char *const argv[], struct workload *ret);
/* Let it run. */
int workload_start(struct workload *w);
