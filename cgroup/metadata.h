/* Names for containers, read from the runtimes' own files on disk (no daemon
 * API). Missing or malformed metadata is not an error: fields stay empty and
 * the caller falls back to the short id. */
#pragma once
#include "cgroup/identity.h"

/* Larger metadata files are not read: a config.v2.json is a few KiB. */
#define METADATA_MAX_FILE_BYTES (4u << 20)

struct metadata_roots {
	const char *docker;      /* default /var/lib/docker: containers/<id>/config.v2.json */
	const char *containerd;  /* default /run/containerd/io.containerd.runtime.v2.task:
	                          * <namespace>/<id>/config.json (OCI bundle) */
	const char *crio;        /* default /run/containers/storage/overlay-containers:
	                          * <id>/userdata/config.json */
	const char *podman;      /* default /var/lib/containers/storage/overlay-containers:
	                          * <id>/userdata/config.json */
	const char *pod_logs;    /* default /var/log/pods: <namespace>_<pod>_<uid>/ */
};

/* Defaults above, each overridable (tests point them at fixtures). In a
 * struct passed to cg_metadata_lookup(), a NULL root means its default and
 * an empty string "" means "do not look there". */
void metadata_roots_default(struct metadata_roots *ret);

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
 * all defaults. Files are read without following symlinks below a root and
 * only up to METADATA_MAX_FILE_BYTES; see docs/IDENTITY.md. */
int cg_metadata_lookup(const struct metadata_roots *roots, const struct cg_identity *id,
		       struct cg_metadata *ret);
