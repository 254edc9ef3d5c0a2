// SPDX-License-Identifier: GPL-2.0
/* Follower for kernels with BPF trampolines (perf's bperf design): an fexit
 * program on the shared leader's on_switch, one per event of the session. It
 * picks up the delta the leader just computed for this CPU. The attach target
 * is set at load time (bpf_program__set_attach_target). */
#include "follower_common.bpf.h"

/* Which of the session's events this instance serves (column in accum). */
const volatile __u32 event_index = 0;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct bpf_perf_event_value));
	__uint(max_entries, 1);
} diff_readings SEC(".maps"); /* the leader's, through bpf_map__reuse_fd */

SEC("fexit/on_switch")
int BPF_PROG(fexit_on_switch)
{
	const struct cgperf_slots *s;
	struct bpf_perf_event_value *diff;
	__u32 zero = 0;

	if (!enabled)
		return 0;
	diff = bpf_map_lookup_elem(&diff_readings, &zero);
	s = resolve_slots();
	if (!diff || !s || event_index >= nr_events || event_index >= CGPERF_MAX_EVENTS)
		return 0;
	add_to_slots(s, event_index, 1, (const struct cgperf_reading *)diff);
	return 0;
}

/* PID/TGID sessions, instance 0: the last switch out of a task the filter
 * holds (forget_if_dead). A program of its own, not part of an instance:
 * the instances sit on several leaders' trampolines, and syncs run them in
 * whatever task they interrupt. Attached after the session's leaders, so
 * run after them and their instances (a tracepoint calls its probes in the
 * order they were registered): the task is charged first. */
SEC("tp_btf/sched_switch")
int BPF_PROG(on_switch_out, int preempt, struct task_struct *p)
{
	forget_if_dead(p);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
