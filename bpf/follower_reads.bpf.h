/* SPDX-License-Identifier: GPL-2.0-only */
/* How the sched_switch followers (follower_tp.bpf.c: one session;
 * follower_hub.bpf.c: every cgroup session of one event set) read their
 * events: the SHARED per-attr perf_event arrays (one perf_event per CPU per
 * attr for the whole host, created by whichever session came first), against
 * previous readings of their own, and what they derive instead of reading. */
#pragma once

#include "slots.bpf.h"
#include "shared_events.bpf.h"
#include "pmu_delta.h"

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
/* context-switches (bit n): counted by the switches themselves, as perf
 * counts them, to the task switched out (perf_event_task_sched_out() counts
 * the switch while the outgoing task's cgroup events are in). A flush at a
 * switch owes the interval's skipped switches plus the one flushing; no perf
 * read, and no read that lands on the wrong side of the kernel's increment
 * (which comes after this tracepoint: a read here charged each switch to
 * the interval of the task switched in). */
const volatile __u32 switch_mask = 0;
/* Page-fault events (bit n): those that count minor faults (page-faults,
 * minor-faults) and major ones (page-faults, major-faults). A task's own
 * counts of both (task_struct min_flt, maj_flt) take a hidden task's faults
 * out of an interval (unseen_switch.bpf.h). */
const volatile __u32 minflt_mask = 0;
const volatile __u32 majflt_mask = 0;
/* Set when a switch away from the idle task may skip its reads: the filter
 * never counts idle (CGROUP, PID, TGID) and every event is one the idle task
 * cannot move: clock and switch events (the switch tells them) and page
 * faults (idle has no user memory). Then what runs from the switch to idle
 * until the next flush is owed to nobody but the next task, and only the
 * interval's start moves. */
const volatile __u32 idle_skips_reads = 0;

/* bpf_perf_event_read returns a negative errno cast to u64 on failure. */
#define READ_FAILED(v) ((v) > (__u64)-4096)

/* Delta of event n since the previous reading ev[n] on this CPU. An empty
 * slot (CPU offline when the leader was made) reads as no change, and so
 * does a counter that went backwards (its perf_event was reopened after the
 * CPU came back online). A PMU event's delta is pmu_delta() (pmu_delta.h),
 * which the unit tests run too. */
#define READ_DELTA(n)                                                                    \
	do {                                                                             \
		if (n >= nr_events)                                                      \
			break;                                                           \
		if (clock_mask & (1u << n)) {                                            \
			d[n].counter = d[n].enabled = d[n].running = dt;                 \
		} else if (switch_mask & (1u << n)) {                                    \
			d[n].counter = switches;                                         \
			d[n].enabled = d[n].running = dt;                                \
		} else if (software_mask & (1u << n)) {                                  \
			__u64 v = bpf_perf_event_read(&events##n, BPF_F_CURRENT_CPU);    \
			if (READ_FAILED(v))                                              \
				break;                                                   \
			if (v >= ev[n].counter) {                                        \
				d[n].counter = v - ev[n].counter;                        \
				d[n].enabled = d[n].running = dt;                        \
			}                                                                \
			ev[n].counter = v;                                               \
		} else {                                                                 \
			struct cgperf_reading v;                                         \
			if (bpf_perf_event_read_value(&events##n, BPF_F_CURRENT_CPU,     \
						      (struct bpf_perf_event_value *)&v, \
						      sizeof(v)))                        \
				break;                                                   \
			pmu_delta(&v, &ev[n], &d[n]);                                    \
			ev[n] = v;                                                       \
		}                                                                        \
	} while (0)

/* Every event's delta into d (dt: the clock's; switches: the interval's);
 * the previous readings ev advance. */
static __always_inline void read_deltas(struct cgperf_reading *ev, struct cgperf_reading *d,
					__u64 dt, __u64 switches)
{
	READ_DELTA(0);
	READ_DELTA(1);
	READ_DELTA(2);
	READ_DELTA(3);
	READ_DELTA(4);
	READ_DELTA(5);
	READ_DELTA(6);
	READ_DELTA(7);
}
