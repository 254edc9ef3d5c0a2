// SPDX-License-Identifier: GPL-2.0-only
/* readcost: what one read of a cgroup counting session costs in user space.
 * Opens a session (the same counter API `cgperf stat -G` uses) over every
 * cgroup matching a glob, and times
 *   counter_sync      (run the follower on every CPU so the counts are current)
 *   counter_sync_periodic (the same, leaving out CPUs that are idle and owe
 *                     nothing: bpf/sync_skip.h; what the agent's intervals run)
 *   counter_read_all  (batch-read and sum the per-CPU accumulators of all slots)
 * separately and back to back.
 *
 * usage: readcost [-e EV,...] [-i ITERATIONS] [-r REPEATS] [-m auto|tp|fexit] [-g GAP_US] PATTERN
 *   PATTERN   cgroup glob relative to the cgroup2 root, as --for-each-cgroup
 *             takes it (e.g. "/cgperf-bench-123/bcg-*")
 *   -e        events (default cpu-clock,task-clock,context-switches,page-faults)
 *   -i        iterations per repeat (default 1000)
 *   -r        repeats; the median repeat is printed (default 5)
 *   -m        follower mode (default auto, as cgperf stat)
 *   -g        sleep GAP_US between calls, not timed (default 0): with a gap
 *             long enough for the other CPUs to go idle (a halted vCPU), a
 *             sync's IPI costs what it costs between the agent's
 *             collections; back to back, they stay awake
 *
 * Needs root. Prints, per line: what, microseconds per call. */
#include "bpf/counter.h"
#include "cgroup/cgroup2.h"
#include "events/event_parse.h"
#include "util/log.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_EVENTS "cpu-clock,task-clock,context-switches,page-faults"

struct cg {
	uint64_t id;
	uint64_t ancestors[CGPERF_MAX_CGROUP_DEPTH];
	int nr_ancestors;
};

struct cg_list {
	struct cg *v;
	int n, cap;
};

static int collect(const char *rel_path, uint64_t id, void *data)
{
	struct cg_list *l = data;
	struct cg *c;
	int r;

	if (l->n == l->cap) {
		int cap = l->cap ? 2 * l->cap : 256;
		struct cg *v = realloc(l->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	c = &l->v[l->n];
	c->id = id;
	r = cgroup2_ancestor_ids(rel_path, c->ancestors, CGPERF_MAX_CGROUP_DEPTH);
	if (r < 0) {
		fprintf(stderr, "readcost: ancestors of '%s': %s\n", rel_path, strerror(-r));
		return r;
	}
	c->nr_ancestors = r;
	l->n++;
	return 0;
}

static double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

enum what {
	SYNC,
	SYNC_PERIODIC,
	READ,
	BOTH,
	NR_WHAT
};
static const char *const what_name[NR_WHAT] = {
	[SYNC] = "sync alone (counter_sync)",
	[SYNC_PERIODIC] = "sync alone (periodic)",
	[READ] = "read alone (counter_read_all)",
	[BOTH] = "sync + read",
};

static long gap_us;

/* Mean microseconds per call over `iters` calls (gap_us apart, not timed). */
static int time_calls(struct counter *c, enum what w, int nr_slots, struct reading *vals,
		      long iters, double *ret_us)
{
	double spent = 0;
	int r = 0;

	for (long i = 0; i < iters && r == 0; i++) {
		double t0;

		if (gap_us)
			usleep((useconds_t)gap_us);
		t0 = now_us();
		if (w == SYNC || w == BOTH)
			r = counter_sync(c);
		else if (w == SYNC_PERIODIC)
			r = counter_sync_periodic(c);
		if (r == 0 && (w == READ || w == BOTH))
			r = counter_read_all(c, nr_slots, vals);
		spent += now_us() - t0;
	}
	*ret_us = spent / iters;
	return r;
}

static long parse_long(const char *s, const char *what)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 1) {
		fprintf(stderr, "readcost: invalid %s '%s'\n", what, s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	const char *events_arg = DEFAULT_EVENTS;
	enum follower_request follower = FOLLOWER_AUTO;
	struct event_spec ev[CGPERF_MAX_EVENTS];
	struct cg_list cgs = { 0 };
	struct counter *c = NULL;
	struct reading *vals = NULL;
	long iters = 1000, repeats = 5;
	double *samples[NR_WHAT] = { 0 };
	char err[512];
	int opt, nr_events, r, rc = 1;
	uint64_t synced, skipped;

	while ((opt = getopt(argc, argv, "e:i:r:m:g:h")) != -1) {
		switch (opt) {
		case 'g':
			gap_us = parse_long(optarg, "gap");
			break;
		case 'e':
			events_arg = optarg;
			break;
		case 'i':
			iters = parse_long(optarg, "iteration count");
			break;
		case 'r':
			repeats = parse_long(optarg, "repeat count");
			break;
		case 'm':
			if (!strcmp(optarg, "tp"))
				follower = FOLLOWER_FORCE_TP;
			else if (!strcmp(optarg, "fexit"))
				follower = FOLLOWER_FORCE_FEXIT;
			else if (strcmp(optarg, "auto")) {
				fprintf(stderr, "readcost: invalid mode '%s'\n", optarg);
				return 2;
			}
			break;
		default:
			fprintf(stderr, "usage: readcost [-e EV,...] [-i ITERATIONS] [-r REPEATS] [-g GAP_US] "
					"[-m auto|tp|fexit] CGROUP_GLOB\n");
			return opt == 'h' ? 0 : 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "readcost: give one cgroup glob (e.g. '/cgperf-bench-1/bcg-*')\n");
		return 2;
	}
	log_set_level(LOG_LVL_WARN);

	nr_events = event_parse_list(events_arg, ev, CGPERF_MAX_EVENTS, err, sizeof(err));
	if (nr_events < 0) {
		fprintf(stderr, "readcost: %s\n", err);
		return 2;
	}
	r = cgroup2_for_each_matching(argv[optind], collect, &cgs);
	if (r <= 0) {
		fprintf(stderr, "readcost: no cgroup matches '%s'%s%s\n", argv[optind],
			r < 0 ? ": " : "", r < 0 ? strerror(-r) : "");
		goto out;
	}

	struct counter_opts co = {
		.events = ev,
		.nr_events = nr_events,
		.filter = CGPERF_FILTER_CGROUP,
		.max_slots = cgs.n,
		.max_keys = cgs.n,
		.follower = follower,
	};
	r = counter_open(&co, &c);
	if (r < 0) {
		fprintf(stderr, "readcost: cannot open the counters: %s\n", strerror(-r));
		goto out;
	}
	for (int i = 0; i < cgs.n; i++) {
		int slot;
		r = counter_add_cgroup(c, cgs.v[i].id, cgs.v[i].ancestors, cgs.v[i].nr_ancestors,
				       &slot);
		if (r < 0) {
			fprintf(stderr, "readcost: cannot add cgroup %d: %s\n", i, strerror(-r));
			goto out;
		}
	}
	counter_enable(c);

	vals = calloc((size_t)cgs.n * nr_events, sizeof(*vals));
	for (int w = 0; w < NR_WHAT; w++)
		samples[w] = calloc(repeats, sizeof(double));
	if (!vals || !samples[SYNC] || !samples[SYNC_PERIODIC] || !samples[READ] || !samples[BOTH]) {
		fprintf(stderr, "readcost: out of memory\n");
		goto out;
	}
	/* Warm up (page in the buffers, the maps' pages), then interleave. */
	double warm;
	if ((r = time_calls(c, BOTH, cgs.n, vals, iters / 10 + 1, &warm)) < 0)
		goto fail;
	for (long rep = 0; rep < repeats; rep++)
		for (int w = 0; w < NR_WHAT; w++)
			if ((r = time_calls(c, w, cgs.n, vals, iters, &samples[w][rep])) < 0)
				goto fail;

	printf("%d cgroups x %d events; follower mode: %s; median of %ld repeats of %ld calls\n",
	       cgs.n, nr_events, follower_mode_name(counter_mode(c)), repeats, iters);
	for (int w = 0; w < NR_WHAT; w++) {
		qsort(samples[w], repeats, sizeof(double), cmp_double);
		printf("  %-32s %10.1f us\n", what_name[w], samples[w][repeats / 2]);
	}
	counter_sync_stats(c, &synced, &skipped);
	printf("  (CPU syncs: %llu run, %llu left out)\n", (unsigned long long)synced,
	       (unsigned long long)skipped);
	rc = 0;
	goto out;
fail:
	fprintf(stderr, "readcost: reading failed: %s\n", strerror(-r));
out:
	for (int w = 0; w < NR_WHAT; w++)
		free(samples[w]);
	free(vals);
	counter_close(c);
	free(cgs.v);
	return rc;
}
