/* SPDX-License-Identifier: GPL-2.0-only */
/* cpu.stat as an oracle for cpu-clock under hypervisor steal time.
 *
 * cgperf's cpu-clock (like perf's) is wall time while a task is on the CPU.
 * cpu.stat's usage_usec is the tasks' exec runtime, which the scheduler takes
 * from the task clock: with paravirt steal accounting that clock stops while
 * the hypervisor runs someone else (steal). So on a VM cpu-clock exceeds
 * cpu.stat by the steal that fell on the workload, and the sound comparison is
 *
 *     usage * (1 - tol) <= cpu-clock <= usage * (1 + tol) + steal
 *
 * where steal bounds what the CPUs the workload could run on had stolen over
 * the window (/proc/stat), widened by that counter's granularity on CPUs that
 * have steal at all. On a host without steal the bound is the plain +-tol.
 * One implementation for the unit tests (linked) and the integration tests
 * (through the cpu_oracle helper program). */
#pragma once
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define STEAL_MAX_CPUS 1024

struct steal_snapshot {
	uint64_t ticks[STEAL_MAX_CPUS]; /* /proc/stat steal, USER_HZ units */
	bool present[STEAL_MAX_CPUS]; /* the CPU had a line (was online) */
};

/* Per-CPU steal now. 0 or -errno. */
int steal_snapshot_take(struct steal_snapshot *ret);
/* "CPU:TICKS CPU:TICKS ..." and back (for shell scripts). */
int steal_snapshot_format(const struct steal_snapshot *s, char *buf, size_t len);
int steal_snapshot_parse(const char *text, struct steal_snapshot *ret);

/* Upper bound, in ms, of the steal time between two snapshots on the CPUs in
 * cpus (NULL: every CPU). */
double steal_bound_ms(const struct steal_snapshot *before, const struct steal_snapshot *after,
		      const cpu_set_t *cpus);

/* Does a cpu-clock reading agree with cpu.stat usage? Writes the comparison
 * (both values and the allowed range) to msg either way. */
bool cpu_clock_agrees(double got_ms, double usage_ms, double tol_pct, double steal_ms, char *msg,
		      size_t len);

/* The same against a cpu.stat window read on both sides of cgperf's read
 * (usage_lo before its sync, usage_hi after its read) while the workload
 * still runs: how long this process takes between the two (a loaded host, a
 * guest under emulation) widens the window instead of failing the test. */
bool cpu_clock_within(double got_ms, double usage_lo_ms, double usage_hi_ms, double tol_pct,
		      double steal_ms, char *msg, size_t len);

/* "0-3,6" into a CPU set. 0 or -EINVAL. */
int cpu_list_parse(const char *text, cpu_set_t *ret);
