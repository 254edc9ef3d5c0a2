// SPDX-License-Identifier: GPL-2.0-only
/* The agent's cgroups coming and going: the watcher's callbacks and the
 * names looked up off the loop. Which cgroup gets a slot is agent_admit.c's,
 * counting one agent_count.c's, its last rows agent_collect.c's. */
#include "agent/agent_int.h"
#include "agent/name_lookup.h"
#include "cgroup/identity.h"

/* A new cgroup waits when it gets no slot (agent_admit.c). */
static void admit(struct agent *a, struct cg_record *r, const struct cg_watch *w, const char *path,
		  uint64_t id, const struct cg_identity *ident, const struct cg_metadata *meta)
{
	if (r || agent_slot_for(a, id, path, ident))
		agent_count_now(a, r, w, path, id, ident, meta);
}

/* A new cgroup is counted at once; its names are looked up off the loop and
 * follow (agent_on_names). Only a selection by name: waits for them. An
 * adopted record brings the names it had. */
static void added(struct agent *a, const struct cg_watch *w, const char *path, uint64_t id)
{
	static const struct cg_metadata no_names;
	struct cg_record *r = record_find(&a->recs, id);
	struct cg_identity ident;
	bool wait = false, submitted = false;

	if ((r && !r->adopted) || cg_identify_at(a->cfg.cgroups.root, path, &ident) < 0)
		return;
	/* Releasing: only what the session counted gets its last row. */
	if (!r && a->release)
		return;
	if (agent_has_names(&ident)) {
		wait = a->sel_needs_names && !r;
		submitted = name_lookup_submit(a->names, id, path, &ident) == 0;
		if (!submitted && wait)
			return;
	}
	if (r && cg_select(&a->sel, path, &ident, &r->meta))
		admit(a, r, w, path, id, &ident, &r->meta);
	else if (!r && !wait && cg_select(&a->sel, path, &ident, &no_names))
		admit(a, NULL, w, path, id, &ident, &no_names);
	if (!r && submitted)
		agent_names_pending(a, id);
	/* An adopted record not selected any more is finished as gone. */
}

static void on_added(void *ctx, const struct cg_watch *w, const char *path, uint64_t id)
{
	struct agent *a = ctx;

	a->in_watch_cb = true;
	added(a, w, path, id);
	a->in_watch_cb = false;
}

void agent_on_names(void *ctx, uint64_t id, const char *path, const struct cg_identity *ident,
		    const struct cg_metadata *meta)
{
	struct agent *a = ctx;
	struct cg_record *r = record_find(&a->recs, id);

	if (r)
		r->names_pending = false;
	if (r && !r->removed && !r->adopted) {
		record_refresh(r, r->path, &r->ident, meta);
		persist_put(a, r);
	} else if (!r && a->sel_needs_names && a->watch && cg_select(&a->sel, path, ident, meta)) {
		admit(a, NULL, a->watch, path, id, ident, meta);
	}
}

/* A counted cgroup gone: its final rows, and its slot to the best waiting
 * one at once. */
static void on_removed(void *ctx, const struct cg_watch *w, const char *path, uint64_t id)
{
	struct agent *a = ctx;
	struct cg_record *r = record_find(&a->recs, id);

	agent_wait_forget(a, id);
	name_lookup_forget(a->names, id);
	if (!r || r->removed || r->adopted)
		return;
	a->in_watch_cb = true;
	agent_finish_counting(a, r);
	log_debug("stopped counting %s", log_name(path));
	agent_fill_slots(a, w);
	a->in_watch_cb = false;
}

/* A directory is watched only where the selection can match below it: a
 * tenant's thousands of cgroups outside it take no inotify watch (the
 * rescan still walks them). */
static bool want_watch(void *ctx, const struct cg_watch *w, const char *path, uint64_t id)
{
	struct agent *a = ctx;

	return cg_select_may_match_below(&a->sel, path) && !agent_waiting_unwatched(a, id, path);
}

/* Where the selection can match nothing below a directory, the cgroups
 * there are neither walked nor reported: a container's own sub-cgroups are
 * counted with it (the follower charges them to their nearest counted
 * ancestor), and the rescan confirms each such directory from its entry
 * instead of a stat (at 1000 containers, 1000 fewer system calls a rescan). */
static bool want_below(void *ctx, const struct cg_watch *w, const char *path, uint64_t id)
{
	const struct agent *a = ctx;

	return cg_select_may_match_below(&a->sel, path);
}

const struct cg_watch_ops agent_watch_ops = {
	.added = on_added, .removed = on_removed, .want_watch = want_watch, .want_below = want_below
};
