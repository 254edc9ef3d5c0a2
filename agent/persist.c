// SPDX-License-Identifier: GPL-2.0-only
/* The agent's persistent counting session (cfg.persist): the counter pinned
 * in instances/<instance>/ of cgperf's bpffs directory, and the per-cgroup
 * records (slot, identity, each output's last-written totals) in the same
 * directory's state map, so that a restarted agent goes on where the last
 * one stopped: nothing counted twice, nothing skipped. What every
 * collection changes, the totals, is saved apart (persist_totals.h). See
 * docs/AGENT.md. */
#include "agent/agent_int.h"
#include "agent/persist_totals.h"
#include "bpf/bpffs.h"
#include "bpf/hub.h"
#include "bpf/session_pin.h"
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void counter_opts_of(const struct agent *a, struct counter_opts *co)
{
	*co = (struct counter_opts){
		.events = a->events,
		.nr_events = a->nr_events,
		.filter = CGPERF_FILTER_CGROUP,
		.max_slots = a->cfg.cgroups.max,
		.max_keys = a->cfg.cgroups.max,
		.pin_dir = a->cfg.persist ? a->pin_dir : NULL,
		.accum = a->accum,
	};
}

/* Records may outlive their cgroup while final rows wait: room for both. */
static uint32_t state_entries(const struct agent *a)
{
	return a->cfg.cgroups.max * 2 + 64;
}

static int lock_instance(struct agent *a)
{
	char dir[256];
	int r = bpffs_prepare(dir, sizeof(dir));

	if (r < 0)
		return r;
	if (a->lock_fd >= 0)
		close(a->lock_fd);
	a->lock_fd = -1;
	r = session_dir_open(dir, a->cfg.instance, a->pin_dir, sizeof(a->pin_dir), &a->lock_fd);
	if (r == -EBUSY)
		log_error("instance '%s' is in use by another cgperf agent (its session in %s is "
			  "locked); give each agent its own 'instance:'",
			  a->cfg.instance, a->pin_dir);
	else if (r < 0 && r != -EPERM)
		log_error("cannot use %s/instances/%s: %s", log_name(dir), a->cfg.instance,
			  strerror(-r));
	return r;
}

struct drain_ctx {
	struct persist_drained *d;
	const char *root;
	int nr_events, max_slots;
	struct persist_totals *totals; /* NULL: the blobs' totals */
};

static int drain_one(void *ctx, uint64_t key, const void *blob)
{
	struct drain_ctx *c = ctx;
	struct cg_record *r;

	/* Unreadable records are skipped: there is nothing to write for them. */
	if (record_decode(&c->d->recs, c->root, blob, c->nr_events, 0, &r) < 0)
		return 0;
	if (r->slot < 0 || r->slot >= c->max_slots)
		record_remove(&c->d->recs, r->id);
	else if (c->totals)
		totals_apply(c->totals, r);
	return 0;
}

/* The drained session's totals, where it has them (earlier versions saved
 * them in the blobs only). */
static struct persist_totals *drain_totals(const struct agent *a, const struct drain_ctx *c)
{
	struct persist_totals *t = NULL;
	int r = totals_open(a->pin_dir, c->nr_events, agent_outputs_mask(a), c->max_slots, false,
			    &t);

	if (r == 0)
		r = totals_read(t);
	if (r == -ENOENT || (r < 0 && !t)) {
		totals_free(t);
		t = NULL;
	}
	/* What could be read is used. */
	if (r < 0 && r != -ENOENT)
		log_warn("instance '%s': totals pinned in %s cannot be read (%s): the last rows "
			 "may repeat counts written since each cgroup's record was last saved",
			 a->cfg.instance, a->pin_dir, strerror(-r));
	return t;
}

/* The instance pinned in path stops being served by its hub, which on-call
 * sessions that joined it may keep alive (earlier layouts have none). */
static void leave_hub(const char *path)
{
	struct hub *h;

	if (hub_open_pinned(path, &h) == 0)
		hub_leave(h);
}

int persist_drain_begin(struct agent *a, struct persist_drained *d)
{
	struct drain_ctx c = { .d = d, .root = a->cfg.cgroups.root };
	int fd, r;

	*d = (struct persist_drained){ 0 };
	r = counter_open_pinned(a->pin_dir, &d->old, &d->meta);
	if (r < 0) {
		log_warn("instance '%s': the counting state pinned in %s is of another cgperf "
			 "(layout) and cannot be read (%s): its counts since its last rows are "
			 "lost; replacing it",
			 a->cfg.instance, a->pin_dir, strerror(-r));
		leave_hub(a->pin_dir);
		session_unpin(a->pin_dir);
		return r;
	}
	d->derived = DERIVED_MAP_NONE;
	for (uint32_t i = 0; i < d->meta.nr_events; i++) {
		struct event_spec ev;

		d->names[i] = d->meta.names[i];
		if (event_parse(d->names[i], &ev, NULL, 0) == 0)
			derived_map_add(&d->derived, &ev.attr, (int)i);
	}
	c.nr_events = d->meta.nr_events;
	c.max_slots = d->meta.max_slots;
	if (session_state_open(a->pin_dir, "state", RECORD_BLOB_SIZE, 1, &fd) == 0) {
		c.totals = drain_totals(a, &c);
		session_state_for_each(fd, RECORD_BLOB_SIZE, drain_one, &c);
		totals_free(c.totals);
		close(fd);
	}
	d->vals = calloc((size_t)d->meta.max_slots * d->meta.nr_events, sizeof(*d->vals));
	if (!d->vals || counter_read_all(d->old, d->meta.max_slots, d->vals) < 0)
		record_clear(&d->recs); /* nothing readable to write */
	return 0;
}

void persist_drain_end(struct agent *a, struct persist_drained *d)
{
	char list[600];
	size_t used = 0;

	list[0] = '\0';
	for (uint32_t i = 0; i < d->meta.nr_events; i++)
		used += snprintf(list + used, used < sizeof(list) ? sizeof(list) - used : 0,
				 "%s%.*s", i ? "," : "", SESSION_NAME_MAX, d->meta.names[i]);
	log_info("instance '%s': the pinned session counted other events (%s), other slots or "
		 "with an older follower (layout %u): wrote the last rows of its %d cgroups and "
		 "replaced it",
		 a->cfg.instance, list, d->meta.layout, d->recs.nr);
	free(d->vals);
	record_clear(&d->recs);
	counter_unpin(d->old);
	counter_close(d->old);
	*d = (struct persist_drained){ 0 };
}

static int open_counter(struct agent *a)
{
	struct counter_opts co;
	int r;

	counter_opts_of(a, &co);
	r = counter_open(&co, &a->counter);
	if (r < 0 && r != -EPERM && r != -ESTALE && r != -EOPNOTSUPP)
		log_error("cannot set up counting: %s", strerror(-r));
	return r;
}

/* The state and totals maps. */
static int open_maps(struct agent *a)
{
	int r = session_state_open(a->pin_dir, "state", RECORD_BLOB_SIZE, state_entries(a),
				   &a->state_fd);

	if (r < 0)
		return r;
	r = totals_open(a->pin_dir, a->nr_events, agent_outputs_mask(a), a->cfg.cgroups.max, true,
			&a->totals);
	if (r == -EPROTO) {
		/* Only the newer half of the records: the blobs are still there. */
		log_warn("instance '%s': the totals pinned in %s are of another layout; replaced "
			 "(rows since each cgroup came or changed names may be written again)",
			 a->cfg.instance, a->pin_dir);
		r = totals_remove(a->pin_dir, agent_outputs_mask(a));
		if (r == 0)
			r = totals_open(a->pin_dir, a->nr_events, agent_outputs_mask(a),
					a->cfg.cgroups.max, true, &a->totals);
	}
	if (r < 0) {
		close(a->state_fd);
		a->state_fd = -1;
	}
	return r;
}

static int open_state(struct agent *a)
{
	int r = open_maps(a);

	if (r != -EPROTO)
		return r;
	/* The records cannot be read: without them rows would count the whole
	 * history again. Start over. */
	log_warn("instance '%s': the records pinned in %s are of another layout; replacing "
		 "the session (its counts since the last rows are lost)",
		 a->cfg.instance, a->pin_dir);
	counter_unpin(a->counter);
	counter_close(a->counter);
	a->counter = NULL;
	r = lock_instance(a);
	if (r == 0)
		r = open_counter(a);
	if (r == 0)
		r = open_maps(a);
	return r;
}

int persist_open(struct agent *a)
{
	int r;

	a->state_fd = -1;
	a->totals = NULL;
	if (!a->cfg.persist)
		return open_counter(a);
	r = lock_instance(a);
	if (r < 0)
		return r;
	if (a->release && !session_pinned(a->pin_dir)) {
		log_info("instance '%s': no counting session is pinned; nothing to release",
			 a->cfg.instance);
		session_unpin(a->pin_dir);
		return -ENOENT;
	}
	r = open_counter(a);
	if (r == 0)
		r = open_state(a);
	if (r == 0 && counter_adopted(a->counter))
		r = persist_load(a);
	return r;
}

static void persist_failed(struct agent *a, const char *what, int err)
{
	log_ratelimited(&a->persist_rl, 60, LOG_LVL_WARN,
			"instance '%s': cannot persist %s: %s (tried again at the next "
			"collection; a restart before then may write some rows again)",
			a->cfg.instance, what, strerror(-err));
}

static int save_blobs(struct agent *a, bool all);

void persist_close(struct agent *a, bool release)
{
	if (a->counter && release && counter_unpin(a->counter) == 0)
		log_info("instance '%s': released: pins removed, the kernel stops counting for it",
			 a->cfg.instance);
	/* The blobs' totals brought up to date too: an older agent, which
	 * knows only those, adopts the session exactly after a clean stop. */
	if (!release) {
		int err = save_blobs(a, true);

		if (err < 0)
			persist_failed(a, "the records at the stop", err);
	}
	totals_free(a->totals);
	a->totals = NULL;
	if (a->state_fd >= 0)
		close(a->state_fd);
	if (a->lock_fd >= 0)
		close(a->lock_fd);
	a->state_fd = a->lock_fd = -1;
	free(a->keys);
	free(a->blobs);
	a->keys = NULL;
	a->blobs = NULL;
}

/* Which runtime labels the records hold (the name lookups' keys). */
static uint32_t labels_tag(const struct agent *a)
{
	return record_labels_tag(a->roots.label_keys, a->roots.nr_label_keys);
}

struct load_ctx {
	struct agent *a;
	unsigned dropped;
};

static int load_one(void *ctx, uint64_t key, const void *blob)
{
	struct load_ctx *l = ctx;
	struct agent *a = l->a;
	struct cg_record *r;

	if (record_decode(&a->recs, a->cfg.cgroups.root, blob, a->nr_events,
			  labels_tag(a), &r) < 0) {
		l->dropped++;
		session_state_delete(a->state_fd, key);
		return 0;
	}
	totals_apply(a->totals, r); /* newer than the blob's, when there */
	/* The blob holds every output's totals, the map only the configured
	 * ones: written again before other outputs' maps go (totals_save). */
	if (totals_others_pinned(a->totals))
		r->unsaved = true;
	if (counter_reserve_slot(a->counter, r->slot) < 0) {
		l->dropped++;
		session_state_delete(a->state_fd, key);
		record_remove(&a->recs, r->id);
		return 0;
	}
	/* Removed before the last agent could write all its last rows. */
	if (r->removed)
		r->adopted = false;
	return 0;
}

static bool has_record(void *ctx, uint64_t key)
{
	return record_find(&((struct agent *)ctx)->recs, key) != NULL;
}

int persist_load(struct agent *a)
{
	struct load_ctx l = { .a = a };
	int r = totals_read(a->totals);

	if (r < 0)
		log_warn("instance '%s': pinned totals cannot be read (%s): the rows since each "
			 "cgroup's record was last saved may be written again",
			 a->cfg.instance, strerror(-r));
	r = session_state_for_each(a->state_fd, RECORD_BLOB_SIZE, load_one, &l);

	if (l.dropped)
		log_warn("instance '%s': %u pinned records could not be used (another layout, or a "
			 "slot claimed twice) and were dropped",
			 a->cfg.instance, l.dropped);
	/* Counts without a record (one that could not be saved or read) have
	 * no owner: their keys go now, before the scan hands out slots, and
	 * their slots are cleared so no new cgroup inherits them. */
	if (r == 0)
		r = counter_prune_keys(a->counter, has_record, a);
	if (r == 0)
		r = counter_zero_free_slots(a->counter);
	return r;
}

void persist_reconcile(struct agent *a)
{
	if (!a->counter || !counter_adopted(a->counter))
		return;
	for (int i = 0; i < a->recs.nr; i++) {
		struct cg_record *r = a->recs.items[i];

		if (!r->adopted)
			continue;
		/* Not in the tree (or no longer selected): gone while no agent
		 * ran. Its slot still holds its counts: last rows next. */
		r->adopted = false;
		r->removed = true;
		a->last_rows_pending = true;
		a->gone_while_down++;
		persist_put(a, r);
	}
	if (counter_prune_keys(a->counter, NULL, NULL) < 0)
		log_warn("instance '%s': stale filter entries could not all be removed",
			 a->cfg.instance);
	log_info("instance '%s': adopted the pinned counting session: %llu cgroups resumed, %llu "
		 "gone while no agent ran (their last rows follow)",
		 a->cfg.instance, a->resumed, a->gone_while_down);
}

void persist_put(struct agent *a, struct cg_record *r)
{
	unsigned char blob[RECORD_BLOB_SIZE];
	int err, err_totals;

	if (a->state_fd < 0)
		return;
	err = record_encode(r, a->nr_events,
			    labels_tag(a), blob);
	if (err < 0) {
		log_ratelimited(
			&a->persist_rl, 60, LOG_LVL_WARN,
			"instance '%s': cannot persist a cgroup's record: its path and names "
			"take more than %d bytes (after a restart it is counted anew)",
			a->cfg.instance, RECORD_BLOB_SIZE);
		return;
	}
	/* Both, whatever fails: the next load takes the newer of the two. */
	err_totals = totals_put(a->totals, r);
	err = session_state_put(a->state_fd, r->id, blob);
	r->unsaved = err < 0; /* the next collection tries again */
	if (err < 0 || err_totals < 0)
		persist_failed(a, "a cgroup's record", err < 0 ? err : err_totals);
}

/* Blobs written per batch: a bounded buffer (all 1000 blobs at once were
 * 2 MiB of heap kept for good after every adoption). */
#define BLOB_BATCH 32

/* The n blobs in a's buffers; those not written are marked unsaved. */
static int put_blobs(struct agent *a, int n)
{
	int err = session_state_put_all(a->state_fd, a->keys, a->blobs, RECORD_BLOB_SIZE, n);

	if (err < 0)
		for (int i = 0; i < n; i++)
			record_find(&a->recs, a->keys[i])->unsaved = true;
	return err;
}

/* The blobs of every record (all), or of those marked unsaved, by batches.
 * Returns 0 or the first -errno. */
static int save_blobs(struct agent *a, bool all)
{
	int n = 0, err = 0, r;

	for (int i = 0; i < a->recs.nr && a->state_fd >= 0; i++) {
		struct cg_record *rec = a->recs.items[i];

		if (!all && !rec->unsaved)
			continue;
		if (!a->keys)
			a->keys = malloc(sizeof(*a->keys) * BLOB_BATCH);
		if (!a->blobs)
			a->blobs = malloc((size_t)RECORD_BLOB_SIZE * BLOB_BATCH);
		if (!a->keys || !a->blobs)
			return -ENOMEM; /* still unsaved; the buffers go at persist_close */
		rec->unsaved = false;
		if (record_encode(rec, a->nr_events,
				  labels_tag(a),
				  a->blobs + (size_t)n * RECORD_BLOB_SIZE) < 0)
			continue; /* too long to persist: said at its first put */
		a->keys[n++] = rec->id;
		if (n == BLOB_BATCH) {
			r = put_blobs(a, n);
			err = err ?: r;
			n = 0;
		}
	}
	r = n > 0 ? put_blobs(a, n) : 0;
	return err ?: r;
}

void persist_save(struct agent *a)
{
	int err;

	if (a->state_fd < 0)
		return;
	err = save_blobs(a, false);
	if (err < 0)
		persist_failed(a, "the records of cgroups renamed or not saved before", err);
	err = totals_save(a->totals, &a->recs);
	if (err < 0)
		persist_failed(a, "the totals of this collection", err);
}

void persist_forget(struct agent *a, uint64_t id)
{
	int err = a->state_fd >= 0 ? session_state_delete(a->state_fd, id) : 0;

	if (err < 0)
		persist_failed(a, "the removal of a finished cgroup's record", err);
}

/* `cgperf release --all`: the other instances' sessions too. Their outputs
 * are in their own configurations, so their last rows are not written here:
 * said once per instance. */
static int release_other(const char *bpffs_dir, const char *name)
{
	char path[600];
	int lock_fd, r = session_dir_open(bpffs_dir, name, path, sizeof(path), &lock_fd);

	if (r == -EBUSY) {
		log_error("instance '%s' is in use by a running agent: not released", name);
		return r;
	}
	if (r < 0)
		return r;
	leave_hub(path);
	r = session_unpin(path);
	if (r == 0)
		log_warn(
			"instance '%s': released without its final rows (its outputs are in its own "
			"configuration: 'cgperf release -c ITS_CONFIG' writes them)",
			name);
	close(lock_fd);
	return r;
}

/* Nothing of cgperf's is left in bpffs: the registries (the attr map of the
 * shared leaders, the hub map of the shared cgroup hubs: ids only; a running
 * `cgperf stat` keeps its own fds and goes on, a new one makes new maps) and
 * the empty directories. */
static void remove_leftovers(const char *dir, const char *instances)
{
	static const char *const registries[] = { "attr_map", "hub_map" };
	char path[320];

	for (size_t i = 0; i < sizeof(registries) / sizeof(registries[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, registries[i]);
		if (unlink(path) < 0 && errno != ENOENT)
			log_warn("cannot remove %s: %s", path, strerror(errno));
	}
	if (rmdir(instances) < 0 && errno != ENOENT)
		log_warn("cannot remove %s: %s", instances, strerror(errno));
	if (rmdir(dir) < 0 && errno != ENOENT)
		log_warn("cannot remove %s: %s", dir, strerror(errno));
}

int persist_release_all(const char *except)
{
	char dir[256], instances[300];
	struct dirent *e;
	DIR *d;
	int r = bpffs_prepare(dir, sizeof(dir)), ret = 0;

	if (r < 0)
		return r;
	snprintf(instances, sizeof(instances), "%s/instances", dir);
	d = opendir(instances);
	if (!d && errno != ENOENT)
		return -errno;
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.' || !strcmp(e->d_name, except) ||
		    !config_instance_name_ok(e->d_name))
			continue;
		r = release_other(dir, e->d_name);
		if (r < 0 && !ret)
			ret = r;
	}
	if (d)
		closedir(d);
	if (ret == 0)
		remove_leftovers(dir, instances);
	return ret;
}
