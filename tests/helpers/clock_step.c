// SPDX-License-Identifier: GPL-2.0-only
/* clock_step MILLISECONDS [HOLD_MS]: step CLOCK_REALTIME by MILLISECONDS
 * (negative: back) at once, relative to where it is (clock_adjtime
 * ADJ_SETOFFSET), so a step and the opposite one leave the clock where it
 * would have been. With HOLD_MS: print "stepped", wait HOLD_MS on
 * CLOCK_MONOTONIC, step back by the same amount, print "restored"; SIGINT,
 * SIGTERM and SIGHUP are blocked meanwhile, so a test killed in between still
 * gets its clock back. For test_agent_clock_step; needs CAP_SYS_TIME.
 * Exit 0, or 1 with one line. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timex.h>
#include <time.h>

static int step_ms(long long ms)
{
	/* ADJ_NANO: tv_usec holds nanoseconds, always in [0, 1e9). */
	long long ns = ms * 1000000;
	struct timex tx = { .modes = ADJ_SETOFFSET | ADJ_NANO };

	tx.time.tv_sec = ns / 1000000000;
	tx.time.tv_usec = ns % 1000000000;
	if (tx.time.tv_usec < 0) {
		tx.time.tv_sec--;
		tx.time.tv_usec += 1000000000;
	}
	if (clock_adjtime(CLOCK_REALTIME, &tx) < 0) {
		fprintf(stderr, "clock_step: clock_adjtime: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

static int parse_ms(const char *s, long long *ret)
{
	char *end;

	errno = 0;
	*ret = strtoll(s, &end, 10);
	if (errno || *end || end == s) {
		fprintf(stderr, "clock_step: not a number of milliseconds: %s\n", s);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	long long ms, hold = -1;
	struct timespec t;
	sigset_t mask;

	if (argc < 2 || argc > 3 || parse_ms(argv[1], &ms) < 0 ||
	    (argc == 3 && parse_ms(argv[2], &hold) < 0)) {
		fprintf(stderr, "usage: clock_step MILLISECONDS [HOLD_MS]\n");
		return 2;
	}
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	if (step_ms(ms) < 0)
		return 1;
	if (hold < 0)
		return 0;
	printf("stepped\n");
	fflush(stdout);
	t.tv_sec = hold / 1000;
	t.tv_nsec = hold % 1000 * 1000000;
	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &t, &t) == EINTR)
		;
	if (step_ms(-ms) < 0)
		return 1;
	printf("restored\n");
	return 0;
}
