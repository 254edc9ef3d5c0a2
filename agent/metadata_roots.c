// SPDX-License-Identifier: GPL-2.0-only
#include "agent/metadata_roots.h"

void metadata_roots_from_config(const struct metadata_config *m, struct metadata_cache *cache,
				struct metadata_roots *ret)
{
	*ret = (struct metadata_roots){
		.docker = m->docker,
		.containerd = m->containerd,
		.crio = m->crio,
		.podman = m->podman,
		.pod_logs = m->pod_logs,
		.rootless_docker = m->rootless_docker,
		.rootless_podman = m->rootless_podman,
		.rootless_containerd = m->rootless_containerd,
		.cache = cache,
	};
}
