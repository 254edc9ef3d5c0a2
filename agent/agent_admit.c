// SPDX-License-Identifier: GPL-2.0-only
/* Which selected cgroups hold the agent's slots (cgroups.max): classes by
 * kind and place, the earliest created first within a class, a holder kept
 * against its own class (agent/admission.h); the rest wait, remembered by
 * (class, id) alone, without an inotify watch. See docs/AGENT.md, "The cap". */
#include "agent/agent_int.h"
#include "cgroup/identity.h"
#include <errno.h>
#include <string.h>

static unsigned count_delegated(const struct agent *a)
{
	unsigned n = 0;

	for (int i = 0; i < a->recs.nr; i++) {
		const struct cg_record *r = a->recs.items[i];

		n += !r->removed && adm_delegated(adm_class_of(&r->ident));
	}
	return n;
}

static enum adm_need need_of(const struct agent *a, enum adm_class cls)
{
	struct adm_limits l = { a->cfg.cgroups.max, a->cfg.cgroups.max_delegated };
	struct adm_use u = { (unsigned)a->recs.nr, 0 };

	if (adm_delegated(cls))
		u.delegated = count_delegated(a);
	return adm_need(&l, &u, cls);
}

/* The newest counted cgroup of the worst class (a delegated one only). */
static struct cg_record *worst_holder(const struct agent *a, bool delegated)
{
	struct cg_record *worst = NULL;
	struct adm_key wk = { 0 };

	for (int i = 0; i < a->recs.nr; i++) {
		struct cg_record *r = a->recs.items[i];
		struct adm_key k = { r->id, adm_class_of(&r->ident) };

		if (r->removed || r->adopted || (delegated && !adm_delegated(k.cls)))
			continue;
		if (!worst || adm_before(wk, k)) {
			worst = r;
			wk = k;
		}
	}
	return worst;
}

static void report_waiting(struct agent *a, bool delegated)
{
	if (delegated)
		log_ratelimited(&a->delegated_rl, 60, LOG_LVL_WARN,
				"delegated cgroup cap (%u) reached: %u cgroups below user managers "
				"or containers not counted (raise cgroups.max_delegated)",
				a->cfg.cgroups.max_delegated, adm_wait_delegated(&a->waiting));
	else
		log_ratelimited(
			&a->cap_rl, 60, LOG_LVL_WARN,
			"monitored cgroup cap (%u) reached: %zu cgroups not counted (raise cgroups.max)",
			a->cfg.cgroups.max, a->waiting.nr);
}

static const char *const class_names[] = {
	[ADM_HOST_CONTAINER] = "container",
	[ADM_HOST_OTHER] = "host cgroup",
	[ADM_DELEGATED_CONTAINER] = "delegated container",
	[ADM_DELEGATED_OTHER] = "delegated cgroup",
};

/* v gives its slot to path (of class cls): final rows, then it waits. */
static void evict(struct agent *a, struct cg_record *v, enum adm_class cls, const char *path)
{
	struct adm_key vk = { v->id, adm_class_of(&v->ident) };

	a->evicted++;
	a->over_cap++;
	log_ratelimited(&a->evict_rl, 60, LOG_LVL_WARN,
			"monitored cgroup cap reached: %s %s gives its slot to %s %s (its final "
			"row is written; %u cgroups gave theirs up so far)",
			class_names[vk.cls], log_name(v->path), class_names[cls], log_name(path),
			a->evicted);
	if (adm_wait_add(&a->waiting, vk) < 0)
		a->over_cap--; /* out of memory: found again by no one; counted as gone */
	agent_finish_counting(a, v);
}

/* A slot for key k: free, or given up by a worse class. */
static bool take_slot(struct agent *a, struct adm_key k, const char *path)
{
	enum adm_need need = need_of(a, k.cls);
	struct cg_record *v;

	if (need == ADM_FREE)
		return true;
	v = worst_holder(a, need == ADM_FULL_DELEGATED);
	if (!v || !adm_may_evict(k.cls, adm_class_of(&v->ident)))
		return false;
	evict(a, v, k.cls, path);
	/* A final row that must be retried keeps the slot until it is out. */
	return need_of(a, k.cls) == ADM_FREE;
}

bool agent_slot_for(struct agent *a, uint64_t id, const char *path, const struct cg_identity *ident)
{
	struct adm_key k = { id, adm_class_of(ident) };
	int err;

	if (!a->admit_held && take_slot(a, k, path))
		return true;
	err = adm_wait_add(&a->waiting, k);
	if (err == 0 && !a->admit_held) {
		a->over_cap++;
		report_waiting(a, need_of(a, k.cls) == ADM_FULL_DELEGATED);
	} else if (err == -ENOMEM) {
		log_ratelimited(&a->add_rl, 60, LOG_LVL_WARN, "cannot count cgroup %s: %s",
				log_name(path), strerror(-err));
	}
	return false;
}

void agent_wait_forget(struct agent *a, uint64_t id)
{
	adm_wait_remove(&a->waiting, id);
}

/* Watches follow at once outside the watcher's callbacks, else at the next
 * rescan (which asks want_watch() again). */
static void refresh_watch(struct agent *a, uint64_t id)
{
	if (!a->in_watch_cb && a->watch)
		cg_watch_refresh(a->watch, id);
}

void agent_fill_slots(struct agent *a, const struct cg_watch *w)
{
	struct adm_key k;

	while (w && !a->admit_held && adm_wait_best(&a->waiting, &k)) {
		const char *path = cg_watch_path_of(w, k.id);
		struct cg_record *v;
		uint64_t vid;

		/* Its own last rows still hold a slot: at the next collection. */
		if (record_find(&a->recs, k.id))
			break;
		if (!path) {
			adm_wait_remove(&a->waiting, k.id);
			continue;
		}
		v = need_of(a, k.cls) == ADM_FREE ? NULL : worst_holder(a, false);
		vid = v ? v->id : 0; /* v is freed once its last rows are out */
		if (!take_slot(a, k, path))
			break;
		adm_wait_remove(&a->waiting, k.id);
		agent_count_waiting(a, w, k.id);
		refresh_watch(a, k.id);
		if (vid)
			refresh_watch(a, vid);
	}
}

bool agent_waiting_unwatched(const struct agent *a, uint64_t id, const char *path)
{
	enum adm_class cls;

	if (!adm_wait_find(&a->waiting, id, &cls) || cls == ADM_HOST_CONTAINER)
		return false;
	return !cg_may_hold_host_containers(a->cfg.cgroups.root, path);
}

/* What the initial scan left out, by the limit that left it out. */
static void report_started(struct agent *a)
{
	unsigned delegated = adm_wait_delegated(&a->waiting);
	enum adm_need need = need_of(a, ADM_DELEGATED_OTHER);

	if (a->waiting.nr > delegated || (delegated && need == ADM_FULL))
		report_waiting(a, false);
	if (delegated && need == ADM_FULL_DELEGATED)
		report_waiting(a, true);
}

/* Waiting cgroups of the initial scan kept the watches they had then. */
static void drop_waiting_watches(struct agent *a)
{
	for (size_t i = 0; i < a->waiting.nr; i++)
		cg_watch_refresh(a->watch, a->waiting.items[i].id);
}

void agent_admit_started(struct agent *a)
{
	a->admit_held = false;
	adm_wait_sort(&a->waiting);
	agent_fill_slots(a, a->watch);
	drop_waiting_watches(a);
	a->over_cap += (unsigned)a->waiting.nr;
	report_started(a);
}
