// SPDX-License-Identifier: GPL-2.0-only
/* Reading a configuration file (bounded in size) into config_parse(). */
#include "config/config.h"
#include "util/escape.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/config_schema.h"
#include "config/config_text.h"

int cfg_read_fd(int fd, size_t max, char **ret_text, size_t *ret_len)
{
	size_t len = 0, cap = 4096;
	char *text = malloc(cap), *bigger;

	if (!text)
		return -ENOMEM;
	for (;;) {
		ssize_t n;

		/* One byte past the limit tells "too large" from "exactly full". */
		if (len == cap) {
			if (cap > max) {
				free(text);
				return -EFBIG;
			}
			cap = cap * 2 > max + 1 ? max + 1 : cap * 2;
			bigger = realloc(text, cap);
			if (!bigger) {
				free(text);
				return -ENOMEM;
			}
			text = bigger;
		}
		n = read(fd, text + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int r = -errno;

			free(text);
			return r;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if (len > max) {
		free(text);
		return -EFBIG;
	}
	*ret_text = text;
	*ret_len = len;
	return 0;
}

int config_load_file(const char *path, struct agent_config *ret, char *err, size_t err_len)
{
	char name[256], *text = NULL;
	size_t len = 0;
	int fd, r;

	if (!path || !ret)
		return -EINVAL;
	text_escape(path, strlen(path), 200, name, sizeof(name));
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		r = -errno;
		if (err && err_len)
			snprintf(err, err_len, "%s: cannot open: %s", name, strerror(-r));
		return r;
	}
	r = cfg_read_fd(fd, CONFIG_FILE_MAX, &text, &len);
	close(fd);
	if (r == -EFBIG) {
		if (err && err_len)
			snprintf(err, err_len, "%s: larger than %d bytes, not a configuration file",
				 name, CONFIG_FILE_MAX);
		return r;
	}
	if (r < 0) {
		if (err && err_len)
			snprintf(err, err_len, "%s: cannot read: %s", name, strerror(-r));
		return r;
	}
	r = config_parse(text, len, path, ret, err, err_len);
	free(text);
	return r;
}
