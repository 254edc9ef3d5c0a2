#include "util/text.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t utf8_valid_len(const unsigned char *s)
{
	size_t n;
	unsigned cp;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xE0) == 0xC0)
		n = 2, cp = s[0] & 0x1F;
	else if ((s[0] & 0xF0) == 0xE0)
		n = 3, cp = s[0] & 0x0F;
	else if ((s[0] & 0xF8) == 0xF0)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3F);
	}
	/* Overlong forms, surrogates and values past U+10FFFF are invalid. */
	if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)
		return 0;
	return n;
}

void text_escape_control(const char *s, char *out, size_t out_len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t o = 0;

	if (!out_len)
		return;
	while (*p && o + 5 < out_len) {
		size_t n = utf8_valid_len(p);
		if (*p == '\n' || *p == '\t' || *p == '\\') {
			out[o++] = '\\';
			out[o++] = *p == '\n' ? 'n' : *p == '\t' ? 't' : '\\';
			p++;
		} else if (n == 0 || *p < 0x20 || *p == 0x7f) {
			o += snprintf(out + o, out_len - o, "\\x%02x", *p);
			p++;
		} else {
			if (o + n >= out_len)
				break;
			memcpy(out + o, p, n);
			o += n;
			p += n;
		}
	}
	out[o] = '\0';
}

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
