/* SPDX-License-Identifier: GPL-2.0-only */
/* The tree's one growable byte buffer: CSV rows and file stems, syslog
 * messages, the Prometheus exposition, `cgperf plot`'s documents. The first
 * failure sticks: later appends do nothing and return it, so a caller that
 * builds a document from many pieces checks once, at the end. Nothing is
 * ever cut to fit: no room is -ENOMEM. Room for a NUL after the bytes is
 * always kept, so buf_cstr() cannot fail. Zeroed is empty (BUF_INIT). */
#pragma once
#include <stddef.h>
#include <string.h>

struct buf {
	char *data;
	size_t len, cap;
	int error; /* the first failure (-ENOMEM; -EINVAL from a format vsnprintf refused), else 0 */
};

#define BUF_INIT ((struct buf){ 0 })

/* Room for `more` bytes after the len there are. 0 or the buffer's error. */
int buf_reserve(struct buf *b, size_t more);

/* Inline: the exposition and the CSV rows are many short appends, nearly
 * all of which fit. 0 or the buffer's error. */
static inline int buf_append(struct buf *b, const void *bytes, size_t len)
{
	if (!len) /* nothing to copy (bytes may be NULL) */
		return b->error;
	if (__builtin_expect(b->error || len >= b->cap - b->len, 0)) {
		int r = buf_reserve(b, len);

		if (r < 0)
			return r;
	}
	memcpy(b->data + b->len, bytes, len);
	b->len += len;
	return 0;
}

static inline int buf_puts(struct buf *b, const char *s)
{
	return buf_append(b, s, strlen(s));
}

int buf_printf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Empty again, the memory kept, the error forgotten. */
void buf_reset(struct buf *b);
/* The bytes as a C string (the NUL not counted in len): "" for a buffer
 * never appended to. */
const char *buf_cstr(struct buf *b);
/* The memory; b is empty after (BUF_INIT). NULL is fine. */
void buf_free(struct buf *b);
