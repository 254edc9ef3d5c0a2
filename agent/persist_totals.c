// SPDX-License-Identifier: GPL-2.0-only
/* The persistent session's totals maps (persist_totals.h): chunks of
 * consecutive slots, keyed by slot / per_chunk, each holding per_chunk
 * record_totals entries of the map's outputs (an entry of id 0 is empty). A
 * copy of every chunk as last written is kept here, so that one record's
 * entry can be written without reading its chunk back. */
#include "agent/persist_totals.h"
#include "bpf/session_pin.h"
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A chunk's value, at most: with the hash element's header and key it stays
 * within one 4 KiB kmalloc object (a larger one needs two pages). */
#define CHUNK_MAX_BYTES 3968

/* One pinned totals map: its layout, and its chunks 0 .. cap-1 as last read
 * or written (zeros where none is). */
struct totals_map {
	int fd; /* -1: not pinned */
	uint32_t outputs; /* whose totals its entries hold (record_totals_size) */
	size_t entry_size, chunk_size;
	uint32_t per_chunk, max_chunks;
	unsigned char *chunks;
	bool *in_map; /* chunk c is in the map */
	uint32_t cap;
};

struct persist_totals {
	char dir[700];
	int nr_events;
	struct totals_map own; /* the configured outputs': read, then written */
	/* Maps of other outputs (another configuration, or an earlier cgperf
	 * that saved every output's): read, unpinned by the first save after
	 * every record's blob is written (totals_save). */
	struct totals_map others[RECORD_ALL_OUTPUTS + 1];
	int nr_others;
	int others_err; /* the first error opening one (not kept) */
	/* totals_save's scratch, for own's chunks 0 .. own.cap-1. */
	bool *used; /* chunk c holds a record */
	bool *filled; /* slot s's entry was written by its record */
	uint64_t *keys;
};

/* "totals": every output's, as cgperf wrote them before the entries held
 * only the configured outputs' (so such a session is read as it is);
 * "totals_<mask in hex>" otherwise (bpffs refuses dots). */
static void pin_name(uint32_t outputs, char *buf, size_t size)
{
	if (outputs == RECORD_ALL_OUTPUTS)
		snprintf(buf, size, "totals");
	else
		snprintf(buf, size, "totals_%x", outputs);
}

static void map_init(struct totals_map *m, int nr_events, uint32_t outputs, uint32_t max_slots)
{
	*m = (struct totals_map){ .fd = -1, .outputs = outputs };
	m->entry_size = record_totals_size(nr_events, outputs);
	m->per_chunk = CHUNK_MAX_BYTES / m->entry_size ?: 1;
	m->chunk_size = m->per_chunk * m->entry_size;
	m->max_chunks = (max_slots + m->per_chunk - 1) / m->per_chunk;
}

static void map_fini(struct totals_map *m)
{
	if (m->fd >= 0)
		close(m->fd);
	free(m->chunks);
	free(m->in_map);
	*m = (struct totals_map){ .fd = -1 };
}

/* The pinned map of m's layout: created when missing if create; not pinned
 * and not created is no error (m->fd stays -1). */
static int map_open(struct totals_map *m, const char *dir, bool create)
{
	char name[32];
	int r;

	pin_name(m->outputs, name, sizeof(name));
	r = create ? session_state_open(dir, name, m->chunk_size, m->max_chunks ?: 1, &m->fd)
		   : session_state_get(dir, name, m->chunk_size, &m->fd);
	return r == -ENOENT && !create ? 0 : r;
}

int totals_open(const char *pin_dir, int nr_events, uint32_t outputs, uint32_t max_slots,
		bool create, struct persist_totals **ret)
{
	struct persist_totals *t = calloc(1, sizeof(*t));
	int r;

	if (!t)
		return -ENOMEM;
	if (snprintf(t->dir, sizeof(t->dir), "%s", pin_dir) >= (int)sizeof(t->dir)) {
		free(t);
		return -ENAMETOOLONG;
	}
	t->nr_events = nr_events;
	map_init(&t->own, nr_events, outputs & RECORD_ALL_OUTPUTS, max_slots);
	r = map_open(&t->own, pin_dir, create);
	if (r < 0) {
		free(t);
		return r;
	}
	/* The others, when pinned (another size: not of these events, never
	 * read, unpinned as well; one that cannot be opened is left alone). */
	for (uint32_t o = 0; o <= RECORD_ALL_OUTPUTS; o++) {
		struct totals_map *m = &t->others[t->nr_others];

		if (o == t->own.outputs)
			continue;
		map_init(m, nr_events, o, max_slots);
		r = map_open(m, pin_dir, false);
		if (r == -EPROTO || m->fd >= 0)
			t->nr_others++;
		else if (r < 0 && !t->others_err)
			t->others_err = r;
	}
	*ret = t;
	return 0;
}

void totals_free(struct persist_totals *t)
{
	if (!t)
		return;
	map_fini(&t->own);
	for (int i = 0; i < t->nr_others; i++)
		map_fini(&t->others[i]);
	free(t->used);
	free(t->filled);
	free(t->keys);
	free(t);
}

int totals_remove(const char *pin_dir, uint32_t outputs)
{
	char name[32];

	pin_name(outputs & RECORD_ALL_OUTPUTS, name, sizeof(name));
	return session_state_remove(pin_dir, name);
}

/* Room for m's chunks 0 .. n-1 (new ones empty, not in the map). */
static int map_grow(struct totals_map *m, uint32_t n)
{
	unsigned char *chunks;
	bool *in_map;

	if (n <= m->cap)
		return 0;
	chunks = realloc(m->chunks, n * m->chunk_size);
	if (!chunks)
		return -ENOMEM;
	m->chunks = chunks;
	in_map = realloc(m->in_map, n * sizeof(*in_map));
	if (!in_map)
		return -ENOMEM;
	m->in_map = in_map;
	memset(m->chunks + m->cap * m->chunk_size, 0, (n - m->cap) * m->chunk_size);
	memset(m->in_map + m->cap, 0, (n - m->cap) * sizeof(*in_map));
	m->cap = n;
	return 0;
}

/* Room for own's chunks 0 .. n-1 and the save's scratch for them. */
static int grow(struct persist_totals *t, uint32_t n)
{
	bool *used, *filled;
	uint64_t *keys;

	if (n <= t->own.cap)
		return 0;
	used = realloc(t->used, n * sizeof(*used));
	if (used)
		t->used = used;
	filled = used ? realloc(t->filled, (size_t)n * t->own.per_chunk * sizeof(*filled)) : NULL;
	if (filled)
		t->filled = filled;
	keys = filled ? realloc(t->keys, n * sizeof(*keys)) : NULL;
	if (!keys)
		return -ENOMEM;
	t->keys = keys;
	return map_grow(&t->own, n);
}

static unsigned char *chunk_at(const struct totals_map *m, uint32_t c)
{
	return m->chunks + (size_t)c * m->chunk_size;
}

/* The chunk of a slot >= 0. */
static uint32_t chunk_of(const struct totals_map *m, int slot)
{
	return (uint32_t)slot / m->per_chunk;
}

static unsigned char *entry_of(const struct totals_map *m, int slot)
{
	return chunk_at(m, chunk_of(m, slot)) + (size_t)(slot % m->per_chunk) * m->entry_size;
}

static bool slot_ok(const struct totals_map *m, int slot)
{
	return slot >= 0 && chunk_of(m, slot) < m->max_chunks;
}

/* Own's chunks first .. first+n-1, one batch. */
static int write_run(struct persist_totals *t, uint32_t first, uint32_t n)
{
	struct totals_map *m = &t->own;

	for (uint32_t i = 0; i < n; i++)
		t->keys[first + i] = first + i;
	/* Marked first: a batch that fails may have written some of them
	 * (deleting one that is not there is no error). */
	memset(m->in_map + first, 1, n * sizeof(*m->in_map));
	return session_state_put_all(m->fd, t->keys + first, chunk_at(m, first), m->chunk_size, n);
}

/* Own's chunks marked used, by runs of consecutive ones; the others that
 * are in the map leave it. */
static int write_used(struct persist_totals *t)
{
	struct totals_map *m = &t->own;
	int err = 0;

	for (uint32_t c = 0; c < m->cap;) {
		uint32_t end = c;

		while (end < m->cap && t->used[end])
			end++;
		if (end > c) {
			int r = write_run(t, c, end - c);

			err = err ?: r;
			c = end;
			continue;
		}
		if (m->in_map[c] && session_state_delete(m->fd, c) == 0)
			m->in_map[c] = false;
		c++;
	}
	return err;
}

/* Once own holds every record: the other maps are not needed any more. */
static void unpin_others(struct persist_totals *t)
{
	int kept = 0;

	for (int i = 0; i < t->nr_others; i++) {
		struct totals_map *m = &t->others[i];

		if (totals_remove(t->dir, m->outputs) == 0)
			map_fini(m);
		else
			t->others[kept++] = *m; /* tried again at the next save */
	}
	t->nr_others = kept;
}

/* Every record's entry encoded into own's chunks; t->used marks the chunks
 * that hold one. */
static void encode_all(struct persist_totals *t, const struct record_set *set)
{
	struct totals_map *m = &t->own;

	memset(t->used, 0, m->cap * sizeof(*t->used));
	memset(t->filled, 0, (size_t)m->cap * m->per_chunk * sizeof(*t->filled));
	for (int i = 0; i < set->nr; i++) {
		const struct cg_record *rec = set->items[i];

		if (!slot_ok(m, rec->slot))
			continue;
		record_totals_encode(rec, t->nr_events, m->outputs, entry_of(m, rec->slot));
		t->used[chunk_of(m, rec->slot)] = true;
		t->filled[rec->slot] = true;
	}
	/* Entries of records gone since are emptied: every other one was just
	 * written whole (not the whole shadow cleared first: at 1000 cgroups
	 * that is a few hundred KiB written twice a collection). */
	for (uint32_t s = 0; s < m->cap * m->per_chunk; s++)
		if (!t->filled[s])
			memset(entry_of(m, (int)s), 0, m->entry_size);
}

/* Own's chunks past the last one any record uses, none in the map any
 * more, are let go: a save walks (and empties) only the chunks it keeps, and
 * a burst of cgroups gone does not keep its shadow for good. */
static void shrink(struct persist_totals *t, uint32_t n)
{
	struct totals_map *m = &t->own;
	uint32_t before = m->cap;
	unsigned char *chunks;

	while (m->cap > n && !m->in_map[m->cap - 1])
		m->cap--;
	/* Not at every save, only when some went; 0 bytes: realloc may free. */
	if (m->cap == before || m->cap == 0)
		return;
	chunks = realloc(m->chunks, m->cap * m->chunk_size);
	if (chunks)
		m->chunks = chunks;
}

static bool any_unsaved(const struct record_set *set)
{
	for (int i = 0; i < set->nr; i++)
		if (set->items[i]->unsaved)
			return true;
	return false;
}

int totals_save(struct persist_totals *t, const struct record_set *set)
{
	struct totals_map *m = &t->own;
	uint32_t n = 0;
	int r;

	if (m->fd < 0)
		return -EBADF;
	for (int i = 0; i < set->nr; i++)
		if (slot_ok(m, set->items[i]->slot) && chunk_of(m, set->items[i]->slot) >= n)
			n = chunk_of(m, set->items[i]->slot) + 1;
	r = grow(t, n);
	if (r < 0)
		return r;
	if (m->cap > 0) {
		encode_all(t, set);
		r = write_used(t);
		shrink(t, n);
	}
	/* The others' outputs that own does not hold live on in the blobs:
	 * not before every blob is written (persist_load marks them). */
	if (r == 0 && t->nr_others && !any_unsaved(set))
		unpin_others(t);
	return r;
}

int totals_put(struct persist_totals *t, const struct cg_record *r)
{
	struct totals_map *m = &t->own;
	uint32_t c;
	int err;

	if (m->fd < 0)
		return -EBADF;
	if (!slot_ok(m, r->slot))
		return -ERANGE;
	c = chunk_of(m, r->slot);
	err = grow(t, c + 1);
	if (err < 0)
		return err;
	record_totals_encode(r, t->nr_events, m->outputs, entry_of(m, r->slot));
	m->in_map[c] = true;
	return session_state_put(m->fd, c, chunk_at(m, c));
}

struct read_ctx {
	struct persist_totals *t;
	struct totals_map *m;
};

static int read_one(void *ctx, uint64_t key, const void *value)
{
	struct read_ctx *c = ctx;
	struct totals_map *m = c->m;
	int r;

	if (key >= m->max_chunks)
		return 0; /* not one of ours: never used */
	r = m == &c->t->own ? grow(c->t, (uint32_t)key + 1) : map_grow(m, (uint32_t)key + 1);
	if (r < 0)
		return r;
	memcpy(chunk_at(m, (uint32_t)key), value, m->chunk_size);
	m->in_map[key] = true;
	return 0;
}

static int map_read(struct persist_totals *t, struct totals_map *m)
{
	struct read_ctx c = { t, m };

	return m->fd < 0 ? 0 : session_state_for_each(m->fd, m->chunk_size, read_one, &c);
}

int totals_read(struct persist_totals *t)
{
	bool any = t->own.fd >= 0;
	int err = map_read(t, &t->own), kept = 0;

	/* Another map that cannot be read is neither applied nor unpinned. */
	for (int i = 0; i < t->nr_others; i++) {
		struct totals_map *m = &t->others[i];
		int r = map_read(t, m);

		any |= m->fd >= 0;
		if (r < 0) {
			err = err ?: r;
			map_fini(m);
		} else
			t->others[kept++] = *m;
	}
	t->nr_others = kept;
	err = err ?: t->others_err;
	return err ?: any ? 0 : -ENOENT;
}

bool totals_others_pinned(const struct persist_totals *t)
{
	return t && t->nr_others > 0;
}

uint32_t totals_slots_per_chunk(const struct persist_totals *t)
{
	return t->own.per_chunk;
}

uint32_t totals_chunks_held(const struct persist_totals *t)
{
	return t->own.cap;
}

static int map_apply(const struct persist_totals *t, const struct totals_map *m,
		     struct cg_record *r)
{
	if (!slot_ok(m, r->slot) || chunk_of(m, r->slot) >= m->cap)
		return -ENOENT;
	return record_totals_apply(r, t->nr_events, m->outputs, entry_of(m, r->slot));
}

int totals_apply(const struct persist_totals *t, struct cg_record *r)
{
	/* Any order: each output takes the entry with the latest row. */
	int r0 = map_apply(t, &t->own, r);

	for (int i = 0; i < t->nr_others; i++)
		if (map_apply(t, &t->others[i], r) == 0)
			r0 = 0;
	return r0;
}
