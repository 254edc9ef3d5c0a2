/* SPDX-License-Identifier: GPL-2.0-only */
/* Container and pod names looked up off the agent's loop. A lookup can take
 * long (a large storage index parsed again after each change, a slow disk,
 * a stalled network mount under a runtime root): the loop counts a new
 * cgroup at once and its names follow when the worker thread has them. */
#pragma once
#include "cgroup/identity.h"
#include "cgroup/metadata.h"
#include <stdbool.h>
#include <stdint.h>

struct name_lookup;

/* Starts the worker, with copies of roots' strings; its cache field is
 * ignored: the worker keeps its own. */
int name_lookup_new(const struct metadata_roots *roots, struct name_lookup **ret);
/* Stops the worker (after the lookup it is doing) and drops what is queued.
 * A lookup stuck in a read for seconds (a FUSE mount) is not waited for: its
 * thread is left behind, said in one line, and frees its own when it ends.
 * The same happens without a stop: a lookup stuck for 5 s is answered
 * without names and a new thread takes the queue; lookups of that storage
 * (a rootless user's, or the host's runtime's) get no names while it is
 * stuck and for a cool-down after (1 min, doubled each time to 1 h), and
 * so after a lookup slower than 2 s. With 8 threads left in the process no
 * new one starts: lookups get no names until one of them returns. Every
 * lookup answered without reading is asked again (every 30 s, once its
 * storage is not skipped): its names follow as a second answer. */
void name_lookup_free(struct name_lookup *nl);

/* Tests: the process's cap on left threads (default 8), the retry period
 * (0: the default 30 s), and storages without a stuck thread forgotten
 * (their cool-downs end). */
void name_lookup_test_reset(int max_left_behind, double retry_every_s);

/* Queue a lookup for cgroup id at path. 0 or -ENOMEM. */
int name_lookup_submit(struct name_lookup *nl, uint64_t id, const char *path,
		       const struct cg_identity *ident);
/* Cgroup id is gone: a lookup of it kept to be asked again is dropped. */
void name_lookup_forget(struct name_lookup *nl, uint64_t id);
/* Readable (POLLIN) when results wait or a lookup may be stuck: call
 * name_lookup_collect() then. */
int name_lookup_fd(const struct name_lookup *nl);
/* Hand every finished result to cb, in the calling thread. */
void name_lookup_collect(struct name_lookup *nl,
			 void (*cb)(void *ctx, uint64_t id, const char *path,
				    const struct cg_identity *ident,
				    const struct cg_metadata *meta),
			 void *ctx);
/* Lookups done so far and the worker's cache figures (for the summary). */
struct name_lookup_stats {
	unsigned long long done;
	unsigned long long left_behind; /* stuck lookups whose thread was left */
	unsigned long long skipped; /* answered without reading: storage stuck */
	unsigned long long retried; /* lookups answered without reading, asked again */
	unsigned long long not_retried; /* ... and not kept for it (over 4096 waiting) */
	struct metadata_cache_stats cache;
};
void name_lookup_get_stats(struct name_lookup *nl, struct name_lookup_stats *ret);
