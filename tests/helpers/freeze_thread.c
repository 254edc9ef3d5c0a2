// SPDX-License-Identifier: GPL-2.0-only
/* freeze_thread TID: stop one thread of another process, the rest of it
 * running on, until a line (or EOF) on standard input; then let it go.
 * ptrace acts on single threads: PTRACE_SEIZE + PTRACE_INTERRUPT put TID
 * alone in a ptrace stop. Prints "frozen" once TID is stopped. Lets a test
 * hold the agent's name-lookup thread (comm "cgperf-names") for as many
 * collections as it wants to count, instead of hoping the lookup is slow.
 * Exit 0, or 1 with one line. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

int main(int argc, char **argv)
{
	char line[64];
	pid_t tid;
	int st;

	if (argc != 2 || (tid = (pid_t)atoi(argv[1])) <= 0) {
		fprintf(stderr, "usage: freeze_thread TID\n");
		return 1;
	}
	if (ptrace(PTRACE_SEIZE, tid, NULL, NULL) < 0 || ptrace(PTRACE_INTERRUPT, tid, NULL, NULL) < 0) {
		fprintf(stderr, "freeze_thread: %d: %s\n", tid, strerror(errno));
		return 1;
	}
	if (waitpid(tid, &st, __WALL) != tid || !WIFSTOPPED(st)) {
		fprintf(stderr, "freeze_thread: %d did not stop\n", tid);
		return 1;
	}
	printf("frozen\n");
	fflush(stdout);
	(void)!fgets(line, sizeof(line), stdin);
	if (ptrace(PTRACE_DETACH, tid, NULL, NULL) < 0) {
		fprintf(stderr, "freeze_thread: detach %d: %s\n", tid, strerror(errno));
		return 1;
	}
	return 0;
}
