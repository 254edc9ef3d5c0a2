// SPDX-License-Identifier: GPL-2.0-only
/* cpu_oracle: tests/lib/cpu_oracle.c for shell tests.
 *   cpu_oracle snap                     per-CPU steal now, one line
 *   cpu_oracle steal BEFORE AFTER [CPUS]
 *                                       upper bound (ms) of the steal between
 *                                       two snapshots on CPUS (default: all)
 *   cpu_oracle check WHAT GOT_MS USAGE_MS TOL_PCT STEAL_MS
 *                                       prints the verdict; exit 0 when the
 *                                       cpu-clock reading agrees with cpu.stat */
#include "tests/lib/cpu_oracle.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int usage(void)
{
	fprintf(stderr, "usage: cpu_oracle snap | steal BEFORE AFTER [CPUS] |"
			" check WHAT GOT_MS USAGE_MS TOL_PCT STEAL_MS\n");
	return 2;
}

static int do_snap(void)
{
	static char buf[STEAL_MAX_CPUS * 24];
	struct steal_snapshot s;

	if (steal_snapshot_take(&s) < 0 || steal_snapshot_format(&s, buf, sizeof(buf)) < 0)
		return 1;
	puts(buf);
	return 0;
}

static int do_steal(int argc, char **argv)
{
	struct steal_snapshot before, after;
	bool some = argc > 2 && argv[2][0];
	cpu_set_t cpus;

	if (steal_snapshot_parse(argv[0], &before) < 0 ||
	    steal_snapshot_parse(argv[1], &after) < 0 ||
	    (some && cpu_list_parse(argv[2], &cpus) < 0))
		return usage();
	printf("%.3f\n", steal_bound_ms(&before, &after, some ? &cpus : NULL));
	return 0;
}

static int do_check(char **argv)
{
	char msg[256];
	bool ok = cpu_clock_agrees(atof(argv[1]), atof(argv[2]), atof(argv[3]), atof(argv[4]), msg,
				   sizeof(msg));

	printf("%s: %s\n", argv[0], msg);
	return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "snap"))
		return do_snap();
	if ((argc == 4 || argc == 5) && !strcmp(argv[1], "steal"))
		return do_steal(argc - 2, argv + 2);
	if (argc == 7 && !strcmp(argv[1], "check"))
		return do_check(argv + 2);
	return usage();
}
