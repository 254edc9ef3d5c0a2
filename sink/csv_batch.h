/* SPDX-License-Identifier: GPL-2.0-only */
/* Appends to many files in one system call: the CSV sink writes one row to
 * each of thousands of files per collection, and on a VM whose system calls
 * cost a microsecond each, entering the kernel once per row was half of a
 * row's cost. Linux AIO (io_submit) takes a batch of appends at once; for
 * buffered files it performs them inside io_submit, exactly as write()
 * would (same page cache, same O_APPEND atomicity), and io_getevents hands
 * back each append's result. Not io_uring: container runtimes' default
 * seccomp profiles refuse it, and AIO is enough for buffered appends. */
#pragma once
#include <stddef.h>
#include <sys/types.h>

struct csv_batch;

/* A batch of at most max appends. Returns 0 or -errno (no AIO here:
 * ENOSYS, EPERM from a seccomp filter, EAGAIN past fs.aio-max-nr; the
 * caller writes row by row instead). */
int csv_batch_new(unsigned max, struct csv_batch **ret);
void csv_batch_free(struct csv_batch *b);

/* Queue len bytes (copied) to append to fd, which must stay open until
 * csv_batch_run() returns. Returns the append's index in the batch, or
 * -ENOSPC (full: run it first) or -ENOMEM. */
int csv_batch_add(struct csv_batch *b, int fd, const char *data, size_t len);

unsigned csv_batch_count(const struct csv_batch *b);

/* Called once per queued append, in queue order: res is write()'s result
 * (bytes written, possibly short, or -errno). data is the queued copy. */
typedef void (*csv_batch_done_fn)(void *ctx, unsigned idx, const char *data, size_t len,
				  ssize_t res);

/* Submit every queued append, wait for their results and report each; the
 * batch is empty after. An append the kernel would not take is written
 * with write() instead. Returns 0, or -errno when AIO itself failed (the
 * batch still reported every append; the caller may stop batching). */
int csv_batch_run(struct csv_batch *b, csv_batch_done_fn done, void *ctx);
