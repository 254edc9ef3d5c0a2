// SPDX-License-Identifier: GPL-2.0-only
/* The sched_switch follower of one session (follower_tp.bpf.c), for the
 * filters other than cgroups (-a, -C, -p, -t, a command) where trampolines
 * are refused or not wanted: one program serves all of the session's
 * events, reading the shared perf_event arrays itself. A persistent session
 * pinned before layout 7 is adopted as this kind with no skeleton (only
 * drained: syncs run its pinned program). */
#include "bpf/counter_int.h"
#include "bpf/follower.h"
#include "bpf/hub.h"
#include "bpf/read_masks.h"
#include "bpf/session_pin.h"
#include "follower_tp.skel.h"
#include <bpf/libbpf.h>
#include <errno.h>

static void set_event_masks(struct follower_tp_bpf *skel, const struct counter *c)
{
	struct read_masks m;

	read_masks_of(c->events, c->nr_events, follower_tracks_tasks(c), &m);
	READ_MASKS_SET(skel->rodata, m);
}

static int tp_load(struct counter *c)
{
	struct follower_tp_bpf *skel = follower_tp_bpf__open();
	int r;

	if (!skel)
		return -errno;
	skel->rodata->filter_type = c->filter;
	skel->rodata->nr_events = c->nr_events;
	skel->rodata->inherit = c->inherit;
	set_event_masks(skel, c);
	r = leaders_share_events(skel->obj, c->leaders, c->nr_events, c->nr_possible);
	if (r < 0)
		goto fail;
	follower_size_maps(c, skel->maps.filter, skel->maps.accum_readings,
			   skel->maps.threads_left);
	if (!c->inherit)
		bpf_program__set_autoload(skel->progs.on_fork, false);
	if (c->filter != CGPERF_FILTER_TGID)
		bpf_program__set_autoload(skel->progs.on_new_thread, false);
	if (!follower_tracks_tasks(c))
		bpf_program__set_autoload(skel->progs.on_free, false);
	/* on_sync is only run by syncs (test_run), never attached. */
	bpf_program__set_autoattach(skel->progs.on_sync, false);
	r = follower_tp_bpf__load(skel);
	if (r < 0)
		goto fail;
	r = follower_tp_bpf__attach(skel);
	if (r < 0)
		goto fail;
	c->tp = skel;
	c->filter_fd = bpf_map__fd(skel->maps.filter);
	c->accum_fd = bpf_map__fd(skel->maps.accum_readings);
	c->sync_fd = bpf_program__fd(skel->progs.on_sync);
	return accum_init(&c->acc, c->accum_fd, c->nr_events, c->max_slots);
fail:
	follower_tp_bpf__destroy(skel);
	return r;
}

static int tp_enable(struct counter *c)
{
	if (c->tp)
		c->tp->bss->enabled = 1;
	return 0;
}

static int tp_prog_ids(const struct counter *c, uint32_t *ids, int *nr, int max)
{
	return follower_add_obj_ids(c->tp ? c->tp->obj : NULL, ids, nr, max);
}

static int tp_unseen_switches(const struct counter *c, struct unseen_stats *ret)
{
	const struct follower_tp_bpf__bss *v;

	if (!c->tp)
		return -ENODATA;
	v = c->tp->bss;
	*ret = (struct unseen_stats){ v->unseen_switches, v->unseen_ns, v->unseen_faults,
				      v->unseen_left_ns };
	return 0;
}

static uint64_t tp_filter_drops(const struct counter *c)
{
	return c->tp ? c->tp->bss->filter_full_drops : 0;
}

static int tp_pin(struct counter *c, const char *dir, const struct session_meta *m)
{
	return session_pin(dir, c->tp->skeleton, m);
}

static void tp_close(struct counter *c)
{
	follower_tp_bpf__destroy(c->tp);
	c->tp = NULL;
}

const struct follower_ops follower_tp_ops = {
	.holds_charges = true,
	.load = tp_load,
	.enable = tp_enable,
	.sync_cpu = follower_sync_prog,
	.prog_ids = tp_prog_ids,
	.unseen_switches = tp_unseen_switches,
	.filter_drops = tp_filter_drops,
	.pin = tp_pin,
	.close = tp_close,
};
