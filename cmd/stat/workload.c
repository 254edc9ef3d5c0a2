// SPDX-License-Identifier: GPL-2.0-only
#include "cmd/stat/workload.h"
#include "util/log.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int workload_prepare(char *const argv[], struct workload *ret)
{
	int gate[2];
	pid_t pid;

	if (pipe2(gate, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		int r = -errno;
		close(gate[0]);
		close(gate[1]);
		return r;
	}
	if (pid == 0) {
		char go;
		sigset_t none;

		/* The parent blocks signals for its signalfd; the command
		 * should start with the default mask. */
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		close(gate[1]);
		/* EOF without a byte means the parent gave up: do not run. */
		if (read(gate[0], &go, 1) != 1)
			_exit(127);
		execvp(argv[0], argv);
		fprintf(stderr, "cgperf: cannot run '%s': %s\n", log_name(argv[0]),
			strerror(errno));
		_exit(127);
	}
	close(gate[0]);
	ret->pid = pid;
	ret->gate_fd = gate[1];
	return 0;
}

int workload_start(struct workload *w)
{
	ssize_t n = write(w->gate_fd, "x", 1);

	close(w->gate_fd);
	w->gate_fd = -1;
	return n == 1 ? 0 : -EPIPE;
}
