// SPDX-License-Identifier: GPL-2.0-only
/* The one escaper for outside text in lines meant for people (escape.h). */
#include "util/escape.h"
#include <stdint.h>
#include <stdio.h>
#include <string.h>

size_t utf8_decode(const unsigned char *s, uint32_t *ret_cp)
{
	size_t n;
	uint32_t cp;

	if (s[0] < 0x80) {
		*ret_cp = s[0];
		return 1;
	}
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
	*ret_cp = cp;
	return n;
}

size_t utf8_valid_len(const unsigned char *s)
{
	uint32_t cp;

	return utf8_decode(s, &cp);
}

/* The escape for the character at s (0: copy it as is), written into esc;
 * *consumed is how many input bytes it covers. Beyond C0 controls and DEL:
 * bytes that are not UTF-8, C1 controls (8-bit CSI and friends), the line
 * and paragraph separators U+2028/U+2029 that log viewers break lines at,
 * and the bidirectional overrides and isolates (U+202A..U+202E,
 * U+2066..U+2069) that make a line read differently from what it holds. */
static size_t escape_of(const unsigned char *s, char esc[8], size_t *consumed)
{
	uint32_t cp;
	size_t n = utf8_decode(s, &cp);

	*consumed = n ? n : 1;
	switch (s[0]) {
	case '\n':
		memcpy(esc, "\\n", 3);
		return 2;
	case '\t':
		memcpy(esc, "\\t", 3);
		return 2;
	case '\r':
		memcpy(esc, "\\r", 3);
		return 2;
	case '\\':
		memcpy(esc, "\\\\", 3);
		return 2;
	default:
		break;
	}
	if (n == 0 || s[0] < 0x20 || s[0] == 0x7f) {
		snprintf(esc, 8, "\\x%02x", s[0]);
		return 4;
	}
	if ((cp >= 0x80 && cp <= 0x9f) || cp == 0x2028 || cp == 0x2029 ||
	    (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069)) {
		snprintf(esc, 8, "\\u%04x", cp);
		return 6;
	}
	return 0;
}

char *text_escape(const char *s, size_t len, size_t max_bytes, char *out, size_t out_len)
{
	const unsigned char *in = (const unsigned char *)s;
	size_t o = 0, i = 0;

	if (!out || out_len == 0)
		return out;
	/* Room for "..." and the NUL is kept back so a cut is always visible. */
	if (out_len < 5) {
		out[0] = '\0';
		return out;
	}
	while (s && i < len && in[i]) {
		unsigned char tail[5] = { 0 };
		char esc[8];
		size_t used, n;
		const char *piece;

		/* utf8_decode() reads up to 4 bytes or to a NUL, and s need not
		 * have one at len: near len it decodes a NUL-terminated copy, so
		 * a sequence cut by len is its bytes one by one (\xNN). */
		if (len - i < 4)
			memcpy(tail, in + i, len - i);
		n = escape_of(len - i < 4 ? tail : in + i, esc, &used);
		piece = n ? esc : (const char *)in + i;
		if (!n)
			n = used;
		if (o + n > max_bytes || o + n + 4 > out_len) {
			memcpy(out + o, "...", 3);
			o += 3;
			break;
		}
		memcpy(out + o, piece, n);
		o += n;
		i += used;
	}
	out[o] = '\0';
	return out;
}

char *text_escape_control(const char *s, char *out, size_t out_len)
{
	return text_escape(s, s ? strlen(s) : 0, (size_t)-1, out, out_len);
}

char *text_label_name(const char *prefix, const char *s, char *out, size_t out_len)
{
	size_t o = 0;

	if (!out_len)
		return out;
	for (const char *p = prefix; p && *p && o + 1 < out_len; p++)
		out[o++] = *p;
	for (const unsigned char *p = (const unsigned char *)s; p && *p && o + 1 < out_len; p++)
		out[o++] = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
					   (*p >= '0' && *p <= '9') || *p == '_'
				   ? (char)*p
				   : '_';
	out[o] = '\0';
	return out;
}
