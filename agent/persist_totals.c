/* The persistent session's "totals" map (persist_totals.h): chunks of
 * consecutive slots, keyed by slot / per_chunk, each holding per_chunk
 * record_totals entries (an entry of id 0 is empty). A copy of every chunk
 * as last written is kept here, so that one record's entry can be written
 * without reading its chunk back. */
#include "agent/persist_totals.h"
#include "bpf/session_pin.h"
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A chunk's value, at most: with the hash element's header and key it stays
 * within one 4 KiB kmalloc object (a larger one needs two pages). */
#define CHUNK_MAX_BYTES 3968

struct persist_totals {
	int fd;
	int nr_events;
	size_t entry_size, chunk_size;
	uint32_t per_chunk, max_chunks;
	/* Chunks 0 .. cap-1 as last written (zeros where none is). */
	unsigned char *chunks;
	bool *in_map; /* chunk c is in the map */
	bool *used; /* totals_save: chunk c holds a record */
	bool *filled; /* totals_save: slot s's entry was written by its record */
	uint64_t *keys;
	uint32_t cap;
};

int totals_open(const char *pin_dir, int nr_events, uint32_t max_slots, bool create,
		struct persist_totals **ret)
{
	struct persist_totals *t = calloc(1, sizeof(*t));
	int r;

	if (!t)
		return -ENOMEM;
	t->nr_events = nr_events;
	t->entry_size = record_totals_size(nr_events);
	t->per_chunk = CHUNK_MAX_BYTES / t->entry_size ?: 1;
	t->chunk_size = t->per_chunk * t->entry_size;
	t->max_chunks = (max_slots + t->per_chunk - 1) / t->per_chunk;
	r = create ? session_state_open(pin_dir, "totals", t->chunk_size, t->max_chunks ?: 1,
					&t->fd)
		   : session_state_get(pin_dir, "totals", t->chunk_size, &t->fd);
	if (r < 0) {
		free(t);
		return r;
	}
	*ret = t;
	return 0;
}

void totals_free(struct persist_totals *t)
{
	if (!t)
		return;
	close(t->fd);
	free(t->chunks);
	free(t->in_map);
	free(t->used);
	free(t->filled);
	free(t->keys);
	free(t);
}

/* Room for chunks 0 .. n-1 (new ones empty, not in the map). */
static int grow(struct persist_totals *t, uint32_t n)
{
	unsigned char *chunks;
	bool *in_map, *used, *filled;
	uint64_t *keys;

	if (n <= t->cap)
		return 0;
	chunks = realloc(t->chunks, n * t->chunk_size);
	if (chunks)
		t->chunks = chunks;
	in_map = chunks ? realloc(t->in_map, n * sizeof(*in_map)) : NULL;
	if (in_map)
		t->in_map = in_map;
	used = in_map ? realloc(t->used, n * sizeof(*used)) : NULL;
	if (used)
		t->used = used;
	filled = used ? realloc(t->filled, (size_t)n * t->per_chunk * sizeof(*filled)) : NULL;
	if (filled)
		t->filled = filled;
	keys = filled ? realloc(t->keys, n * sizeof(*keys)) : NULL;
	if (!keys)
		return -ENOMEM;
	t->keys = keys;
	memset(t->chunks + t->cap * t->chunk_size, 0, (n - t->cap) * t->chunk_size);
	memset(t->in_map + t->cap, 0, (n - t->cap) * sizeof(*in_map));
	t->cap = n;
	return 0;
}

static unsigned char *chunk_at(const struct persist_totals *t, uint32_t c)
{
	return t->chunks + (size_t)c * t->chunk_size;
}

/* The chunk of a slot >= 0. */
static uint32_t chunk_of(const struct persist_totals *t, int slot)
{
	return (uint32_t)slot / t->per_chunk;
}

static unsigned char *entry_of(const struct persist_totals *t, int slot)
{
	return chunk_at(t, chunk_of(t, slot)) + (size_t)(slot % t->per_chunk) * t->entry_size;
}

static bool slot_ok(const struct persist_totals *t, int slot)
{
	return slot >= 0 && chunk_of(t, slot) < t->max_chunks;
}

/* Chunks first .. first+n-1, one batch. */
static int write_run(struct persist_totals *t, uint32_t first, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		t->keys[first + i] = first + i;
	/* Marked first: a batch that fails may have written some of them
	 * (deleting one that is not there is no error). */
	memset(t->in_map + first, 1, n * sizeof(*t->in_map));
	return session_state_put_all(t->fd, t->keys + first, chunk_at(t, first), t->chunk_size, n);
}

/* The chunks marked used, by runs of consecutive ones; the others that are
 * in the map leave it. */
static int write_used(struct persist_totals *t)
{
	int err = 0;

	for (uint32_t c = 0; c < t->cap;) {
		uint32_t end = c;

		while (end < t->cap && t->used[end])
			end++;
		if (end > c) {
			int r = write_run(t, c, end - c);

			err = err ?: r;
			c = end;
			continue;
		}
		if (t->in_map[c] && session_state_delete(t->fd, c) == 0)
			t->in_map[c] = false;
		c++;
	}
	return err;
}

int totals_save(struct persist_totals *t, const struct record_set *set)
{
	uint32_t n = 0;
	int r;

	for (int i = 0; i < set->nr; i++)
		if (slot_ok(t, set->items[i]->slot) && chunk_of(t, set->items[i]->slot) >= n)
			n = chunk_of(t, set->items[i]->slot) + 1;
	r = grow(t, n);
	if (r < 0)
		return r;
	if (t->cap == 0)
		return 0;
	memset(t->used, 0, t->cap * sizeof(*t->used));
	memset(t->filled, 0, (size_t)t->cap * t->per_chunk * sizeof(*t->filled));
	for (int i = 0; i < set->nr; i++) {
		const struct cg_record *rec = set->items[i];

		if (!slot_ok(t, rec->slot))
			continue;
		record_totals_encode(rec, t->nr_events, entry_of(t, rec->slot));
		t->used[chunk_of(t, rec->slot)] = true;
		t->filled[rec->slot] = true;
	}
	/* Entries of records gone since are emptied: every other one was just
	 * written whole (not the whole shadow cleared first: at 1000 cgroups
	 * that is half a megabyte written twice a collection). */
	for (uint32_t s = 0; s < t->cap * t->per_chunk; s++)
		if (!t->filled[s])
			memset(entry_of(t, (int)s), 0, t->entry_size);
	return write_used(t);
}

int totals_put(struct persist_totals *t, const struct cg_record *r)
{
	uint32_t c;
	int err;

	if (!slot_ok(t, r->slot))
		return -ERANGE;
	c = chunk_of(t, r->slot);
	err = grow(t, c + 1);
	if (err < 0)
		return err;
	record_totals_encode(r, t->nr_events, entry_of(t, r->slot));
	t->in_map[c] = true;
	return session_state_put(t->fd, c, chunk_at(t, c));
}

static int read_one(void *ctx, uint64_t key, const void *value)
{
	struct persist_totals *t = ctx;

	if (key >= t->max_chunks)
		return 0; /* not one of ours: never used */
	if (grow(t, (uint32_t)key + 1) < 0)
		return -ENOMEM;
	memcpy(chunk_at(t, (uint32_t)key), value, t->chunk_size);
	t->in_map[key] = true;
	return 0;
}

int totals_read(struct persist_totals *t)
{
	return session_state_for_each(t->fd, t->chunk_size, read_one, t);
}

uint32_t totals_slots_per_chunk(const struct persist_totals *t)
{
	return t->per_chunk;
}

int totals_apply(const struct persist_totals *t, struct cg_record *r)
{
	if (!slot_ok(t, r->slot) || chunk_of(t, r->slot) >= t->cap)
		return -ENOENT;
	return record_totals_apply(r, t->nr_events, entry_of(t, r->slot));
}
