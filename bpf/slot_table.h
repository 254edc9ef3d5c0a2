/* SPDX-License-Identifier: GPL-2.0-only */
/* Which filter keys a session counts, which accumulator slot each one owns,
 * and (for cgroups) which slots a key's counts go to: its own and those of
 * its monitored ancestors. Pure bookkeeping; the caller mirrors every change
 * into the BPF filter map through the `publish` callback. */
#pragma once
#include "bpf/cgperf_shared.h"
#include <stdbool.h>
#include <stdint.h>

struct slot_table;

/* Called for each key whose slot list is new or changed (value != NULL) or
 * removed (value == NULL). Returns 0 or a negative errno. */
typedef int (*slot_publish_fn)(void *ctx, uint64_t key, const struct cgperf_slots *value);

int slot_table_new(int max_slots, slot_publish_fn publish, void *ctx, struct slot_table **ret);
void slot_table_free(struct slot_table *t);

/* Add key with its ancestors' keys (root first; ancestors need not be
 * monitored, only monitored ones matter). Re-publishes the monitored
 * descendants of key so they count into it too. -EEXIST if key is there,
 * -ENOSPC when all slots are taken, -E2BIG when key would have more than
 * CGPERF_MAX_NEST monitored levels, -ENOMEM. */
int slot_table_add(struct slot_table *t, uint64_t key, const uint64_t *ancestors, int nr_ancestors,
		   int *ret_slot);

/* Adopting a persisted session: slot belongs to a record (its counts are
 * kept); reserve it (FREE -> reserved, as a removed slot that was not
 * released yet), then either slot_table_add_at() its key again when the cgroup
 * is seen, or slot_table_release_slot() it. -EBUSY: not free. */
int slot_table_reserve(struct slot_table *t, int slot);
/* slot_table_add() into a reserved slot. -EINVAL: slot not reserved. On
 * failure the slot stays reserved with its counts. */
int slot_table_add_at(struct slot_table *t, uint64_t key, const uint64_t *ancestors,
		      int nr_ancestors, int slot);

/* Unpublish key and re-publish its descendants without it. The slot stays
 * reserved until slot_table_release_slot(): the caller reads it one last time. */
int slot_table_remove(struct slot_table *t, uint64_t key, int *ret_slot);
void slot_table_release_slot(struct slot_table *t, int slot);

/* Called when an add is rolled back after its key was already published:
 * counts may have landed in the slot meanwhile; the callee clears it (wait
 * for running programs, zero) before the slot is reused. Returns 0 or
 * -errno: a slot that could not be cleared stays out of use (its counts
 * would go to the next owner). Optional. */
typedef int (*slot_reset_fn)(void *ctx, int slot);
void slot_table_set_reset(struct slot_table *t, slot_reset_fn reset);

int slot_table_lookup(const struct slot_table *t, uint64_t key); /* slot or -ENOENT */
int slot_table_count(const struct slot_table *t);
bool slot_table_is_free(const struct slot_table *t, int slot);
/* One past the highest slot in use (0 if none): reads need not look further. */
int slot_table_bound(const struct slot_table *t);
