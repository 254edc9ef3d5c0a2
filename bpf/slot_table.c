// SPDX-License-Identifier: GPL-2.0-only
#include "bpf/slot_table.h"
#include "util/id_map.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum slot_state {
	SLOT_FREE,
	SLOT_USED,
	SLOT_DRAINING
};

struct slot_entry {
	enum slot_state state;
	uint64_t key;
	int nr_ancestors;
	uint64_t ancestors[CGPERF_MAX_CGROUP_DEPTH];
};

struct slot_table {
	int max_slots;
	int used;
	int bound; /* 1 + the highest slot not FREE (0: none) */
	struct slot_entry *slots;
	struct id_map by_key; /* the USED slots' keys -> their entries */
	slot_publish_fn publish;
	slot_reset_fn reset;
	void *ctx;
};

/* Every change of a slot's state goes through here: the bound follows
 * (slot_table_bound is asked at every collection; scanning max_slots
 * entries for it cost the agent more than its reads). */
static void set_state(struct slot_table *t, int slot, enum slot_state state)
{
	t->slots[slot].state = state;
	if (state != SLOT_FREE && slot >= t->bound)
		t->bound = slot + 1;
	while (t->bound > 0 && t->slots[t->bound - 1].state == SLOT_FREE)
		t->bound--;
}

void slot_table_set_reset(struct slot_table *t, slot_reset_fn reset)
{
	t->reset = reset;
}

int slot_table_lookup(const struct slot_table *t, uint64_t key)
{
	const struct slot_entry *e = id_map_find(&t->by_key, key);

	return e ? (int)(e - t->slots) : -ENOENT;
}

int slot_table_new(int max_slots, slot_publish_fn publish, void *ctx, struct slot_table **ret)
{
	struct slot_table *t;

	if (max_slots <= 0)
		return -EINVAL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->slots = calloc(max_slots, sizeof(*t->slots));
	if (!t->slots) {
		slot_table_free(t);
		return -ENOMEM;
	}
	t->max_slots = max_slots;
	t->publish = publish;
	t->ctx = ctx;
	*ret = t;
	return 0;
}

void slot_table_free(struct slot_table *t)
{
	if (!t)
		return;
	free(t->slots);
	id_map_free(&t->by_key);
	free(t);
}

/* The slot list of a key: its own slot, then each monitored ancestor's,
 * nearest first. */
static int compute_slots(const struct slot_table *t, int slot, struct cgperf_slots *ret)
{
	const struct slot_entry *e = &t->slots[slot];
	struct cgperf_slots v = { .nr = 1, .slot = { (uint32_t)slot } };

	for (int i = e->nr_ancestors - 1; i >= 0; i--) {
		int a = slot_table_lookup(t, e->ancestors[i]);
		if (a < 0)
			continue;
		if (v.nr >= CGPERF_MAX_NEST)
			return -E2BIG;
		v.slot[v.nr++] = (uint32_t)a;
	}
	*ret = v;
	return 0;
}

static bool has_ancestor(const struct slot_entry *e, uint64_t key)
{
	for (int i = 0; i < e->nr_ancestors; i++)
		if (e->ancestors[i] == key)
			return true;
	return false;
}

/* Re-publish every monitored descendant of key (its list gained or lost key). */
static int republish_descendants(struct slot_table *t, uint64_t key)
{
	for (int s = 0; s < t->max_slots; s++) {
		struct cgperf_slots v;
		int r;

		if (t->slots[s].state != SLOT_USED || !has_ancestor(&t->slots[s], key))
			continue;
		r = compute_slots(t, s, &v);
		if (r < 0)
			return r;
		r = t->publish(t->ctx, t->slots[s].key, &v);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Put key into slot (FREE, or reserved: DRAINING) and publish it. On failure
 * the slot goes back to its previous state; a FREE slot that counts may have
 * reached meanwhile is reset, a reserved one keeps its owner's counts. */
static int add_in(struct slot_table *t, uint64_t key, const uint64_t *ancestors, int nr_ancestors,
		  int slot)
{
	enum slot_state before = t->slots[slot].state;
	struct cgperf_slots v;
	bool published = false;
	int r;

	t->slots[slot] = (struct slot_entry){ .key = key, .nr_ancestors = nr_ancestors };
	set_state(t, slot, SLOT_USED);
	if (nr_ancestors)
		memcpy(t->slots[slot].ancestors, ancestors, nr_ancestors * sizeof(*ancestors));
	/* The map grows with the keys counted, not with max_slots. */
	r = id_map_insert(&t->by_key, key, &t->slots[slot]);
	if (r == 0)
		r = compute_slots(t, slot, &v);
	if (r == 0) {
		r = t->publish(t->ctx, key, &v);
		published = r == 0;
	}
	if (r == 0)
		r = republish_descendants(t, key);
	if (r < 0) {
		set_state(t, slot, SLOT_FREE);
		id_map_remove(&t->by_key, key);
		t->publish(t->ctx, key, NULL);
		republish_descendants(t, key);
		set_state(t, slot, before);
		if (published && before == SLOT_FREE && t->reset && t->reset(t->ctx, slot) < 0)
			set_state(t, slot, SLOT_DRAINING); /* out of use */
		return r;
	}
	t->used++;
	return 0;
}

static int check_add(const struct slot_table *t, uint64_t key, int nr_ancestors)
{
	if (nr_ancestors < 0 || nr_ancestors > CGPERF_MAX_CGROUP_DEPTH)
		return -E2BIG;
	if (slot_table_lookup(t, key) >= 0)
		return -EEXIST;
	return 0;
}

int slot_table_add(struct slot_table *t, uint64_t key, const uint64_t *ancestors, int nr_ancestors,
		   int *ret_slot)
{
	int slot = -1, r = check_add(t, key, nr_ancestors);

	if (r < 0)
		return r;
	for (int s = 0; s < t->max_slots; s++)
		if (t->slots[s].state == SLOT_FREE) {
			slot = s;
			break;
		}
	if (slot < 0)
		return -ENOSPC;
	r = add_in(t, key, ancestors, nr_ancestors, slot);
	if (r == 0)
		*ret_slot = slot;
	return r;
}

int slot_table_reserve(struct slot_table *t, int slot)
{
	if (slot < 0 || slot >= t->max_slots)
		return -ERANGE;
	if (t->slots[slot].state != SLOT_FREE)
		return -EBUSY;
	set_state(t, slot, SLOT_DRAINING);
	return 0;
}

int slot_table_add_at(struct slot_table *t, uint64_t key, const uint64_t *ancestors,
		      int nr_ancestors, int slot)
{
	int r = check_add(t, key, nr_ancestors);

	if (r < 0)
		return r;
	if (slot < 0 || slot >= t->max_slots || t->slots[slot].state != SLOT_DRAINING)
		return -EINVAL;
	return add_in(t, key, ancestors, nr_ancestors, slot);
}

int slot_table_remove(struct slot_table *t, uint64_t key, int *ret_slot)
{
	int slot = slot_table_lookup(t, key), r;

	if (slot < 0)
		return slot;
	r = t->publish(t->ctx, key, NULL);
	if (r < 0 && r != -ENOENT)
		return r;
	set_state(t, slot, SLOT_DRAINING);
	id_map_remove(&t->by_key, key);
	t->used--;
	r = republish_descendants(t, key);
	if (r < 0)
		return r;
	*ret_slot = slot;
	return 0;
}

void slot_table_release_slot(struct slot_table *t, int slot)
{
	if (slot >= 0 && slot < t->max_slots && t->slots[slot].state == SLOT_DRAINING)
		set_state(t, slot, SLOT_FREE);
}

bool slot_table_is_free(const struct slot_table *t, int slot)
{
	return slot >= 0 && slot < t->max_slots && t->slots[slot].state == SLOT_FREE;
}

int slot_table_count(const struct slot_table *t)
{
	return t->used;
}

int slot_table_bound(const struct slot_table *t)
{
	/* Slots are taken lowest first, so this stays near the live count. */
	return t->bound;
}
