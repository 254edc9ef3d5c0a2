// SPDX-License-Identifier: GPL-2.0-only
#include "agent/metadata_roots.h"

void metadata_roots_from_config(const struct metadata_config *m, struct metadata_cache *cache,
				struct metadata_roots *ret)
{
#define FROM_CONFIG(field, ...) .field = m->field,
	*ret = (struct metadata_roots){ METADATA_ROOT_FIELDS(FROM_CONFIG) };
	ret->cache = cache;
#undef FROM_CONFIG
}
