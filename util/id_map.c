// SPDX-License-Identifier: GPL-2.0-only
#include "util/id_map.h"
#include <errno.h>
#include <stdlib.h>

#define ID_MAP_MIN_SLOTS 16

static size_t home(const struct id_map *m, uint64_t id)
{
	return hash_u64(id) & m->mask;
}

/* The slot holding id, or the empty slot that ends its probe. */
static size_t probe(const struct id_map *m, uint64_t id)
{
	size_t i = home(m, id);

	while (m->slots[i].value && m->slots[i].id != id)
		i = (i + 1) & m->mask;
	return i;
}

static int resize(struct id_map *m, size_t nr_slots)
{
	struct id_map_slot *old = m->slots, *slots = calloc(nr_slots, sizeof(*slots));
	size_t old_nr = m->slots ? m->mask + 1 : 0;

	if (!slots)
		return -ENOMEM;
	m->slots = slots;
	m->mask = nr_slots - 1;
	for (size_t i = 0; i < old_nr; i++)
		if (old[i].value)
			m->slots[probe(m, old[i].id)] = old[i];
	free(old);
	return 0;
}

int id_map_reserve(struct id_map *m, size_t n)
{
	size_t nr_slots = m->slots ? m->mask + 1 : 0, want = ID_MAP_MIN_SLOTS;

	/* At most half full: probes stay a slot or two long. */
	if (n > SIZE_MAX / 4)
		return -ENOMEM;
	while (want < 2 * n)
		want *= 2;
	return want > nr_slots ? resize(m, want) : 0;
}

int id_map_insert(struct id_map *m, uint64_t id, void *value)
{
	size_t i;
	int r;

	if (!value)
		return -EINVAL;
	if (id_map_find(m, id))
		return -EEXIST;
	if (!m->slots || 2 * (m->nr + 1) > m->mask + 1) {
		r = id_map_reserve(m, m->nr + 1);
		if (r < 0)
			return r;
	}
	i = probe(m, id);
	m->slots[i] = (struct id_map_slot){ .id = id, .value = value };
	m->nr++;
	return 0;
}

int id_map_replace(struct id_map *m, uint64_t id, void *value)
{
	size_t i;

	if (!value)
		return -EINVAL;
	if (!m->slots)
		return -ENOENT;
	i = probe(m, id);
	if (!m->slots[i].value)
		return -ENOENT;
	m->slots[i].value = value;
	return 0;
}

/* Whether home h lies cyclically in (hole, at]: then the entry at `at`
 * cannot move back into the hole without leaving its probe's reach. */
static bool reaches(size_t hole, size_t at, size_t h)
{
	return hole <= at ? hole < h && h <= at : hole < h || h <= at;
}

int id_map_remove(struct id_map *m, uint64_t id)
{
	size_t hole, at;

	if (!m->slots)
		return -ENOENT;
	hole = probe(m, id);
	if (!m->slots[hole].value)
		return -ENOENT;
	/* Backward shift: every entry after the hole in its run whose probe
	 * passed the hole moves into it, and leaves a hole of its own. */
	for (at = (hole + 1) & m->mask; m->slots[at].value; at = (at + 1) & m->mask) {
		if (reaches(hole, at, home(m, m->slots[at].id)))
			continue;
		m->slots[hole] = m->slots[at];
		hole = at;
	}
	m->slots[hole] = (struct id_map_slot){ 0 };
	m->nr--;
	/* Under an eighth full: half the slots (a quarter full then, so no
	 * insert grows it back at once). A burst of containers gone gives its
	 * memory back; without the memory now, the map stays as it is. */
	if (m->mask + 1 > ID_MAP_MIN_SLOTS && 8 * m->nr < m->mask + 1)
		(void)resize(m, (m->mask + 1) / 2);
	return 0;
}

bool id_map_next(const struct id_map *m, size_t *pos, uint64_t *ret_id, void **ret_value)
{
	size_t nr_slots = m->slots ? m->mask + 1 : 0;

	for (; *pos < nr_slots; (*pos)++) {
		const struct id_map_slot *s = &m->slots[*pos];

		if (!s->value)
			continue;
		(*pos)++;
		if (ret_id)
			*ret_id = s->id;
		if (ret_value)
			*ret_value = s->value;
		return true;
	}
	return false;
}

void id_map_free(struct id_map *m)
{
	if (!m)
		return;
	free(m->slots);
	*m = ID_MAP_INIT;
}
