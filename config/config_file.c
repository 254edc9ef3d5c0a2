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
#include "config/web_config.h"

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

int config_check_files(const struct agent_config *c, char *err, size_t err_len)
{
	struct web_config *wc;
	char msg[768] = "";
	int r;

	if (!c->prometheus.web_config[0])
		return 0;
	wc = malloc(sizeof(*wc));
	if (!wc)
		return -ENOMEM;
	r = web_config_load(c->prometheus.web_config, wc, msg, sizeof(msg));
	free(wc);
	if (r < 0)
		snprintf(err, err_len, "outputs.prometheus.web_config: %s",
			 msg[0] ? msg : strerror(-r));
	return r;
}
