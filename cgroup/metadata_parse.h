/* SPDX-License-Identifier: GPL-2.0-only */
/* The parsers behind cg_metadata_lookup(), on bytes in memory: for the fuzz
 * harnesses (tests/fuzz) and the bounds tests. A lookup reads the file and
 * runs the same code. */
#pragma once
#include <stddef.h>

#include "cgroup/metadata.h"

enum metadata_format {
	METADATA_DOCKER_CONFIG, /* config.v2.json */
	METADATA_OCI_CONFIG, /* an OCI bundle's config.json (containerd, CRI-O, podman) */
	METADATA_STORAGE_INDEX, /* containers/storage's containers.json */
	METADATA_POD_DB, /* podman's libpod/bolt_state.db */
};

/* What parsing a file cost: the bytes json-c was handed (the scan of a pod
 * database parses records out of the whole file) and an estimate of the
 * memory an index built from it keeps (what the cache is charged). */
struct metadata_parse_cost {
	size_t parsed;
	size_t kept;
};

/* Parse buf[0..len) (not NUL-terminated) as fmt and fill the empty fields of
 * md for id (the container id; the pod id for METADATA_POD_DB; unused for
 * the per-container files), as a lookup that found this file would; the
 * labels keys->label_keys names (keys NULL: none).
 * Returns 0, -EBADMSG for a file the lookup would ignore, or -ENOMEM;
 * *ret_cost (may be NULL) is set on 0. (A lookup also ignores an index whose
 * ret_cost->kept is over METADATA_CACHE_BUDGET_BYTES; this does not.) */
int metadata_parse(enum metadata_format fmt, const char *buf, size_t len, const char *id,
		   const struct metadata_roots *keys, struct cg_metadata *md,
		   struct metadata_parse_cost *ret_cost);
