// SPDX-License-Identifier: GPL-2.0-only
/* stuck_fs MOUNTPOINT NAME CONTENT [UID]: a FUSE filesystem with one file,
 * NAME (owned by UID, default root), whose size is CONTENT's length and
 * whose every read never returns: a
 * tenant's fuse-overlayfs over its rootless storage that stops answering
 * (unit/test_name_lookup). With STUCK_FS_HOLD_LOOKUPS=1 in its environment,
 * a lookup of any other name never returns either: a writer creating a file
 * there waits (an output directory on a dead network mount:
 * test_agent_watchdog_stall). Runs in the foreground; killing it (SIGKILL)
 * aborts the connection, which ends the stuck calls with ENOTCONN. */
#define FUSE_USE_VERSION 31
#include <errno.h>
#include <fuse.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *file_name, *content;
static uid_t owner;
static int hold_lookups;

static void hold(const char *what)
{
	fprintf(stderr, "stuck_fs: %s, held\n", what);
	for (;;)
		pause();
}

static int fs_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	(void)fi;
	memset(st, 0, sizeof(*st));
	if (strcmp(path, "/") == 0) {
		st->st_mode = S_IFDIR | 0755;
		st->st_nlink = 2;
		st->st_uid = owner;
		return 0;
	}
	if (path[0] == '/' && strcmp(path + 1, file_name) == 0) {
		st->st_mode = S_IFREG | 0644;
		st->st_nlink = 1;
		st->st_uid = owner;
		st->st_size = (off_t)strlen(content);
		return 0;
	}
	if (hold_lookups)
		hold("a lookup");
	return -ENOENT;
}

static int fs_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
		      struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
	(void)off, (void)fi, (void)flags;
	if (strcmp(path, "/") != 0)
		return -ENOENT;
	fill(buf, ".", NULL, 0, 0);
	fill(buf, "..", NULL, 0, 0);
	fill(buf, file_name, NULL, 0, 0);
	return 0;
}

static int fs_open(const char *path, struct fuse_file_info *fi)
{
	fi->direct_io = 1; /* every read comes here: no page cache between */
	return path[0] == '/' && strcmp(path + 1, file_name) == 0 ? 0 : -ENOENT;
}

/* The hang: the reader waits until this process dies. */
static int fs_read(const char *path, char *buf, size_t size, off_t off, struct fuse_file_info *fi)
{
	(void)path, (void)buf, (void)size, (void)off, (void)fi;
	hold("a read");
	return 0;
}

static const struct fuse_operations ops = {
	.getattr = fs_getattr,
	.readdir = fs_readdir,
	.open = fs_open,
	.read = fs_read,
};

int main(int argc, char **argv)
{
	/* In the foreground, one thread: the held read holds it. */
	char *fargv[] = { argv[0], "-f", "-s", argv[1], NULL };

	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: stuck_fs MOUNTPOINT NAME CONTENT [UID]\n");
		return 2;
	}
	file_name = argv[2];
	content = argv[3];
	owner = argc == 5 ? (uid_t)strtoul(argv[4], NULL, 10) : 0;
	hold_lookups = getenv("STUCK_FS_HOLD_LOOKUPS") && !strcmp(getenv("STUCK_FS_HOLD_LOOKUPS"), "1");
	return fuse_main(4, fargv, &ops, NULL);
}
