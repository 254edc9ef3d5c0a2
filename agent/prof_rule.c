// SPDX-License-Identifier: GPL-2.0-only
#include "agent/prof_rule.h"

enum prof_step prof_rule_step(bool attached, bool never, bool held_off, bool ever, bool ran)
{
	if (attached)
		return ran ? PROF_STAY : PROF_DETACH;
	if (never || held_off)
		return PROF_STAY;
	return ran || !ever ? PROF_ATTACH : PROF_STAY;
}
