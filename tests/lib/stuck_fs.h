/* SPDX-License-Identifier: GPL-2.0-only */
/* A FUSE mount whose reads never answer (tests/helpers/stuck_fs), for unit
 * tests of lookups that must not hang. The mount is made in a mount
 * namespace of the test's own (unshared on first use: call it while the
 * process has one thread), and the daemon dies with the test (PDEATHSIG):
 * a killed test leaves no hanging mount behind. */
#pragma once
#include <sys/types.h>

/* Mount on dir a filesystem with one file, name, of content's length,
 * owned by uid.
 * The daemon's pid; -ENOENT if tests/stuck_fs was not built (no
 * libfuse3-dev), -EPERM without root or /dev/fuse, another -errno else. */
pid_t stuck_fs_start(const char *dir, const char *name, const char *content, uid_t uid);
/* Kill the daemon (the held read ends with ENOTCONN) and unmount dir. */
void stuck_fs_stop(pid_t pid, const char *dir);
