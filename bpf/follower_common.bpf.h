/* SPDX-License-Identifier: GPL-2.0-only */
/* What every follower does, whatever triggers it: decide which accumulator
 * slots the current task's delta belongs to (the filter), and add it there.
 * Included by follower_tp.bpf.c and follower_fexit.bpf.c. */
#pragma once

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "cgperf_shared.h"
#include "task_min.h"
#include "slots.bpf.h"

/* Set through skel->rodata before load (nr_events: slots.bpf.h). */
const volatile __u32 filter_type = CGPERF_FILTER_GLOBAL;
/* PID/TGID: also count what matching tasks fork from now on (perf's inherit). */
const volatile __u32 inherit = 0;

/* Flipped by user space when counting starts; deltas seen before are dropped. */
__u32 enabled = 0;
/* Forked tasks that could not be added to a full filter map (reported). */
__u64 filter_full_drops = 0;

/* GLOBAL needs no lookup: everything goes to slot 0. */
static const struct cgperf_slots global_slots = { .nr = 1, .slot = { 0 } };

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u64);
	__type(value, struct cgperf_slots);
	__uint(max_entries, 1); /* set by user space */
} filter SEC(".maps");

/* Per-CPU sums, indexed by slot. value_size is set by user space to
 * nr_events * sizeof(struct cgperf_reading) so memory follows the event count. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct cgperf_reading));
	__uint(max_entries, 1); /* set by user space */
} accum_readings SEC(".maps");

static __always_inline const struct cgperf_slots *resolve_slots(void)
{
	__u64 key;

	switch (filter_type) {
	case CGPERF_FILTER_GLOBAL:
		return &global_slots;
	case CGPERF_FILTER_CPU:
		key = bpf_get_smp_processor_id();
		break;
	case CGPERF_FILTER_PID:
		key = (__u32)bpf_get_current_pid_tgid();
		break;
	case CGPERF_FILTER_TGID:
		key = bpf_get_current_pid_tgid() >> 32;
		break;
	case CGPERF_FILTER_CGROUP:
		return resolve_cgroup_in(&filter);
	default:
		return NULL;
	}
	return bpf_map_lookup_elem(&filter, &key);
}

/* Add d[0..nr) to events [first, first + nr) of every slot in s. */
static __always_inline void add_to_slots(const struct cgperf_slots *s, __u32 first, __u32 nr,
					 const struct cgperf_reading *d)
{
	add_to_slots_in(&accum_readings, s, first, nr, d);
}

/* Whether t is being switched out for the last time (do_task_dead()). t is
 * a trusted pointer (tp_btf): read directly, as this runs at every switch. */
static __always_inline int task_dead(struct task_struct *t)
{
	if (bpf_core_field_exists(t->__state))
		return t->__state & CGPERF_TASK_DEAD;
	return ((struct task_struct___pre514 *)t)->state & CGPERF_TASK_DEAD;
}

/* TGID filters: for each child process counted (on_fork), how many of its
 * threads are still to be switched out for the last time: 1 as it is
 * forked, one more for each thread created (on_new_thread), both before the
 * new task can run, so the count is exact. The kernel keeps no such count:
 * signal->live drops as a thread begins to exit, nr_threads as it is
 * released, both before its last switch. A target has none: its threads
 * could only be counted from /proc, where one released but not yet switched
 * out, or one being created, is missed, and a count one low forgets the
 * process while a thread still runs; targets are forgotten when freed. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u64);
	__type(value, __u64);
	__uint(max_entries, 1); /* set by user space */
} threads_left SEC(".maps");

static __always_inline void forget_key(__u64 key)
{
	bpf_map_delete_elem(&filter, &key);
	if (filter_type == CGPERF_FILTER_TGID)
		bpf_map_delete_elem(&threads_left, &key);
}

/* A task the filter holds (a target, or inherited by on_fork below) is
 * forgotten when it is gone, or its pid, once reused by an unrelated task,
 * would be counted too (and the map would fill up). The exact moment is its
 * last switch out: the tp follower calls this right after charging it what
 * it ran last, so nothing of it is lost and its key leaves at once. on_free
 * (below) is late: sched_process_free runs in an RCU callback, a grace
 * period after the task is reaped, and on this project's VMs that has been
 * seconds (a -p target's 20 short-lived children left up to 4 keys 1.5 s
 * after they were gone, one run in 20-60); meanwhile the pid is free for
 * reuse. A child process (TGID key) goes at the last switch of its last
 * thread (threads_left). A thread (PID key) that leads a group still alive
 * stays for on_free: an exec from another thread takes its pid over
 * (de_thread()), and a zombie leader holds its pid until reaped. */
static __always_inline void forget_if_dead(struct task_struct *t)
{
	__u64 key, *left;

	if (filter_type != CGPERF_FILTER_PID && filter_type != CGPERF_FILTER_TGID)
		return;
	if (!task_dead(t))
		return;
	if (filter_type == CGPERF_FILTER_PID) {
		key = (__u32)BPF_CORE_READ(t, pid);
		if (key == (__u32)BPF_CORE_READ(t, tgid) && BPF_CORE_READ(t, signal, live.counter))
			return;
	} else {
		key = (__u32)BPF_CORE_READ(t, tgid);
		left = bpf_map_lookup_elem(&threads_left, &key);
		if (!left)
			return;
		/* Two last threads on two CPUs: both may read 0 after both
		 * took theirs, never both more. */
		__sync_fetch_and_add(left, -1);
		if (*(volatile __u64 *)left)
			return;
	}
	forget_key(key);
}

/* The fallback for a last switch no follower saw (sched_switch hides some
 * tasks' switches out: unseen_switch.bpf.h), a delete that failed there,
 * and the way targets and PID keys (no threads_left) are forgotten; a
 * counted process whose last switch is never seen stays until the session
 * ends (and a later process with its pid is counted). It forgets by pid number,
 * so a pid reused within the grace period by a new child is forgotten too
 * (the child then goes uncounted). Defined first so that it is attached
 * first (programs are attached in the object's order): a child added by
 * on_fork while on_free was not attached yet, and freed in between, would
 * stay in the filter. A target process (TGID key, no thread count) is gone
 * when its group leader is freed, which happens only after all its threads
 * were released (the last one's last stint may be lost then: released
 * before its last switch). */
SEC("raw_tp/sched_process_free")
int BPF_PROG(on_free, struct task_struct *p)
{
	__u64 key;
	int pid = BPF_CORE_READ(p, pid), tgid = BPF_CORE_READ(p, tgid);

	if (filter_type == CGPERF_FILTER_PID)
		key = (__u32)pid;
	else if (filter_type == CGPERF_FILTER_TGID && pid == tgid)
		key = (__u32)tgid;
	else
		return 0;
	/* A process with a thread count goes at its last thread's last switch
	 * (forget_if_dead). Its leader can be freed before that switch: an RCU
	 * grace period may end while the released last thread still runs its
	 * exit (seen in emulated guests: 9 % of an exiting child's time lost),
	 * and forgetting here would lose that thread's last stint. */
	if (filter_type == CGPERF_FILTER_TGID && bpf_map_lookup_elem(&threads_left, &key))
		return 0;
	forget_key(key);
	return 0;
}

/* TGID: a thread created in a counted process is one more to be switched
 * out (threads_left). At sched_wakeup_new, not sched_process_fork: threads
 * the kernel creates for a process (io_uring workers, vhost workers:
 * create_io_thread()) never pass the fork tracepoint; every new task passes
 * this one, before it can run (its run queue is locked). */
SEC("raw_tp/sched_wakeup_new")
int BPF_PROG(on_new_thread, struct task_struct *t)
{
	__u64 key = (__u32)BPF_CORE_READ(t, tgid), *left;

	if (filter_type != CGPERF_FILTER_TGID || BPF_CORE_READ(t, pid) == (int)key)
		return 0;
	left = bpf_map_lookup_elem(&threads_left, &key);
	if (left)
		__sync_fetch_and_add(left, 1);
	return 0;
}

/* Inherit: a task forked by a counted task is counted too, like perf's
 * inherited events. A thread of a counted process already matches in TGID
 * mode (on_new_thread counts it); in PID mode each new thread is added. */
SEC("raw_tp/sched_process_fork")
int BPF_PROG(on_fork, struct task_struct *parent, struct task_struct *child)
{
	const struct cgperf_slots *s;
	__u64 pkey, ckey, one = 1;

	if (!inherit)
		return 0;
	if (filter_type == CGPERF_FILTER_TGID) {
		pkey = (__u32)BPF_CORE_READ(parent, tgid);
		ckey = (__u32)BPF_CORE_READ(child, tgid);
	} else if (filter_type == CGPERF_FILTER_PID) {
		pkey = (__u32)BPF_CORE_READ(parent, pid);
		ckey = (__u32)BPF_CORE_READ(child, pid);
	} else {
		return 0;
	}
	if (pkey == ckey)
		return 0;
	s = bpf_map_lookup_elem(&filter, &pkey);
	if (!s)
		return 0;
	if (bpf_map_update_elem(&filter, &ckey, s, BPF_ANY))
		__sync_fetch_and_add(&filter_full_drops, 1);
	else if (filter_type == CGPERF_FILTER_TGID)
		/* Where this fails, on_free forgets the child. */
		bpf_map_update_elem(&threads_left, &ckey, &one, BPF_ANY);
	return 0;
}
