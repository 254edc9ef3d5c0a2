/* SPDX-License-Identifier: GPL-2.0-only */
/* A session's accumulators: per slot, the sums of its events on every
 * possible CPU, in the BPF map its followers add to (accum_readings,
 * bpf/follower_common.bpf.h). Two kinds, one program text:
 *
 *  - hash: a per-CPU hash that is not preallocated, keyed by slot. A slot's
 *    value exists from the moment its key is published in the filter until
 *    the slot is released, so memory follows the live slots (possible CPUs
 *    x live slots x events x 24 bytes). The followers only look values up,
 *    never insert or delete: user space does both, outside the hot path.
 *  - array: a per-CPU array sized for every slot up front (possible CPUs x
 *    max slots x events x 24 bytes), for kernels whose verifier refuses
 *    non-preallocated maps in tracing programs (probe_accum_hash()).
 *
 * The kind of a new session is chosen by the probe; a pinned session's is
 * read from its map. This module does not own the map's fd. */
#pragma once
#include "util/readings.h"
#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>

struct bpf_map;

enum accum_kind {
	ACCUM_ARRAY,
	ACCUM_HASH,
};

enum accum_request {
	ACCUM_AUTO, /* hash where the kernel allows it */
	ACCUM_FORCE_ARRAY,
	ACCUM_FORCE_HASH,
};

struct accum {
	int fd;
	enum accum_kind kind;
	int nr_events, max_slots;
	int nr_possible; /* per-CPU values come for every possible CPU */
	size_t value_size; /* one slot's value on one CPU */
	void *buf; /* nr_possible * value_size: one slot's values */
	/* Batch reads: chunk slots' keys and values, made at the first read. */
	__u32 *batch_keys;
	void *batch_values;
	int chunk;
};

const char *accum_kind_name(enum accum_kind k);
/* The kind a new session gets. -EOPNOTSUPP (reason logged) when a hash is
 * forced where the kernel refuses it. */
int accum_choose(enum accum_request req, enum accum_kind *ret);
/* Before load: the map's type, flags and size for kind. */
void accum_configure(struct bpf_map *m, enum accum_kind kind, int max_slots, int nr_events);
/* A session's accumulator map for a hub's map-in-map (follower_hub.bpf.c).
 * An array's size must be its hub's template's (the kernel allows inner
 * maps of other sizes for plain arrays only). */
int accum_create(enum accum_kind kind, int max_slots, int nr_events, int *ret_fd);

/* Bind to the loaded (or pinned) map fd. -EPROTO: it is not a session's
 * accumulator map of nr_events events and max_slots slots. */
int accum_init(struct accum *a, int fd, int nr_events, int max_slots);
void accum_free(struct accum *a);

/* A slot's value, zero, before its key is published (hash; an array has
 * every value already). One that exists keeps its counts (adoption). */
int accum_make(struct accum *a, int slot);
/* A slot's counts gone before it is reused (hash: the value is freed). */
int accum_clear(struct accum *a, int slot);
/* accum_clear() every slot that has a value and for which in_use is false. */
int accum_clear_unused(struct accum *a, bool (*in_use)(void *ctx, int slot), void *ctx);

/* Sums over CPUs: one slot (one without a value has counted nothing), or
 * slots [0, nr_slots) into ret_vals[slot * nr_events + event]. The one
 * exception to "ret_* untouched on failure": accum_read_all() sums straight
 * into ret_vals, and a failed read leaves it partly written (a copy would
 * double the largest buffer of a many-CPU host; callers drop the whole read). */
int accum_read(struct accum *a, int slot, struct reading *ret_vals);
int accum_read_all(struct accum *a, int nr_slots, struct reading *ret_vals);
