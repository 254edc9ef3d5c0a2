// SPDX-License-Identifier: GPL-2.0-only
#include "plot/plot_buf.h"
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void plot_buf_free(struct plot_buf *b)
{
	if (!b)
		return;
	free(b->data);
	*b = (struct plot_buf){ 0 };
}

static int reserve(struct plot_buf *b, size_t more)
{
	size_t cap = b->cap ? b->cap : 4096;
	char *p;

	if (b->error)
		return b->error;
	while (cap - b->len <= more)
		cap *= 2;
	if (cap == b->cap)
		return 0;
	p = realloc(b->data, cap);
	if (!p)
		return b->error = -ENOMEM;
	b->data = p;
	b->cap = cap;
	return 0;
}

void plot_buf_add(struct plot_buf *b, const char *s, size_t len)
{
	if (reserve(b, len) < 0)
		return;
	memcpy(b->data + b->len, s, len);
	b->len += len;
	b->data[b->len] = '\0';
}

void plot_buf_puts(struct plot_buf *b, const char *s)
{
	plot_buf_add(b, s, strlen(s));
}

void plot_buf_printf(struct plot_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || reserve(b, (size_t)n) < 0)
		return;
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void plot_buf_xml(struct plot_buf *b, const char *s)
{
	for (const char *p = s; *p; p++) {
		const char *run = p;

		while (*p && !strchr("&<>\"'", *p))
			p++;
		plot_buf_add(b, run, (size_t)(p - run));
		if (!*p)
			break;
		plot_buf_puts(b, *p == '&'   ? "&amp;"
				 : *p == '<' ? "&lt;"
				 : *p == '>' ? "&gt;"
				 : *p == '"' ? "&quot;"
					     : "&#39;");
	}
}

int plot_buf_write_file(const struct plot_buf *b, const char *path)
{
	size_t done = 0;
	int fd, r = 0;

	if (b->error)
		return b->error;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	while (r == 0 && done < b->len) {
		ssize_t n = write(fd, b->data + done, b->len - done);

		if (n < 0 && errno != EINTR)
			r = -errno;
		else if (n > 0)
			done += (size_t)n;
	}
	if (close(fd) < 0 && r == 0)
		r = -errno;
	return r;
}
