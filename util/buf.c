// SPDX-License-Identifier: GPL-2.0-only
#include "util/buf.h"
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* The first allocation: a CSV row, a syslog message or a cgroup's labels
 * fit in one. */
#define BUF_MIN 256

int buf_reserve(struct buf *b, size_t more)
{
	size_t need, cap;
	char *data;

	if (b->error)
		return b->error;
	if (more > SIZE_MAX / 4 - b->len)
		return b->error = -ENOMEM;
	need = b->len + more + 1; /* and the NUL */
	if (need <= b->cap)
		return 0;
	/* Doubled (appends stay amortised O(1)), or what was asked for when
	 * that is more: one large reserve takes no more than it needs. */
	cap = b->cap * 2 > need ? b->cap * 2 : need;
	if (cap < BUF_MIN)
		cap = BUF_MIN;
	data = realloc(b->data, cap);
	if (!data)
		return b->error = -ENOMEM;
	b->data = data;
	b->cap = cap;
	return 0;
}

int buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n, r;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 && !b->error)
		b->error = -EINVAL; /* a conversion that cannot be printed */
	r = b->error ?: buf_reserve(b, (size_t)n);
	if (r < 0)
		return r;
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
	return 0;
}

void buf_reset(struct buf *b)
{
	b->len = 0;
	b->error = 0;
}

const char *buf_cstr(struct buf *b)
{
	if (!b->data)
		return "";
	b->data[b->len] = '\0';
	return b->data;
}

void buf_free(struct buf *b)
{
	if (!b)
		return;
	free(b->data);
	*b = BUF_INIT;
}
