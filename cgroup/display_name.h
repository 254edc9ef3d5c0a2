/* SPDX-License-Identifier: GPL-2.0-only */
/* What a person calls a cgroup, from its identity and the names its
 * runtime's files gave: the one rule behind the agent's container_name
 * (CSV, syslog, Prometheus), `cgperf list` and `cgperf top`. Raw bytes:
 * every output escapes them its own way. docs/IDENTITY.md, "Display names". */
#pragma once
#include "cgroup/identity.h"
#include "cgroup/metadata.h"
#include <stddef.h>

/* 12 characters, as `docker ps` shows an id, and the NUL. */
#define CG_SHORT_ID_SIZE 13
/* Holds every display name whole: "namespace/pod" at the longest. */
#define CG_DISPLAY_NAME_SIZE (2 * CG_NAME_MAX + 8)

/* The first 12 characters of ident's container id; "" if it has none. */
void cg_short_id(const struct cg_identity *ident, char ret[CG_SHORT_ID_SIZE]);

/* The container_name column: the name the runtime's files gave, else a
 * container's short id (short_id, from cg_short_id), else its LXC name; ""
 * when none applies. Points into md, short_id or ident. */
const char *cg_container_name(const struct cg_identity *ident, const struct cg_metadata *md,
			      const char *short_id);

/* The display name: cg_container_name(), else a pod's "namespace/name"
 * (its name alone without a namespace), else "pod <uid>", else the systemd
 * unit, else the last component of path (path itself when that is empty,
 * as for "/"). Cut to fit size (size > 0). */
void cg_display_name(const char *path, const struct cg_identity *ident,
		     const struct cg_metadata *md, char *buf, size_t size);
