// SPDX-License-Identifier: GPL-2.0-only
/* rescancost: what one cg_watch_rescan() of an unchanged tree costs.
 *
 * Creates N leaf cgroups under <cgroup2 root>/cgperf-test-rescan-<pid>/,
 * watches that subtree (as the agent does: every directory watched), then
 * times R rescans that find nothing new and prints CPU and wall microseconds
 * per leaf and the watcher's counters. The cgroups are removed at the end
 * (also when a step fails). Syscalls per leaf: run it under
 * `perf stat -e raw_syscalls:sys_enter` with -r 0 and with -r R and divide
 * the difference by N * R (docs/WATCH.md).
 *
 * usage: rescancost [-n LEAVES] [-r RESCANS] (root: it creates cgroups) */
#include "cgroup/cgroup2.h"
#include "cgroup/watch.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now_us(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* Removes the leaves that exist and the top; returns 0 or -errno. */
static int remove_tree(const char *top, int n)
{
	char path[PATH_MAX + 32]; /* top + "/leaf" + a number */
	int r = 0;

	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/leaf%d", top, i);
		if (rmdir(path) < 0 && errno != ENOENT)
			r = -errno;
	}
	if (rmdir(top) < 0 && errno != ENOENT)
		r = -errno;
	return r;
}

static int make_tree(const char *top, int n)
{
	char path[PATH_MAX + 32]; /* top + "/leaf" + a number */

	if (mkdir(top, 0755) < 0)
		return -errno;
	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/leaf%d", top, i);
		if (mkdir(path, 0755) < 0)
			return -errno;
	}
	return 0;
}

static int time_rescans(struct cg_watch *w, int n, int rescans)
{
	double cpu = now_us(CLOCK_PROCESS_CPUTIME_ID), wall = now_us(CLOCK_MONOTONIC);
	struct cg_watch_stats s;

	for (int i = 0; i < rescans; i++) {
		int r = cg_watch_rescan(w);

		if (r < 0)
			return r;
	}
	cpu = now_us(CLOCK_PROCESS_CPUTIME_ID) - cpu;
	wall = now_us(CLOCK_MONOTONIC) - wall;
	cg_watch_get_stats(w, &s);
	if (rescans > 0) {
		printf("leaves: %d, rescans: %d\n", n, rescans);
		printf("per rescan: %8.0f us CPU, %8.0f us wall\n", cpu / rescans, wall / rescans);
		printf("per leaf:   %8.2f us CPU, %8.2f us wall\n", cpu / rescans / n,
		       wall / rescans / n);
	}
	printf("cgroups %u, watches %u, rescan_fixes %u, rescan_skipped %u\n", s.cgroups, s.watches,
	       s.rescan_fixes, s.rescan_skipped);
	return s.rescan_fixes == 0 ? 0 : -EPROTO;
}

int main(int argc, char **argv)
{
	struct cg_watch_opts o = {};
	char top[PATH_MAX], rel[64];
	int n = 1000, rescans = 20, opt, r, k;
	struct cg_watch *w = NULL;
	const char *root;

	while ((opt = getopt(argc, argv, "n:r:")) != -1) {
		if (opt == 'n')
			n = atoi(optarg);
		else if (opt == 'r')
			rescans = atoi(optarg);
		else
			return 2;
	}
	if (n < 1 || rescans < 0 || cgroup2_root(&root, NULL) < 0)
		return 2;
	snprintf(rel, sizeof(rel), "/cgperf-test-rescan-%d", (int)getpid());
	snprintf(top, sizeof(top), "%s%s", root, rel);

	r = make_tree(top, n);
	o.subtree = rel;
	if (r >= 0)
		r = cg_watch_new(&o, NULL, NULL, &w);
	if (r >= 0)
		r = time_rescans(w, n, rescans);
	cg_watch_free(w);
	k = remove_tree(top, n);
	if (r < 0 || k < 0) {
		fprintf(stderr, "rescancost: %s\n", strerror(-(r < 0 ? r : k)));
		return 1;
	}
	return 0;
}
