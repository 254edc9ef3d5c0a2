// SPDX-License-Identifier: GPL-2.0-only
#include "util/text.h"
#include <stdlib.h>
#include <string.h>

json_object *json_string_utf8(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len = strlen(s), o = 0;
	char *buf = malloc(len * 3 + 1); /* each bad byte becomes 3 bytes */
	json_object *j;

	if (!buf)
		return json_object_new_string("");
	while (*p) {
		size_t n = utf8_valid_len(p);
		if (n == 0) {
			memcpy(buf + o, "\xEF\xBF\xBD", 3);
			o += 3;
			p++;
		} else {
			memcpy(buf + o, p, n);
			o += n;
			p += n;
		}
	}
	j = json_object_new_string_len(buf, (int)o);
	free(buf);
	return j;
}
