// SPDX-License-Identifier: GPL-2.0
/* Follower for kernels that refuse BPF trampolines (no fexit), for sessions
 * that count everything, CPUs, threads or processes: one program per
 * session on sched_switch, serving all of the session's events. It reads the
 * shared perf_event arrays (follower_reads.bpf.h) and keeps its own previous
 * readings, so sessions never consume each other's deltas and each can sync
 * itself with BPF_PROG_TEST_RUN without disturbing the others. Sessions that
 * count cgroups share one program per event set instead
 * (follower_hub.bpf.c).
 *
 * Two programs share the maps: on_switch (tp_btf, so it can see the task
 * switched in) and on_sync (raw_tp: BPF_PROG_TEST_RUN with
 * BPF_F_TEST_RUN_ON_CPU runs raw_tp programs only), which a sync runs on
 * every CPU. */
#include "follower_common.bpf.h"
#include "follower_reads.bpf.h"
#include "unseen_switch.bpf.h"

/* Everything that ran on this CPU since ktime (the last flush) is owed to
 * the task running since then. */
struct prev_state {
	__u64 ktime;
	/* Switches since ktime that did not flush (from idle: idle's). */
	__u64 switches;
	/* The task last seen switched in here (unseen_switch.bpf.h). */
	struct seen_switch seen;
	struct cgperf_reading ev[CGPERF_MAX_EVENTS];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct prev_state);
	__uint(max_entries, 1);
} prev_readings SEC(".maps");

/* Charge what ran on this CPU since the last flush to the current task's
 * target, less what a hidden task did (h), and start over from now.
 * at_switch: the current task is being switched out (its switch belongs to
 * this interval), not synced. */
static __always_inline void flush(struct prev_state *prev, int at_switch,
				  const struct hidden_work *h)
{
	struct cgperf_reading d[CGPERF_MAX_EVENTS] = {};
	const struct cgperf_slots *s;
	__u64 now = bpf_ktime_get_ns(), dt = now - prev->ktime;
	int first = prev->ktime == 0;

	prev->ktime = now;
	/* Always advance prev, counting or not: otherwise the next counted
	 * task would be charged for what ran before it. */
	read_deltas(prev->ev, d, dt, prev->switches + at_switch);
	prev->switches = 0;
	/* The first run on a CPU (one that was offline when this session
	 * started) only sets the previous readings: a delta from zero would be
	 * the counter's whole history. */
	if (!enabled || first)
		return;
	take_out_hidden(d, h);
	s = resolve_slots();
	if (s)
		add_to_slots(s, 0, nr_events, d);
}

/* The filter charges tasks (its own), so hidden switches matter (see
 * unseen_switch.bpf.h); -a and -C count every task, hidden ones too. */
static __always_inline int charges_tasks(void)
{
	return filter_type != CGPERF_FILTER_GLOBAL && filter_type != CGPERF_FILTER_CPU;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(on_switch, int preempt, struct task_struct *p, struct task_struct *n)
{
	struct prev_state *prev;
	struct hidden_work h = {};
	__u32 zero = 0;
	int hidden = 0;

	prev = bpf_map_lookup_elem(&prev_readings, &zero);
	if (!prev)
		return 0;
	if (charges_tasks()) {
		hidden = catch_unseen_switch(prev->ktime, &prev->seen, p, &h, 0, 0);
		seen_switch_in(&prev->seen, n);
		/* The hidden task's time is nobody's (not the task switched out's). */
		if (hidden && !h.to_idle)
			prev->ktime += h.ns;
	}
	if (idle_skips_reads && !hidden && !p->pid && prev->ktime) {
		/* Idle (counted by no filter that sets idle_skips_reads) ends:
		 * the switch to idle flushed, and nothing read since moved, so
		 * the previous readings already stand where the next task's
		 * interval starts; only the clock has run on, and idle's own
		 * switch is idle's. Not after a hidden switch to idle: the
		 * hidden task moved them. */
		prev->ktime = bpf_ktime_get_ns();
		prev->switches = 0;
		return 0;
	}
	flush(prev, 1, &h);
	forget_if_dead(p);
	return 0;
}

/* Run by syncs on every CPU (BPF_PROG_TEST_RUN): what the running task ran
 * is charged up to now. */
SEC("raw_tp")
int BPF_PROG(on_sync)
{
	struct prev_state *prev;
	struct hidden_work h = {};
	__u32 zero = 0;

	prev = bpf_map_lookup_elem(&prev_readings, &zero);
	if (!prev)
		return 0;
	if (charges_tasks() && catch_unseen_switch(prev->ktime, &prev->seen,
						   (struct task_struct *)bpf_get_current_task(), &h,
						   1, 0) &&
	    !h.to_idle)
		prev->ktime += h.ns;
	flush(prev, 0, &h);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
