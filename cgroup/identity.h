/* SPDX-License-Identifier: GPL-2.0-only */
/* What a cgroup is, recognised from its path alone: container, pod, service,
 * slice; which runtime; container id; pod uid. Runtime layouts count only
 * where their runtime puts them, below the configured root. No I/O. */
#pragma once
#include <stdbool.h>
#include <stddef.h>

enum cg_kind {
	CG_KIND_OTHER,
	CG_KIND_CONTAINER,
	CG_KIND_POD,
	CG_KIND_SERVICE,
	CG_KIND_SLICE
};

#define CG_ID_MAX 65 /* 64 hex + NUL */
#define CG_NAME_MAX 256

struct cg_identity {
	enum cg_kind kind;
	/* "docker", "containerd", "crio", "podman", "nerdctl", "lxc", "systemd", "" */
	char runtime[16];
	char container_id[CG_ID_MAX]; /* full id as found in the path; "" if none */
	/* Kubernetes pod UID with dashes (API form), or a podman pod's
	 * 64-hex id; "" if none */
	char pod_uid[CG_ID_MAX];
	char qos[16]; /* "guaranteed", "burstable", "besteffort", "" */
	char unit[CG_NAME_MAX]; /* systemd unit name, \x2d etc. unescaped; "" if none */
	char lxc_name[CG_NAME_MAX]; /* lxc.payload.<name> */
	bool rootless; /* under the user manager user@<uid>.service */
	unsigned uid; /* that user (0 unless rootless) */
	/* Below a recognised container (not its inner cgroup): part of that
	 * container, whatever its name says; never a container or pod. */
	bool nested;
	bool infrastructure; /* conmon, *.mount, *.socket, *.swap, init.scope:
	                               * skipped by default */
	/* The runtime's inner cgroup of a container (libpod-<id>.scope/container,
	 * as crun creates it): the same container as its parent, with the same
	 * ids. Listing both shows that container twice; callers pick one. */
	bool container_inner;
};

const char *cg_kind_name(enum cg_kind k); /* "container", "pod", "service", "slice", "other" */

/* Classify rel_path ("/system.slice/docker-<64hex>.scope", ...), relative to
 * the cgroup2 mount, with runtime layouts anchored at root (cgroups.root:
 * "/" on a host; a test's own subtree in tests). Outside root only unit
 * names count. Never fails on odd input: unknown shapes are CG_KIND_OTHER.
 * Returns 0 or -EINVAL for a NULL/empty path (or NULL ret, which is then
 * untouched). The recognised layouts are listed in docs/IDENTITY.md. */
int cg_identify_at(const char *root, const char *rel_path, struct cg_identity *ret);
/* cg_identify_at("/", ...) */
int cg_identify(const char *rel_path, struct cg_identity *ret);
/* Host containers or pods can appear somewhere below rel_path: it is root,
 * above it, a runtime's parent (system.slice, docker, kubepods, ...) or a
 * level of kubelet's tree. Delegated subtrees never hold them. */
bool cg_may_hold_host_containers(const char *root, const char *rel_path);
