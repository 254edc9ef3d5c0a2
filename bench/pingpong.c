// SPDX-License-Identifier: GPL-2.0-only
/* pingpong: two processes pass one byte back and forth over a pair of pipes.
 * Every round trip blocks each side once, so it costs (at least) two context
 * switches: the per-switch cost of whatever hooks sched_switch (cgperf's BPF
 * follower, perf's cgroup events) shows up directly in the time per trip.
 *
 * usage: pingpong [-g CGROUP_DIR] [-n TRIPS] [-r REPEATS] [-c CPU] [-w TRIPS]
 *   -g DIR   write our pid to DIR/cgroup.procs before forking, so that both
 *            processes run in that cgroup (an absolute cgroup2 directory)
 *   -n N     round trips per repeat (default 100000)
 *   -r R     repeats; the median is printed (default 5)
 *   -w N     warm-up round trips before the first repeat (default N/10)
 *   -c CPU   pin both processes to CPU: every switch is between the two
 *            tasks of the same cgroup (default: not pinned)
 *   -c A,B   pin the parent to CPU A and the echoing child to CPU B: each
 *            CPU switches between one task and its idle task (another cgroup)
 *   -v       also print every repeat on stderr
 *
 * Prints one line on stdout: the median microseconds per round trip. */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void die(const char *what)
{
	fprintf(stderr, "pingpong: %s: %s\n", what, strerror(errno));
	exit(1);
}

static long parse_long(const char *s, const char *what, long min)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min) {
		fprintf(stderr, "pingpong: invalid %s '%s'\n", what, s);
		exit(2);
	}
	return v;
}

static void join_cgroup(const char *dir)
{
	char path[4096], pid[32];
	FILE *f;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
	f = fopen(path, "we");
	if (!f)
		die(path);
	if (fputs(pid, f) == EOF || fclose(f) == EOF)
		die(path);
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0)
		die("sched_setaffinity");
}

/* One byte there and back, n times. Returns 0, or -1 if the peer is gone. */
static int trips(int wfd, int rfd, long n)
{
	char b = 'x';

	for (long i = 0; i < n; i++) {
		if (write(wfd, &b, 1) != 1)
			return -1;
		if (read(rfd, &b, 1) != 1)
			return -1;
	}
	return 0;
}

/* The child echoes every byte until the parent closes its end. */
static void echo_loop(int rfd, int wfd)
{
	char b;
	ssize_t r;

	while ((r = read(rfd, &b, 1)) == 1)
		if (write(wfd, &b, 1) != 1)
			_exit(1);
	_exit(r == 0 ? 0 : 1);
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	const char *cg_dir = NULL;
	long n = 100000, repeats = 5, warmup = -1, cpu = -1, child_cpu = -1;
	int verbose = 0, opt, to_child[2], to_parent[2], status;
	double *us;
	pid_t child;

	while ((opt = getopt(argc, argv, "g:n:r:w:c:vh")) != -1) {
		switch (opt) {
		case 'g':
			cg_dir = optarg;
			break;
		case 'n':
			n = parse_long(optarg, "trip count", 1);
			break;
		case 'r':
			repeats = parse_long(optarg, "repeat count", 1);
			break;
		case 'w':
			warmup = parse_long(optarg, "warm-up count", 0);
			break;
		case 'c': {
			char buf[64], *comma;
			snprintf(buf, sizeof(buf), "%s", optarg); /* argv stays as given */
			comma = strchr(buf, ',');
			if (comma) {
				*comma = '\0';
				child_cpu = parse_long(comma + 1, "cpu", 0);
			}
			cpu = parse_long(buf, "cpu", 0);
			if (child_cpu < 0)
				child_cpu = cpu;
			break;
		}
		case 'v':
			verbose = 1;
			break;
		default:
			fprintf(stderr, "usage: pingpong [-g CGROUP_DIR] [-n TRIPS] [-r REPEATS] "
					"[-w WARMUP_TRIPS] [-c CPU[,CHILD_CPU]] [-v]\n");
			return opt == 'h' ? 0 : 2;
		}
	}
	if (warmup < 0)
		warmup = n / 10;
	us = calloc(repeats, sizeof(*us));
	if (!us)
		die("calloc");

	if (cg_dir)
		join_cgroup(cg_dir); /* before fork: the child inherits the cgroup */
	if (pipe(to_child) < 0 || pipe(to_parent) < 0)
		die("pipe");
	child = fork();
	if (child < 0)
		die("fork");
	if (child == 0) {
		if (child_cpu >= 0)
			pin((int)child_cpu);
		close(to_child[1]);
		close(to_parent[0]);
		echo_loop(to_child[0], to_parent[1]);
	}
	if (cpu >= 0)
		pin((int)cpu);
	close(to_child[0]);
	close(to_parent[1]);

	if (trips(to_child[1], to_parent[0], warmup) < 0)
		goto peer_gone;
	for (long r = 0; r < repeats; r++) {
		double t0 = now_s();
		if (trips(to_child[1], to_parent[0], n) < 0)
			goto peer_gone;
		us[r] = (now_s() - t0) * 1e6 / n;
		if (verbose)
			fprintf(stderr, "pingpong: repeat %ld: %.3f us/round trip\n", r, us[r]);
	}
	close(to_child[1]);
	if (waitpid(child, &status, 0) < 0)
		die("waitpid");

	qsort(us, repeats, sizeof(*us), cmp_double);
	printf("%.3f\n",
	       repeats % 2 ? us[repeats / 2] : (us[repeats / 2 - 1] + us[repeats / 2]) / 2);
	free(us);
	return 0;

peer_gone:
	fprintf(stderr, "pingpong: the echo process went away\n");
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	return 1;
}
