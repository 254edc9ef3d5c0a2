/* SPDX-License-Identifier: GPL-2.0-only */
/* Which cgroups the agent monitors: include/exclude globs on the path and on
 * runtime/name, a depth limit, "containers only", infrastructure and the
 * inner half of a split podman container skipped. */
#pragma once
#include "cgroup/identity.h"
#include "cgroup/metadata.h"
#include <stdbool.h>

struct cg_selector {
	const char *const *include; /* NULL/empty: everything */
	int nr_include;
	const char *const *exclude;
	int nr_exclude;
	bool containers_only; /* only containers and pods */
	int max_depth; /* 0: no limit */
	bool include_infrastructure;
};

/* Patterns: "runtime:GLOB" matches the runtime, "name:GLOB" the container,
 * pod or unit name, anything else the path (see cgroup2_path_matches). A
 * cgroup is selected when it matches some include (or there are none) and
 * no exclude. The root cgroup is never selected. */
bool cg_select(const struct cg_selector *s, const char *rel_path, const struct cg_identity *id,
	       const struct cg_metadata *md);
/* Whether some pattern is "name:": then a container's selection depends on
 * names read from its runtime's files, not on its path alone. */
bool cg_select_uses_names(const struct cg_selector *s);

/* Could any cgroup below rel_path be selected? No when the depth limit is
 * reached, when no include can match anything below it (path patterns:
 * "/kubepods/..." cannot match below "/user.slice"), or when an exclude
 * of a whole subtree (a last "**" component) covers it. Runtime, name and name-only patterns match at any
 * depth, so they always say yes. Directories that say no need no inotify
 * watch (docs/WATCH.md). */
bool cg_select_may_match_below(const struct cg_selector *s, const char *rel_path);
