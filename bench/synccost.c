// SPDX-License-Identifier: GPL-2.0-only
/* synccost: what a sync's test run on another CPU costs the caller.
 *
 *   sudo build/bench/synccost [RUNS [GAP_US]]
 *
 * counter_sync() runs the session's sync program on every CPU with
 * BPF_PROG_TEST_RUN and BPF_F_TEST_RUN_ON_CPU: on another CPU that is an IPI
 * the caller spins on until it returns (smp_call_function_single with wait),
 * so the wait is the caller's CPU time. This loads a one-instruction raw_tp
 * program, pins itself to CPU 0, and runs it on CPU 1 RUNS times, GAP_US
 * apart (long enough for CPU 1 to go idle, as between the agent's
 * collections); prints the wall and thread CPU time per run. On a VM an
 * idle vCPU makes the wait the hypervisor's wake-up latency. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <bpf/bpf.h>
#include <linux/bpf.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double us_of(clockid_t clk)
{
	struct timespec t;

	clock_gettime(clk, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int load_return_zero(void)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};

	return bpf_prog_load(BPF_PROG_TYPE_RAW_TRACEPOINT, "synccost", "GPL", insns, 2, NULL);
}

int main(int argc, char **argv)
{
	int runs = argc > 1 ? atoi(argv[1]) : 100, gap = argc > 2 ? atoi(argv[2]) : 20000;
	double wall = 0, cpu = 0, max = 0;
	int fd = load_return_zero();
	cpu_set_t set;

	if (fd < 0 || runs <= 0 || sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		fprintf(stderr, "synccost: needs root (BPF) and two CPUs online\n");
		return 1;
	}
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0) {
		perror("synccost: sched_setaffinity");
		return 1;
	}
	for (int i = 0; i < runs; i++) {
		__u64 args[3] = { 0 };
		LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = args, .ctx_size_in = sizeof(args),
			    .flags = BPF_F_TEST_RUN_ON_CPU, .cpu = 1);
		double w0, c0, w;

		usleep((useconds_t)gap);
		w0 = us_of(CLOCK_MONOTONIC);
		c0 = us_of(CLOCK_THREAD_CPUTIME_ID);
		if (bpf_prog_test_run_opts(fd, &opts) < 0) {
			perror("synccost: BPF_PROG_TEST_RUN");
			return 1;
		}
		w = us_of(CLOCK_MONOTONIC) - w0;
		cpu += us_of(CLOCK_THREAD_CPUTIME_ID) - c0;
		wall += w;
		max = w > max ? w : max;
	}
	printf("%d runs on CPU 1 from CPU 0, %d us apart: wall %.1f us (max %.1f), "
	       "caller's CPU %.1f us per run\n",
	       runs, gap, wall / runs, max, cpu / runs);
	return 0;
}
