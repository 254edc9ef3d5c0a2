/* SPDX-License-Identifier: GPL-2.0-only */
/* Which CPUs a sync of the cgroup hub can leave out.
 *
 * A sync runs the hub's on_sync on every CPU (BPF_PROG_TEST_RUN with
 * BPF_F_TEST_RUN_ON_CPU): on any CPU but the caller's, an IPI the caller
 * spins on until the program has run there. To an idle CPU that is its
 * wake-up latency: ~50-100 us on a VM's halted vCPU (bench/synccost), tens
 * of us from a deep C-state, per CPU and per collection, so a mostly idle
 * 128-CPU host would spend milliseconds of every collection spinning.
 *
 * On a CPU whose last task switched in is idle and whose held charges
 * (follower_hub.bpf.c, charge_cgroup) are for a cgroup no session counts,
 * on_sync has nothing to add: idle is nobody's, and what is held goes
 * nowhere. Such a CPU is left out, read from user space instead: the hub's
 * per-CPU state (prev_readings) is looked at, the CPUs that owe something
 * are synced, and the state is looked at again; a CPU left out must look
 * the same both times (a switch in flight during the first look has
 * finished by the second, and any switch moves ktime and the task seen).
 * What starts running there after the second look is the next read's, as
 * for a CPU synced early in the pass: only syncs before periodic reads use
 * this (counter_sync_periodic); those that settle (filter changes,
 * releases, last reads) run on every CPU, so what a CPU left out keeps is
 * only ever of a cgroup nobody counts then.
 *
 * Fields are found by name in the map's own BTF, and the state must have no
 * field this build does not know: a hub made by another cgperf build is
 * read right, or always synced. docs/ARCHITECTURE.md, "Syncs leave idle
 * CPUs alone". */
#pragma once
#include <stdbool.h>

struct sync_skip;

/* What runs a sync on one CPU (0 or -errno: the pass stops). */
typedef int (*sync_cpu_fn)(void *ctx, int cpu);

/* For the hub whose on_sync program is sync_prog_fd, per-CPU values for
 * nr_possible CPUs. -ENOENT: no prev_readings map; -EPROTO: its BTF lacks a
 * field this reads, or has one this build does not know (a hub of another
 * layout); -ERANGE: /sys/devices/system/cpu/possible does not list
 * nr_possible CPUs; -errno otherwise. */
int sync_skip_open(int sync_prog_fd, int nr_possible, struct sync_skip **ret);
/* Run fn on each of cpus (nr) that may owe something; ret_skipped: how many
 * were left out. If the state cannot be read, fn runs on every CPU. */
int sync_skip_run(struct sync_skip *s, const int *cpus, int nr, sync_cpu_fn fn, void *ctx,
		  int *ret_skipped);
/* NULL is fine. */
void sync_skip_free(struct sync_skip *s);
