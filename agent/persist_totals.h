/* The persistent session's "totals" map: every record's last-written totals
 * (record_totals_encode), saved after every collection. A record's blob in
 * the state map (two KiB, mostly names) is written only when its cgroup
 * comes, goes or changes names; what a collection changes, a few hundred
 * bytes a record, goes here, several records per map element (a chunk of
 * consecutive slots), so that a save costs one batch update of ~4 KiB
 * elements instead of one element per cgroup. A record's entry and blob
 * are merged output by output, the one with more rows written winning
 * (record_totals_apply).
 * See docs/AGENT.md "Exactness". Internal to agent/. */
#pragma once
#include "agent/record.h"
#include <stdbool.h>
#include <stdint.h>

struct persist_totals;

/* The map pinned as "totals" in pin_dir, for records of nr_events events
 * in slots below max_slots; created when missing if create, else -ENOENT.
 * -EPROTO: one of another size is pinned there. */
int totals_open(const char *pin_dir, int nr_events, uint32_t max_slots, bool create,
		struct persist_totals **ret);
void totals_free(struct persist_totals *t);

/* Every record's totals now (one batch update; chunks no record uses any
 * more are deleted). Returns 0 or -errno. */
int totals_save(struct persist_totals *t, const struct record_set *set);
/* One record's totals now (its chunk's other entries as last saved or put). */
int totals_put(struct persist_totals *t, const struct cg_record *r);

/* The pinned entries into memory, for totals_apply (before any save). */
int totals_read(struct persist_totals *t);
/* r's last-written totals as read, where the entry of r there is newer
 * than what r has (record_totals_apply); -ENOENT: none (r keeps its blob's). */
int totals_apply(const struct persist_totals *t, struct cg_record *r);
/* Records per map element (tests). */
uint32_t totals_slots_per_chunk(const struct persist_totals *t);
