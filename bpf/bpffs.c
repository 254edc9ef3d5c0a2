// SPDX-License-Identifier: GPL-2.0-only
#include "bpf/bpffs.h"
#include "util/log.h"
#include <bpf/bpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <linux/magic.h>

#define BPFFS_MOUNT "/sys/fs/bpf"
#define CGPERF_BPFFS_DEFAULT BPFFS_MOUNT "/cgperf"

static int ensure_mounted(void)
{
	struct statfs st;

	if (statfs(BPFFS_MOUNT, &st) == 0 && st.f_type == BPF_FS_MAGIC)
		return 0;
	/* A fresh host (and CI) has no bpffs: mount it the way systemd does. */
	if (mount("bpf", BPFFS_MOUNT, "bpf", MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=0700") < 0) {
		int r = -errno;
		log_error("cannot mount bpffs at %s: %s (mount it with 'mount -t bpf bpf %s')",
			  BPFFS_MOUNT, strerror(errno), BPFFS_MOUNT);
		return r;
	}
	log_info("mounted bpffs at %s", BPFFS_MOUNT);
	return 0;
}

int bpffs_check_dir(const char *path)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode) || st.st_uid != 0) {
		log_error("%s is %s: refusing to keep counting state there (remove it)",
			  log_name(path),
			  S_ISLNK(st.st_mode)	 ? "a symlink"
			  : !S_ISDIR(st.st_mode) ? "not a directory"
						 : "not owned by root");
		return -EPERM;
	}
	/* Whatever umask or an older version left: only root may look inside. */
	if ((st.st_mode & 07777) != 0700 && chmod(path, 0700) < 0)
		return -errno;
	return 0;
}

int bpffs_check_pin(const char *path)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode) || st.st_uid != 0) {
		log_error("%s is not a pin of root's: refusing it (remove it)", log_name(path));
		return -EPERM;
	}
	return 0;
}

int bpffs_prepare(char *ret_dir, size_t len)
{
	const char *dir = getenv("CGPERF_BPFFS_DIR");
	int r;

	if (!dir || !*dir) {
		dir = CGPERF_BPFFS_DEFAULT;
		r = ensure_mounted();
		if (r < 0)
			return r;
	}
	if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
		r = -errno;
		log_error("cannot create %s: %s", log_name(dir), strerror(errno));
		return r;
	}
	/* Made by another user (bpffs mounted without mode=), or a symlink
	 * to somewhere else: its owner could hold the lock or swap the attr
	 * map. */
	r = bpffs_check_dir(dir);
	if (r < 0)
		return r;
	if ((size_t)snprintf(ret_dir, len, "%s", dir) >= len)
		return -ENAMETOOLONG;
	return 0;
}

static bool map_compatible(int fd, __u32 key_size, __u32 value_size)
{
	struct bpf_map_info info = { 0 };
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(fd, &info, &len) < 0)
		return false;
	return info.type == BPF_MAP_TYPE_HASH && info.key_size == key_size &&
	       info.value_size == value_size;
}

static int map_create_pinned(const char *path, const char *map_name, __u32 key_size,
			     __u32 value_size, __u32 entries)
{
	int fd = bpf_map_create(BPF_MAP_TYPE_HASH, map_name, key_size, value_size, entries, NULL);
	int r;

	if (fd < 0) {
		r = -errno;
		log_error("cannot create the map %s: %s", map_name, strerror(-r));
		return r;
	}
	if (bpf_obj_pin(fd, path) < 0) {
		r = -errno;
		close(fd);
		log_error("cannot pin the map %s at %s: %s", map_name, log_name(path),
			  strerror(-r));
		return r;
	}
	chmod(path, 0600);
	return fd;
}

int bpffs_map_open(const char *dir, const char *pin, const char *map_name, __u32 key_size,
		   __u32 value_size, __u32 entries, int *ret_fd)
{
	char path[512];
	int fd, r;

	snprintf(path, sizeof(path), "%s/%s", dir, pin);
	r = bpffs_check_pin(path);
	if (r < 0 && r != -ENOENT)
		return r;
	fd = bpf_obj_get(path);
	if (fd < 0 && errno == ENOENT)
		fd = map_create_pinned(path, map_name, key_size, value_size, entries);
	else if (fd < 0) {
		r = -errno;
		log_error("cannot open %s: %s", log_name(path), strerror(-r));
		return r;
	}
	if (fd < 0)
		return fd;
	if (!map_compatible(fd, key_size, value_size)) {
		close(fd);
		log_error(
			"%s was made by an incompatible cgperf version; remove it when no cgperf runs",
			log_name(path));
		return -EPROTO;
	}
	*ret_fd = fd;
	return 0;
}
