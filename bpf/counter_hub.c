// SPDX-License-Identifier: GPL-2.0-only
/* A cgroup session on the cgroup hub (bpf/hub.h): its own filter and
 * accumulators, registered with a hub (the host's shared one; a persistent
 * session's own) whose one sched_switch program serves every cgroup
 * session. A persistent session's hub is pinned with it, and an agent that
 * adopts the session (layout 7 on) takes the hub back from those pins. */
#include "bpf/counter_int.h"
#include "bpf/follower.h"
#include "bpf/hub.h"
#include "bpf/session_pin.h"
#include "bpf/sync_skip.h"
#include <errno.h>
#include <unistd.h>

static int hub_load(struct counter *c)
{
	struct hub_opts ho = {
		.events = c->events,
		.leaders = c->leaders,
		.nr_events = c->nr_events,
		.nr_possible = c->nr_possible,
		.accum_kind = c->accum_kind,
		.max_slots = c->max_slots,
		.bpffs_dir = c->bpffs_dir,
		.pinned = c->persistent,
	};
	int r = hub_session_maps(c->accum_kind, c->max_keys, c->max_slots, c->nr_events,
				 &c->filter_fd, &c->accum_fd);

	if (r < 0)
		return r;
	r = hub_join(&ho, c->filter_fd, c->accum_fd, &c->hub);
	if (r < 0) {
		close(c->filter_fd);
		close(c->accum_fd);
		c->filter_fd = c->accum_fd = -1;
		return r;
	}
	c->sync_fd = hub_sync_fd(c->hub);
	r = filter_gen_open_shared(&c->gen, hub_gen_fd(c->hub));
	return r < 0 ? r : accum_init(&c->acc, c->accum_fd, c->nr_events, c->max_slots);
}

static int hub_enable_session(struct counter *c)
{
	return hub_enable(c->hub);
}

/* What periodic syncs need to leave CPUs out, at the session's first sync
 * (its opening one: the fd is there from the start). */
static int hub_open_skip(struct counter *c, struct sync_skip **ret)
{
	return sync_skip_open(c->sync_fd, c->nr_possible, ret);
}

static int hub_session_prog_ids(const struct counter *c, uint32_t *ids, int *nr, int max)
{
	int n = 0, r;

	if (*nr + HUB_MAX_PROGS > max)
		return -E2BIG;
	r = hub_prog_ids(c->hub, &ids[*nr], &n);
	*nr += n;
	return r;
}

static int hub_session_unseen(const struct counter *c, struct unseen_stats *ret)
{
	return hub_unseen_switches(c->hub, ret);
}

/* The session's hub is its own: pinned with the session's own maps, under
 * the names a tp follower's had (what adoption and drains look for). */
static int hub_pin(struct counter *c, const char *dir, const struct session_meta *m)
{
	int r = session_pin_map(dir, "map_filter", c->filter_fd);

	if (r == 0)
		r = session_pin_map(dir, "map_accum_readings", c->accum_fd);
	if (r == 0)
		r = session_pin(dir, hub_skeleton(c->hub), m);
	if (r < 0)
		session_unpin(dir);
	return r;
}

/* The session is at an index of a hub, which other sessions may share:
 * what enabling and leaving work on. */
static int hub_adopt(struct counter *c, const char *dir)
{
	int r = hub_open_pinned(dir, &c->hub);

	return r == -ENOENT ? -ESTALE : r;
}

/* The maps hub_load made (an adopted session's are its pins', which the
 * session closes). The hub's own fds (sync, generation) go with it; a
 * session still pinned goes on counting. */
static void hub_close_session(struct counter *c)
{
	if (!c->adopted) {
		close(c->filter_fd);
		close(c->accum_fd);
		c->filter_fd = c->accum_fd = -1;
	}
	if (c->pin_dir[0])
		hub_close(c->hub);
	else
		hub_leave(c->hub);
	c->hub = NULL;
}

const struct follower_ops follower_hub_ops = {
	.name = "the cgroup hub on shared perf_events",
	.holds_charges = true,
	.load = hub_load,
	.enable = hub_enable_session,
	.sync_cpu = follower_sync_prog,
	.open_skip = hub_open_skip,
	.prog_ids = hub_session_prog_ids,
	.unseen_switches = hub_session_unseen,
	.pin = hub_pin,
	.adopt = hub_adopt,
	.close = hub_close_session,
};
