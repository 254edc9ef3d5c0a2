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

/* An inotify fd watching dir for files moved or removed. Returns the fd or
 * -errno (no inotify instance left: the caller works without). */
int csv_dir_watch_open(const char *dir);

/* What csv_dir_watch_read() reports: a file name that was moved away,
 * replaced or removed; or NULL: anything may have changed (events were
 * lost, or the directory itself was moved or removed). */
typedef void (*csv_dir_changed_fn)(void *ctx, const char *name);

/* Read every pending event of fd (non-blocking), calling changed() for
 * each. Returns 0, or -errno when the watch is gone (the directory was
 * removed or moved: the caller closes fd and watches again later). */
int csv_dir_watch_read(int fd, csv_dir_changed_fn changed, void *ctx);
