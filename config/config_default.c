// SPDX-License-Identifier: GPL-2.0-only
/* The configuration used when the agent is given no file. It is YAML, parsed
 * by the same code as a file, so `cgperf check-config --default` prints a
 * working starting point and the defaults cannot drift from the parser.
 * Its text, config_default_yaml, is packaging/cgperf.yaml embedded at build
 * time (cmake/embed.cmake): the file the package installs as
 * /etc/cgperf/cgperf.yaml is the same bytes. */
#include "config/config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int config_load_default(struct agent_config *ret)
{
	char err[512];
	int r;

	r = config_parse(config_default_yaml, strlen(config_default_yaml), "<default>", ret, err,
			 sizeof(err));
	/* Only a broken build can get here; the unit tests parse the default. */
	if (r < 0 && r != -ENOMEM)
		fprintf(stderr, "cgperf: internal error: %s\n", err);
	return r;
}
