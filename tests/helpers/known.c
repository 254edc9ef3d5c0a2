// SPDX-License-Identifier: GPL-2.0-only
/* known MODE N [--no-stop]: a workload whose event counts the kernel also keeps per task,
 * so a test can compare cgperf with them.
 *   known switches N   a ping-pong over pipes with a forked partner, N round
 *                      trips: each of the two processes blocks N times
 *                      (voluntary context switches; pin both to one CPU so
 *                      every read has to wait)
 *   known faults N     touches N fresh anonymous pages (N minor page faults)
 *   known sleeps N     N times: touch a fresh page, sleep 100 us (N faults, N
 *                      voluntary switches, each one to idle on a CPU that has
 *                      nothing else to run)
 *   known moves N      50 times: N faults at once, sleep 20 us (each sleep
 *                      a switch to idle after a burst); then writes its pid
 *                      to the cgroup.procs file $KNOWN_MOVE_TO (moving
 *                      itself while it runs) and prints its minflt from
 *                      before the move on standard output
 *   known selfmove N   moves itself to its own cgroup ($KNOWN_MOVE_FROM's
 *                      cgroup.procs: it warms the lock), touches N fresh
 *                      pages, moves itself to $KNOWN_MOVE_TO while it runs;
 *                      prints its minflt before the move and after, and
 *                      whether it was switched out from its first fault to
 *                      the end of the move (slept or preempted: a switch
 *                      reads)
 * When done the process stops itself (SIGSTOP): the test reads the per-task
 * counts in /proc (voluntary_ctxt_switches, minflt) while nothing changes,
 * then sends SIGCONT and the workload exits. --no-stop: exit at once. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int stop_when_done = 1;

static void done(void)
{
	if (stop_when_done)
		raise(SIGSTOP);
}

static int ping_pong(long n)
{
	int to_child[2], to_parent[2];
	char c = 'x';
	pid_t pid;

	if (pipe(to_child) < 0 || pipe(to_parent) < 0)
		return 1;
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		/* Answer every byte; end when the parent closes its end. */
		close(to_child[1]);
		close(to_parent[0]);
		while (read(to_child[0], &c, 1) == 1)
			if (write(to_parent[1], &c, 1) != 1)
				_exit(1);
		_exit(0);
	}
	close(to_child[0]);
	close(to_parent[1]);
	for (long i = 0; i < n; i++)
		if (write(to_child[1], &c, 1) != 1 || read(to_parent[0], &c, 1) != 1)
			return 1;
	done();
	close(to_child[1]);
	return waitpid(pid, NULL, 0) == pid ? 0 : 1;
}

/* n fresh small pages touched (n minor faults), nap_us of sleep after each (0:
 * none); unmapped after. */
static int touch_fresh_pages(long n, long nap_us)
{
	long page = sysconf(_SC_PAGESIZE);
	struct timespec nap = { .tv_nsec = nap_us * 1000 };
	char *p = mmap(NULL, n * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return 1;
	/* One fault per page whatever the host's THP setting ("always" on
	 * Debian's kernels: a huge page would take 512 pages in one fault). */
	if (madvise(p, n * page, MADV_NOHUGEPAGE) < 0 && errno != EINVAL) /* EINVAL: no THP */
		return 1;
	for (long i = 0; i < n; i++) {
		p[i * page] = 1;
		if (nap_us)
			nanosleep(&nap, NULL);
	}
	munmap(p, n * page);
	return 0;
}

static int touch_then_stop(long n, long nap_us)
{
	if (touch_fresh_pages(n, nap_us))
		return 1;
	done();
	return 0;
}

/* 50 times: n faults at once, then a 20 us sleep; then the task moves
 * itself (while it runs) to the cgroup whose cgroup.procs is
 * $KNOWN_MOVE_TO. */
static int sleep_then_move(long n)
{
	const char *to = getenv("KNOWN_MOVE_TO");
	struct timespec nap = { .tv_nsec = 20 * 1000 };
	struct rusage u;
	char pid[32];
	int fd, len;

	if (!to)
		return 1;
	for (int c = 0; c < 50; c++) {
		if (touch_fresh_pages(n, 0))
			return 1;
		nanosleep(&nap, NULL);
	}
	len = snprintf(pid, sizeof(pid), "%d", (int)getpid());
	if (getrusage(RUSAGE_SELF, &u) < 0 || (fd = open(to, O_WRONLY | O_CLOEXEC)) < 0)
		return 1;
	if (write(fd, pid, len) != len)
		return 1;
	close(fd);
	printf("%ld\n", u.ru_minflt);
	fflush(stdout);
	done();
	return 0;
}

/* selfmove: faults, then a move of the task to another cgroup while it
 * runs, with nothing in between that reads: the write of cgroup.procs
 * sleeps (and so flushes) only when the cgroup lock's fast path is cold,
 * so it moves to its own cgroup first, which warms it for some ms. */
/* Switches of this task, voluntary or not (either one reads). */
static long nr_switches(void)
{
	struct rusage u;

	return getrusage(RUSAGE_SELF, &u) < 0 ? -1 : u.ru_nvcsw + u.ru_nivcsw;
}

static int write_pid(const char *path)
{
	char pid[32];
	int fd, len = snprintf(pid, sizeof(pid), "%d", (int)getpid()), ok;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ok = write(fd, pid, len) == len;
	close(fd);
	return ok ? 0 : -1;
}

static int touch_then_move(long n)
{
	const char *from = getenv("KNOWN_MOVE_FROM"), *to = getenv("KNOWN_MOVE_TO");
	struct rusage before, after;
	long slept, sw;

	/* Switched out anywhere from the first fault to the end of the move,
	 * a switch reads: the case is not exercised. */
	if (!from || !to || write_pid(from) < 0 || (sw = nr_switches()) < 0 ||
	    touch_fresh_pages(n, 0) || getrusage(RUSAGE_SELF, &before) < 0 || write_pid(to) < 0)
		return 1;
	slept = nr_switches() - sw;
	if (getrusage(RUSAGE_SELF, &after) < 0)
		return 1;
	printf("%ld %ld %ld\n", before.ru_minflt, after.ru_minflt, slept);
	fflush(stdout);
	done();
	return 0;
}

int main(int argc, char **argv)
{
	long n = argc >= 3 ? atol(argv[2]) : 0;

	if (argc == 4 && !strcmp(argv[3], "--no-stop"))
		stop_when_done = 0;
	else if (argc != 3)
		n = 0;
	if (n <= 0) {
		fprintf(stderr,
			"usage: known switches|faults|sleeps|moves|selfmove N [--no-stop]\n");
		return 2;
	}
	if (!strcmp(argv[1], "switches"))
		return ping_pong(n);
	if (!strcmp(argv[1], "faults"))
		return touch_then_stop(n, 0);
	if (!strcmp(argv[1], "sleeps"))
		return touch_then_stop(n, 100);
	if (!strcmp(argv[1], "moves"))
		return sleep_then_move(n);
	if (!strcmp(argv[1], "selfmove"))
		return touch_then_move(n);
	fprintf(stderr, "known: unknown mode '%s'\n", argv[1]);
	return 2;
}
