// SPDX-License-Identifier: GPL-2.0-only
#include "util/mountinfo.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

/* mountinfo escapes ' ', '\t', '\n' and '\\' inside paths as \ooo. */
static void unescape_octal(char *s)
{
	char *w = s;

	for (const char *p = s; *p;) {
		if (p[0] == '\\' && p[1] >= '0' && p[1] <= '3' && p[2] >= '0' && p[2] <= '7' &&
		    p[3] >= '0' && p[3] <= '7') {
			*w++ = (char)(((p[1] - '0') << 6) | ((p[2] - '0') << 3) | (p[3] - '0'));
			p += 4;
		} else
			*w++ = *p++;
	}
	*w = '\0';
}

/* Field 3 is the device, field 5 the mount point; a variable number of
 * optional fields follows field 6 and ends with a lone "-", after which
 * comes the fs type. Fields never contain raw blanks (they are escaped), so
 * splitting on spaces is exact. */
int mountinfo_split(char *line, struct mountinfo_line *ret)
{
	char *save = NULL, *dev = NULL, *mnt = NULL, *fstype;
	int i = 0;

	for (char *t = strtok_r(line, " \n", &save); t; t = strtok_r(NULL, " \n", &save), i++) {
		if (i == 2)
			dev = t;
		else if (i == 4)
			mnt = t;
		else if (i > 5 && strcmp(t, "-") == 0) {
			fstype = strtok_r(NULL, " \n", &save);
			if (!dev || !mnt || !fstype)
				return -EBADMSG;
			unescape_octal(mnt);
			*ret = (struct mountinfo_line){ .dev = dev, .mnt = mnt, .fstype = fstype };
			return 0;
		}
	}
	return -EBADMSG;
}

int mountinfo_fstype_of(dev_t dev, char *ret, size_t len)
{
	char want[32], *line = NULL;
	size_t cap = 0;
	int r = -ENOENT;
	FILE *f;

	snprintf(want, sizeof(want), "%u:%u", major(dev), minor(dev));
	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return -errno;
	while (r == -ENOENT && getline(&line, &cap, f) > 0) {
		struct mountinfo_line m;

		if (mountinfo_split(line, &m) == 0 && strcmp(m.dev, want) == 0)
			r = snprintf(ret, len, "%s", m.fstype) < (int)len ? 0 : -ENAMETOOLONG;
	}
	free(line);
	fclose(f);
	return r;
}
