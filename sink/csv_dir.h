/* SPDX-License-Identifier: GPL-2.0-only */
/* The CSV sink's directory: made or checked (owner, mode), and watched
 * (inotify) for renames and removals of its files, so that the sink can keep
 * files open and still follow logrotate without a stat() per row. */
#pragma once
#include <sys/types.h>

#define CSV_DIR_MODE 0750

/* mkdir -p: parents 0755, dir itself CSV_DIR_MODE whatever the umask. An
 * existing dir must belong to this process's user (-EPERM otherwise: its
 * owner could swap files under the agent); a looser mode than CSV_DIR_MODE
 * (the names of the files are tenants' container names) is tightened, with
 * a warning. Returns 0, -ENOTDIR, -EPERM, -ENOMEM or mkdir's/chmod's error. */
int csv_dir_prepare(const char *dir);

/* An inotify fd watching dir for files moved, removed or closed after
 * writing. Returns the fd or
 * -errno (no inotify instance left: the caller works without). */
int csv_dir_watch_open(const char *dir);

/* What csv_dir_watch_read() reports about a file name. */
enum csv_dir_change {
	CSV_DIR_GONE, /* moved away, replaced or removed */
	CSV_DIR_CLOSED, /* a descriptor opened for writing was closed: whoever
			 * truncated the file (copytruncate, `: >`) closes one
			 * after, so its size is worth a look */
};

/* name NULL: anything may have changed (events were lost, or the directory
 * itself was moved or removed). */
typedef void (*csv_dir_changed_fn)(void *ctx, const char *name, enum csv_dir_change change);

/* Read every pending event of fd (non-blocking), calling changed() for
 * each. Returns 0, or -errno when the watch is gone (the directory was
 * removed or moved: the caller closes fd and watches again later). */
int csv_dir_watch_read(int fd, csv_dir_changed_fn changed, void *ctx);
