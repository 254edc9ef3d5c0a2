// SPDX-License-Identifier: GPL-2.0-only
#include "agent/record.h"
#include "util/hash.h"
#include "util/prefetch.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the set: items in a collection's order, indexed by id ---- */

static int make_room(struct record_set *set)
{
	if (set->nr == set->cap) {
		int cap = set->cap ? set->cap * 2 : 64;
		struct cg_record **items = realloc(set->items, sizeof(*items) * cap);

		if (!items)
			return -ENOMEM;
		set->items = items;
		set->cap = cap;
	}
	return 0;
}

static void fill_view(struct cg_record *r)
{
	uint32_t gen = r->view.gen + 1;

	cg_short_id(&r->ident, r->short_id);
	r->view = (struct sink_cgroup){
		.id = r->id,
		.gen = gen ? gen : 1,
		.path = r->path,
		.kind = cg_kind_name(r->ident.kind),
		/* The path does not always say (cgroupfs-driver Kubernetes); the
		 * runtime whose files named the container does. */
		.runtime = r->ident.runtime[0] ? r->ident.runtime : r->meta.runtime,
		.container_id = r->short_id,
		.container_name = cg_container_name(&r->ident, &r->meta, r->short_id),
		.pod = r->meta.pod_name,
		.pod_namespace = r->meta.pod_namespace,
		.image = r->meta.image,
	};
	for (int i = 0; i < SINK_MAX_LABELS; i++)
		r->view.labels[i] = r->meta.labels[i];
}

_Static_assert(SINK_MAX_LABELS == METADATA_MAX_LABELS, "one bound for labels");

static void now_both(uint64_t *ret_boot, uint64_t *ret_real)
{
	struct timespec real;

	*ret_boot = readings_now_boot_ns();
	clock_gettime(CLOCK_REALTIME, &real);
	*ret_real = readings_timespec_ns(&real);
}

static struct cg_record *insert(struct record_set *set, uint64_t id, const char *path)
{
	struct cg_record *r;

	if (make_room(set) < 0)
		return NULL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->path = strdup(path);
	if (!r->path || id_map_insert(&set->by_id, id, r) < 0) {
		free(r->path);
		free(r);
		return NULL;
	}
	r->id = id;
	set->items[set->nr++] = r;
	return r;
}

struct cg_record *record_add(struct record_set *set, uint64_t id, int slot, const char *path,
			     const struct cg_identity *ident, const struct cg_metadata *meta)
{
	struct cg_record *r = record_find(set, id) ? NULL : insert(set, id, path);

	if (!r)
		return NULL;
	r->slot = slot;
	r->ident = *ident;
	r->meta = *meta;
	now_both(&r->created_ns, &r->created_real_ns);
	fill_view(r);
	return r;
}

int record_refresh(struct cg_record *r, const char *path, const struct cg_identity *ident,
		   const struct cg_metadata *meta)
{
	char *copy = strdup(path);

	if (!copy)
		return -ENOMEM;
	free(r->path);
	r->path = copy;
	r->ident = *ident;
	r->meta = *meta;
	fill_view(r);
	return 0;
}

struct cg_record *record_find(const struct record_set *set, uint64_t id)
{
	return id_map_find(&set->by_id, id);
}

static void record_free(struct cg_record *r)
{
	if (!r)
		return;
	for (int i = 0; i < RECORD_MAX_OUTPUTS; i++)
		free(r->written[i]);
	free(r->path);
	free(r);
}

void record_remove(struct record_set *set, uint64_t id)
{
	struct cg_record *r = record_find(set, id);
	int i;

	if (!r)
		return;
	id_map_remove(&set->by_id, id);
	/* Linear: removals are rare next to collections. */
	for (i = 0; set->items[i] != r; i++)
		;
	record_free(r);
	set->items[i] = set->items[--set->nr];
}

void record_clear(struct record_set *set)
{
	for (int i = 0; i < set->nr; i++)
		record_free(set->items[i]);
	free(set->items);
	id_map_free(&set->by_id);
	*set = (struct record_set){ 0 };
}

int record_count_live(const struct record_set *set)
{
	int n = 0;

	for (int i = 0; i < set->nr; i++)
		n += !set->items[i]->removed;
	return n;
}

/* ---- rows ---- */

void record_row(const struct cg_record *r, enum record_output_id out, const struct reading *totals,
		int nr_events, uint64_t now_ns, struct reading *ret_delta,
		struct sink_record *ret_rec)
{
	const struct record_output *o = &r->out[out];
	uint64_t from_ns = o->seq ? o->last_ns : r->created_ns;

	for (int e = 0; e < nr_events; e++)
		reading_delta(&totals[e], &o->last[e], &ret_delta[e]);
	*ret_rec = (struct sink_record){
		.cgroup = &r->view,
		.nr_events = nr_events,
		.totals = totals,
		.delta = ret_delta,
		.interval_known = true,
		.interval_ms = readings_interval_ms(from_ns, now_ns),
		.seq = o->seq + 1,
		.final = r->removed,
		.created = readings_ns_timespec(r->created_real_ns),
	};
}

void record_prefetch(const struct cg_record *r, uint32_t outputs, int nr_events)
{
	prefetch_range(r, &r->out[0]);
	for (int i = 0; i < RECORD_MAX_OUTPUTS; i++)
		if (outputs & (1u << i))
			prefetch_range(&r->out[i], &r->out[i].last[nr_events]);
}

void record_commit(struct cg_record *r, enum record_output_id out, const struct reading *totals,
		   int nr_events, uint64_t now_ns)
{
	struct record_output *o = &r->out[out];

	memcpy(o->last, totals, sizeof(*totals) * nr_events);
	o->last_ns = now_ns;
	o->seq++;
}

int record_hold_ready(struct cg_record *r, enum record_output_id out)
{
	if (!r->written[out])
		r->written[out] = malloc(sizeof(*r->written[out]));
	return r->written[out] ? 0 : -ENOMEM;
}

void record_hold(struct cg_record *r, enum record_output_id out, const struct reading *totals,
		 int nr_events, uint64_t now_ns)
{
	if (!(r->held & (1u << out))) {
		*r->written[out] = r->out[out];
		r->held |= 1u << out;
	}
	record_commit(r, out, totals, nr_events, now_ns);
}

void record_held_answered(struct cg_record *r, enum record_output_id out, bool written)
{
	unsigned final_tries = r->out[out].final_tries;

	if (!(r->held & (1u << out)))
		return;
	r->held &= ~(1u << out);
	if (written)
		return;
	r->out[out] = *r->written[out];
	r->out[out].final_tries = final_tries;
}

/* ---- persisted form ----
 * header | per output: last_ns, seq, readings | strings
 * (path, container name, image, pod, namespace, runtime: NUL-terminated). */

struct blob_header {
	uint32_t version;
	uint32_t nr_events;
	uint64_t id;
	int32_t slot;
	uint32_t reserved; /* was an unused generation: layout v1 kept */
	uint64_t created_ns, created_real_ns;
	uint32_t removed, outputs_done;
};

struct blob_output {
	uint64_t last_ns, seq;
};

struct blob_cursor {
	unsigned char *p;
	size_t left;
};

static int put(struct blob_cursor *c, const void *v, size_t n)
{
	if (n > c->left)
		return -ENAMETOOLONG;
	memcpy(c->p, v, n);
	c->p += n;
	c->left -= n;
	return 0;
}

static int put_str(struct blob_cursor *c, const char *s)
{
	return put(c, s, strlen(s) + 1);
}

/* The time, seq and nr_events totals of each output in `outputs` (a mask
 * of record_output_id): the blob's (all of them) and the totals' (those
 * configured). */
static int put_outputs(struct blob_cursor *c, const struct cg_record *r, int nr_events,
		       uint32_t outputs)
{
	int err = 0;

	for (int i = 0; i < RECORD_MAX_OUTPUTS; i++) {
		/* Rows an output holds are not in it yet: a new agent writes
		 * their counts again, from its last written row. */
		const struct record_output *w = record_written(r, i);
		const struct blob_output o = { w->last_ns, w->seq };

		if (!(outputs & 1u << i))
			continue;
		err = err ?: put(c, &o, sizeof(o));
		err = err ?: put(c, w->last, sizeof(struct reading) * nr_events);
	}
	return err;
}

/* After the strings, the runtime labels when they fit: the tag of the keys
 * they are the values of, then one string each. Bytes left zeroed read as
 * tag 0 (a blob of an agent without labels): none. */
static void put_labels(struct blob_cursor *c, const struct cg_record *r, uint32_t tag)
{
	size_t need = sizeof(tag);

	for (int i = 0; tag && i < METADATA_MAX_LABELS; i++)
		need += strlen(r->meta.labels[i]) + 1;
	if (need > c->left)
		tag = 0; /* the labels come back with the next name lookup only */
	if (put(c, &tag, sizeof(tag)) < 0)
		return;
	for (int i = 0; tag && i < METADATA_MAX_LABELS; i++)
		put_str(c, r->meta.labels[i]);
}

int record_encode(const struct cg_record *r, int nr_events, uint32_t labels_tag, void *blob)
{
	struct blob_header h = {
		.version = RECORD_BLOB_VERSION,
		.nr_events = nr_events,
		.id = r->id,
		.slot = r->slot,
		.created_ns = r->created_ns,
		.created_real_ns = r->created_real_ns,
		.removed = r->removed,
		.outputs_done = r->outputs_done,
	};
	struct blob_cursor c = { blob, RECORD_BLOB_SIZE };
	int err = put(&c, &h, sizeof(h));

	err = err ?: put_outputs(&c, r, nr_events, RECORD_ALL_OUTPUTS);
	err = err ?: put_str(&c, r->path);
	err = err ?: put_str(&c, r->meta.container_name);
	err = err ?: put_str(&c, r->meta.image);
	err = err ?: put_str(&c, r->meta.pod_name);
	err = err ?: put_str(&c, r->meta.pod_namespace);
	err = err ?: put_str(&c, r->meta.runtime);
	if (!err)
		put_labels(&c, r, labels_tag);
	if (!err)
		memset(c.p, 0, c.left);
	return err;
}

static int get(struct blob_cursor *c, void *v, size_t n)
{
	if (n > c->left)
		return -EINVAL;
	memcpy(v, c->p, n);
	c->p += n;
	c->left -= n;
	return 0;
}

/* A NUL-terminated string of at most size - 1 bytes. */
static int get_str(struct blob_cursor *c, char *buf, size_t size)
{
	size_t n = strnlen((const char *)c->p, c->left);

	if (n == c->left || n >= size)
		return -EINVAL;
	return get(c, buf, n + 1);
}

static int decode_strings(struct blob_cursor *c, char *path, size_t path_size,
			  struct cg_metadata *m)
{
	int err = get_str(c, path, path_size);

	err = err ?: get_str(c, m->container_name, sizeof(m->container_name));
	err = err ?: get_str(c, m->image, sizeof(m->image));
	err = err ?: get_str(c, m->pod_name, sizeof(m->pod_name));
	err = err ?: get_str(c, m->pod_namespace, sizeof(m->pod_namespace));
	err = err ?: get_str(c, m->runtime, sizeof(m->runtime));
	return err;
}

uint32_t record_labels_tag(const char (*keys)[METADATA_LABEL_MAX], int nr)
{
	uint32_t h = 2166136261u;

	if (nr <= 0)
		return 0;
	for (int i = 0; i < nr; i++)
		h ^= hash_bytes32(keys[i], strlen(keys[i]) + 1) + (uint32_t)i;
	return h | 1;
}

/* The labels put_labels() wrote, if they are the values of labels_tag's keys. */
static int get_labels(struct blob_cursor *c, uint32_t labels_tag, struct cg_metadata *m)
{
	uint32_t tag = 0;
	int err = 0;

	if (c->left >= sizeof(tag))
		get(c, &tag, sizeof(tag));
	for (int i = 0; tag && tag == labels_tag && i < METADATA_MAX_LABELS && !err; i++)
		err = get_str(c, m->labels[i], sizeof(m->labels[i]));
	return err;
}

int record_decode(struct record_set *set, const char *root, const void *blob, int nr_events,
		  uint32_t labels_tag, struct cg_record **ret)
{
	struct blob_cursor c = { (unsigned char *)blob, RECORD_BLOB_SIZE };
	struct cg_record tmp = { 0 }, *r;
	char path[RECORD_BLOB_SIZE];
	size_t nr = sizeof(struct reading) * nr_events;
	struct blob_header h;
	int err = get(&c, &h, sizeof(h));

	if (err || h.version != RECORD_BLOB_VERSION || h.nr_events != (uint32_t)nr_events)
		return -EINVAL;
	for (int i = 0; i < RECORD_MAX_OUTPUTS && !err; i++) {
		struct blob_output o;

		err = get(&c, &o, sizeof(o)) ?: get(&c, tmp.out[i].last, nr);
		tmp.out[i].last_ns = o.last_ns;
		tmp.out[i].seq = o.seq;
	}
	err = err ?: decode_strings(&c, path, sizeof(path), &tmp.meta);
	err = err ?: get_labels(&c, labels_tag, &tmp.meta);
	if (err || !path[0] || record_find(set, h.id))
		return -EINVAL;
	cg_identify_at(root, path, &tmp.ident);
	r = insert(set, h.id, path);
	if (!r)
		return -ENOMEM;
	memcpy(r->out, tmp.out, sizeof(tmp.out));
	r->ident = tmp.ident;
	r->meta = tmp.meta;
	r->slot = h.slot;
	r->created_ns = h.created_ns;
	r->created_real_ns = h.created_real_ns;
	r->removed = h.removed;
	r->outputs_done = h.outputs_done;
	r->adopted = true;
	fill_view(r);
	*ret = r;
	return 0;
}

/* ---- the totals, saved apart ----
 * header | per output: last_ns, seq, readings. What every collection
 * changes, a few hundred bytes, so that the blob above (two KiB, mostly
 * names) is written only when the cgroup comes, goes or is renamed. */

struct totals_header {
	uint64_t id; /* 0: no record */
	uint64_t created_ns; /* which record of that id (a cgroup counted again) */
	uint32_t version;
	uint32_t nr_events;
	uint32_t removed, outputs_done;
};

size_t record_totals_size(int nr_events, uint32_t outputs)
{
	return sizeof(struct totals_header) +
	       (size_t)__builtin_popcount(outputs & RECORD_ALL_OUTPUTS) *
		       (sizeof(struct blob_output) + sizeof(struct reading) * nr_events);
}

void record_totals_encode(const struct cg_record *r, int nr_events, uint32_t outputs, void *buf)
{
	const struct totals_header h = {
		.id = r->id,
		.created_ns = r->created_ns,
		.version = RECORD_BLOB_VERSION,
		.nr_events = nr_events,
		.removed = r->removed,
		.outputs_done = r->outputs_done,
	};
	struct blob_cursor c = { buf, record_totals_size(nr_events, outputs) };

	/* Sized by record_totals_size(): neither can fail. */
	(void)put(&c, &h, sizeof(h));
	(void)put_outputs(&c, r, nr_events, outputs & RECORD_ALL_OUTPUTS);
}

int record_totals_apply(struct cg_record *r, int nr_events, uint32_t outputs, const void *buf)
{
	struct blob_cursor c = { (unsigned char *)buf, record_totals_size(nr_events, outputs) };
	size_t nr = sizeof(struct reading) * nr_events;
	struct totals_header h;

	(void)get(&c, &h, sizeof(h));
	if (h.id != r->id || h.created_ns != r->created_ns || h.version != RECORD_BLOB_VERSION ||
	    h.nr_events != (uint32_t)nr_events)
		return -ENOENT;
	/* Whichever wrote the later row is the newer, output by output (its
	 * read time, CLOCK_BOOTTIME; then the rows written): an entry may be
	 * older than the blob (its save failed; an older cgperf, which writes
	 * only blobs, ran in between), or than another map's entry (an older
	 * cgperf that knows only "totals" ran after this one and counted fewer
	 * rows since: not the rows, the time tells). */
	r->removed |= h.removed;
	r->outputs_done |= h.outputs_done;
	for (int i = 0; i < RECORD_MAX_OUTPUTS; i++) {
		struct record_output *o = &r->out[i];
		struct blob_output bo;

		if (!(outputs & 1u << i))
			continue;
		(void)get(&c, &bo, sizeof(bo));
		if (bo.last_ns < o->last_ns || (bo.last_ns == o->last_ns && bo.seq < o->seq)) {
			c.p += nr;
			continue;
		}
		(void)get(&c, o->last, nr);
		o->last_ns = bo.last_ns;
		o->seq = bo.seq;
	}
	return 0;
}

/* ---- BPF programs ---- */

struct prog_record *record_prog_add(struct prog_set *set, uint32_t id, const char *name,
				    const char *tag, const char *type, uint64_t runs,
				    uint64_t run_ns, uint64_t from_ns)
{
	struct prog_record *r;

	if (set->nr == set->cap) {
		int cap = set->cap ? set->cap * 2 : 16;
		struct prog_record **items = realloc(set->items, sizeof(*items) * cap);

		if (!items)
			return NULL;
		set->items = items;
		set->cap = cap;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->id = id;
	snprintf(r->name, sizeof(r->name), "%s", name);
	snprintf(r->tag, sizeof(r->tag), "%s", tag);
	snprintf(r->type, sizeof(r->type), "%s", type);
	r->runs = runs;
	r->run_ns = run_ns;
	r->prof = (struct prog_prof){ .idx = -1, .runs_seen = runs };
	for (int i = 0; i < RECORD_MAX_OUTPUTS; i++)
		r->out[i] =
			(struct prog_output){ .runs = runs, .run_ns = run_ns, .last_ns = from_ns };
	r->view = (struct sink_prog){ .id = id, .name = r->name, .tag = r->tag, .type = r->type };
	set->items[set->nr++] = r;
	return r;
}

/* Linear: a host has a few hundred BPF programs at most, and few are logged. */
struct prog_record *record_prog_find(const struct prog_set *set, uint32_t id)
{
	for (int i = 0; i < set->nr; i++)
		if (set->items[i]->id == id)
			return set->items[i];
	return NULL;
}

void record_prog_remove(struct prog_set *set, uint32_t id)
{
	for (int i = 0; i < set->nr; i++)
		if (set->items[i]->id == id) {
			free(set->items[i]);
			set->items[i] = set->items[--set->nr];
			return;
		}
}

void record_prog_clear(struct prog_set *set)
{
	for (int i = 0; i < set->nr; i++)
		free(set->items[i]);
	free(set->items);
	*set = (struct prog_set){ 0 };
}

void record_prog_row(const struct prog_record *r, enum record_output_id out, uint64_t now_ns,
		     int nr_events, struct reading *ret_delta, struct sink_prog_record *ret)
{
	const struct prog_output *o = &r->out[out];

	*ret = (struct sink_prog_record){
		.prog = &r->view,
		.interval_ms = readings_interval_ms(o->last_ns, now_ns),
		.runs = r->runs - o->runs,
		.run_ns = r->run_ns - o->run_ns,
		.nr_events = nr_events,
		.counted = r->prof.counted,
		.counted_runs = r->counted_runs - o->counted_runs,
		.delta = ret_delta,
		.seq = o->seq + 1,
		.final = r->removed,
	};
	for (int e = 0; e < nr_events; e++)
		reading_delta(&r->ev[e], &o->ev[e], &ret_delta[e]);
}

void record_prog_commit(struct prog_record *r, enum record_output_id out, uint64_t now_ns)
{
	struct prog_output *o = &r->out[out];

	o->runs = r->runs;
	o->run_ns = r->run_ns;
	o->counted_runs = r->counted_runs;
	memcpy(o->ev, r->ev, sizeof(o->ev));
	o->last_ns = now_ns;
	o->seq++;
}
