/* The configuration used when the agent is given no file. It is YAML, parsed
 * by the same code as a file, so `cgperf check-config --default` prints a
 * working starting point and the defaults cannot drift from the parser. */
#include "config/config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

const char config_default_yaml[] =
	"# cgperf agent configuration (see docs/CONFIG.md)\n"
	"interval: 10s\n"
	"# Events this host cannot count are skipped with one warning each.\n"
	"events: [cycles, instructions, cpu-clock, context-switches]\n"
	"cgroups:\n"
	"  include: [\"/**\"]        # every container and service on the host\n"
	"  exclude: []\n"
	"  containers_only: false\n"
	"  max: 4096\n"
	"  max_depth: 0            # 0: no limit\n"
	"outputs:\n"
	"  csv:\n"
	"    directory: /var/log/cgperf\n"
	"    max_size: 64MiB       # rotate a file past this (0: never)\n"
	"    max_files: 10         # rotated files kept per cgroup\n"
	"  # syslog:\n"
	"  #   target: unix:/dev/log   # or udp://HOST:PORT, tcp://HOST:PORT\n"
	"  #   format: rfc3164         # default: rfc3164 for unix:, rfc5424 otherwise\n"
	"  #   facility: daemon\n"
	"  #   app_name: cgperf\n"
	"  #   enterprise_id: 32473   # placeholder PEN (RFC 5612); use your own\n"
	"  #   queue_max: 1000\n";

int config_load_default(struct agent_config *ret) {
	char err[512];
	int r;

	r = config_parse(config_default_yaml, strlen(config_default_yaml), "<default>", ret, err, sizeof(err));
	/* Only a broken build can get here; the unit tests parse the default. */
	if (r < 0 && r != -ENOMEM)
		fprintf(stderr, "cgperf: internal error: %s\n", err);
	return r;
}
