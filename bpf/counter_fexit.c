// SPDX-License-Identifier: GPL-2.0-only
/* fexit followers (perf's design, follower_fexit.bpf.c): one program per
 * event on its leader's on_switch, reading the leader's per-switch deltas.
 * Syncing runs the leaders, which runs every session's followers on them.
 * Never pinned: a follower depends on a leader link that a process holds. */
#include "bpf/counter_int.h"
#include "bpf/follower.h"
#include "follower_fexit.skel.h"
#include <bpf/libbpf.h>
#include <errno.h>

static int fexit_load(struct counter *c)
{
	for (int i = 0; i < c->nr_events; i++) {
		struct follower_fexit_bpf *skel = follower_fexit_bpf__open();
		int r;

		if (!skel)
			return -errno;
		c->fexit[i] = skel;
		skel->rodata->filter_type = c->filter;
		skel->rodata->nr_events = c->nr_events;
		skel->rodata->inherit = c->inherit;
		skel->rodata->event_index = i;
		follower_size_maps(c, skel->maps.filter, skel->maps.accum_readings,
				   i == 0 ? skel->maps.threads_left : NULL);
		r = bpf_map__reuse_fd(skel->maps.diff_readings, c->leaders[i].diff_map_fd);
		if (r < 0)
			return r;
		if (i > 0) {
			/* One filter and one accumulator for the whole session. */
			r = bpf_map__reuse_fd(skel->maps.filter, c->filter_fd);
			if (!r)
				r = bpf_map__reuse_fd(skel->maps.accum_readings, c->accum_fd);
			if (r < 0)
				return r;
		}
		/* Only one fork tracker per session. */
		if (!c->inherit || i > 0)
			bpf_program__set_autoload(skel->progs.on_fork, false);
		if (!follower_tracks_tasks(c) || i > 0) {
			bpf_program__set_autoload(skel->progs.on_free, false);
			bpf_program__set_autoload(skel->progs.on_switch_out, false);
		}
		if (c->filter != CGPERF_FILTER_TGID || i > 0)
			bpf_program__set_autoload(skel->progs.on_new_thread, false);
		r = bpf_program__set_attach_target(skel->progs.fexit_on_switch,
						   c->leaders[i].prog_fd, "on_switch");
		if (!r)
			r = follower_fexit_bpf__load(skel);
		if (!r)
			r = follower_fexit_bpf__attach(skel);
		if (r < 0)
			return r;
		if (i == 0) {
			c->filter_fd = bpf_map__fd(skel->maps.filter);
			c->accum_fd = bpf_map__fd(skel->maps.accum_readings);
			r = accum_init(&c->acc, c->accum_fd, c->nr_events, c->max_slots);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

static int fexit_enable(struct counter *c)
{
	for (int i = 0; i < CGPERF_MAX_EVENTS; i++)
		if (c->fexit[i])
			c->fexit[i]->bss->enabled = 1;
	return 0;
}

/* Running a leader runs every session's followers on it. */
static int fexit_sync_cpu(struct counter *c, int cpu)
{
	for (int e = 0; e < c->nr_leaders; e++) {
		int r = follower_run_on_cpu(c->leaders[e].prog_fd, cpu);

		if (r < 0)
			return r;
	}
	return 0;
}

/* The followers', and the leader programs this session holds. */
static int fexit_prog_ids(const struct counter *c, uint32_t *ids, int *nr, int max)
{
	int r = 0;

	for (int i = 0; !r && i < CGPERF_MAX_EVENTS; i++)
		r = follower_add_obj_ids(c->fexit[i] ? c->fexit[i]->obj : NULL, ids, nr, max);
	for (int i = 0; !r && i < c->nr_leaders; i++)
		r = follower_add_prog_id(c->leaders[i].prog_fd, ids, nr, max);
	return r;
}

static uint64_t fexit_filter_drops(const struct counter *c)
{
	return c->fexit[0] ? c->fexit[0]->bss->filter_full_drops : 0;
}

static void fexit_close(struct counter *c)
{
	for (int i = 0; i < CGPERF_MAX_EVENTS; i++) {
		follower_fexit_bpf__destroy(c->fexit[i]);
		c->fexit[i] = NULL;
	}
}

const struct follower_ops follower_fexit_ops = {
	.load = fexit_load,
	.enable = fexit_enable,
	.sync_cpu = fexit_sync_cpu,
	.prog_ids = fexit_prog_ids,
	.filter_drops = fexit_filter_drops,
	.close = fexit_close,
};
