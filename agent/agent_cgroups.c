/* The agent's cgroups coming and going (the watcher's callbacks) and its
 * collections: one read of every slot in use, one row per record to every
 * output, each row the delta since that output's last written row. */
#include "agent/agent_int.h"
#include "agent/name_lookup.h"
#include "cgroup/cgroup2.h"
#include "cgroup/identity.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

struct collection {
	uint64_t now_ns; /* CLOCK_BOOTTIME of the read */
	struct timespec now; /* CLOCK_REALTIME of the same read: every row's timestamp */
};

static void collection_start(struct collection *col)
{
	col->now_ns = readings_now_boot_ns();
	clock_gettime(CLOCK_REALTIME, &col->now);
}

static uint32_t outputs_mask(const struct agent *a)
{
	uint32_t mask = 0;

	for (int i = 0; i < a->nr_outputs; i++)
		mask |= 1u << a->outputs[i].id;
	return mask;
}

static void give_up_final(struct agent *a, struct cg_record *r, const struct agent_output *o)
{
	a->finals_lost++;
	log_ratelimited(
		&a->final_rl, 60, LOG_LVL_ERROR,
		"%s: gave up the last row of cgroup %s (id %llu) after %d tries: its counts "
		"since the previous row are lost (%llu final rows lost so far)",
		o->name, log_name(r->path), (unsigned long long)r->id, RECORD_FINAL_TRIES,
		a->finals_lost);
}

/* One row per output that still owes one. */
/* The events a row's totals are of. */
struct row_events {
	int nr;
	const char *const *names;
	const struct derived_map *derived;
};

static void emit(struct agent *a, struct cg_record *r, const struct reading *totals,
		 const struct row_events *ev, const struct collection *col)
{
	int nr_events = ev->nr;

	for (int i = 0; i < a->nr_outputs; i++) {
		const struct agent_output *o = &a->outputs[i];
		uint32_t bit = 1u << o->id;
		struct reading delta[READINGS_MAX_EVENTS];
		struct sink_record rec;

		if (r->removed && (r->outputs_done & bit))
			continue;
		record_row(r, o->id, totals, nr_events, col->now_ns, delta, &rec);
		rec.time = col->now;
		rec.event_names = ev->names;
		rec.derived = ev->derived;
		if (o->sink->ops->write(o->sink, &rec) == 0) {
			record_commit(r, o->id, totals, nr_events, col->now_ns);
			if (r->removed)
				r->outputs_done |= bit;
		} else if (r->removed && ++r->out[o->id].final_tries >= RECORD_FINAL_TRIES) {
			r->outputs_done |= bit;
			give_up_final(a, r, o);
		}
	}
}

static void flush_outputs(struct agent *a)
{
	for (int i = 0; i < a->nr_outputs; i++)
		if (a->outputs[i].sink->ops->flush)
			a->outputs[i].sink->ops->flush(a->outputs[i].sink);
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
	uint32_t mask = outputs_mask(a);

	for (int i = a->recs.nr - 1; i >= 0; i--) {
		struct cg_record *r = a->recs.items[i];

		if (!r->removed || (r->outputs_done & mask) != mask)
			continue;
		/* A slot that cannot be zeroed stays out of use (counter.c). */
		counter_release_slot(a->counter, r->slot);
		persist_forget(a, r->id);
		record_remove(&a->recs, r->id);
	}
}

static int read_all(struct agent *a)
{
	int r = counter_sync(a->counter);

	/* Only as far as slots are used: with per-CPU values, reading all of
	 * cgroups.max on a many-CPU host would copy megabytes per interval. */
	if (r == 0)
		r = counter_read_all(a->counter, counter_slot_bound(a->counter), a->vals);
	if (r < 0)
		log_ratelimited(&a->write_rl, 60, LOG_LVL_ERROR, "reading the counters failed: %s",
				strerror(-r));
	return r;
}

static void emit_all(struct agent *a, bool final, const struct collection *col)
{
	const struct row_events ev = { a->nr_events, a->event_names, &a->derived };

	for (int i = 0; i < a->recs.nr; i++) {
		struct cg_record *r = a->recs.items[i];

		if (r->adopted)
			continue; /* not matched to the tree yet (only while starting) */
		if (final)
			r->removed = true;
		emit(a, r, &a->vals[(size_t)r->slot * a->nr_events], &ev, col);
	}
}

void agent_collect(struct agent *a, bool final)
{
	struct collection col;
	struct timespec t0, t1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	collection_start(&col);
	if (read_all(a) == 0)
		emit_all(a, final, &col);
	agent_progs_collect(a, &col.now, col.now_ns, final);
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
	ev = (struct row_events){ d.meta.nr_events, d.names, &d.derived };
	collection_start(&col);
	for (int i = 0; i < d.recs.nr; i++) {
		struct cg_record *r = d.recs.items[i];

		r->removed = true;
		emit(a, r, &d.vals[(size_t)r->slot * d.meta.nr_events], &ev, &col);
	}
	flush_outputs(a);
	persist_drain_end(a, &d);
}

/* ---- the watcher's callbacks ---- */

static int ancestors_of(const struct cg_watch *w, uint64_t id, const char *path, uint64_t *anc)
{
	int nr = cg_watch_ancestors(w, id, anc, CGPERF_MAX_CGROUP_DEPTH);

	/* A watched subtree knows no chain up to the root: ask the filesystem. */
	return nr == -ENOENT ? cgroup2_ancestor_ids(path, anc, CGPERF_MAX_CGROUP_DEPTH) : nr;
}

static void cap_reached(struct agent *a)
{
	a->over_cap++;
	log_ratelimited(
		&a->cap_rl, 60, LOG_LVL_WARN,
		"monitored cgroup cap (%u) reached: %u cgroups not counted (raise cgroups.max)",
		a->cfg.cgroups.max, a->over_cap);
}

/* An adopted record's cgroup is still there: it goes on in its own slot. */
static int resume(struct agent *a, struct cg_record *r, const char *path, const uint64_t *anc,
		  int nr_anc, const struct cg_identity *ident, const struct cg_metadata *meta)
{
	int err = counter_add_cgroup_at(a->counter, r->id, anc, nr_anc, r->slot);

	if (err < 0)
		return err;
	record_refresh(r, path, ident, meta);
	r->adopted = false;
	a->resumed++;
	return 0;
}

static int start_counting(struct agent *a, uint64_t id, const char *path, const uint64_t *anc,
			  int nr_anc, const struct cg_identity *ident,
			  const struct cg_metadata *meta)
{
	struct cg_record *r;
	int slot, err;

	if (record_count_live(&a->recs) >= (int)a->cfg.cgroups.max) {
		cap_reached(a);
		return 0;
	}
	err = counter_add_cgroup(a->counter, id, anc, nr_anc, &slot);
	if (err < 0)
		return err;
	r = record_add(&a->recs, id, slot, path, ident, meta);
	if (!r) {
		counter_remove(a->counter, id, NULL);
		return -ENOMEM;
	}
	a->cgroups_seen++;
	persist_put(a, r);
	return 0;
}

/* Count the cgroup: in the slot of its adopted record r, or a new one. */
static void admit(struct agent *a, struct cg_record *r, const struct cg_watch *w, const char *path,
		  uint64_t id, const struct cg_identity *ident, const struct cg_metadata *meta)
{
	uint64_t anc[CGPERF_MAX_CGROUP_DEPTH];
	int nr_anc = ancestors_of(w, id, path, anc), err;

	if (nr_anc < 0)
		return; /* gone already */
	err = r ? resume(a, r, path, anc, nr_anc, ident, meta)
		: start_counting(a, id, path, anc, nr_anc, ident, meta);
	if (err < 0)
		log_ratelimited(
			&a->add_rl, 60, LOG_LVL_WARN, "cannot count cgroup %s: %s", log_name(path),
			err == -E2BIG ? "more than 8 nested monitored levels" : strerror(-err));
	else
		log_debug("counting %s (%s %s)", log_name(path), cg_kind_name(ident->kind),
			  ident->runtime);
}

/* Only containers and pods have names in the runtimes' files. */
static bool has_names(const struct cg_identity *ident)
{
	return ident->kind == CG_KIND_CONTAINER || ident->kind == CG_KIND_POD;
}

/* A new cgroup is counted at once; its names are looked up off the loop and
 * follow (agent_on_names). Only a selection by name: waits for them. An
 * adopted record brings the names it had. */
static void on_added(void *ctx, const struct cg_watch *w, const char *path, uint64_t id)
{
	static const struct cg_metadata no_names;
	struct agent *a = ctx;
	struct cg_record *r = record_find(&a->recs, id);
	struct cg_identity ident;
	bool wait = false;

	if ((r && !r->adopted) || cg_identify_at(a->cfg.cgroups.root, path, &ident) < 0)
		return;
	/* Releasing: only what the session counted gets its last row. */
	if (!r && a->release)
		return;
	if (has_names(&ident)) {
		wait = a->sel_needs_names && !r;
		if (name_lookup_submit(a->names, id, path, &ident) < 0 && wait)
			return;
	}
	if (r && cg_select(&a->sel, path, &ident, &r->meta))
		admit(a, r, w, path, id, &ident, &r->meta);
	else if (!r && !wait && cg_select(&a->sel, path, &ident, &no_names))
		admit(a, NULL, w, path, id, &ident, &no_names);
	/* An adopted record not selected any more is finished as gone. */
}

void agent_on_names(void *ctx, uint64_t id, const char *path, const struct cg_identity *ident,
		    const struct cg_metadata *meta)
{
	struct agent *a = ctx;
	struct cg_record *r = record_find(&a->recs, id);

	if (r && !r->removed && !r->adopted) {
		record_refresh(r, r->path, &r->ident, meta);
		persist_put(a, r);
	} else if (!r && a->sel_needs_names && a->watch && cg_select(&a->sel, path, ident, meta)) {
		admit(a, NULL, a->watch, path, id, ident, meta);
	}
}

static void on_removed(void *ctx, const struct cg_watch *w, const char *path, uint64_t id)
{
	struct agent *a = ctx;
	struct cg_record *r = record_find(&a->recs, id);
	struct collection col;
	const struct row_events ev = { a->nr_events, a->event_names, &a->derived };
	struct reading final[READINGS_MAX_EVENTS];
	int slot;

	if (!r || r->removed || r->adopted)
		return;
	if (counter_detach(a->counter, id, &slot) < 0)
		return;
	r->removed = true;
	persist_put(a, r);
	/* One read after the key is gone (the sync waits out programs still
	 * adding to the slot), then the final rows. Should the read fail, the
	 * next collection reads the slot again: it is kept until then. */
	collection_start(&col);
	if (counter_sync(a->counter) == 0 && counter_read(a->counter, r->slot, final) == 0) {
		emit(a, r, final, &ev, &col);
		flush_outputs(a);
		persist_put(a, r);
		finish_records(a);
	}
	log_debug("stopped counting %s", log_name(path));
}

/* A directory is watched only where the selection can match below it: a
 * tenant's thousands of cgroups outside it take no inotify watch (the
 * rescan still walks them). */
static bool want_watch(void *ctx, const struct cg_watch *w, const char *path, uint64_t id)
{
	struct agent *a = ctx;

	return cg_select_may_match_below(&a->sel, path);
}

const struct cg_watch_ops agent_watch_ops = { .added = on_added,
					      .removed = on_removed,
					      .want_watch = want_watch };
