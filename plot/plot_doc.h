/* SPDX-License-Identifier: GPL-2.0-only */
/* What the documents `cgperf plot` writes (SVG with its data, the HTML
 * report) need beyond util/buf.h: XML escaping, and the file. */
#pragma once
#include "util/buf.h"

/* s with &, <, >, " and ' as character references (text and attributes). */
void plot_xml(struct buf *b, const char *s);
/* Write the buffer to path (created 0644, replaced). 0 or -errno: the
 * buffer's error (nothing written) or the file's. */
int plot_write_file(const struct buf *b, const char *path);
