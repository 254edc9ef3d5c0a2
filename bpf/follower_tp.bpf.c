// SPDX-License-Identifier: GPL-2.0
/* Follower for kernels that refuse BPF trampolines (no fexit): one program
 * per session on sched_switch, serving all of the session's events. It reads
 * the SHARED per-attr perf_event arrays (one perf_event per CPU per attr for
 * the whole host, created by whichever session came first) and keeps its own
 * previous readings, so sessions never consume each other's deltas and each
 * can sync itself with BPF_PROG_TEST_RUN without disturbing the others.
 *
 * Two programs share the maps: on_switch (tp_btf, so it can see the task
 * switched in) and on_sync (raw_tp: BPF_PROG_TEST_RUN with
 * BPF_F_TEST_RUN_ON_CPU runs raw_tp programs only), which a sync runs on
 * every CPU. */
#include "follower_common.bpf.h"
#include "shared_events.bpf.h"

/* Events that never multiplex (software events): bit n set for event n.
 * Their enabled and running times both equal the time this CPU ran the task,
 * so one clock read per switch gives them, and the cheaper counter-only read
 * is enough: the timer arithmetic of bpf_perf_event_read_value is most of
 * what a read costs, and this runs on every context switch. */
const volatile __u32 software_mask = 0;
/* cpu-clock and task-clock (bit n for event n): on one CPU, their count
 * between two switches is the time elapsed between them, which the one
 * clock read per switch already gives; no perf read needed at all. */
const volatile __u32 clock_mask = 0;

/* Everything that ran on this CPU since ktime (the last flush) is owed to
 * one target: the readings there, and (CGROUP filter) the cgroup the task
 * switched in at that flush was in. */
struct prev_state {
	struct cgperf_reading ev[CGPERF_MAX_EVENTS];
	__u64 ktime;
	__u64 owner;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct prev_state);
	__uint(max_entries, 1);
} prev_readings SEC(".maps");

/* bpf_perf_event_read returns a negative errno cast to u64 on failure. */
#define READ_FAILED(v) ((v) > (__u64)-4096)

/* Delta of event n since this session's previous reading on this CPU. An
 * empty slot (CPU offline when the leader was made) reads as no change, and
 * so does a counter that went backwards (its perf_event was reopened after
 * the CPU came back online). */
#define READ_DELTA(n)                                                                    \
	do {                                                                             \
		if (n >= nr_events)                                                      \
			break;                                                           \
		if (clock_mask & (1u << n)) {                                            \
			d[n].counter = d[n].enabled = d[n].running = dt;                 \
		} else if (software_mask & (1u << n)) {                                  \
			__u64 v = bpf_perf_event_read(&events##n, BPF_F_CURRENT_CPU);    \
			if (READ_FAILED(v))                                              \
				break;                                                   \
			if (v >= prev->ev[n].counter) {                                  \
				d[n].counter = v - prev->ev[n].counter;                  \
				d[n].enabled = d[n].running = dt;                        \
			}                                                                \
			prev->ev[n].counter = v;                                         \
		} else {                                                                 \
			struct bpf_perf_event_value v;                                   \
			if (bpf_perf_event_read_value(&events##n, BPF_F_CURRENT_CPU, &v, \
						      sizeof(v)))                        \
				break;                                                   \
			if (v.counter >= prev->ev[n].counter &&                          \
			    v.enabled >= prev->ev[n].enabled) {                          \
				d[n].counter = v.counter - prev->ev[n].counter;          \
				d[n].enabled = v.enabled - prev->ev[n].enabled;          \
				d[n].running = v.running - prev->ev[n].running;          \
			}                                                                \
			prev->ev[n].counter = v.counter;                                 \
			prev->ev[n].enabled = v.enabled;                                 \
			prev->ev[n].running = v.running;                                 \
		}                                                                        \
	} while (0)

/* Charge what ran on this CPU since the last flush to the current task's
 * target, and start over from now. */
static __always_inline void flush(struct prev_state *prev)
{
	struct cgperf_reading d[CGPERF_MAX_EVENTS] = {};
	const struct cgperf_slots *s;
	__u64 now = bpf_ktime_get_ns(), dt = now - prev->ktime;
	int first = prev->ktime == 0;

	prev->ktime = now;
	/* Always advance prev, counting or not: otherwise the next counted
	 * task would be charged for what ran before it. */
	READ_DELTA(0);
	READ_DELTA(1);
	READ_DELTA(2);
	READ_DELTA(3);
	READ_DELTA(4);
	READ_DELTA(5);
	READ_DELTA(6);
	READ_DELTA(7);
	/* The first run on a CPU (one that was offline when this session
	 * started) only sets the previous readings: a delta from zero would be
	 * the counter's whole history. */
	if (!enabled || first)
		return;
	s = resolve_slots();
	if (s)
		add_to_slots(s, 0, nr_events, d);
}

/* The cgroup v2 id of a task, as bpf_get_current_cgroup_id() gives it for
 * current (task_dfl_cgroup(task)->kn->id). */
static __always_inline __u64 cgroup_id_of(struct task_struct *t)
{
	return t->cgroups->dfl_cgrp->kn->id;
}

/* perf's trick: a switch between two tasks of the same cgroup changes
 * nothing anyone counts, so it needs no reads at all: the interval since the
 * last flush just goes on, owed to that cgroup, and is charged at the next
 * switch that leaves it, or at a sync (a read), whichever comes first.
 * Switches to and from the idle task (pid 0) always flush: idle is counted
 * by no cgroup target, so an interval that ends in idle is dropped whole,
 * which is right only if nothing else ran in it. */
static __always_inline int same_owner(const struct prev_state *prev, struct task_struct *p,
				      struct task_struct *n)
{
	__u64 id;

	if (filter_type != CGPERF_FILTER_CGROUP || !prev->ktime || !p->pid || !n->pid)
		return 0;
	id = cgroup_id_of(p);
	return id == prev->owner && id == cgroup_id_of(n);
}

SEC("tp_btf/sched_switch")
int BPF_PROG(on_switch, int preempt, struct task_struct *p, struct task_struct *n)
{
	struct prev_state *prev;
	__u32 zero = 0;

	prev = bpf_map_lookup_elem(&prev_readings, &zero);
	if (!prev || same_owner(prev, p, n))
		return 0;
	flush(prev);
	prev->owner = cgroup_id_of(n);
	return 0;
}

/* Run by syncs on every CPU (BPF_PROG_TEST_RUN): what the running task and
 * those switched before it without a flush ran is charged up to now. */
SEC("raw_tp")
int BPF_PROG(on_sync)
{
	struct prev_state *prev;
	__u32 zero = 0;

	prev = bpf_map_lookup_elem(&prev_readings, &zero);
	if (prev)
		flush(prev);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
