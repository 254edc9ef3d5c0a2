// SPDX-License-Identifier: GPL-2.0
/* cgperf stat -b where BPF trampolines work (perf's bpf_prog_profiler): an
 * fentry and an fexit program on one target program's main function (the
 * attach target is set at load), both reading the session's events from the
 * SHARED per-CPU perf_events. The change between a run's entry and its exit
 * is added up per CPU, so user space reads exact totals at any time: nothing
 * is owed between runs, unlike a sched_switch follower.
 *
 * One target can run on one CPU only once at a time, except when it runs in
 * an interrupt that came while it ran (a socket filter in softirq): the
 * nested entry overwrites the outer one's readings; the nested exit counts
 * from them, the outer exit finds nothing pending and is not counted (runs
 * then falls short of entries). perf has the same limit.
 *
 * check_enter/check_exit run the same code as raw_tp programs, never
 * attached: a test runs them (BPF_PROG_TEST_RUN on one CPU) around known
 * work, so the verifier and the diff are checked also where the kernel
 * refuses trampolines (tests/unit/test_prog_profiler.c). Either pair is
 * loaded, never both. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "cgperf_shared.h"
#include "shared_events.bpf.h"
#include "pmu_delta.h"

/* Set through skel->rodata before load. */
const volatile __u32 nr_events = 1;

/* This CPU's readings at the target's latest entry; ok: the events read
 * then (bit n: event n), 0 while no entry is pending. */
struct entry_state {
	struct cgperf_reading ev[CGPERF_MAX_EVENTS];
	__u32 ok;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct entry_state);
	__uint(max_entries, 1);
} entry_readings SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct cgperf_prof_accum);
	__uint(max_entries, 1);
} accum SEC(".maps");

/* A failed read (a CPU without a perf_event: offline when the leader was
 * made) leaves bit n of ok clear: that event gets nothing from this run. */
#define READ_EVENT(n, v, ok)                                                           \
	do {                                                                           \
		if (n < nr_events &&                                                   \
		    !bpf_perf_event_read_value(&events##n, BPF_F_CURRENT_CPU,          \
					       (struct bpf_perf_event_value *)&(v)[n], \
					       sizeof(struct bpf_perf_event_value)))   \
			(ok) |= 1u << n;                                               \
	} while (0)

#define READ_EVENTS(v, ok)            \
	do {                          \
		READ_EVENT(0, v, ok); \
		READ_EVENT(1, v, ok); \
		READ_EVENT(2, v, ok); \
		READ_EVENT(3, v, ok); \
		READ_EVENT(4, v, ok); \
		READ_EVENT(5, v, ok); \
		READ_EVENT(6, v, ok); \
		READ_EVENT(7, v, ok); \
	} while (0)

/* Look up first, read last: the map lookups stay out of what the target
 * is charged for. */
static __always_inline void prof_enter(void)
{
	struct cgperf_prof_accum *acc;
	struct entry_state *e;
	__u32 zero = 0, ok = 0;

	e = bpf_map_lookup_elem(&entry_readings, &zero);
	acc = bpf_map_lookup_elem(&accum, &zero);
	if (!e || !acc)
		return;
	acc->entries++;
	READ_EVENTS(e->ev, ok);
	/* Pending even if no event could be read: the run is still a run. */
	e->ok = ok | (1u << CGPERF_MAX_EVENTS);
}

/* Read first: what comes after is not the target's. */
static __always_inline void prof_exit(void)
{
	struct cgperf_reading now[CGPERF_MAX_EVENTS] = {};
	struct cgperf_prof_accum *acc;
	struct entry_state *e;
	__u32 zero = 0, ok = 0;

	READ_EVENTS(now, ok);
	e = bpf_map_lookup_elem(&entry_readings, &zero);
	acc = bpf_map_lookup_elem(&accum, &zero);
	if (!e || !acc || !e->ok)
		return;
	ok &= e->ok;
	e->ok = 0;
	acc->runs++;
	for (int n = 0; n < CGPERF_MAX_EVENTS; n++) {
		struct cgperf_reading d;

		/* A counter below its entry reading was reopened meanwhile (CPU
		 * hotplug): that run's change is unknown, not huge. */
		if (!(ok & (1u << n)) || !pmu_delta(&now[n], &e->ev[n], &d))
			continue;
		acc->ev[n].counter += d.counter;
		acc->ev[n].enabled += d.enabled;
		acc->ev[n].running += d.running;
	}
}

SEC("fentry/target")
int BPF_PROG(prof_entry)
{
	prof_enter();
	return 0;
}

SEC("fexit/target")
int BPF_PROG(prof_exit_prog)
{
	prof_exit();
	return 0;
}

SEC("raw_tp")
int BPF_PROG(check_enter)
{
	prof_enter();
	return 0;
}

SEC("raw_tp")
int BPF_PROG(check_exit)
{
	prof_exit();
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
