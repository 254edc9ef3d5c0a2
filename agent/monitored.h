/* The agent's table of monitored cgroups: identity, names and counter slot of
 * each, by cgroup id. Small and linear: lookups happen only when cgroups come
 * and go; every interval iterates all. */
#pragma once
#include "cgroup/identity.h"
#include "cgroup/metadata.h"
#include "sink/sink.h"
#include <stdint.h>
#include <time.h>

struct monitored {
	uint64_t id;
	int slot;
	char *path;
	struct cg_identity ident;
	struct cg_metadata meta;
	char short_id[13];
	struct sink_cgroup sink; /* views into the fields above */
	struct timespec since;   /* CLOCK_REALTIME when counting started */
};

struct monitored_set {
	struct monitored **items;
	int nr, cap;
};

/* Takes ownership of nothing; copies path. Returns the new entry or NULL. */
struct monitored *monitored_add(struct monitored_set *set, uint64_t id, int slot, const char *path,
				const struct cg_identity *ident, const struct cg_metadata *meta);
struct monitored *monitored_find(const struct monitored_set *set, uint64_t id);
/* Names that arrived after counting started. */
void monitored_set_meta(struct monitored *m, const struct cg_metadata *meta);
void monitored_remove(struct monitored_set *set, uint64_t id);
void monitored_clear(struct monitored_set *set);
