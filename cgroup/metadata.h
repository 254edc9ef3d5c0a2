/* SPDX-License-Identifier: GPL-2.0-only */
/* Names for containers, read from the runtimes' own files on disk (no daemon
 * API). Missing or malformed metadata is not an error: fields stay empty and
 * the caller falls back to the short id. */
#pragma once
#include "cgroup/identity.h"
#include "cgroup/metadata_defaults.h"

/* Larger metadata files are not read: a config.v2.json is a few KiB, a
 * storage index (containers.json) a few MiB on a busy host. */
#define METADATA_MAX_FILE_BYTES (16u << 20)
/* podman's bolt_state.db (pod names): a database file, larger. */
#define METADATA_MAX_DB_BYTES (64u << 20)

struct metadata_cache;

/* Runtime labels read per container: at most this many keys, each key and
 * value at most METADATA_LABEL_MAX - 1 bytes (a longer value is cut). */
#define METADATA_MAX_LABELS 4
#define METADATA_LABEL_MAX 128

/* Every root of struct metadata_roots, once, as X(field, default, per_user):
 * the struct, the defaults, the overrides and the config's metadata: keys
 * (config/config_metadata.c) are all made from this list, so a root added
 * here reaches each of them. What is read below each root:
 *   docker      containers/<id>/config.v2.json
 *   containerd  <namespace>/<id>/config.json (OCI bundle)
 *   crio        <id>/userdata/config.json
 *   podman      (podman --root) <driver>-containers/<id>/userdata/config.json,
 *               <driver>-containers/containers.json, libpod/bolt_state.db (pod names)
 *   pod_logs    <namespace>_<pod>_<uid>/
 *   rootless_*  as docker, podman and containerd, in a rootless user's storage
 * per_user: the root is a template for each rootless user, where "%u" is the
 * uid, "%h" its home directory (from /etc/passwd), "%%" a '%'; files there
 * are read only when they belong to that user. */
#define METADATA_ROOT_FIELDS(X)                                    \
	X(docker, METADATA_DEFAULT_DOCKER, false)                  \
	X(containerd, METADATA_DEFAULT_CONTAINERD, false)          \
	X(crio, METADATA_DEFAULT_CRIO, false)                      \
	X(podman, METADATA_DEFAULT_PODMAN, false)                  \
	X(pod_logs, METADATA_DEFAULT_POD_LOGS, false)              \
	X(rootless_docker, METADATA_DEFAULT_ROOTLESS_DOCKER, true) \
	X(rootless_podman, METADATA_DEFAULT_ROOTLESS_PODMAN, true) \
	X(rootless_containerd, METADATA_DEFAULT_ROOTLESS_CONTAINERD, true)

#define METADATA_ROOT_PLUS_ONE(...) +1
#define METADATA_NR_ROOTS (0 METADATA_ROOT_FIELDS(METADATA_ROOT_PLUS_ONE))

struct metadata_roots {
#define METADATA_ROOT_MEMBER(field, ...) const char *field;
	METADATA_ROOT_FIELDS(METADATA_ROOT_MEMBER)
#undef METADATA_ROOT_MEMBER
	/* Parsed shared files (storage indexes, pod databases) kept between
	 * lookups; NULL: parse every time. Owned by the caller. */
	struct metadata_cache *cache;
	/* The runtime labels a lookup reads (outputs.prometheus.container_labels),
	 * by key: an allow-list, since a tenant chooses a label's key, value and
	 * how many there are. */
	char label_keys[METADATA_MAX_LABELS][METADATA_LABEL_MAX];
	int nr_label_keys;
};

/* The defaults (METADATA_DEFAULT_*), each overridable (config metadata:,
 * tests). In a struct passed to cg_metadata_lookup(), a NULL root means its
 * default and an empty string "" means "do not look there". */
void metadata_roots_default(struct metadata_roots *ret);

/* A cache of parsed files keyed by (device, inode, mtime, size): a file
 * rewritten in place or replaced is parsed again. Not thread-safe: one user
 * at a time. */
int metadata_cache_new(struct metadata_cache **ret);
void metadata_cache_free(struct metadata_cache *c);
/* Shared files kept parsed: a storage index and a pod database per podman
 * root (the host's and each rootless user's). */
#define METADATA_CACHE_SLOTS 32
/* What the cache keeps in all: estimated bytes of its parsed objects. A
 * rootless user writes their own indexes; without a budget 32 slots of
 * tenant-sized indexes would be gigabytes. A file whose index alone is over
 * it gives no names, and is remembered so (a slot, no bytes) until it
 * changes: not parsed again at every lookup. */
#define METADATA_CACHE_BUDGET_BYTES (32u << 20)
struct metadata_cache_stats {
	unsigned long long hits; /* lookups answered by a kept index */
	unsigned long long parses; /* files parsed (over the budget or not) */
	unsigned long long over_budget; /* lookups refused: the file's index is over the budget */
	unsigned long long evictions; /* indexes dropped for room (slots or budget) */
	size_t kept; /* estimated bytes kept now, at most METADATA_CACHE_BUDGET_BYTES */
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
	/* The values of metadata_roots' label_keys, in their order ("" where
	 * the container has no such label). Read from Docker's Config.Labels
	 * and an OCI bundle's annotations; the Kubernetes keys
	 * io.kubernetes.{pod.name,pod.namespace,container.name} fall back to
	 * the names above (containerd and CRI-O spell them otherwise). */
	char labels[METADATA_MAX_LABELS][METADATA_LABEL_MAX];
};

/* Fill what can be found for id (a container or a pod). Always returns 0
 * unless id or ret is NULL (-EINVAL); unknown fields stay "". roots NULL:
 * all defaults. A rootless id is looked up only in its user's storage, a
 * host one only in the host's. Files are read without following symlinks
 * below a root and only up to METADATA_MAX_FILE_BYTES; see docs/IDENTITY.md. */
int cg_metadata_lookup(const struct metadata_roots *roots, const struct cg_identity *id,
		       struct cg_metadata *ret);
