// SPDX-License-Identifier: GPL-2.0-only
/* Batched appends through Linux AIO (see csv_batch.h). The raw system calls:
 * libaio would be one more dependency for four calls. */
#include "sink/csv_batch.h"
#include <errno.h>
#include <linux/aio_abi.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Buffered appends complete inside io_submit; the wait is a bound, not a
 * delay (a file system that did go asynchronous gets this long). */
#define CSV_BATCH_WAIT_S 10

struct append {
	int fd;
	size_t off, len; /* the bytes in the batch's buffer */
	ssize_t res;
	int state; /* 0: queued, 1: submitted, 2: done */
};

struct csv_batch {
	aio_context_t ctx;
	unsigned max, nr;
	struct append *appends;
	struct iocb *iocbs;
	struct iocb **ptrs;
	struct io_event *events;
	char *buf;
	size_t buf_len, buf_cap;
};

int csv_batch_new(unsigned max, struct csv_batch **ret)
{
	struct csv_batch *b;

	if (max == 0)
		return -EINVAL;
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	b->max = max;
	b->appends = calloc(max, sizeof(*b->appends));
	b->iocbs = calloc(max, sizeof(*b->iocbs));
	b->ptrs = calloc(max, sizeof(*b->ptrs));
	b->events = calloc(max, sizeof(*b->events));
	if (!b->appends || !b->iocbs || !b->ptrs || !b->events) {
		csv_batch_free(b);
		return -ENOMEM;
	}
	if (syscall(SYS_io_setup, max, &b->ctx) < 0) {
		int r = -errno;

		b->ctx = 0;
		csv_batch_free(b);
		return r;
	}
	*ret = b;
	return 0;
}

void csv_batch_free(struct csv_batch *b)
{
	if (!b)
		return;
	if (b->ctx)
		syscall(SYS_io_destroy, b->ctx); /* waits for what is in flight */
	free(b->appends);
	free(b->iocbs);
	free(b->ptrs);
	free(b->events);
	free(b->buf);
	free(b);
}

unsigned csv_batch_count(const struct csv_batch *b)
{
	return b ? b->nr : 0;
}

static int reserve(struct csv_batch *b, size_t len)
{
	size_t cap = b->buf_cap ? b->buf_cap : 65536;
	char *p;

	if (b->buf_len + len <= b->buf_cap)
		return 0;
	while (cap < b->buf_len + len)
		cap *= 2;
	p = realloc(b->buf, cap);
	if (!p)
		return -ENOMEM;
	b->buf = p;
	b->buf_cap = cap;
	return 0;
}

int csv_batch_add(struct csv_batch *b, int fd, const char *data, size_t len)
{
	int r;

	if (b->nr == b->max)
		return -ENOSPC;
	r = reserve(b, len);
	if (r < 0)
		return r;
	memcpy(b->buf + b->buf_len, data, len);
	b->appends[b->nr] = (struct append){ .fd = fd, .off = b->buf_len, .len = len };
	b->buf_len += len;
	return (int)b->nr++;
}

/* The buffer does not move after the last add: iocbs point into it now. */
static void prepare(struct csv_batch *b)
{
	for (unsigned i = 0; i < b->nr; i++) {
		struct iocb *cb = &b->iocbs[i];

		memset(cb, 0, sizeof(*cb));
		cb->aio_data = i;
		cb->aio_lio_opcode = IOCB_CMD_PWRITE; /* O_APPEND: at the end */
		cb->aio_fildes = (uint32_t)b->appends[i].fd;
		cb->aio_buf = (uint64_t)(uintptr_t)(b->buf + b->appends[i].off);
		cb->aio_nbytes = b->appends[i].len;
		b->ptrs[i] = cb;
	}
}

/* Submits appends [from, nr); returns how many the kernel took or -errno. */
static long submit(struct csv_batch *b, unsigned from)
{
	long n;

	do
		n = syscall(SYS_io_submit, b->ctx, (long)(b->nr - from), b->ptrs + from);
	while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : n;
}

/* Collects the results of `pending` submitted appends. Returns 0 or -errno
 * (-ETIME: some did not complete in time). */
static int reap(struct csv_batch *b, unsigned pending)
{
	struct timespec deadline, now, left;

	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += CSV_BATCH_WAIT_S;
	while (pending > 0) {
		long n;

		clock_gettime(CLOCK_MONOTONIC, &now);
		left.tv_sec = deadline.tv_sec - now.tv_sec;
		left.tv_nsec = deadline.tv_nsec - now.tv_nsec;
		if (left.tv_nsec < 0) {
			left.tv_sec--;
			left.tv_nsec += 1000000000L;
		}
		if (left.tv_sec < 0)
			return -ETIME;
		n = syscall(SYS_io_getevents, b->ctx, 1L, (long)pending, b->events, &left);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		for (long i = 0; i < n; i++) {
			struct append *a = &b->appends[b->events[i].data];

			a->res = (ssize_t)b->events[i].res;
			a->state = 2;
		}
		pending -= (unsigned)n;
	}
	return 0;
}

/* write() for an append AIO did not take. */
static void write_one(const struct csv_batch *b, struct append *a)
{
	ssize_t n;

	do
		n = write(a->fd, b->buf + a->off, a->len);
	while (n < 0 && errno == EINTR);
	a->res = n < 0 ? -errno : n;
	a->state = 2;
}

int csv_batch_run(struct csv_batch *b, csv_batch_done_fn done, void *ctx)
{
	unsigned from = 0, taken = 0;
	int r = 0;

	if (!b || b->nr == 0)
		return 0;
	prepare(b);
	while (from < b->nr) {
		long n = submit(b, from);

		if (n == -EBADF || n == -EINVAL) {
			/* This append itself was refused: write() says why. */
			write_one(b, &b->appends[from++]);
			continue;
		}
		if (n <= 0) {
			/* AIO as a whole (resources, a filter): the rest by
			 * write(); -EAGAIN is passing, the rest is for good. */
			r = n < 0 && n != -EAGAIN ? (int)n : 0;
			break;
		}
		for (long i = 0; i < n; i++)
			b->appends[from + i].state = 1;
		taken += (unsigned)n;
		from += (unsigned)n;
	}
	if (taken > 0) {
		int k = reap(b, taken);

		if (k < 0) {
			/* Wait for them all before the buffer is reused. */
			syscall(SYS_io_destroy, b->ctx);
			b->ctx = 0;
			r = k;
		}
	}
	for (unsigned i = 0; i < b->nr; i++) {
		struct append *a = &b->appends[i];

		if (a->state == 0)
			write_one(b, a);
		else if (a->state == 1)
			a->res = -EIO; /* never reported: said failed (it may be in the
					* file: the next row may then count twice) */
		done(ctx, i, b->buf + a->off, a->len, a->res);
	}
	b->nr = 0;
	b->buf_len = 0;
	return r;
}
