// SPDX-License-Identifier: GPL-2.0-only
/* A persistent session (the agent's, bpf/session_pin.h): made and pinned,
 * adopted by the next agent when it counts the same, or opened whatever it
 * counts to be drained. What a follower kind pins beside the description,
 * and what it needs from the pins, is its own (follower_ops pin, adopt). */
#include "bpf/counter_int.h"
#include "bpf/session_pin.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The tp follower's program that a sync runs on every CPU; sessions pinned
 * by layout 1 (one raw_tp program for switches and syncs) have only the
 * older one. */
#define TP_SYNC_PROG "on_sync"
#define TP_SYNC_PROG_V1 "on_switch"

/* What c counts, in this layout. */
static void describe(const struct counter *c, struct session_meta *m)
{
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	*m = (struct session_meta){
		.layout = CGPERF_SESSION_LAYOUT,
		.filter = c->filter,
		.mode = c->mode,
		.nr_events = c->nr_events,
		.max_slots = c->max_slots,
		.value_size = c->nr_events * sizeof(struct cgperf_reading),
		.created_real_ns = (uint64_t)now.tv_sec * 1000000000u + now.tv_nsec,
	};
	for (int i = 0; i < c->nr_events; i++) {
		const struct perf_event_attr *a = &c->events[i].attr;

		m->attr[i] = (struct session_attr){ a->type, 0, a->config, a->config1, a->config2 };
		snprintf(m->names[i], sizeof(m->names[i]), "%.*s", SESSION_NAME_MAX - 1,
			 c->events[i].name);
	}
}

/* The pinned session counts what c is to count, in this layout. */
static bool same_session(const struct counter *c, const struct session_meta *pinned)
{
	struct session_meta want;

	describe(c, &want);
	want.mode = FOLLOWER_TP;
	return pinned->layout == want.layout && pinned->filter == want.filter &&
	       pinned->mode == want.mode && pinned->nr_events == want.nr_events &&
	       pinned->max_slots == want.max_slots && pinned->value_size == want.value_size &&
	       memcmp(pinned->attr, want.attr, sizeof(want.attr)) == 0;
}

/* fds of the pinned session's programs and maps; layout: the session's. */
int counter_pins_open(struct counter *c, const char *dir, uint32_t layout)
{
	int r = session_pin_get(dir, "prog_" TP_SYNC_PROG, &c->sync_fd);

	if (r == -ENOENT)
		r = session_pin_get(dir, "prog_" TP_SYNC_PROG_V1, &c->sync_fd);
	if (r == 0)
		r = session_pin_get(dir, "map_filter", &c->filter_fd);
	if (r == 0)
		r = session_pin_get(dir, "map_accum_readings", &c->accum_fd);
	if (r == 0)
		r = accum_init(&c->acc, c->accum_fd, c->nr_events, c->max_slots);
	/* Layouts before 5 have none (they are only drained). A session
	 * that says 5 without one is not one this cgperf can run. */
	if (r == 0 && layout >= 5) {
		int fd = -1;

		r = session_pin_get(dir, "map_filter_gen", &fd);
		r = r == -ENOENT ? -ESTALE : r;
		/* A hub's (layout 7 on) is shared with other processes. */
		if (r == 0 && (r = layout >= 7 ? filter_gen_open_shared(&c->gen, fd)
					       : filter_gen_open(&c->gen, fd)) < 0)
			close(fd);
	}
	/* From layout 7 on the session is at an index of a hub; before, it had
	 * a tp follower of its own (only drained: syncs run its program). */
	if (r == 0) {
		c->ops = layout >= 7 ? &follower_hub_ops : &follower_tp_ops;
		if (c->ops->adopt)
			r = c->ops->adopt(c, dir);
	}
	if (r == 0) {
		c->adopted = true;
		c->mode = FOLLOWER_TP;
		snprintf(c->pin_dir, sizeof(c->pin_dir), "%s", dir);
	}
	return r;
}

int counter_pins_adopt(struct counter *c, const char *dir)
{
	struct session_meta m;
	int r = session_read_meta(dir, &m);

	if (r == -EPROTO || (r == 0 && !same_session(c, &m)))
		return -ESTALE;
	return r < 0 ? r : counter_pins_open(c, dir, m.layout);
}

int counter_pins_make(struct counter *c, const char *dir)
{
	struct session_meta m;
	int r;

	describe(c, &m);
	r = c->ops->pin(c, dir, &m);
	if (r == 0)
		snprintf(c->pin_dir, sizeof(c->pin_dir), "%s", dir);
	return r;
}

/* What counter_pins_open opened (a skeleton or a hub owns them otherwise). */
void counter_pins_close(struct counter *c)
{
	close(c->filter_fd);
	close(c->accum_fd);
	close(c->sync_fd);
	if (c->gen.fd >= 0)
		close(c->gen.fd);
}
