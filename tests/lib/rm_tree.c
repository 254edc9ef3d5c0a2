// SPDX-License-Identifier: GPL-2.0-only
/* Test helper shared by the unit tests that build directory and cgroup trees. */
#include "tests/lib/rm_tree.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Removes dfd/name and everything below it, bottom-up, never following
 * symlinks. cgroupfs interface files cannot be unlinked (rmdir of an empty
 * cgroup takes them along), so plain files are only unlinked when asked. */
int rm_tree_at(int dfd, const char *name, bool unlink_files)
{
	struct dirent *de;
	DIR *d;
	int fd, r = 0;

	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	d = fdopendir(fd);
	if (!d) {
		r = -errno;
		close(fd);
		return r;
	}

	while ((de = readdir(d))) {
		struct stat st;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			int k = rm_tree_at(dirfd(d), de->d_name, unlink_files);

			if (k < 0 && r == 0)
				r = k;
		} else if (unlink_files && unlinkat(dirfd(d), de->d_name, 0) < 0 &&
			   errno != ENOENT && r == 0)
			r = -errno;
	}
	closedir(d);

	if (unlinkat(dfd, name, AT_REMOVEDIR) < 0 && errno != ENOENT && r == 0)
		r = -errno;
	return r;
}
