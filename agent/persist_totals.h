/* SPDX-License-Identifier: GPL-2.0-only */
/* The persistent session's totals maps: every record's last-written totals
 * (record_totals_encode), saved after every collection. A record's blob in
 * the state map (two KiB, mostly names) is written only when its cgroup
 * comes, goes or changes names; what a collection changes goes here, for the
 * configured outputs only (one CSV output: 152 bytes a record at 4 events,
 * where every output's took 480), several records per map element (a chunk
 * of consecutive slots), so that a save costs one batch update of ~4 KiB
 * elements instead of one element per cgroup. A record's entry and blob
 * are merged output by output, the one with the later row winning
 * (record_totals_apply).
 * One map per set of outputs, pinned as "totals_<mask in hex>" ("totals":
 * every output's, as earlier versions saved them): a configuration with
 * other outputs, or an upgrade, reads the maps that are there and unpins
 * them once its own holds every record and every record's blob (which
 * holds every output's) is written after the read, so that a kill at any
 * point leaves the newest totals of each output pinned somewhere.
 * See docs/AGENT.md "Exactness". Internal to agent/. */
#pragma once
#include "agent/record.h"
#include <stdbool.h>
#include <stdint.h>

struct persist_totals;

/* The map of the outputs in `outputs` (a mask of record_output_id) pinned
 * in pin_dir, for records of nr_events events in slots below max_slots,
 * created when missing if create (else the others only are read), and the
 * maps of other outputs pinned there (read by totals_read). -EPROTO: one
 * of another size is pinned under its name (other events). */
int totals_open(const char *pin_dir, int nr_events, uint32_t outputs, uint32_t max_slots,
		bool create, struct persist_totals **ret);
void totals_free(struct persist_totals *t);
/* Unpins the map of `outputs` (one of another size, before totals_open
 * makes a new one); 0 when missing. */
int totals_remove(const char *pin_dir, uint32_t outputs);

/* Every record's totals now (one batch update; chunks no record uses any
 * more are deleted); then, when no record is `unsaved` (its blob written),
 * the other maps are unpinned. Returns 0 or -errno (-EBADF: opened without
 * creating, and none was pinned). */
int totals_save(struct persist_totals *t, const struct record_set *set);
/* One record's totals now (its chunk's other entries as last saved or put). */
int totals_put(struct persist_totals *t, const struct cg_record *r);

/* The pinned entries of every map into memory, for totals_apply (before any
 * save). -ENOENT: no totals map is pinned; another -errno: one could not be
 * opened or read (what could be is kept; such a map is left pinned). */
int totals_read(struct persist_totals *t);
/* Maps of other outputs are pinned: every record read now has its blob
 * written again before they go (totals_save). */
bool totals_others_pinned(const struct persist_totals *t);
/* r's last-written totals as read, output by output where an entry of r in
 * any map is newer than what r has (record_totals_apply); -ENOENT: none (r
 * keeps its blob's). */
int totals_apply(const struct persist_totals *t, struct cg_record *r);
/* Records per map element (tests). */
uint32_t totals_slots_per_chunk(const struct persist_totals *t);
/* Chunks held in memory (tests): up to the last one a record uses. */
uint32_t totals_chunks_held(const struct persist_totals *t);
