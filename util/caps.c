// SPDX-License-Identifier: GPL-2.0-only
#include "util/caps.h"
#include <errno.h>
#include <stdio.h>

const char *caps_needed(int err, const char *caps)
{
	static __thread char buf[128];

	if (err != EPERM && err != EACCES)
		return "";
	snprintf(buf, sizeof(buf), " (needs %s)", caps);
	return buf;
}
