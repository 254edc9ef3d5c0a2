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
/* context-switches (bit n): counted by the switches themselves, as perf
 * counts them, to the task switched out (perf_event_task_sched_out() counts
 * the switch while the outgoing task's cgroup events are in). A flush at a
 * switch owes the interval's skipped switches plus the one flushing; no perf
 * read, and no read that lands on the wrong side of the kernel's increment
 * (which comes after this tracepoint: a read here charged each switch to
 * the interval of the task switched in). */
const volatile __u32 switch_mask = 0;
/* Set when a switch away from the idle task may skip its reads: the filter
 * never counts idle (CGROUP, PID, TGID) and every event is one the idle task
 * cannot move: clock and switch events (the switch tells them) and page
 * faults (idle has no user memory). Then what runs from the switch to idle
 * until the next flush is owed to nobody but the next task, and only the
 * interval's start moves (see on_switch). */
const volatile __u32 idle_skips_reads = 0;

/* Everything that ran on this CPU since ktime (the last flush) is owed to
 * one target: the readings there, and (CGROUP filter) the cgroup the task
 * switched in at that flush was in. */
struct prev_state {
	/* What every switch touches first, in one cache line; then what a
	 * held switch adds to (held), then what a read needs (ev). */
	__u64 ktime;
	__u64 owner;
	/* Switches skipped since ktime, all by tasks of owner. */
	__u64 switches;
	/* Charges held (CGROUP filter; see charge_cgroup): what flushes
	 * charged to the cgroup held_id since its slot list was looked up
	 * under filter generation held_gen, not added to those slots yet.
	 * held_id 0: nothing held, no list cached. */
	__u64 held_id;
	__u64 held_gen;
	/* Reads owed to what is held (see hold_to_idle): the counters read
	 * (page faults) moved since ev only for tasks of held_id, so their
	 * deltas belong to it, and were not taken yet. */
	__u64 reads_owed;
	struct cgperf_reading held[CGPERF_MAX_EVENTS];
	struct cgperf_reading ev[CGPERF_MAX_EVENTS];
	struct cgperf_slots held_slots; /* nr 0: a cgroup nobody counts */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct prev_state);
	__uint(max_entries, 1);
} prev_readings SEC(".maps");

/* Moved by user space on every filter change (struct cgperf_filter_gen). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct cgperf_filter_gen);
	__uint(max_entries, 1);
} filter_gen SEC(".maps");

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
		} else if (switch_mask & (1u << n)) {                                    \
			d[n].counter = switches;                                         \
			d[n].enabled = d[n].running = dt;                                \
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

/* Add what is held to its slots and hold nothing. Not if a slot was
 * released since its list was looked up: a released slot may have another
 * owner now. Only a CPU that missed a sync (offline then, or the sync
 * failed there) can hold such a list: the removal that precedes every
 * release syncs after changing the filter, and that releases every hold. */
static __always_inline void release_held(struct prev_state *prev, const struct cgperf_filter_gen *g)
{
	if (prev->held_id && prev->held_gen >= g->release_gen)
		add_to_slots(&prev->held_slots, 0, nr_events, prev->held);
	prev->held_id = 0;
}

/* CGROUP filter: the flushes of one CPU charge the same cgroup over and over
 * (a task and idle taking turns; threads of one service): instead of
 * looking its slot list up and adding to every slot at each flush, the
 * charges are held per CPU and added at the first flush that charges
 * another cgroup, or at a sync, under the list looked up for the first of
 * them. The list is trusted while the filter generation stands still; a
 * read always comes after a sync, so nothing held is ever missing from it. */
static __always_inline void charge_cgroup(struct prev_state *prev, const struct cgperf_reading *d,
					  __u64 id)
{
	const struct cgperf_filter_gen *g;
	const struct cgperf_slots *s;
	__u32 zero = 0;
	__u64 gen;

	g = bpf_map_lookup_elem(&filter_gen, &zero);
	if (!g)
		return;
	gen = g->gen; /* before the lookup: a change after it moves gen on */
	if (prev->held_id == id && prev->held_gen == gen) {
		for (__u32 e = 0; e < CGPERF_MAX_EVENTS && e < nr_events; e++) {
			prev->held[e].counter += d[e].counter;
			prev->held[e].enabled += d[e].enabled;
			prev->held[e].running += d[e].running;
		}
		return;
	}
	release_held(prev, g);
	s = resolve_cgroup();
	/* The task moved to another cgroup while this ran (a cgroup.procs
	 * write on another CPU): the list is of the new one, not of id. */
	if (bpf_get_current_cgroup_id() != id) {
		if (s)
			add_to_slots(s, 0, nr_events, d);
		return;
	}
	if (s)
		prev->held_slots = *s;
	else
		prev->held_slots.nr = 0; /* remembered too: no ancestor walk next time */
	prev->held_id = id;
	prev->held_gen = gen;
	for (__u32 e = 0; e < CGPERF_MAX_EVENTS; e++)
		prev->held[e] = d[e];
}

/* What was read since ev but not taken: the counters of events that are
 * neither clocks nor switches (those two are derived, never read); d holds
 * their deltas, owed to what is held (prev->reads_owed). */
static __always_inline void hold_counters(struct prev_state *prev, const struct cgperf_reading *d)
{
	for (__u32 e = 0; e < CGPERF_MAX_EVENTS && e < nr_events; e++)
		if (!((clock_mask | switch_mask) & (1u << e)))
			prev->held[e].counter += d[e].counter;
	prev->reads_owed = 0;
}

/* Take the reads owed to what is held now: before anything else runs on
 * this CPU that they could move (a task of another cgroup). */
/* Every event's delta into d (READ_DELTA); prev's readings advance. */
static __always_inline void read_deltas(struct prev_state *prev, struct cgperf_reading *d, __u64 dt,
					__u64 switches)
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

static __always_inline void settle_owed(struct prev_state *prev)
{
	struct cgperf_reading d[CGPERF_MAX_EVENTS] = {};

	read_deltas(prev, d, 0, 0);
	hold_counters(prev, d);
}

/* Charge what ran on this CPU since the last flush to the current task's
 * target (its cgroup: id; idle: it is the idle task), and start over from
 * now. at_switch: the current task is being switched out (its switch
 * belongs to this interval), not synced. */
static __always_inline void flush(struct prev_state *prev, int at_switch, __u64 id, int idle)
{
	struct cgperf_reading d[CGPERF_MAX_EVENTS] = {};
	const struct cgperf_slots *s;
	__u64 now = bpf_ktime_get_ns(), dt = now - prev->ktime;
	__u64 switches = prev->switches + at_switch;
	int first = prev->ktime == 0;

	prev->ktime = now;
	prev->switches = 0;
	/* Always advance prev, counting or not: otherwise the next counted
	 * task would be charged for what ran before it. */
	read_deltas(prev, d, dt, switches);
	/* The first run on a CPU (one that was offline when this session
	 * started) only sets the previous readings: a delta from zero would be
	 * the counter's whole history. */
	if (!enabled || first)
		return;
	if (filter_type == CGPERF_FILTER_CGROUP) {
		/* Reads owed to what is held are in d. Charged to the held
		 * cgroup with the rest when the interval is its too (the task
		 * came in from idle as one of its tasks: settle_owed ran
		 * otherwise); to what is held alone when the interval is
		 * idle's (a sync while idle: idle moved none of them) or the
		 * task changed cgroups while it ran (its interval's counters,
		 * read together with what is owed, stay with the held cgroup
		 * rather than carry a whole interval of owed reads away). */
		if (prev->reads_owed && (idle || id != prev->held_id)) {
			hold_counters(prev, d);
			for (__u32 e = 0; e < CGPERF_MAX_EVENTS; e++)
				if (!((clock_mask | switch_mask) & (1u << e)))
					d[e].counter = 0;
		}
		prev->reads_owed = 0;
		/* Idle is nobody's (and not its cgroup's). */
		if (!idle)
			charge_cgroup(prev, d, id);
		return;
	}
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
 * The interval's switches are counted (switch_mask events). Switches to and
 * from the idle task (pid 0) are never skipped: idle is counted by no cgroup
 * target, so an interval that ends in idle is dropped whole, which is right
 * only if nothing else ran in it (a switch from idle may still read nothing:
 * idle_skips_reads). */
static __always_inline int same_owner(const struct prev_state *prev, struct task_struct *p,
				      struct task_struct *n)
{
	__u64 id;

	if (filter_type != CGPERF_FILTER_CGROUP || !prev->ktime || !p->pid || !n->pid)
		return 0;
	id = cgroup_id_of(p);
	return id == prev->owner && id == cgroup_id_of(n);
}

/* A switch to idle by a task of the cgroup whose charges are held (a task
 * and idle taking turns: every switch of the cross-CPU ping-pong) holds
 * what it owes without reading anything: the clocks and its switches are
 * derived from the switch, and the read counters (page faults: the only
 * other events when idle_skips_reads) are left where they are, owed to what
 * is held (reads_owed). Idle moves none of them, so they are read once,
 * when a task of another cgroup comes in (settle_owed), or at a flush or
 * sync. perf reads at every switch that leaves a cgroup; this reads at a
 * switch that changes which cgroup the CPU's counters move for. */
static __always_inline int hold_to_idle(struct prev_state *prev, struct task_struct *p)
{
	const struct cgperf_filter_gen *g;
	__u64 now, dt, switches;
	__u32 zero = 0;

	if (!prev->held_id || cgroup_id_of(p) != prev->held_id || prev->owner != prev->held_id)
		return 0;
	g = bpf_map_lookup_elem(&filter_gen, &zero);
	if (!g || g->gen != prev->held_gen)
		return 0;
	now = bpf_ktime_get_ns();
	dt = now - prev->ktime;
	switches = prev->switches + 1;
	for (__u32 e = 0; e < CGPERF_MAX_EVENTS && e < nr_events; e++) {
		if (clock_mask & (1u << e))
			prev->held[e].counter += dt;
		else if (switch_mask & (1u << e))
			prev->held[e].counter += switches;
		prev->held[e].enabled += dt;
		prev->held[e].running += dt;
	}
	prev->ktime = now;
	prev->switches = 0;
	prev->reads_owed = 1;
	return 1;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(on_switch, int preempt, struct task_struct *p, struct task_struct *n)
{
	struct prev_state *prev;
	__u32 zero = 0;

	prev = bpf_map_lookup_elem(&prev_readings, &zero);
	if (!prev)
		return 0;
	if (same_owner(prev, p, n)) {
		prev->switches++;
		return 0;
	}
	if (idle_skips_reads && !p->pid && prev->ktime) {
		/* Idle (owed to nobody) ends: the switch to idle flushed or
		 * held, and nothing read since moved (idle_skips_reads), so the
		 * previous readings already stand where the next task's
		 * interval starts, unless reads are owed to another cgroup's
		 * charges; only the clock has run on, and idle's own switch is
		 * idle's. */
		prev->ktime = bpf_ktime_get_ns();
		prev->switches = 0;
		prev->owner = cgroup_id_of(n);
		if (prev->reads_owed && prev->owner != prev->held_id)
			settle_owed(prev);
		return 0;
	}
	if (idle_skips_reads && filter_type == CGPERF_FILTER_CGROUP && enabled && !n->pid &&
	    p->pid && prev->ktime && hold_to_idle(prev, p))
		return 0;
	flush(prev, 1, filter_type == CGPERF_FILTER_CGROUP ? cgroup_id_of(p) : 0, !p->pid);
	prev->owner = cgroup_id_of(n);
	return 0;
}

/* Run by syncs on every CPU (BPF_PROG_TEST_RUN): what the running task and
 * those switched before it without a flush ran is charged up to now, and
 * every charge held is added to its slots. */
SEC("raw_tp")
int BPF_PROG(on_sync)
{
	const struct cgperf_filter_gen *g;
	struct prev_state *prev;
	__u32 zero = 0;

	prev = bpf_map_lookup_elem(&prev_readings, &zero);
	if (!prev)
		return 0;
	flush(prev, 0, bpf_get_current_cgroup_id(), (__u32)bpf_get_current_pid_tgid() == 0);
	g = bpf_map_lookup_elem(&filter_gen, &zero);
	if (g)
		release_held(prev, g);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
