// SPDX-License-Identifier: GPL-2.0-only
#include "plot/plot_doc.h"
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

void plot_xml(struct buf *b, const char *s)
{
	for (const char *p = s; *p; p++) {
		const char *run = p;

		while (*p && !strchr("&<>\"'", *p))
			p++;
		buf_append(b, run, (size_t)(p - run));
		if (!*p)
			break;
		buf_puts(b, *p == '&'	? "&amp;"
			    : *p == '<' ? "&lt;"
			    : *p == '>' ? "&gt;"
			    : *p == '"' ? "&quot;"
					: "&#39;");
	}
}

int plot_write_file(const struct buf *b, const char *path)
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
