// SPDX-License-Identifier: GPL-2.0-only
/* Atomic replacement of a textfile: write a temporary file, then rename(2),
 * which is atomic within one file system. No fsync: the file is rewritten
 * every interval and only its last content matters; after a crash the next
 * interval writes it again. */
#include "sink/textfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

static int write_all(int fd, const char *p, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int textfile_write(const char *path, const char *data, size_t len)
{
	char tmp[4096 + 32];
	int fd, r;

	if (snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path, (int)getpid()) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return -errno;
	/* The mode above is filtered by the umask; node_exporter runs as its own
	 * user and must be able to read the file. */
	r = fchmod(fd, 0644) < 0 ? -errno : write_all(fd, data, len);
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r == 0 && rename(tmp, path) < 0)
		r = -errno;
	if (r < 0)
		unlink(tmp);
	return r;
}
