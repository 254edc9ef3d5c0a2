// SPDX-License-Identifier: GPL-2.0-only
#include "cgroup/display_name.h"
#include <stdio.h>
#include <string.h>

void cg_short_id(const struct cg_identity *ident, char ret[CG_SHORT_ID_SIZE])
{
	snprintf(ret, CG_SHORT_ID_SIZE, "%.12s", ident->container_id);
}

/* The runtime's name goes first whatever the kind: a record keeps the names
 * it was given (persisted across restarts) even if its path is read
 * otherwise later, and the agent has always written them. */
const char *cg_container_name(const struct cg_identity *ident, const struct cg_metadata *md,
			      const char *short_id)
{
	if (md->container_name[0])
		return md->container_name;
	/* Unnamed containers are known by their short id (`docker ps`). */
	if (ident->kind == CG_KIND_CONTAINER && short_id[0])
		return short_id;
	/* identity.c sets lxc_name on LXC containers alone. */
	return ident->lxc_name;
}

void cg_display_name(const char *path, const struct cg_identity *ident,
		     const struct cg_metadata *md, char *buf, size_t size)
{
	const char *last = strrchr(path, '/');
	char short_id[CG_SHORT_ID_SIZE];
	const char *name;

	cg_short_id(ident, short_id);
	name = cg_container_name(ident, md, short_id);
	if (name[0])
		snprintf(buf, size, "%s", name);
	else if (ident->kind == CG_KIND_POD && md->pod_name[0])
		snprintf(buf, size, "%s%s%s", md->pod_namespace, md->pod_namespace[0] ? "/" : "",
			 md->pod_name);
	else if (ident->kind == CG_KIND_POD && ident->pod_uid[0])
		snprintf(buf, size, "pod %s", ident->pod_uid);
	else if (ident->unit[0])
		snprintf(buf, size, "%s", ident->unit);
	else
		snprintf(buf, size, "%s", last && last[1] ? last + 1 : path);
}
