// SPDX-License-Identifier: GPL-2.0
/* Follower for kernels that refuse BPF trampolines (no fexit): one program
 * per session on sched_switch, serving all of the session's events. It reads
 * the SHARED per-attr perf_event arrays (one perf_event per CPU per attr for
 * the whole host, created by whichever session came first) and keeps its own
 * previous readings, so sessions never consume each other's deltas and each
 * can sync itself with BPF_PROG_TEST_RUN without disturbing the others. */
#include "follower_common.bpf.h"

#define SHARED_EVENTS_MAP(n)                                        \
	struct {                                                    \
		__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);        \
		__uint(key_size, sizeof(__u32));                    \
		__uint(value_size, sizeof(int));                    \
		__uint(map_flags, BPF_F_PRESERVE_ELEMS);            \
	} events##n SEC(".maps")

SHARED_EVENTS_MAP(0);
SHARED_EVENTS_MAP(1);
SHARED_EVENTS_MAP(2);
SHARED_EVENTS_MAP(3);
SHARED_EVENTS_MAP(4);
SHARED_EVENTS_MAP(5);
SHARED_EVENTS_MAP(6);
SHARED_EVENTS_MAP(7);

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct cgperf_readings);
	__uint(max_entries, 1);
} prev_readings SEC(".maps");

/* Delta of event n since this session's previous reading on this CPU. An
 * empty slot (CPU offline when the leader was made) reads as no change. */
#define READ_DELTA(n)                                                             \
	do {                                                                      \
		if (n < nr_events) {                                              \
			struct bpf_perf_event_value v;                            \
			if (!bpf_perf_event_read_value(&events##n, BPF_F_CURRENT_CPU, \
						       &v, sizeof(v))) {          \
				d[n].counter = v.counter - prev->ev[n].counter;   \
				d[n].enabled = v.enabled - prev->ev[n].enabled;   \
				d[n].running = v.running - prev->ev[n].running;   \
				prev->ev[n].counter = v.counter;                  \
				prev->ev[n].enabled = v.enabled;                  \
				prev->ev[n].running = v.running;                  \
			}                                                         \
		}                                                                 \
	} while (0)

SEC("raw_tp/sched_switch")
int BPF_PROG(on_switch)
{
	struct cgperf_reading d[CGPERF_MAX_EVENTS] = {};
	const struct cgperf_slots *s;
	struct cgperf_readings *prev;
	__u32 zero = 0;

	prev = bpf_map_lookup_elem(&prev_readings, &zero);
	if (!prev)
		return 0;
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
	if (!enabled)
		return 0;
	s = resolve_slots();
	if (s)
		add_to_slots(s, 0, nr_events, d);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
