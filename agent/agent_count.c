// SPDX-License-Identifier: GPL-2.0-only
/* Counting a cgroup: its key and its ancestors' in the session's filter, in
 * the slot of its adopted record or a new one, with a record the outputs
 * write rows from. */
#include "agent/agent_int.h"
#include "agent/name_lookup.h"
#include "cgroup/cgroup2.h"
#include "cgroup/identity.h"
#include <errno.h>
#include <string.h>

static int ancestors_of(const struct cg_watch *w, uint64_t id, const char *path, uint64_t *anc)
{
	int nr = cg_watch_ancestors(w, id, anc, CGPERF_MAX_CGROUP_DEPTH);

	/* A watched subtree knows no chain up to the root: ask the filesystem. */
	return nr == -ENOENT ? cgroup2_ancestor_ids(path, anc, CGPERF_MAX_CGROUP_DEPTH) : nr;
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
	r->unsaved = true; /* its names as found now: saved with the next collection */
	a->resumed++;
	return 0;
}

static int start_counting(struct agent *a, uint64_t id, const char *path, const uint64_t *anc,
			  int nr_anc, const struct cg_identity *ident,
			  const struct cg_metadata *meta)
{
	struct cg_record *r;
	int slot, err;

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
void agent_count_now(struct agent *a, struct cg_record *r, const struct cg_watch *w,
		     const char *path, uint64_t id, const struct cg_identity *ident,
		     const struct cg_metadata *meta)
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

/* A record just made for id, its names asked for: its rows wait for them. */
void agent_names_pending(struct agent *a, uint64_t id)
{
	struct cg_record *r = record_find(&a->recs, id);

	if (r && !r->adopted)
		r->names_pending = true;
}

/* Only containers and pods have names in the runtimes' files. */
bool agent_has_names(const struct cg_identity *ident)
{
	return ident->kind == CG_KIND_CONTAINER || ident->kind == CG_KIND_POD;
}

void agent_count_waiting(struct agent *a, const struct cg_watch *w, uint64_t id)
{
	static const struct cg_metadata no_names;
	const char *path = cg_watch_path_of(w, id);
	struct cg_identity ident;
	bool submitted;

	if (!path || cg_identify_at(a->cfg.cgroups.root, path, &ident) < 0)
		return;
	submitted = agent_has_names(&ident) && name_lookup_submit(a->names, id, path, &ident) == 0;
	agent_count_now(a, NULL, w, path, id, &ident, &no_names);
	if (submitted)
		agent_names_pending(a, id);
}
