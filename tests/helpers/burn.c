// SPDX-License-Identifier: GPL-2.0-only
/* burn SECONDS [THREADS [DELAY [stop|leader-exits|exit-group]]]: start THREADS threads,
 * sleep DELAY seconds (time for a counter to attach to a thread), then burn
 * SECONDS of CPU time per thread (CPU time, not wall time, so a busy CI
 * machine changes only how long it takes), then exit; with "stop", stop
 * (SIGSTOP) instead until the caller kills it: its CPU goes idle right after
 * it, without the kernel work an exit does there. With "leader-exits", the
 * main thread burns nothing: it ends (pthread_exit) DELAY + 0.1 s in, while
 * the other THREADS - 1 burn, and the process lives on as long as they do.
 * With "exit-group", the main thread burns nothing either: it starts the
 * others DELAY in, and ends the process (exit) SECONDS / 2 later, in the
 * midst of their burning. DELAY may instead be the path of a FIFO: the threads
 * start burning once a line is written there (a counter attached to a thread
 * then sees all of its burning however slow the attach was). */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double cpu_seconds, delay_seconds;
static const char *go_fifo;
static pthread_mutex_t go_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t go_cond = PTHREAD_COND_INITIALIZER;
static int go;

/* The main thread, with go_fifo: block until a writer sends a line, then let
 * every thread start. */
static void wait_fifo_then_release(void)
{
	char line[64];
	FILE *f = fopen(go_fifo, "r");
	if (!f || !fgets(line, sizeof(line), f)) {
		perror(go_fifo);
		exit(1);
	}
	fclose(f);
	pthread_mutex_lock(&go_lock);
	go = 1;
	pthread_cond_broadcast(&go_cond);
	pthread_mutex_unlock(&go_lock);
}

static double thread_cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *burn(void *arg)
{
	volatile unsigned long x = 0;
	if (go_fifo) {
		pthread_mutex_lock(&go_lock);
		while (!go)
			pthread_cond_wait(&go_cond, &go_lock);
		pthread_mutex_unlock(&go_lock);
	} else if (delay_seconds > 0) {
		usleep((useconds_t)(delay_seconds * 1e6));
	}
	double end = thread_cpu_now() + cpu_seconds;
	while (thread_cpu_now() < end)
		for (int i = 0; i < 10000; i++)
			x += i;
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr,
			"usage: burn SECONDS [THREADS [DELAY|/FIFO [stop|leader-exits|exit-group]]]\n");
		return 2;
	}
	cpu_seconds = atof(argv[1]);
	int threads = argc > 2 ? atoi(argv[2]) : 1;
	if (argc > 3 && argv[3][0] == '/')
		go_fifo = argv[3];
	else
		delay_seconds = argc > 3 ? atof(argv[3]) : 0;
	const char *mode = argc > 4 ? argv[4] : "";
	pthread_t t[64];
	if (threads < 1 || threads > 64 || (go_fifo && *mode))
		return 2;
	if (!strcmp(mode, "exit-group")) {
		/* The threads are created late: a counter attached meanwhile
		 * sees them created. */
		usleep((useconds_t)(delay_seconds * 1e6));
		delay_seconds = 0;
	}
	for (int i = 1; i < threads; i++)
		pthread_create(&t[i], NULL, burn, NULL);
	if (!strcmp(mode, "leader-exits")) {
		usleep((useconds_t)((delay_seconds + 0.1) * 1e6));
		pthread_exit(NULL);
	}
	if (go_fifo)
		wait_fifo_then_release();
	if (!strcmp(mode, "exit-group")) {
		usleep((useconds_t)(cpu_seconds / 2 * 1e6));
		exit(0);
	}
	burn(NULL);
	for (int i = 1; i < threads; i++)
		pthread_join(t[i], NULL);
	if (!strcmp(mode, "stop"))
		raise(SIGSTOP);
	return 0;
}
