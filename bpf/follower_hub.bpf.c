// SPDX-License-Identifier: GPL-2.0
/* The cgroup hub: one sched_switch program for every session on the host
 * that counts cgroups with one event set (where fexit is refused). perf's
 * leader computes each event's delta once per switch for all followers;
 * here one program reads (or derives) the deltas once and charges them to
 * the cgroup whose task ran, and each registered session only adds the
 * charge to the slots its own filter gives that cgroup. Two or four sessions
 * (the agent, an on-call `cgperf stat -G`) cost one program run per switch,
 * not one each: the skipped and held switches below are the same for all.
 *
 * Sessions are registered by user space (bpf/hub.c) at an index of the
 * map-in-map arrays sess_filter and sess_accum (their filter and
 * accumulator maps) and sessions (whether they count yet). A sync (on_sync
 * on every CPU) by any of them brings all of them up to date.
 *
 * Departures from perf: perf reads at every switch that leaves a cgroup;
 * this skips switches within a cgroup, holds the charges of one cgroup per
 * CPU until another cgroup's task flushes, and reads nothing at a switch to
 * idle by the held cgroup's task (see hold_to_idle). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "cgperf_shared.h"
#include "task_min.h"
#include "follower_reads.bpf.h"
#include "unseen_switch.bpf.h"

/* What the tasks switched out by skipped switches since the last flush ran
 * and faulted on this CPU, all the owner's: after a hidden switch, the part
 * of the interval that is the owner's (give_to_owner). */
struct skipped_work {
	__u64 ns;
	__u64 minflt;
	__u64 majflt;
};

/* One registered session (user space writes; this reads enabled). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct cgperf_hub_session);
	__uint(max_entries, CGPERF_HUB_MAX_SESSIONS);
} sessions SEC(".maps");

/* Each session's filter (cgroup id -> slots) and accumulators (slot -> its
 * events on this CPU). The templates' flags, type and value size are set by
 * user space before load to match what its sessions create. */
struct hub_filter {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u64);
	__type(value, struct cgperf_slots);
	__uint(max_entries, 1);
};

struct hub_accum {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct cgperf_reading));
	__uint(max_entries, 1);
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, CGPERF_HUB_MAX_SESSIONS);
	__type(key, __u32);
	__array(values, struct hub_filter);
} sess_filter SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, CGPERF_HUB_MAX_SESSIONS);
	__type(key, __u32);
	__array(values, struct hub_accum);
} sess_accum SEC(".maps");

/* Moved by user space on every filter change of any session, and at every
 * registration or slot release (struct cgperf_filter_gen). Mmapable: the
 * sessions of several processes move it with atomic operations. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct cgperf_filter_gen);
	__uint(max_entries, 1);
	__uint(map_flags, BPF_F_MMAPABLE);
} filter_gen SEC(".maps");

/* Everything that ran on this CPU since ktime (the last flush) is owed to
 * one cgroup: the readings there, and the cgroup the task switched in at
 * that flush was in (owner). */
struct prev_state {
	/* What every switch touches first, in one cache line; then what a
	 * held switch adds to (held), then what a read needs (ev). */
	__u64 ktime;
	__u64 owner;
	/* owner's struct cgroup, compared by address at every switch (see
	 * same_owner). */
	__u64 owner_cgrp;
	/* Switches skipped since ktime, all by tasks of owner. */
	__u64 switches;
	/* The task last seen switched in here (unseen_switch.bpf.h). */
	struct seen_switch seen;
	/* What the tasks switched out by those skips ran and faulted here
	 * (see skip_out). */
	struct skipped_work skip;
	/* Charges held (see charge_cgroup): what flushes charged to the
	 * cgroup held_id since the sessions' slot lists were looked up under
	 * filter generation held_gen, not added to those slots yet. held_id 0:
	 * nothing held, no lists cached. */
	__u64 held_id;
	__u64 held_gen;
	/* Reads owed to what is held (see hold_to_idle): the counters read
	 * (page faults) moved since ev only for tasks of held_id, so their
	 * deltas belong to it, and were not taken yet. */
	__u64 reads_owed;
	struct cgperf_reading held[CGPERF_MAX_EVENTS];
	struct cgperf_reading ev[CGPERF_MAX_EVENTS];
	/* Per session: its slots for held_id (nr 0: it counts none). */
	struct cgperf_slots held_slots[CGPERF_HUB_MAX_SESSIONS];
	/* An on_sync runs here (see on_sync). */
	__u32 syncing;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct prev_state);
	__uint(max_entries, 1);
} prev_readings SEC(".maps");

/* Add what is held to every counting session's slots and hold nothing. Not
 * if a slot was released (or a session registered) since the lists were
 * looked up: a released slot, or an index, may have another owner now. Only
 * a CPU that missed a sync (offline then, or the sync failed there) can hold
 * such lists: every release and registration syncs first, and a sync
 * releases every hold. (A periodic read's sync leaves out CPUs whose lists
 * are all empty, bpf/sync_skip.h: nothing to add there, and releases and
 * registrations sync every CPU.) */
static __always_inline void release_held(struct prev_state *prev, const struct cgperf_filter_gen *g)
{
	if (prev->held_id && prev->held_gen >= g->release_gen) {
		for (__u32 i = 0; i < CGPERF_HUB_MAX_SESSIONS; i++) {
			const struct cgperf_hub_session *sess;
			/* Bounded for the verifier: the key's copy on the
			 * stack loses the loop's bounds. */
			__u32 k = i, at = i & (CGPERF_HUB_MAX_SESSIONS - 1);
			void *accum;

			if (!prev->held_slots[at].nr)
				continue;
			sess = bpf_map_lookup_elem(&sessions, &k);
			if (!sess || !sess->enabled)
				continue;
			accum = bpf_map_lookup_elem(&sess_accum, &k);
			if (accum)
				add_to_slots_in(accum, &prev->held_slots[at], 0, nr_events,
						prev->held);
		}
	}
	prev->held_id = 0;
}

/* The id of cg's ancestor at level l (0: the root): through its ancestors
 * array (6.1 and later), or the ids kept before. */
static __always_inline __u64 ancestor_id(struct cgroup *cg, int l)
{
	struct cgroup___old *old = (void *)cg;
	struct cgroup *a = NULL;
	__u64 id = 0;

	if (bpf_core_field_exists(cg->ancestors)) {
		bpf_core_read(&a, sizeof(a), &cg->ancestors[l]);
		id = BPF_CORE_READ(a, kn, id);
	} else if (bpf_core_field_exists(old->ancestor_ids)) {
		bpf_core_read(&id, sizeof(id), &old->ancestor_ids[l]);
	}
	return id;
}

/* resolve_cgroup_in() for a cgroup that is not the current task's (the
 * one a task left by moving itself): its entry, else its deepest monitored
 * ancestor's. */
static __always_inline const struct cgperf_slots *resolve_cgroup_of(void *filter, struct cgroup *cg)
{
	const struct cgperf_slots *found = NULL, *s;
	__u64 id = BPF_CORE_READ(cg, kn, id);
	int level;

	s = bpf_map_lookup_elem(filter, &id);
	if (s)
		return s;
	level = BPF_CORE_READ(cg, level);
	for (int l = 0; l < CGPERF_MAX_CGROUP_DEPTH; l++) {
		if (l >= level)
			break;
		id = ancestor_id(cg, l);
		s = id ? bpf_map_lookup_elem(filter, &id) : NULL;
		if (s)
			found = s;
	}
	return found;
}

/* Each registered session's slot list for the cgroup cg, or the current
 * task's (cg NULL). */
static __always_inline void look_up_lists(struct prev_state *prev, struct cgroup *cg)
{
	for (__u32 i = 0; i < CGPERF_HUB_MAX_SESSIONS; i++) {
		const struct cgperf_slots *s = NULL;
		__u32 k = i, at = i & (CGPERF_HUB_MAX_SESSIONS - 1); /* as in release_held */
		void *filter = bpf_map_lookup_elem(&sess_filter, &k);

		if (filter)
			s = cg ? resolve_cgroup_of(filter, cg) : resolve_cgroup_in(filter);
		if (s)
			prev->held_slots[at] = *s;
		else
			prev->held_slots[at].nr = 0; /* remembered: no ancestor walk next time */
	}
}

/* look_up_lists() on this CPU's state, as a global function: verified once
 * rather than at each caller (after a hidden switch one path looks the lists
 * up twice, an ancestor walk per session each: more states than the
 * verifier takes). Scalars only, which any kernel with global functions
 * takes. */
__noinline int look_up_lists_here(__u64 cg)
{
	struct prev_state *prev;
	__u32 zero = 0;

	prev = bpf_map_lookup_elem(&prev_readings, &zero);
	if (prev)
		look_up_lists(prev, (struct cgroup *)cg);
	return 0;
}

/* The flushes of one CPU charge the same cgroup over and over (a task and
 * idle taking turns; threads of one service): instead of looking the slot
 * lists up and adding to every slot of every session at each flush, the
 * charges are held per CPU and added at the first flush that charges
 * another cgroup, or at a sync, under the lists looked up for the first of
 * them. The lists are trusted while the filter generation stands still; a
 * read always comes after a sync, so nothing held is ever missing from it.
 * hold_for makes what is held the charges of cgroup id (cg: its cgroup, or
 * NULL for the current task's), releasing what was held before; 0, or -1
 * if the filter generation cannot be read (nothing can be charged). */
static __always_inline int hold_for(struct prev_state *prev, __u64 id, struct cgroup *cg)
{
	const struct cgperf_filter_gen *g;
	__u32 zero = 0;
	__u64 gen;

	g = bpf_map_lookup_elem(&filter_gen, &zero);
	if (!g)
		return -1;
	gen = g->gen; /* before the lookups: a change after them moves gen on */
	if (prev->held_id == id && prev->held_gen == gen)
		return 0;
	release_held(prev, g);
	look_up_lists_here((__u64)cg);
	/* The lists are of cg (its id), or of the current task's cgroup: id,
	 * unless the task was moved to another cgroup while it ran (a
	 * cgroup.procs write on another CPU); then what it ran goes to the
	 * new one, held under its id. */
	prev->held_id = cg ? id : bpf_get_current_cgroup_id();
	prev->held_gen = gen;
	for (__u32 e = 0; e < CGPERF_MAX_EVENTS; e++)
		prev->held[e] = (struct cgperf_reading){};
	return 0;
}

static __always_inline void charge_cgroup(struct prev_state *prev, const struct cgperf_reading *d,
					  __u64 id, struct cgroup *cg)
{
	if (hold_for(prev, id, cg))
		return;
	for (__u32 e = 0; e < CGPERF_MAX_EVENTS && e < nr_events; e++) {
		prev->held[e].counter += d[e].counter;
		prev->held[e].enabled += d[e].enabled;
		prev->held[e].running += d[e].running;
	}
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
static __always_inline void settle_owed(struct prev_state *prev)
{
	struct cgperf_reading d[CGPERF_MAX_EVENTS] = {};

	read_deltas(prev->ev, d, 0, 0);
	hold_counters(prev, d);
}

/* The interval's owner as a cgroup, if its pointer still names it: the
 * cgroup may have been removed (and its memory reused) while the task that
 * made it the owner kept running elsewhere. */
static __always_inline struct cgroup *owner_cgroup(const struct prev_state *prev)
{
	struct cgroup *cg = (struct cgroup *)prev->owner_cgrp;

	return cg && BPF_CORE_READ(cg, kn, id) == prev->owner ? cg : NULL;
}

/* The interval starts over at now: nothing skipped in it yet. */
static __always_inline void restart_interval(struct prev_state *prev, __u64 now)
{
	prev->ktime = now;
	prev->switches = 0;
	prev->skip = (struct skipped_work){};
}

/* After a hidden switch, the interval since the last flush holds, before
 * the task switched out (or synced) came in unseen, what the owner's tasks
 * did: those switched out by skips (skip) and the hidden task, the last one
 * seen switched in (h), which came in as one of the owner's tasks. That
 * part is charged to the owner and taken out of d; the rest stays with the
 * task switched out. Counters no task keeps a count of (PMU events) are
 * split by time, but a switch to idle leaves them all to the owner (idle
 * moves none), as it does page faults; what reads owe to the held cgroup
 * stays in d for it (flush). Time, PMU counts and enabled/running are split
 * by hidden_share (any 64-bit value, not capped). Without this, a hidden
 * task switched in by a skip gave the owner's tasks' faults before it to
 * the next task's cgroup (146 of a python3 in / to a cgroup with a
 * sleeper). */
static __always_inline void give_to_owner(struct prev_state *prev, struct cgperf_reading *d,
					  __u64 dt, __u64 switches, const struct hidden_work *h, int idle)
{
	const struct skipped_work *skip = &prev->skip;
	struct cgroup *owner;
	__u64 ns = skip->ns + h->ns, most = 0;
	int give;

	/* Nothing of the owner's in it: no lookups (a busy hidden task's CPU
	 * sees this at most switches). */
	if (!ns && !switches && !idle && !(skip->minflt | skip->majflt | h->minflt | h->majflt))
		return;
	/* An owner whose cgroup is gone (removed while the hidden task ran):
	 * its part is set apart all the same, charged to nobody. */
	owner = owner_cgroup(prev);
	give = owner && !hold_for(prev, prev->owner, owner);
	if (ns > dt)
		ns = dt;
	for (__u32 e = 0; e < CGPERF_MAX_EVENTS && e < nr_events; e++) {
		__u32 bit = 1u << e;
		__u64 c, hf = 0;

		if (clock_mask & bit) {
			c = ns;
		} else if (switch_mask & bit) {
			c = switches;
		} else if (prev->reads_owed) {
			c = 0;
		} else if (idle) {
			c = d[e].counter;
		} else if ((minflt_mask | majflt_mask) & bit) {
			hf = faults_of(bit, h->minflt, h->majflt);
			c = faults_of(bit, h->minflt + skip->minflt, h->majflt + skip->majflt);
		} else {
			c = hidden_share(d[e].counter, ns, dt);
		}
		if (c > d[e].counter)
			c = d[e].counter;
		if (hf > c)
			hf = c;
		if (hf > most)
			most = hf;
		d[e].counter -= c;
		if (give)
			prev->held[e].counter += c;
		c = hidden_share(d[e].enabled, ns, dt);
		d[e].enabled -= c;
		if (give)
			prev->held[e].enabled += c;
		c = hidden_share(d[e].running, ns, dt);
		d[e].running -= c;
		if (give)
			prev->held[e].running += c;
	}
	if (most)
		__sync_fetch_and_add(&unseen_faults, most);
}

/* Charge what ran on this CPU since the last flush to the cgroup id of the
 * task that ran (idle: nobody), after a hidden switch (hidden) less the
 * owner's part (give_to_owner, h: the hidden task's), and start over from
 * now. at_switch: the task is being switched out (its switch belongs to this
 * interval), not synced. cg: the cgroup of id when it is not the current
 * task's (NULL: it is). */
static __always_inline void flush(struct prev_state *prev, int at_switch, __u64 id, int idle,
				  int hidden, const struct hidden_work *h, struct cgroup *cg)
{
	struct cgperf_reading d[CGPERF_MAX_EVENTS] = {};
	__u64 now = bpf_ktime_get_ns(), dt = now - prev->ktime;
	int first = prev->ktime == 0;

	/* Always advance the readings, counting or not: otherwise the next
	 * task would be charged for what ran before it. */
	read_deltas(prev->ev, d, dt, prev->switches + at_switch);
	/* The first run on a CPU (one that was offline when the hub was made)
	 * only sets the previous readings: a delta from zero would be the
	 * counter's whole history. */
	if (!first && hidden)
		give_to_owner(prev, d, dt, prev->switches, h, idle);
	restart_interval(prev, now);
	if (first)
		return;
	/* Reads owed to what is held are in d. Charged to the held cgroup with
	 * the rest when the interval is its too (the task came in from idle as
	 * one of its tasks: settle_owed ran otherwise); to what is held alone
	 * when the interval is idle's (a sync while idle: idle moved none of
	 * them) or the task changed cgroups while it ran (its interval's
	 * counters, read together with what is owed, stay with the held cgroup
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
		charge_cgroup(prev, d, id, cg);
}

/* The cgroup v2 of a task, and its id as bpf_get_current_cgroup_id() gives
 * it for current (task_dfl_cgroup(task)->kn->id). */
static __always_inline struct cgroup *cgroup_of(struct task_struct *t)
{
	return t->cgroups->dfl_cgrp;
}

static __always_inline __u64 cgroup_id_of(struct task_struct *t)
{
	return cgroup_of(t)->kn->id;
}

/* From now on, what runs here is owed to n's cgroup. */
static __always_inline void set_owner(struct prev_state *prev, struct task_struct *n)
{
	struct cgroup *cg = cgroup_of(n);

	prev->owner_cgrp = (__u64)cg;
	prev->owner = cg->kn->id;
}

/* The same for the current task, through probe reads (a sync's or
 * on_attach's: bpf_get_current_task() is not a trusted pointer). */
static __always_inline void set_owner_current(struct prev_state *prev)
{
	struct task_struct *t = (struct task_struct *)bpf_get_current_task();
	struct cgroup *cg = BPF_CORE_READ(t, cgroups, dfl_cgrp);

	prev->owner_cgrp = (__u64)cg;
	prev->owner = BPF_CORE_READ(cg, kn, id);
}

/* p, seen switched in, is switched out by a skip: what it ran and faulted
 * since is the owner's (two more loads from p, three with page faults: a
 * line the scheduler has just written). */
static __always_inline void skip_out(struct prev_state *prev, struct task_struct *p)
{
	prev->skip.ns += p->se.sum_exec_runtime - prev->seen.cur_sum;
	if (counts_faults()) {
		prev->skip.minflt += p->min_flt - prev->seen.cur_minflt;
		prev->skip.majflt += p->maj_flt - prev->seen.cur_majflt;
	}
}

/* perf's trick: a switch between two tasks of the same cgroup changes
 * nothing anyone counts, so it needs no reads at all: the interval since the
 * last flush just goes on, owed to that cgroup, and is charged at the next
 * switch that leaves it, or at a sync (a read), whichever comes first.
 * The interval's switches are counted (switch_mask events). Switches to and
 * from the idle task (pid 0) are never skipped: idle is counted by no
 * session, so an interval that ends in idle is dropped whole, which is
 * right only if nothing else ran in it (a switch from idle may still read
 * nothing: idle_skips_reads). Nor a switch out of a task that came in
 * unseen (unseen_switch.bpf.h): the interval is then split. */
static __always_inline int same_owner(const struct prev_state *prev, struct task_struct *p,
				      struct task_struct *n)
{
	struct cgroup *cg;

	if (!prev->ktime || !p->pid || !n->pid || (__u64)p != prev->seen.cur)
		return 0;
	/* By address: two loads a task, not four (the id is one more
	 * dependent load away). A cgroup's address is reused only after it
	 * was removed, which needs its tasks gone: the owner's task (running
	 * here since the last flush, or switched out by a skip) would have to
	 * have moved while it ran, twice, into a cgroup made at the old one's
	 * address: the "task moved while it runs" case (docs/ARCHITECTURE.md),
	 * at worst one interval charged to the cgroup it moved to. */
	cg = cgroup_of(p);
	return (__u64)cg == prev->owner_cgrp && cgroup_of(n) == cg;
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
	restart_interval(prev, now);
	prev->reads_owed = 1;
	return 1;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(on_switch, int preempt, struct task_struct *p, struct task_struct *n)
{
	struct prev_state *prev;
	struct hidden_work h;
	struct cgroup *cg;
	__u32 zero = 0;
	int hidden;
	__u64 id;

	prev = bpf_map_lookup_elem(&prev_readings, &zero);
	if (!prev)
		return 0;
	if (same_owner(prev, p, n)) {
		prev->switches++;
		skip_out(prev, p);
		seen_switch_in(&prev->seen, n);
		return 0;
	}
	/* After a hidden switch, the counters may have moved for a task of
	 * another cgroup, idle's or held ones alike: read. */
	hidden = catch_unseen_switch(prev->ktime, &prev->seen, p, &h, 0, prev->skip.ns);
	seen_switch_in(&prev->seen, n);
	if (idle_skips_reads && !hidden && !p->pid && prev->ktime) {
		/* Idle (owed to nobody) ends: the switch to idle flushed or
		 * held, and nothing read since moved (idle_skips_reads), so the
		 * previous readings already stand where the next task's
		 * interval starts, unless reads are owed to another cgroup's
		 * charges; only the clock has run on, and idle's own switch is
		 * idle's. */
		restart_interval(prev, bpf_ktime_get_ns());
		set_owner(prev, n);
		if (prev->reads_owed && prev->owner != prev->held_id)
			settle_owed(prev);
		return 0;
	}
	if (idle_skips_reads && !hidden && !n->pid && p->pid && prev->ktime &&
	    hold_to_idle(prev, p))
		return 0;
	/* p changed cgroups while it ran and on_attach did not charge the
	 * interval at the move: moved by another process, or switched out
	 * between the move and the tracepoint (a preemptible kernel does when
	 * the cpu controller moves a running task). The interval is its old
	 * cgroup's (the owner's: p came in as one of its tasks), but for p's
	 * own run after the move, at most this stint. */
	cg = NULL;
	id = cgroup_id_of(p);
	if (!hidden && p->pid && (__u64)cgroup_of(p) != prev->owner_cgrp) {
		cg = owner_cgroup(prev);
		if (cg)
			id = prev->owner;
	}
	flush(prev, 1, id, !p->pid, hidden, &h, cg);
	set_owner(prev, n);
	return 0;
}

/* Run by syncs on every CPU (BPF_PROG_TEST_RUN): what the running task and
 * those switched before it without a flush ran is charged up to now, and
 * every charge held is added to its sessions' slots. Syncs of several
 * processes may meet on one CPU: a sync of the CPU its caller runs on runs
 * there with interrupts on, and another process's sync, an IPI, can run
 * inside it. That one changes nothing and says so (CGPERF_SYNC_BUSY); its
 * caller tries again once the interrupted one is done. (A switch cannot
 * come in between: preemption is off, and on_switch runs with interrupts
 * off.) */
SEC("raw_tp")
int BPF_PROG(on_sync)
{
	const struct cgperf_filter_gen *g;
	struct prev_state *prev;
	struct hidden_work h;
	__u32 zero = 0;
	int hidden;

	prev = bpf_map_lookup_elem(&prev_readings, &zero);
	if (!prev)
		return 0;
	if (prev->syncing)
		return CGPERF_SYNC_BUSY;
	prev->syncing = 1;
	hidden = catch_unseen_switch(prev->ktime, &prev->seen,
				     (struct task_struct *)bpf_get_current_task(), &h, 1,
				     prev->skip.ns);
	flush(prev, 0, bpf_get_current_cgroup_id(), (__u32)bpf_get_current_pid_tgid() == 0, hidden,
	      &h, NULL);
	/* The interval from now is the current task's cgroup's (it may have
	 * been moved since it came in). */
	set_owner_current(prev);
	g = bpf_map_lookup_elem(&filter_gen, &zero);
	if (g)
		release_held(prev, g);
	prev->syncing = 0;
	return 0;
}

/* A task that moves itself to another cgroup while it runs (a shell's
 * `echo $$ > cgroup.procs`, systemd's exec child): the interval since the
 * last flush is its old cgroup's, tasks of which may have switched among
 * themselves since without a flush; charged at the switch out, it would go
 * to the new one (1600 page faults of other tasks once). Charged here, to
 * the old cgroup, with the microseconds the mover ran since the move was
 * committed (this runs right after). A task moved by another one, while it
 * runs on another CPU, is charged at its switch out as before. */
/* on_attach's link, for sessions that join the hub to hold it too (the
 * hub's registry entry names on_switch's link only). */
__u64 attach_link_id = 0; /* 64 bits: the .bss then has no tail padding (its size is checked) */

SEC("tp_btf/cgroup_attach_task")
int BPF_PROG(on_attach, struct cgroup *dst, const char *path, struct task_struct *task,
	     _Bool threadgroup)
{
	/* Not the BTF helper: it needs 5.11, this hub loads from 5.8. */
	struct task_struct *cur = (struct task_struct *)bpf_get_current_task();
	struct prev_state *prev;
	struct cgroup *owner;
	struct hidden_work h;
	__u32 zero = 0;

	if (task != cur && !(threadgroup && task->tgid == BPF_CORE_READ(cur, tgid)))
		return 0;
	prev = bpf_map_lookup_elem(&prev_readings, &zero);
	/* Not before the CPU's first switch (no interval yet), nor inside a
	 * sync (none can be: a cgroup write does not happen in an IPI); not
	 * for a task that came in unseen (the owner is then the hidden task's
	 * cgroup: its switch out sorts it out); nothing if its cgroup v2 did
	 * not change (a v1 hierarchy's move fires this too). */
	if (!prev || !prev->ktime || prev->syncing || (__u64)cur != prev->seen.cur ||
	    (__u64)BPF_CORE_READ(cur, cgroups, dfl_cgrp) == prev->owner_cgrp)
		return 0;
	owner = owner_cgroup(prev);
	if (!owner)
		return 0;
	/* A sync arriving as an IPI meanwhile waits (CGPERF_SYNC_BUSY). */
	prev->syncing = 1;
	catch_unseen_switch(prev->ktime, &prev->seen, cur, &h, 1, 0); /* cur was seen */
	flush(prev, 0, prev->owner, 0, 0, &h, owner);
	set_owner_current(prev);
	prev->syncing = 0;
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
