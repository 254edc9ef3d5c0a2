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
 * switch is called by the scheduler, not through a tracepoint. Page faults
 * are taken out the same way, by the hidden task's own fault counts (at
 * most the interval's): a hidden task that faulted 800 times before a
 * 20000-fault workload's task took the CPU unseen charged it 20809. Other
 * counters read in the interval (PMU events) cannot be split: the hidden
 * task's stay with the task switched out. A switch to idle hidden (p is
 * idle) leaves everything since the last flush to nobody: the followers
 * read then, where they would otherwise skip the read as idle moved
 * nothing.  */
#pragma once

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "task_min.h"
#include "follower_reads.bpf.h"
#include "hidden_share.h"

/* Switches out of a task not seen switched in where time was taken out of
 * the interval, and that time (all CPUs; updated rarely, atomically). */
__u64 unseen_switches = 0;
__u64 unseen_ns = 0;
/* Page faults of hidden tasks taken out of intervals (take_out_hidden). */
__u64 unseen_faults = 0;
/* What those switches may have left charged to the task switched out: the
 * second bound beyond what was taken out (a chain of hidden tasks, of which
 * only the last seen switched in is known). An upper bound, never exact. */
__u64 unseen_left_ns = 0;

/* What a follower keeps per CPU to see missed switches. The first line's
 * fields are read at every switch; the fault counts only when page faults
 * are counted. */
struct seen_switch {
	__u64 cur; /* the task last seen switched in here */
	__u64 cur_sum; /* its se.sum_exec_runtime then */
	__s32 cur_pid; /* its pid: a task gone since (cur freed, maybe reused) reads another */
	__u32 pad;
	__u64 cur_minflt; /* its min_flt, maj_flt then (page-fault events only) */
	__u64 cur_majflt;
};

/* What a hidden task did in an interval: its time there (ns) and its page
 * faults; to_idle: it was switched to idle unseen (what else the interval
 * read is its owner's: idle moves no counter). */
struct hidden_work {
	__u64 ns;
	__u64 minflt;
	__u64 majflt;
	int to_idle;
};

static __always_inline int counts_faults(void)
{
	return minflt_mask | majflt_mask;
}

/* Called at every switch seen (tp_btf: n is a trusted pointer, read
 * directly): n is switched in. Its runtime is in a cache line the scheduler
 * has just written; its pid is read at every switch anyway. */
static __always_inline void seen_switch_in(struct seen_switch *seen, struct task_struct *n)
{
	seen->cur = (__u64)n;
	seen->cur_sum = n->se.sum_exec_runtime;
	seen->cur_pid = n->pid;
	if (counts_faults()) {
		seen->cur_minflt = n->min_flt;
		seen->cur_majflt = n->maj_flt;
	}
}

/* The same for p through probe reads (p may come from
 * bpf_get_current_task(): a sync): p runs here from now on, and what it did
 * so far is charged. */
static __always_inline void seen_now(struct seen_switch *seen, struct task_struct *p)
{
	seen->cur = (__u64)p;
	seen->cur_sum = BPF_CORE_READ(p, se.sum_exec_runtime);
	seen->cur_pid = BPF_CORE_READ(p, pid);
	if (counts_faults()) {
		seen->cur_minflt = BPF_CORE_READ(p, min_flt);
		seen->cur_majflt = BPF_CORE_READ(p, maj_flt);
	}
}

/* What the hidden task (the last seen switched in) has run since, and the
 * faults it made; nothing if it is gone (its memory read as another task's,
 * or not at all). */
static __always_inline __u64 hidden_task_ran(const struct seen_switch *seen, struct hidden_work *w)
{
	struct task_struct *t = (struct task_struct *)seen->cur;
	__u64 sum = BPF_CORE_READ(t, se.sum_exec_runtime), min, maj;

	if (BPF_CORE_READ(t, pid) != seen->cur_pid || sum < seen->cur_sum)
		return 0;
	if (counts_faults()) {
		min = BPF_CORE_READ(t, min_flt);
		maj = BPF_CORE_READ(t, maj_flt);
		w->minflt = min > seen->cur_minflt ? min - seen->cur_minflt : 0;
		w->majflt = maj > seen->cur_majflt ? maj - seen->cur_majflt : 0;
	}
	return sum - seen->cur_sum;
}

/* p runs here (being switched out, or synced: at_sync) and the interval
 * since ktime is about to be charged to it. Returns 1 if p is not the task
 * last seen switched in (a hidden switch: the caller reads, and sets w, the
 * hidden task's part of the interval, apart from what it read). skip_ns:
 * what tasks switched out without a flush since ktime ran in it (the hub's
 * skipped switches; they came before the hidden task). At a sync, the task
 * seen keeps running with what it did so far charged: its runtime and
 * fault counts start over from now. Read through probe reads: p may come
 * from bpf_get_current_task() (a sync), and the hidden task may be gone. */
static __always_inline int catch_unseen_switch(__u64 ktime, struct seen_switch *seen,
					       struct task_struct *p, struct hidden_work *w,
					       int at_sync, __u64 skip_ns)
{
	__u64 now, p_ran, hidden_ran, interval, hidden;
	int idle;

	w->ns = w->minflt = w->majflt = 0;
	w->to_idle = 0;
	if ((__u64)p == seen->cur || !seen->cur) {
		if (at_sync || !seen->cur)
			seen_now(seen, p);
		return 0;
	}
	hidden_ran = hidden_task_ran(seen, w);
	seen_now(seen, p);
	idle = !seen->cur_pid;
	w->to_idle = idle;
	if (!ktime) {
		w->minflt = w->majflt = 0;
		return 1;
	}
	p_ran = idle ? 0 : seen->cur_sum - BPF_CORE_READ(p, se.prev_sum_exec_runtime);
	now = bpf_ktime_get_ns();
	interval = now - ktime;
	hidden = p_ran + skip_ns < interval ? interval - p_ran - skip_ns : 0;
	if (hidden_ran < hidden) {
		if (!idle)
			__sync_fetch_and_add(&unseen_left_ns, hidden - hidden_ran);
		hidden = hidden_ran;
	}
	/* The hidden task's faults here: all of them, unless it ran more
	 * than fits here (it ran on another CPU since), then this CPU's share
	 * of its time. */
	w->minflt = hidden_share(w->minflt, hidden, hidden_ran);
	w->majflt = hidden_share(w->majflt, hidden, hidden_ran);
	w->ns = hidden;
	/* Idle's own time is nobody's either way: not counted. */
	if (!hidden || idle)
		return 1;
	__sync_fetch_and_add(&unseen_switches, 1);
	__sync_fetch_and_add(&unseen_ns, hidden);
	return 1;
}

/* Of minor and major faults, what event bit counts (page-faults: both). */
static __always_inline __u64 faults_of(__u32 bit, __u64 minflt, __u64 majflt)
{
	return (minflt_mask & bit ? minflt : 0) + (majflt_mask & bit ? majflt : 0);
}

/* Take a hidden task's faults out of the deltas just read (at most what
 * they hold); the most taken from one event is counted. */
static __always_inline void take_out_hidden(struct cgperf_reading *d, const struct hidden_work *w)
{
	__u64 most = 0;

	if (!w->minflt && !w->majflt)
		return;
	for (__u32 e = 0; e < CGPERF_MAX_EVENTS && e < nr_events; e++) {
		__u64 f = faults_of(1u << e, w->minflt, w->majflt);

		if (f > d[e].counter)
			f = d[e].counter;
		d[e].counter -= f;
		if (f > most)
			most = f;
	}
	if (most)
		__sync_fetch_and_add(&unseen_faults, most);
}
