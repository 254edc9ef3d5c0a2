/* SPDX-License-Identifier: GPL-2.0-only */
/* Names for containers, read from the runtimes' own files on disk (no daemon
 * API). Missing or malformed metadata is not an error: fields stay empty and
 * the caller falls back to the short id. */
#pragma once
#include "cgroup/identity.h"

/* Larger metadata files are not read: a config.v2.json is a few KiB, a
 * storage index (containers.json) a few MiB on a busy host. */
#define METADATA_MAX_FILE_BYTES (16u << 20)
/* podman's bolt_state.db (pod names): a database file, larger. */
#define METADATA_MAX_DB_BYTES (64u << 20)

struct metadata_cache;

struct metadata_roots {
	const char *docker; /* default /var/lib/docker: containers/<id>/config.v2.json */
	const char *containerd; /* default /run/containerd/io.containerd.runtime.v2.task:
	                          * <namespace>/<id>/config.json (OCI bundle) */
	const char *crio; /* default /run/containers/storage/overlay-containers:
	                          * <id>/userdata/config.json */
	const char *podman; /* default /var/lib/containers/storage (podman --root):
	                          * <driver>-containers/<id>/userdata/config.json,
	                          * <driver>-containers/containers.json,
	                          * libpod/bolt_state.db (pod names) */
	const char *pod_logs; /* default /var/log/pods: <namespace>_<pod>_<uid>/ */
	/* Rootless runtimes' storage, one per user: "%u" is the uid, "%h" its
	 * home directory (from /etc/passwd), "%%" a '%'. Files there are read
	 * only when they belong to that user. */
	const char *rootless_docker; /* default %h/.local/share/docker */
	const char *rootless_podman; /* default %h/.local/share/containers/storage */
	const char *rootless_containerd; /* default
	                                  * /run/user/%u/containerd/io.containerd.runtime.v2.task */
	/* Parsed shared files (storage indexes, pod databases) kept between
	 * lookups; NULL: parse every time. Owned by the caller. */
	struct metadata_cache *cache;
};

/* Defaults above, each overridable (config metadata:, tests). In a struct
 * passed to cg_metadata_lookup(), a NULL root means its default and an empty
 * string "" means "do not look there". */
void metadata_roots_default(struct metadata_roots *ret);

/* A cache of parsed files keyed by (device, inode, mtime, size): a file
 * rewritten in place or replaced is parsed again. Not thread-safe: one user
 * at a time. */
int metadata_cache_new(struct metadata_cache **ret);
void metadata_cache_free(struct metadata_cache *c);
struct metadata_cache_stats {
	unsigned long long hits, parses;
};
void metadata_cache_get_stats(const struct metadata_cache *c, struct metadata_cache_stats *ret);

struct cg_metadata {
	char container_name[CG_NAME_MAX];
	char image[CG_NAME_MAX];
	char pod_name[CG_NAME_MAX];
	char pod_namespace[CG_NAME_MAX];
	/* Raw strings as found: may hold any byte except NUL (newlines, control
	 * characters); writers escape them. Longer values are cut at
	 * CG_NAME_MAX - 1 bytes, never inside a UTF-8 sequence. */

	/* The runtime whose files answered ("" if none did). Tells the runtime
	 * of a cgroupfs-driver Kubernetes container, whose path does not. */
	char runtime[16];
};

/* Fill what can be found for id (a container or a pod). Always returns 0
 * unless id or ret is NULL (-EINVAL); unknown fields stay "". roots NULL:
 * all defaults. A rootless id is looked up only in its user's storage, a
 * host one only in the host's. Files are read without following symlinks
 * below a root and only up to METADATA_MAX_FILE_BYTES; see docs/IDENTITY.md. */
int cg_metadata_lookup(const struct metadata_roots *roots, const struct cg_identity *id,
		       struct cg_metadata *ret);
