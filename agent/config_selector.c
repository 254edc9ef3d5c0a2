// SPDX-License-Identifier: GPL-2.0-only
#include "agent/config_selector.h"

void config_selector(const struct agent_config *cfg, const char **include, const char **exclude,
		     struct cg_selector *ret)
{
	for (int i = 0; i < cfg->cgroups.nr_include; i++)
		include[i] = cfg->cgroups.include[i];
	for (int i = 0; i < cfg->cgroups.nr_exclude; i++)
		exclude[i] = cfg->cgroups.exclude[i];
	*ret = (struct cg_selector){
		.include = include,
		.nr_include = cfg->cgroups.nr_include,
		.exclude = exclude,
		.nr_exclude = cfg->cgroups.nr_exclude,
		.containers_only = cfg->cgroups.containers_only,
		.include_infrastructure = cfg->cgroups.include_infrastructure,
		.max_depth = cfg->cgroups.max_depth,
	};
}
