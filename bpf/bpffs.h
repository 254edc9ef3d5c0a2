/* SPDX-License-Identifier: GPL-2.0-only */
/* cgperf's directory in bpffs, where the attr map that lets sessions find the
 * shared leaders is pinned. */
#pragma once
#include <stddef.h>

/* Make sure bpffs is mounted at /sys/fs/bpf (mounting it if not) and that
 * cgperf's directory exists with mode 0700. The directory can be moved with
 * CGPERF_BPFFS_DIR (tests). Writes the directory path. Returns 0 or negative errno. */
int bpffs_prepare(char *ret_dir, size_t len);

/* A directory or pin cgperf may trust: root's, not a symlink (a directory is
 * also made 0700). -EPERM (logged) otherwise, -ENOENT when missing. */
int bpffs_check_dir(const char *path);
int bpffs_check_pin(const char *path);

/* The hash map pinned as dir/pin (made and pinned 0600 when missing): one of
 * cgperf's registries (the attr map of the leaders, the hub map). -EPROTO
 * (logged) when the one pinned there has other sizes (another cgperf). */
#include <linux/types.h>
int bpffs_map_open(const char *dir, const char *pin, const char *map_name, __u32 key_size,
		   __u32 value_size, __u32 entries, int *ret_fd);
