// SPDX-License-Identifier: GPL-2.0-only
/* The agent's collections: one read of every slot in use, one row per record
 * to every output, each row the delta since that output's last written row;
 * and a single cgroup's last rows when it stops being counted. */
#include "agent/agent_int.h"
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static void collection_start(struct collection *col, enum collection_kind kind)
{
	col->now_ns = readings_now_boot_ns();
	clock_gettime(CLOCK_REALTIME, &col->now);
	col->kind = kind;
}

/* The events a row's totals are of. */
struct row_events {
	int nr;
	const char *const *names;
	uint32_t gen;
	const struct derived_map *derived;
};

/* A row written (or queued) for an output, and what its answer needs: the
 * totals stay valid until the outputs' flush (a->vals, a drained session's,
 * or a removal's final read). */
struct pending_row {
	struct cg_record *r;
	const struct agent_output *o;
	const struct reading *totals;
	int nr_events;
	uint64_t now_ns;
	enum collection_kind kind;
};

/* An output's answer for row p: written, its totals are the output's base;
 * not, the counts go into the next row (a final row is retried or given
 * up). */
static void row_answered(struct agent *a, const struct pending_row *p, int result)
{
	struct cg_record *r = p->r;
	uint32_t bit = 1u << p->o->id;

	if (result == SINK_HELD) {
		record_hold(r, p->o->id, p->totals, p->nr_events, p->now_ns);
		return;
	}
	/* The output's held rows went out with this row, or were dropped. */
	record_held_answered(r, p->o->id, result == 0);
	if (result == 0) {
		record_commit(r, p->o->id, p->totals, p->nr_events, p->now_ns);
		if (r->removed)
			r->outputs_done |= bit;
	} else if (r->removed && agent_final_failed(a, p->o, &r->out[p->o->id].final_tries, p->kind,
						    "cgroup %s (id %llu)", log_name(r->path),
						    (unsigned long long)r->id)) {
		r->outputs_done |= bit;
	}
}

/* Room for one more pending row; its index, or -ENOMEM. */
static int pending_push(struct agent *a, const struct pending_row *p)
{
	if (a->nr_pending == a->cap_pending) {
		int cap = a->cap_pending ? 2 * a->cap_pending : 256;
		struct pending_row *n = realloc(a->pending, (size_t)cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		a->pending = n;
		a->cap_pending = cap;
	}
	a->pending[a->nr_pending] = *p;
	return a->nr_pending++;
}

void agent_row_done(void *ctx, const void *cookie, int result)
{
	struct agent *a = ctx;
	uintptr_t idx = (uintptr_t)cookie;

	/* Cookies are index + 1 (0 is "none"). */
	if (idx >= 1 && idx <= (uintptr_t)a->nr_pending)
		row_answered(a, &a->pending[idx - 1], result);
}

/* One row per output that still owes one. */
static void emit(struct agent *a, struct cg_record *r, const struct reading *totals,
		 const struct row_events *ev, const struct collection *col)
{
	int nr_events = ev->nr;

	for (int i = 0; i < a->nr_outputs; i++) {
		const struct agent_output *o = &a->outputs[i];
		const struct pending_row p = { r, o, totals, nr_events, col->now_ns, col->kind };
		struct reading delta[READINGS_MAX_EVENTS];
		struct sink_record rec;
		int idx, ret;

		if (r->removed && (r->outputs_done & (1u << o->id)))
			continue;
		record_row(r, o->id, totals, nr_events, col->now_ns, delta, &rec);
		/* Held rows are written with a later one of the same cgroup:
		 * never the last rows before the agent stops or the cgroup goes. */
		rec.may_hold = o->sink->may_hold && col->kind == COLLECT_INTERVAL && !r->removed &&
			       record_hold_ready(r, o->id) == 0;
		rec.time = col->now;
		rec.event_names = ev->names;
		rec.events_gen = ev->gen;
		rec.derived = ev->derived;
		idx = pending_push(a, &p);
		rec.cookie = idx < 0 ? NULL : (const void *)(uintptr_t)(idx + 1);
		ret = o->sink->ops->write(o->sink, &rec);
		if (ret == SINK_QUEUED)
			continue;
		if (idx >= 0 && idx == a->nr_pending - 1)
			a->nr_pending--; /* answered now: the entry is free again */
		row_answered(a, &p, ret);
	}
}

/* Every queued row answered (sink.h: at the latest by flush). */
static void flush_outputs(struct agent *a)
{
	for (int i = 0; i < a->nr_outputs; i++)
		if (a->outputs[i].sink->ops->flush)
			a->outputs[i].sink->ops->flush(a->outputs[i].sink);
	a->nr_pending = 0;
}

/* Once per collection, after its rows: the outputs' bounded upkeep. */
static void tick_outputs(struct agent *a)
{
	for (int i = 0; i < a->nr_outputs; i++)
		if (a->outputs[i].sink->ops->tick)
			a->outputs[i].sink->ops->tick(a->outputs[i].sink);
}

/* Removed records whose last rows are out: their slot goes back. */
static void finish_records(struct agent *a)
{
	uint32_t mask = agent_outputs_mask(a);

	a->last_rows_pending = false;
	for (int i = a->recs.nr - 1; i >= 0; i--) {
		struct cg_record *r = a->recs.items[i];

		if (!r->removed)
			continue;
		if ((r->outputs_done & mask) != mask) {
			a->last_rows_pending = true;
			continue;
		}
		/* A slot that cannot be zeroed stays out of use (counter.c). */
		counter_release_slot(a->counter, r->slot);
		persist_forget(a, r->id);
		record_remove(&a->recs, r->id);
	}
}

/* Every CPU synced when the read is some cgroup's last: COLLECT_LAST,
 * COLLECT_EXIT, and an interval that writes removed cgroups' last rows
 * (gone while no agent ran, or whose own final read failed: their slots are
 * released right after). Only an interval without them may leave idle CPUs
 * out (counter_sync_periodic): what those hold comes in the next read, and a
 * last read has no next one. */
static int read_all(struct agent *a, enum collection_kind kind)
{
	bool periodic = kind == COLLECT_INTERVAL && !a->last_rows_pending;
	int r = periodic ? counter_sync_periodic(a->counter) : counter_sync(a->counter);

	/* Only as far as slots are used: with per-CPU values, reading all of
	 * cgroups.max on a many-CPU host would copy megabytes per interval. */
	if (r == 0)
		r = counter_read_all(a->counter, counter_slot_bound(a->counter), a->vals);
	if (r < 0)
		log_ratelimited(&a->write_rl, 60, LOG_LVL_ERROR, "reading the counters failed: %s",
				strerror(-r));
	return r;
}

/* A new container's or pod's interval rows wait for its names, so that none
 * carries its short id in their place (one cgroup, one name in a CSV); the
 * next row covers what they held. A lookup that has not answered in
 * NAMES_WAIT_NS (a slow or stuck disk) waits no longer. */
#define NAMES_WAIT_NS (10 * 1000000000ull)

static bool names_wait(struct cg_record *r, uint64_t now_ns)
{
	if (!r->names_pending)
		return false;
	if (now_ns - r->created_ns < NAMES_WAIT_NS)
		return true;
	r->names_pending = false;
	return false;
}

static void emit_all(struct agent *a, const struct collection *col)
{
	const struct row_events ev = { a->nr_events, a->event_names, a->events_gen, &a->derived };
	bool final = col->kind == COLLECT_LAST;
	uint32_t mask = agent_outputs_mask(a);

	for (int i = 0; i < a->recs.nr; i++) {
		struct cg_record *r = a->recs.items[i];

		if (i + 2 < a->recs.nr)
			record_prefetch(a->recs.items[i + 2], mask, a->nr_events);
		if (r->adopted)
			continue; /* not matched to the tree yet (only while starting) */
		if (final)
			r->removed = true;
		if (col->kind == COLLECT_INTERVAL && !r->removed && names_wait(r, col->now_ns))
			continue;
		emit(a, r, &a->vals[(size_t)r->slot * a->nr_events], &ev, col);
	}
}

void agent_collect(struct agent *a, enum collection_kind kind)
{
	struct collection col;
	struct timespec t0, t1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	collection_start(&col, kind);
	if (read_all(a, kind) == 0)
		emit_all(a, &col);
	agent_progs_collect(a, &col);
	flush_outputs(a);
	tick_outputs(a);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	agent_publish_metrics(a, (double)(t1.tv_sec - t0.tv_sec) +
					 (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	persist_save(a);
	finish_records(a);
}

void agent_drain(struct agent *a)
{
	struct persist_drained d;
	struct collection col;
	struct row_events ev;

	if (persist_drain_begin(a, &d) < 0)
		return;
	/* Another session's events: no generation (compared by name). */
	ev = (struct row_events){ d.meta.nr_events, d.names, 0, &d.derived };
	collection_start(&col, COLLECT_LAST);
	for (int i = 0; i < d.recs.nr; i++) {
		struct cg_record *r = d.recs.items[i];

		r->removed = true;
		emit(a, r, &d.vals[(size_t)r->slot * d.meta.nr_events], &ev, &col);
	}
	flush_outputs(a);
	persist_drain_end(a, &d);
}

/* ---- the watcher's callbacks ---- */

void agent_finish_counting(struct agent *a, struct cg_record *r)
{
	struct collection col;
	const struct row_events ev = { a->nr_events, a->event_names, a->events_gen, &a->derived };
	struct reading final[READINGS_MAX_EVENTS];
	int slot;

	if (counter_detach(a->counter, r->id, &slot) < 0)
		return;
	r->removed = true;
	a->last_rows_pending = true; /* until its last rows are out */
	persist_put(a, r);
	/* One read after the key is gone (the sync waits out programs still
	 * adding to the slot), then the final rows. Should the read fail, the
	 * next collection reads the slot again: it is kept until then. */
	collection_start(&col, COLLECT_REMOVAL);
	if (counter_sync(a->counter) == 0 && counter_read(a->counter, r->slot, final) == 0) {
		emit(a, r, final, &ev, &col);
		flush_outputs(a);
		persist_put(a, r);
		finish_records(a);
	}
}
