/* SPDX-License-Identifier: GPL-2.0-only */
/* The tree's one map from a 64-bit id (cgroup id, BPF filter key, inotify
 * wd) to a pointer. Open addressing with linear probing, at most half full,
 * grown by doubling, halved under an eighth full; a removal shifts the
 * entries after it back, so no tombstones: lookups of missing ids stay
 * short however much churn.
 *
 * Iteration (id_map_next) is in slot order, which is no order at all: users
 * whose output follows an order keep their own array in that order and use
 * the map as its index (agent/record.c, sink/prom_sink.c: insertion order).
 *
 * Zeroed is empty (ID_MAP_INIT): embed it; id_map_free() releases it. */
#pragma once
#include "util/hash.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct id_map_slot {
	uint64_t id;
	void *value; /* NULL: an empty slot (so values are never NULL) */
};

struct id_map {
	struct id_map_slot *slots;
	size_t mask; /* slots - 1 (a power of two minus one); 0 with no slots */
	size_t nr;
};

#define ID_MAP_INIT ((struct id_map){ 0 })

/* The value of id, or NULL. Inline: the agent looks one up per row. */
static inline void *id_map_find(const struct id_map *m, uint64_t id)
{
	if (!m->slots)
		return NULL;
	for (size_t i = hash_u64(id) & m->mask;; i = (i + 1) & m->mask) {
		const struct id_map_slot *s = &m->slots[i];

		if (!s->value || s->id == id)
			return s->value;
	}
}

/* Add id -> value. -EEXIST: id is there (unchanged); -EINVAL: value NULL;
 * -ENOMEM: no room and none could be made (the map is unchanged). */
int id_map_insert(struct id_map *m, uint64_t id, void *value);
/* Give the id there a new value (not NULL). -ENOENT: id is not there.
 * Never allocates. */
int id_map_replace(struct id_map *m, uint64_t id, void *value);
/* -ENOENT: id is not there. Never fails otherwise; under an eighth full,
 * the map halves its slots (if that memory cannot be had, it stays). */
int id_map_remove(struct id_map *m, uint64_t id);
/* Room for n entries in all, so that inserts up to then cannot fail. */
int id_map_reserve(struct id_map *m, size_t n);
static inline size_t id_map_count(const struct id_map *m)
{
	return m->nr;
}

/* Each entry once: start with *pos = 0; false when there are no more. The
 * map must not change during a walk (a removal moves entries). */
bool id_map_next(const struct id_map *m, size_t *pos, uint64_t *ret_id, void **ret_value);

/* The map's memory (not the values'); m is empty after, ready for reuse.
 * NULL is fine. */
void id_map_free(struct id_map *m);
