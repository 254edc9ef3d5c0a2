/* SPDX-License-Identifier: GPL-2.0-only */
/* The metadata: section of a config as the roots cgroup/metadata reads. */
#pragma once
#include "cgroup/metadata.h"
#include "config/config.h"

/* ret points into m (keep m alive as long as ret is used); cache may be NULL. */
void metadata_roots_from_config(const struct metadata_config *m, struct metadata_cache *cache,
				struct metadata_roots *ret);
