/* SPDX-License-Identifier: GPL-2.0-only */
/* The cgroups: section of a config as the selector cgroup/select applies:
 * what the agent monitors, and what `cgperf top` shows by default. */
#pragma once
#include "cgroup/select.h"
#include "config/config.h"

/* ret points into cfg and into include/exclude (room for
 * CONFIG_MAX_PATTERNS each): keep them alive as long as ret is used. */
void config_selector(const struct agent_config *cfg, const char **include, const char **exclude,
		     struct cg_selector *ret);
