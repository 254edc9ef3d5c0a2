// SPDX-License-Identifier: GPL-2.0-only
#include "cgroup/select.h"
#include "cgroup/cgroup2.h"
#include <fnmatch.h>
#include <string.h>

static bool name_matches(const char *glob, const struct cg_identity *id,
			 const struct cg_metadata *md)
{
	const char *names[] = { md ? md->container_name : "", md ? md->pod_name : "", id->unit,
				id->lxc_name };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i][0] && fnmatch(glob, names[i], 0) == 0)
			return true;
	return false;
}

static bool pattern_matches(const char *pat, const char *rel_path, const struct cg_identity *id,
			    const struct cg_metadata *md)
{
	if (!strncmp(pat, "runtime:", 8))
		return fnmatch(pat + 8, id->runtime, 0) == 0;
	if (!strncmp(pat, "name:", 5))
		return name_matches(pat + 5, id, md);
	return cgroup2_path_matches(pat, rel_path);
}

static bool any_matches(const char *const *pats, int n, const char *rel_path,
			const struct cg_identity *id, const struct cg_metadata *md)
{
	for (int i = 0; i < n; i++)
		if (pattern_matches(pats[i], rel_path, id, md))
			return true;
	return false;
}

bool cg_select(const struct cg_selector *s, const char *rel_path, const struct cg_identity *id,
	       const struct cg_metadata *md)
{
	if (!rel_path || !strcmp(rel_path, "/") || !*rel_path)
		return false;
	if (id->infrastructure && !s->include_infrastructure)
		return false;
	/* podman's libpod-<id>.scope/container is the same container as its
	 * parent: one row, the parent's (which includes the child's counts). */
	if (id->container_inner)
		return false;
	if (s->containers_only && id->kind != CG_KIND_CONTAINER && id->kind != CG_KIND_POD)
		return false;
	if (s->max_depth > 0 && cgroup2_level(rel_path) > s->max_depth)
		return false;
	if (s->nr_include > 0 && !any_matches(s->include, s->nr_include, rel_path, id, md))
		return false;
	return !any_matches(s->exclude, s->nr_exclude, rel_path, id, md);
}

bool cg_select_uses_names(const struct cg_selector *s)
{
	for (int i = 0; i < s->nr_include; i++)
		if (!strncmp(s->include[i], "name:", 5))
			return true;
	for (int i = 0; i < s->nr_exclude; i++)
		if (!strncmp(s->exclude[i], "name:", 5))
			return true;
	return false;
}

static bool is_path_pattern(const char *pat)
{
	return strncmp(pat, "runtime:", 8) && strncmp(pat, "name:", 5) && strchr(pat, '/');
}

/* An exclude whose last component is "**" and that matches a cgroup matches
 * everything below it too. */
static bool excluded_with_subtree(const struct cg_selector *s, const char *rel_path)
{
	for (int i = 0; i < s->nr_exclude; i++) {
		const char *pat = s->exclude[i];
		size_t n = strlen(pat);

		if (is_path_pattern(pat) && n >= 3 && !strcmp(pat + n - 3, "/**") &&
		    cgroup2_path_matches(pat, rel_path))
			return true;
	}
	return false;
}

bool cg_select_may_match_below(const struct cg_selector *s, const char *rel_path)
{
	if (s->max_depth > 0 && cgroup2_level(rel_path) >= s->max_depth)
		return false;
	if (excluded_with_subtree(s, rel_path))
		return false;
	if (s->nr_include == 0)
		return true;
	for (int i = 0; i < s->nr_include; i++)
		if (!is_path_pattern(s->include[i]) ||
		    cgroup2_path_may_match_below(s->include[i], rel_path))
			return true;
	return false;
}
