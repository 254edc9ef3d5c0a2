/* SPDX-License-Identifier: GPL-2.0-only */
/* A growing byte buffer for the documents `cgperf plot` writes (SVG with
 * its data, the HTML report). The first failure sticks: later appends do
 * nothing and plot_buf_error() says -ENOMEM. */
#pragma once
#include <stddef.h>

struct plot_buf {
	char *data;
	size_t len, cap;
	int error;
};

void plot_buf_free(struct plot_buf *b); /* NULL is fine */
void plot_buf_add(struct plot_buf *b, const char *s, size_t len);
void plot_buf_puts(struct plot_buf *b, const char *s);
void plot_buf_printf(struct plot_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* s with &, <, >, " and ' as character references (text and attributes). */
void plot_buf_xml(struct plot_buf *b, const char *s);
/* Write the buffer to path (created 0644, replaced). 0 or -errno. */
int plot_buf_write_file(const struct plot_buf *b, const char *path);
