/* SPDX-License-Identifier: GPL-2.0-only */
/* Where the runtimes keep their state by default: the defaults of
 * METADATA_ROOT_FIELDS (cgroup/metadata.h), which the config's defaults and
 * cgroup/metadata.c's both come from. */
#pragma once

#define METADATA_DEFAULT_DOCKER "/var/lib/docker"
#define METADATA_DEFAULT_CONTAINERD "/run/containerd/io.containerd.runtime.v2.task"
#define METADATA_DEFAULT_CRIO "/run/containers/storage/overlay-containers"
#define METADATA_DEFAULT_PODMAN "/var/lib/containers/storage"
#define METADATA_DEFAULT_POD_LOGS "/var/log/pods"
#define METADATA_DEFAULT_ROOTLESS_DOCKER "%h/.local/share/docker"
#define METADATA_DEFAULT_ROOTLESS_PODMAN "%h/.local/share/containers/storage"
#define METADATA_DEFAULT_ROOTLESS_CONTAINERD "/run/user/%u/containerd/io.containerd.runtime.v2.task"
