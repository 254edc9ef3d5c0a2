// SPDX-License-Identifier: GPL-2.0-only
#include "tests/lib/stuck_fs.h"
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

pid_t stuck_fs_start(const char *dir, const char *name, const char *content, uid_t uid)
{
	static bool private_ns;
	const char *build = getenv("CGPERF_BUILD");
	char helper[PATH_MAX], file[PATH_MAX], owner[16];
	struct stat st;
	pid_t pid;

	snprintf(helper, sizeof(helper), "%s/tests/stuck_fs", build ? build : ".");
	if (access(helper, X_OK) != 0)
		return -ENOENT;
	if (geteuid() != 0 || access("/dev/fuse", R_OK | W_OK) != 0)
		return -EPERM;
	if (!private_ns) {
		if (unshare(CLONE_NEWNS) < 0 || mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
			return -errno;
		private_ns = true;
	}
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		snprintf(owner, sizeof(owner), "%u", (unsigned)uid);
		execl(helper, helper, dir, name, content, owner, (char *)NULL);
		_exit(127);
	}
	/* Mounted once the file shows (10 s: a bound, not a measure). */
	snprintf(file, sizeof(file), "%s/%s", dir, name);
	for (int i = 0; i < 200 && stat(file, &st) != 0; i++)
		usleep(50 * 1000);
	if (stat(file, &st) != 0) {
		stuck_fs_stop(pid, dir);
		return -ETIMEDOUT;
	}
	return pid;
}

void stuck_fs_stop(pid_t pid, const char *dir)
{
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	umount2(dir, MNT_DETACH);
}
