// SPDX-License-Identifier: GPL-2.0-only
#include "bpf/counter.h"
#include "bpf/accum.h"
#include "bpf/counter_int.h"
#include "bpf/filter_gen.h"
#include "bpf/leader.h"
#include "bpf/map_retry.h"
#include "bpf/session_pin.h"
#include "bpf/slot_table.h"
#include "bpf/sync_skip.h"
#include "util/cpus.h"
#include "util/caps.h"
#include "util/log.h"
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

_Static_assert(CGPERF_MAX_EVENTS == READINGS_MAX_EVENTS, "one event limit");

const char *counter_mode_name(const struct counter *c)
{
	return c->ops->name ? c->ops->name : follower_mode_name(c->mode);
}

enum follower_mode counter_mode(const struct counter *c)
{
	return c->mode;
}

/* Sessions that count cgroups take the cgroup hub unless told otherwise,
 * trampolines or not: one program per switch serves all of them and the
 * agent's session (fexit would run a program per event and session at every
 * switch), a switch within one cgroup reads nothing, and an on-call session
 * joins the agent's hub and keeps counting across its restarts. fexit
 * followers (perf's design) serve the per-task and per-CPU filters. */
static int choose_mode(enum follower_request req, enum cgperf_filter_type filter,
		       enum follower_mode *ret)
{
	char reason[256];
	int r;

	if (req != FOLLOWER_FORCE_FEXIT && filter == CGPERF_FILTER_CGROUP) {
		*ret = FOLLOWER_TP;
		log_info("follower mode: the cgroup hub (one sched_switch program for every "
			 "session counting cgroups)");
		return 0;
	}
	r = probe_trampolines(reason, sizeof(reason));

	log_info("fexit probe: %s", reason);
	if (req == FOLLOWER_FORCE_FEXIT && r < 0) {
		log_error("fexit followers requested but %s", reason);
		return -EOPNOTSUPP;
	}
	if (req == FOLLOWER_FORCE_TP || r < 0)
		*ret = FOLLOWER_TP;
	else
		*ret = FOLLOWER_FEXIT;
	log_info("follower mode: %s", follower_mode_name(*ret));
	return 0;
}

static int acquire_leaders(struct counter *c, const struct counter_opts *o)
{
	int r = leaders_acquire(o->events, o->nr_events, c->mode, c->leaders, c->bpffs_dir,
				sizeof(c->bpffs_dir));

	if (r == 0)
		c->nr_leaders = o->nr_events;
	return r;
}

/* The follower kind of a mode: sched_switch followers for a cgroup filter
 * are the cgroup hub. */
static const struct follower_ops *follower_kind(enum follower_mode mode,
						enum cgperf_filter_type filter)
{
	if (mode == FOLLOWER_FEXIT)
		return &follower_fexit_ops;
	return filter == CGPERF_FILTER_CGROUP ? &follower_hub_ops : &follower_tp_ops;
}

static int load_programs(struct counter *c, const struct counter_opts *o)
{
	int r = acquire_leaders(c, o);

	if (r < 0)
		return r;
	c->ops = follower_kind(c->mode, o->filter);
	return c->ops->load(c);
}

/* A persistent session: load sched_switch followers (an fexit follower
 * depends on a leader link that a process holds), then pin them. */
static int load_and_pin(struct counter *c, const struct counter_opts *o)
{
	int r;

	c->mode = FOLLOWER_TP;
	r = load_programs(c, o);
	return r < 0 ? r : counter_pins_make(c, o->pin_dir);
}

/* The session pinned in o->pin_dir, if it counts what o says (-ESTALE if
 * not). */
static int adopt(struct counter *c, const struct counter_opts *o)
{
	int r = counter_pins_adopt(c, o->pin_dir);

	/* Our own references to the shared leaders, for CPU hotplug (the
	 * pinned program holds the perf_event arrays anyway). */
	if (r == 0)
		r = acquire_leaders(c, o);
	return r;
}

/* Undo load_programs(), also after a partial failure. */
static void unload_programs(struct counter *c)
{
	if (c->ops)
		c->ops->close(c);
	c->ops = NULL;
	for (int i = 0; i < c->nr_leaders; i++)
		leader_release(&c->leaders[i]);
	c->nr_leaders = 0;
	accum_free(&c->acc);
	filter_gen_close(&c->gen);
	sync_skip_free(c->skip);
	c->skip = NULL;
	c->skip_tried = false;
	if (c->adopted)
		counter_pins_close(c);
	c->filter_fd = c->accum_fd = c->sync_fd = c->gen.fd = -1;
}

static int publish_slots(void *ctx, uint64_t key, const struct cgperf_slots *v)
{
	struct counter *c = ctx;
	__u64 k = key;
	/* The key's own slot needs its value before the followers can find
	 * the key (the others are its ancestors', which have theirs). */
	int r = v ? accum_make(&c->acc, v->slot[0]) : 0;

	if (r == 0 && !v && bpf_map_delete_elem(c->filter_fd, &k) < 0)
		r = -errno;
	if (r == 0 && v)
		r = map_update_retry(c->filter_fd, &k, v, BPF_ANY);
	/* Slot lists the followers hold are stale from now on (a key found
	 * gone was a change too). A generation that cannot be stored leaves
	 * them in use until the next sync, which every release follows. */
	if ((r == 0 || r == -ENOENT) && filter_gen_changed(&c->gen) < 0)
		log_warn("cannot store the filter generation: %s", strerror(errno));
	return r;
}

/* Before slots are cleared: running programs waited out and what every CPU
 * held added (a sync), and lists held from before now dropped at their
 * CPU's next flush (the release generation). Returns 0 or -errno. */
static int sync_and_release(struct counter *c)
{
	int r = counter_sync(c);

	return r < 0 ? r : filter_gen_released(&c->gen, c->release_mark);
}

/* An add that was rolled back after its key went live: wait out running
 * programs (sync), then clear what they added. */
static int reset_slot(void *ctx, int slot)
{
	struct counter *c = ctx;
	int r = sync_and_release(c);

	return r < 0 ? r : accum_clear(&c->acc, slot);
}

/* Everything a session has before its programs: CPU lists, buffers, slots. */
static int counter_new(enum cgperf_filter_type filter, int nr_events, int max_slots,
		       struct counter **ret)
{
	struct counter *c;
	int r;

	if (nr_events < 1 || nr_events > CGPERF_MAX_EVENTS) {
		log_error("a session counts 1 to %d events, not %d", CGPERF_MAX_EVENTS, nr_events);
		return -EINVAL;
	}
	if (max_slots < 1)
		return -EINVAL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->filter = filter;
	c->nr_events = nr_events;
	c->max_slots = max_slots;
	c->filter_fd = c->accum_fd = c->sync_fd = c->gen.fd = -1;
	/* Without it the check opens the file each time. */
	c->online_fd = cpus_online_open();
	cpus_online_signature_fd(c->online_fd, &c->cpus_sig);
	c->nr_possible = libbpf_num_possible_cpus();
	r = cpus_online(&c->cpus, &c->nr_cpus);
	if (r == 0)
		r = slot_table_new(max_slots, publish_slots, c, &c->slots);
	if (r < 0) {
		counter_close(c);
		return r;
	}
	slot_table_set_reset(c->slots, reset_slot);
	*ret = c;
	return 0;
}

static int load_session(struct counter *c, const struct counter_opts *o)
{
	/* An adopted session's accumulators are whatever kind it was pinned
	 * with (accum_init reads it from the map). */
	bool adopting = o->pin_dir && session_pinned(o->pin_dir);
	int r = adopting ? 0 : accum_choose(o->accum, &c->accum_kind);

	if (r < 0)
		return r;
	if (o->pin_dir) {
		r = adopting ? adopt(c, o) : load_and_pin(c, o);
		if (r < 0 && r != -ESTALE)
			log_error("cannot %s the counting session in %s: %s",
				  adopting ? "adopt" : "pin", o->pin_dir, strerror(-r));
		return r;
	}
	r = choose_mode(o->follower, o->filter, &c->mode);
	if (r < 0)
		return r;
	r = load_programs(c, o);
	if (r < 0 && c->mode == FOLLOWER_TP && o->follower == FOLLOWER_AUTO &&
	    o->filter == CGPERF_FILTER_CGROUP && probe_trampolines(NULL, 0) == 0) {
		/* The hub did not load (a verifier this build was not tried
		 * on) where trampolines work: fexit followers still count. */
		log_warn("the cgroup hub failed (%s); using fexit followers", strerror(-r));
		unload_programs(c);
		c->mode = FOLLOWER_FEXIT;
		r = load_programs(c, o);
	}
	if (r < 0 && c->mode == FOLLOWER_FEXIT && o->follower == FOLLOWER_AUTO) {
		/* The probe passed but the real programs did not (a trampoline
		 * limit per target, a verifier difference): this session can
		 * still count with the mechanism that needs no trampoline. */
		log_warn("fexit followers failed (%s); using sched_switch followers", strerror(-r));
		unload_programs(c);
		c->mode = FOLLOWER_TP;
		r = load_programs(c, o);
	}
	if (r < 0)
		log_error("cannot load the follower programs: %s%s", strerror(-r),
			  caps_needed(-r, "CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN"));
	return r;
}

int counter_open(const struct counter_opts *o, struct counter **ret)
{
	struct counter *c;
	int r = counter_new(o->filter, o->nr_events, o->max_slots, &c);

	if (r < 0)
		return r;
	memcpy(c->events, o->events, o->nr_events * sizeof(*o->events));
	c->max_keys = o->max_keys;
	c->inherit = o->inherit;
	c->persistent = o->pin_dir != NULL;
	r = load_session(c, o);
	if (r < 0)
		goto fail;
	/* Joined a hub (the one new session with a generation): lists held
	 * from before the join (which may name an earlier owner's slots at
	 * this index) are of an older generation. */
	if (!c->adopted && (r = filter_gen_changed(&c->gen)) < 0)
		goto fail;
	/* Leaders can only be trusted with exact reads if test_run works on
	 * this kernel for raw_tp programs (perf's check, too). */
	r = counter_sync(c);
	if (r < 0) {
		log_error("this kernel cannot run BPF_PROG_TEST_RUN on raw_tp programs (%s); "
			  "reads would be stale, refusing to count",
			  strerror(-r));
		goto fail;
	}
	/* Joined a hub: what CPUs that missed the sync hold under lists of
	 * before the join (an earlier owner of this index's) is dropped. */
	if (!c->adopted && (r = filter_gen_released(&c->gen, c->release_mark)) < 0)
		goto fail;
	/* What the followers held is in the slots now; a process killed
	 * between a filter change and its generation store (the previous
	 * agent) leaves held lists that look current: no longer. */
	if (c->adopted && (r = filter_gen_changed(&c->gen)) < 0)
		goto fail;
	if (o->filter == CGPERF_FILTER_GLOBAL) {
		int slot;
		r = counter_add_key(c, 0, &slot);
		if (r < 0)
			goto fail;
	}
	/* libbpf parsed the kernel's BTF to load the programs (megabytes, then
	 * freed): give the pages back instead of keeping them for the life of
	 * the process (measured: the agent's RSS 18.7 -> 12.0 MiB). */
	malloc_trim(0);
	*ret = c;
	return 0;
fail:
	counter_close(c);
	return r;
}

int counter_open_pinned(const char *dir, struct counter **ret, struct session_meta *ret_meta)
{
	struct session_meta m;
	struct counter *c;
	int r = session_read_meta(dir, &m);

	if (r < 0)
		return r;
	r = counter_new(m.filter, m.nr_events, m.max_slots, &c);
	if (r < 0)
		return r;
	r = counter_pins_open(c, dir, m.layout);
	if (r == 0)
		r = counter_sync(c);
	if (r < 0) {
		counter_close(c);
		return r;
	}
	*ret = c;
	*ret_meta = m;
	return 0;
}

bool counter_adopted(const struct counter *c)
{
	return c->adopted;
}

int counter_prog_ids(const struct counter *c, uint32_t ret_ids[COUNTER_MAX_PROGS], int *ret_nr)
{
	uint32_t ids[COUNTER_MAX_PROGS];
	int nr = 0;
	int r = c->adopted ? session_prog_ids(c->pin_dir, ids, COUNTER_MAX_PROGS, &nr)
			   : c->ops->prog_ids(c, ids, &nr, COUNTER_MAX_PROGS);

	if (r < 0)
		return r;
	memcpy(ret_ids, ids, nr * sizeof(ids[0]));
	*ret_nr = nr;
	return 0;
}

int counter_unpin(struct counter *c)
{
	int r = c->pin_dir[0] ? session_unpin(c->pin_dir) : 0;

	c->pin_dir[0] = '\0';
	return r;
}

int counter_reserve_slot(struct counter *c, int slot)
{
	return slot_table_reserve(c->slots, slot);
}

/* A follower that holds charges (follower_ops.holds_charges): before the
 * filter changes, what is owed is charged under the lists it accrued under
 * (the time a cgroup's tasks ran before it was added is not its own, and
 * what they ran before it is removed is). */
static void settle_owed(struct counter *c)
{
	if (c->ops->holds_charges)
		counter_sync(c);
}

int counter_add_cgroup_at(struct counter *c, uint64_t id, const uint64_t *ancestors, int nr,
			  int slot)
{
	if (c->filter != CGPERF_FILTER_CGROUP)
		return -EINVAL;
	settle_owed(c);
	return slot_table_add_at(c->slots, id, ancestors, nr, slot);
}

int counter_prune_keys(struct counter *c, bool (*keep)(void *ctx, uint64_t key), void *ctx)
{
	__u64 key, *stale = NULL;
	size_t nr = 0, cap = 0;
	void *prev = NULL;
	int r = 0;

	settle_owed(c);
	/* Collect first: deleting while walking restarts the kernel's walk. */
	while (bpf_map_get_next_key(c->filter_fd, prev, &key) == 0) {
		prev = &key;
		if (keep ? keep(ctx, key) : slot_table_lookup(c->slots, key) >= 0)
			continue;
		if (nr == cap) {
			__u64 *more = realloc(stale, sizeof(*stale) * (cap = cap ? cap * 2 : 64));

			if (!more) {
				r = -ENOMEM;
				break;
			}
			stale = more;
		}
		stale[nr++] = key;
	}
	for (size_t i = 0; i < nr; i++)
		if (bpf_map_delete_elem(c->filter_fd, &stale[i]) < 0 && errno != ENOENT && !r)
			r = -errno;
	free(stale);
	if (nr > 0) {
		int err = filter_gen_changed(&c->gen);

		r = r < 0 ? r : err;
	}
	return r;
}

static bool slot_in_use(void *ctx, int slot)
{
	const struct counter *c = ctx;

	return !slot_table_is_free(c->slots, slot);
}

int counter_zero_free_slots(struct counter *c)
{
	/* A free slot may still be named by what a CPU holds (a key pruned
	 * just now): added before the slots are cleared, or dropped at the
	 * CPU's next flush if it missed this sync. */
	int r = sync_and_release(c);

	return r < 0 ? r : accum_clear_unused(&c->acc, slot_in_use, c);
}

void counter_close(struct counter *c)
{
	if (!c)
		return;
	unload_programs(c);
	slot_table_free(c->slots);
	free(c->cpus);
	accum_free(&c->acc);
	if (c->online_fd >= 0)
		close(c->online_fd);
	free(c);
}

int counter_add_key(struct counter *c, uint64_t key, int *ret_slot)
{
	if (c->filter == CGPERF_FILTER_CGROUP)
		return -EINVAL;
	return slot_table_add(c->slots, key, NULL, 0, ret_slot);
}

int counter_add_cgroup(struct counter *c, uint64_t id, const uint64_t *ancestors, int nr,
		       int *ret_slot)
{
	if (c->filter != CGPERF_FILTER_CGROUP)
		return -EINVAL;
	settle_owed(c);
	return slot_table_add(c->slots, id, ancestors, nr, ret_slot);
}

int counter_detach(struct counter *c, uint64_t key, int *ret_slot)
{
	settle_owed(c);
	return slot_table_remove(c->slots, key, ret_slot);
}

int counter_release_slot(struct counter *c, int slot)
{
	/* A follower that held this slot's list since before now (an
	 * offline CPU's) must not add to the slot's next owner. */
	int r = filter_gen_released(&c->gen, c->release_mark);

	if (r == 0)
		r = accum_clear(&c->acc, slot);
	/* A slot that cannot be zeroed would hand its counts to the next
	 * owner: keep it out of use. */
	if (r == 0)
		slot_table_release_slot(c->slots, slot);
	return r;
}

int counter_remove(struct counter *c, uint64_t key, struct reading *ret_final)
{
	int slot, r = counter_detach(c, key, &slot);

	if (r < 0)
		return r;
	/* The key is out of the filter. A (full) sync runs our code on every CPU,
	 * which also waits out any program still adding to the slot, and
	 * accounts what its tasks ran up to now. Then the slot is final. */
	r = counter_sync(c);
	if (r == 0 && ret_final)
		r = counter_read(c, slot, ret_final);
	/* Whatever happened above, the slot must not leak. */
	counter_release_slot(c, slot);
	return r;
}

int counter_enable(struct counter *c)
{
	/* Deltas before this point were computed (prev is current) but
	 * dropped; the sync drops what is owed up to now, too. */
	settle_owed(c);
	return c->ops->enable(c);
}

int counter_follow_cpus(struct counter *c)
{
	return counter_sync_follow_cpus(c);
}

int counter_sync(struct counter *c)
{
	return counter_sync_all(c, false);
}

int counter_sync_periodic(struct counter *c)
{
	return counter_sync_all(c, true);
}

int counter_read(struct counter *c, int slot, struct reading *ret_vals)
{
	return accum_read(&c->acc, slot, ret_vals);
}

int counter_read_all(struct counter *c, int nr_slots, struct reading *ret_vals)
{
	return accum_read_all(&c->acc, nr_slots, ret_vals);
}

enum accum_kind counter_accum_kind(const struct counter *c)
{
	return c->acc.kind;
}

int counter_slot_bound(const struct counter *c)
{
	return slot_table_bound(c->slots);
}

void counter_sync_stats(const struct counter *c, uint64_t *ret_synced, uint64_t *ret_skipped)
{
	*ret_synced = c->cpu_syncs;
	*ret_skipped = c->cpu_skips;
}

int counter_unseen_switches(const struct counter *c, struct unseen_stats *ret)
{
	return c->ops->unseen_switches ? c->ops->unseen_switches(c, ret) : -ENODATA;
}

uint64_t counter_filter_drops(const struct counter *c)
{
	return c->ops->filter_drops ? c->ops->filter_drops(c) : 0;
}
