// SPDX-License-Identifier: GPL-2.0-only
/* Syncs (ARCHITECTURE.md "Exact reads"): run the follower's sync on every
 * online CPU (follower_ops.sync_cpu) so that running tasks are accounted up
 * to now, leave out the CPUs that owe nothing where the follower can tell
 * (a hub's periodic syncs, bpf/sync_skip.h), and keep the shared
 * perf_events on the CPUs online now. */
#include "bpf/counter_int.h"
#include "bpf/leader.h"
#include "bpf/sync_skip.h"
#include "util/cpus.h"
#include "util/log.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* One CPU's sync (a sync_cpu_fn). */
static int sync_cpu(void *ctx, int cpu)
{
	struct counter *c = ctx;

	c->cpu_syncs++;
	return c->ops->sync_cpu(c, cpu);
}

static int sync_cpus(struct counter *c, const int *cpus, int nr)
{
	for (int i = 0; i < nr; i++) {
		int r = sync_cpu(c, cpus[i]);

		if (r < 0)
			return r;
	}
	return 0;
}

/* What periodic syncs need to leave CPUs out (a hub's), at the first sync. */
static void open_skip(struct counter *c)
{
	int r;

	if (!c->ops->open_skip || c->skip_tried)
		return;
	r = c->ops->open_skip(c, &c->skip);
	/* Short of memory: next time. Anything else (a hub that lacks what is
	 * read, a host whose possible CPUs do not match its map's, a map this
	 * process may not open) stays so. */
	c->skip_tried = r != -ENOMEM && r != -EAGAIN && r != -EINTR;
	if (r < 0 && c->skip_tried)
		log_info(
			"every sync runs on every CPU: the hub's per-CPU state cannot be read (%s)",
			strerror(-r));
}

/* A hub's sync leaves out the CPUs that owe it nothing (bpf/sync_skip.h);
 * without the hub's per-CPU state, every CPU is synced. */
static int sync_cpus_needed(struct counter *c, const int *cpus, int nr)
{
	int skipped, r;

	if (!c->skip)
		return sync_cpus(c, cpus, nr);
	r = sync_skip_run(c->skip, cpus, nr, sync_cpu, c, &skipped);
	if (r == 0)
		c->cpu_skips += (uint64_t)skipped;
	return r;
}

/* CPUs came or went since the last sync: make the shared perf_events cover
 * the CPUs online now (a CPU that was offlined and onlined again keeps a
 * perf_event that no longer counts) and sync over the new list. */
int counter_sync_follow_cpus(struct counter *c)
{
	int *cpus = NULL, *fresh = NULL, nr = 0, nr_fresh = 0, map_fd, lock_fd = -1, r;
	uint32_t sig;

	if (cpus_online_signature_fd(c->online_fd, &sig) < 0 || sig == c->cpus_sig)
		return 0;
	r = cpus_online(&cpus, &nr);
	if (r < 0)
		return r;
	/* Only CPUs that were not online before need new perf_events:
	 * reopening the others would drop what they counted since the last
	 * switch. */
	fresh = calloc(nr ? nr : 1, sizeof(int));
	if (!fresh) {
		free(cpus);
		return -ENOMEM;
	}
	for (int i = 0; i < nr; i++) {
		bool known = false;
		for (int j = 0; j < c->nr_cpus; j++)
			known |= c->cpus[j] == cpus[i];
		if (!known)
			fresh[nr_fresh++] = cpus[i];
	}
	map_fd = attr_map_lock(c->bpffs_dir, &lock_fd);
	if (map_fd < 0) {
		free(cpus);
		free(fresh);
		return map_fd;
	}
	/* What a returning CPU owes from before it went down is read from its
	 * old perf_events (they stopped there), and its readings start over at
	 * the new ones right after they are in (a reopened event starts from
	 * zero: a first read against the old reading would drop or subtract).
	 * Best effort: a failed sync here leaves it to the next one. */
	(void)sync_cpus(c, fresh, nr_fresh);
	for (int i = 0; i < c->nr_leaders && r == 0; i++)
		r = leader_refresh_cpus(map_fd, &c->events[i].attr, c->events[i].name,
					&c->leaders[i], sig, fresh, nr_fresh);
	if (r == 0)
		(void)sync_cpus(c, fresh, nr_fresh);
	attr_map_unlock(map_fd, lock_fd);
	free(fresh);
	if (r < 0) {
		free(cpus);
		return r;
	}
	free(c->cpus);
	c->cpus = cpus;
	c->nr_cpus = nr;
	c->cpus_sig = sig;
	return 0;
}

int counter_sync_all(struct counter *c, bool periodic)
{
	__u64 mark = filter_gen_now(&c->gen);
	int *online = NULL, nr = 0, r = counter_sync_follow_cpus(c);

	open_skip(c);
	c->release_mark = 0;
	if (r == 0) {
		r = periodic ? sync_cpus_needed(c, c->cpus, c->nr_cpus)
			     : sync_cpus(c, c->cpus, c->nr_cpus);
		c->release_mark = r == 0 ? mark : 0;
		return r;
	}
	/* Counting on a CPU that came online may be incomplete (its perf_events
	 * were not reopened), but what runs there is still synced: a CPU
	 * left out would keep what it holds out of every read. */
	log_warn("cannot follow a change of online CPUs: %s", strerror(-r));
	if (cpus_online(&online, &nr) < 0)
		return sync_cpus(c, c->cpus, c->nr_cpus);
	r = sync_cpus(c, online, nr);
	c->release_mark = r == 0 ? mark : 0; /* every CPU online now was synced */
	free(online);
	return r;
}
