/* SPDX-License-Identifier: GPL-2.0-only */
/* What this kernel lets cgperf do, found out by trying it for real. */
#pragma once
#include <stdbool.h>
#include <stddef.h>

enum follower_mode {
	FOLLOWER_TP, /* own sched_switch program per session, shared perf_events */
	FOLLOWER_FEXIT, /* fexit programs on the shared leader (perf's bperf) */
};

const char *follower_mode_name(enum follower_mode m);
/* "fexit" or "tp", as --follower takes it (metrics labels). */
const char *follower_mode_key(enum follower_mode m);

/* Load a raw_tp program and load+attach an fexit program to it. Returns 0 if
 * trampolines work, otherwise a negative errno and a reason such as
 * "trampolines unavailable: loading an fexit program failed: Operation not
 * permitted" (the kernel's refusal: probe_refused()) or "the fexit probe
 * failed: ..." (anything else). The result is cached for the life of the process. */
int probe_trampolines(char *reason, size_t len);

/* The errnos by which a kernel refuses BPF trampolines (EPERM, ENOTSUPP:
 * 524, EOPNOTSUPP), at load or attach; err negative. */
bool probe_refused(int err);

/* Whether a tracing program may use a per-CPU hash that is not
 * preallocated: Linux 6.1 or later (older kernels WARN at the load), and a
 * raw_tp program using one loads (never attached). 0: it may; otherwise a
 * negative errno and the reason. Cached for the life of the process. */
int probe_accum_hash(char *reason, size_t len);

/* Run prog_fd (a raw_tp program) once on `cpu` with BPF_PROG_TEST_RUN;
 * again while it returns CGPERF_SYNC_BUSY (-EBUSY after many tries). */
int bpf_run_on_cpu(int prog_fd, int cpu);
