/* SPDX-License-Identifier: GPL-2.0-only */
/* Switches sched_switch never shows. The followers charge what ran on a CPU
 * between two switches they see to the task switched out at the second,
 * which is right only if they saw every switch. Some kernels do not trace
 * some tasks' switches out: on this project's VMs, the threads of PID 1
 * (the VM's agent) are seen switching in, never out (ftrace and perf see
 * the same). A task switched out may then have been switched in unseen,
 * after the hidden task ran, and charging it the whole interval since the
 * last flush charged it the hidden task's time too (a burner's cgroup read
 * up to 7 ms over cpu.stat in 300 ms when the agent's threads ran on its
 * CPU).
 *
 * The followers remember the task they saw switched in last (cur) and its
 * runtime then (cur_sum). At a switch out of another task p (or a sync
 * while another task runs), the switch into p was not seen, and what the
 * interval since the last flush holds of other tasks' time is at most
 *  - what cur has run since (its runtime now minus cur_sum: more only if it
 *    runs elsewhere now), and at most
 *  - the interval minus p's stint so far (its runtime now minus its runtime
 *    when the scheduler last picked it: less only where that pick was
 *    later, and real-time and deadline tasks do not keep it);
 * the smaller of the two is moved out of the interval: charged to nobody,
 * and counted (unseen_switches, unseen_ns). A chain of hidden tasks is
 * undercut by what the others ran. perf does not need this: its cgroup
 * switch is called by the scheduler, not through a tracepoint. Counters
 * read in the interval (page faults) cannot be split: the hidden task's
 * stay with the task switched out. */
#pragma once

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "task_min.h"

/* Switches out of a task not seen switched in where time was taken out of
 * the interval, and that time (all CPUs; updated rarely, atomically). */
__u64 unseen_switches = 0;
__u64 unseen_ns = 0;

/* What a follower keeps per CPU to see missed switches. */
struct seen_switch {
	__u64 cur; /* the task last seen switched in here */
	__u64 cur_sum; /* its se.sum_exec_runtime then */
	__s32 cur_pid; /* its pid: a task gone since (cur freed, maybe reused) reads another */
	__u32 pad;
};

/* Called at every switch seen (tp_btf: n is a trusted pointer, read
 * directly): n is switched in. Its runtime is in a cache line the scheduler
 * has just written; its pid is read at every switch anyway. */
static __always_inline void seen_switch_in(struct seen_switch *seen, struct task_struct *n)
{
	seen->cur = (__u64)n;
	seen->cur_sum = n->se.sum_exec_runtime;
	seen->cur_pid = n->pid;
}

/* What the hidden task (the last seen switched in) has run since; 0 if it is
 * gone (its memory read as another task's, or not at all). */
static __always_inline __u64 hidden_task_ran(const struct seen_switch *seen)
{
	struct task_struct *t = (struct task_struct *)seen->cur;
	__u64 sum = BPF_CORE_READ(t, se.sum_exec_runtime);

	if (BPF_CORE_READ(t, pid) != seen->cur_pid || sum < seen->cur_sum)
		return 0;
	return sum - seen->cur_sum;
}

/* p runs here (being switched out, or synced; it is seen->cur from now on)
 * and the interval since *ktime is about to be charged to it: if p is not
 * the task last seen switched in, move *ktime past what hidden tasks ran.
 * Read through probe reads: p may come from bpf_get_current_task() (a
 * sync), and the hidden task may be gone. */
static __always_inline void catch_unseen_switch(__u64 *ktime, struct seen_switch *seen,
						struct task_struct *p)
{
	__u64 now, p_sum, p_ran, hidden_ran, interval, hidden;

	if ((__u64)p == seen->cur)
		return;
	hidden_ran = hidden_task_ran(seen);
	p_sum = BPF_CORE_READ(p, se.sum_exec_runtime);
	seen->cur = (__u64)p;
	seen->cur_sum = p_sum;
	seen->cur_pid = BPF_CORE_READ(p, pid);
	if (!*ktime || !seen->cur_pid)
		return;
	p_ran = p_sum - BPF_CORE_READ(p, se.prev_sum_exec_runtime);
	now = bpf_ktime_get_ns();
	interval = now - *ktime;
	hidden = p_ran < interval ? interval - p_ran : 0;
	if (hidden_ran < hidden)
		hidden = hidden_ran;
	if (!hidden)
		return;
	__sync_fetch_and_add(&unseen_switches, 1);
	__sync_fetch_and_add(&unseen_ns, hidden);
	*ktime += hidden;
}
