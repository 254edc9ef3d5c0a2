/* SPDX-License-Identifier: GPL-2.0-only */
/* /proc/self/mountinfo (proc(5)): one line split, and the fs type of a
 * device. Reading it asks no filesystem anything (no FUSE daemon, no NFS
 * server), which is why it is the way to learn what a mount is. */
#pragma once
#include <stddef.h>
#include <sys/types.h>

struct mountinfo_line {
	char *dev; /* "major:minor" of the mounted filesystem */
	char *mnt; /* the mount point, unescaped */
	char *fstype; /* "ext4", "fuse.sshfs", "nfs4", ... */
};

/* Split line in place; -EBADMSG if it is not a mountinfo line. */
int mountinfo_split(char *line, struct mountinfo_line *ret);

/* The fs type of a mount of device dev: 0, -ENOENT if none is listed, or
 * -errno reading /proc/self/mountinfo. */
int mountinfo_fstype_of(dev_t dev, char *ret, size_t len);
