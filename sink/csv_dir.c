// SPDX-License-Identifier: GPL-2.0-only
#include "sink/csv_dir.h"
#include "util/log.h"
#include "util/text.h"
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

/* Whether an existing directory can be used; tightens a loose mode. */
static int check_existing(const char *dir)
{
	char shown[1024];
	struct stat st;
	mode_t mode, tight;

	if (stat(dir, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	if (st.st_uid != geteuid())
		return -EPERM;
	/* setgid (group inheritance for log readers) is kept; everything
	 * beyond rwxr-x--- goes. */
	mode = st.st_mode & 07777;
	tight = mode & (CSV_DIR_MODE | S_ISGID);
	if (tight == mode)
		return 0;
	if (chmod(dir, tight) < 0)
		return -errno;
	text_escape_control(dir, shown, sizeof(shown));
	log_warn("csv: %s had mode %04o; tightened to %04o (file names are tenants' container "
		 "names: not for every local user)",
		 shown, (unsigned)mode, (unsigned)tight);
	return 0;
}

int csv_dir_prepare(const char *dir)
{
	char *copy = strdup(dir);
	int r = 0;

	if (!copy)
		return -ENOMEM;
	for (char *p = copy + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(copy, 0755) < 0 && errno != EEXIST) {
			r = -errno;
			goto out;
		}
		*p = '/';
	}
	if (mkdir(copy, CSV_DIR_MODE) == 0) {
		if (chmod(copy, CSV_DIR_MODE) < 0)
			r = -errno;
	} else if (errno != EEXIST)
		r = -errno;
	else
		r = check_existing(copy);
out:
	free(copy);
	return r;
}

int csv_dir_watch_open(const char *dir)
{
	/* Moves and removals of files in dir, and of dir itself; closes of
	 * descriptors opened for writing (a truncation is done through one,
	 * so its close follows it). Our own writes (IN_MODIFY) are not asked
	 * for: they would be most events; our kept descriptors are not closed
	 * between rows, so our own closes are few. */
	const uint32_t mask = IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE | IN_DELETE_SELF |
			      IN_MOVE_SELF | IN_CLOSE_WRITE | IN_ONLYDIR;
	int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC), r;

	if (fd < 0)
		return -errno;
	if (inotify_add_watch(fd, dir, mask) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	return fd;
}

int csv_dir_watch_read(int fd, csv_dir_changed_fn changed, void *ctx)
{
	char buf[16384] __attribute__((aligned(__alignof__(struct inotify_event))));

	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));
		bool gone = false;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EAGAIN ? 0 : -errno;
		for (char *p = buf; p < buf + n;) {
			const struct inotify_event *ev = (const struct inotify_event *)p;

			if (ev->mask & IN_Q_OVERFLOW)
				changed(ctx, NULL, CSV_DIR_GONE);
			else if (ev->mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED))
				gone = true;
			else if (ev->len)
				changed(ctx, ev->name,
					ev->mask & IN_CLOSE_WRITE ? CSV_DIR_CLOSED : CSV_DIR_GONE);
			p += sizeof(*ev) + ev->len;
		}
		if (gone) {
			changed(ctx, NULL, CSV_DIR_GONE);
			return -ENOENT;
		}
	}
}
