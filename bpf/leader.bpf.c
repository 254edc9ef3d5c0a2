// SPDX-License-Identifier: GPL-2.0
/* The shared leader (fexit mode): one per event attr on the host. On every
 * context switch it reads this CPU's perf_event and publishes the delta since
 * the previous switch; fexit followers attached to on_switch add that delta to
 * whatever they count. `current` at sched_switch is the task switched out, so
 * the delta belongs to it. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "cgperf_shared.h"
#include "pmu_delta.h"

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(int));
	__uint(map_flags, BPF_F_PRESERVE_ELEMS);
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct bpf_perf_event_value));
	__uint(max_entries, 1);
} prev_readings SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct bpf_perf_event_value));
	__uint(max_entries, 1);
} diff_readings SEC(".maps");

SEC("raw_tp/sched_switch")
int BPF_PROG(on_switch)
{
	struct cgperf_reading now, *prev, *diff;
	__u32 zero = 0;

	prev = bpf_map_lookup_elem(&prev_readings, &zero);
	diff = bpf_map_lookup_elem(&diff_readings, &zero);
	if (!prev || !diff)
		return 0;
	/* Followers add whatever diff holds after every run: a failed read or
	 * the first run on a CPU (prev still zero: the delta would be the
	 * counter's whole history) must leave a zero diff, not a stale one. */
	if (bpf_perf_event_read_value(&events, BPF_F_CURRENT_CPU,
				      (struct bpf_perf_event_value *)&now, sizeof(now))) {
		diff->counter = diff->enabled = diff->running = 0;
		return 0;
	}
	/* ...nor may a perf_event reopened after CPU hotplug (its counter
	 * starts again from zero: pmu_delta refuses it). */
	if ((prev->enabled == 0 && prev->running == 0 && prev->counter == 0) ||
	    !pmu_delta(&now, prev, diff))
		diff->counter = diff->enabled = diff->running = 0;
	*prev = now;
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
