// SPDX-License-Identifier: GPL-2.0-only
/* forker CHILDREN SECONDS: fork CHILDREN processes, each burning SECONDS of CPU
 * time (the parent burns nothing), wait for all, exit 0. Used to check that
 * counting a process includes the children it forks. With FORKER_CPU_OUT=FILE
 * set, it writes there the CPU time, in ms, that it and its children used:
 * the kernel's own count (getrusage: utime + stime add up to the tasks' exec
 * runtime), not the SECONDS asked for, which leave out each child's fork,
 * page faults and exit (tens of ms each under emulation). */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void burn(double seconds)
{
	struct timespec ts;
	volatile unsigned long x = 0;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	double end = ts.tv_sec + ts.tv_nsec / 1e9 + seconds, now;
	do {
		for (int i = 0; i < 10000; i++)
			x += i;
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
		now = ts.tv_sec + ts.tv_nsec / 1e9;
	} while (now < end);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: forker CHILDREN SECONDS\n");
		return 2;
	}
	int n = atoi(argv[1]);
	double seconds = atof(argv[2]);
	for (int i = 0; i < n; i++) {
		pid_t pid = fork();
		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (pid == 0) {
			burn(seconds);
			_exit(0);
		}
	}
	int status, rc = 0;
	while (wait(&status) > 0)
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			rc = 1;
	const char *out = getenv("FORKER_CPU_OUT");
	if (out) {
		struct rusage self, children;
		FILE *f = fopen(out, "w");
		if (!f || getrusage(RUSAGE_SELF, &self) || getrusage(RUSAGE_CHILDREN, &children)) {
			perror(out);
			return 1;
		}
		double ms = 0;
		const struct timeval *tv[] = { &self.ru_utime, &self.ru_stime, &children.ru_utime,
					       &children.ru_stime };
		for (int i = 0; i < 4; i++)
			ms += tv[i]->tv_sec * 1e3 + tv[i]->tv_usec / 1e3;
		fprintf(f, "%.3f\n", ms);
		if (fclose(f))
			return 1;
	}
	return rc;
}
