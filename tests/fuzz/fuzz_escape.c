/* SPDX-License-Identifier: GPL-2.0-only */
/* libFuzzer harness for the escaper of outside text (util/escape.c), by
 * round trip: the input (not NUL-terminated: ASan sees a read past it) is
 * escaped, the harness's own unescaper (\n \t \r \\ \xNN \uNNNN) reads the
 * result back, and that must be the input up to its first NUL. Also: the
 * output holds no control character, C1 control, line/paragraph separator
 * or bidi override (by the harness's own UTF-8 decoder); a cut at max_bytes
 * gives a prefix of the uncut output, at an escape boundary, then "...". */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "util/escape.h"

#define H "fuzz_escape"

static int hex(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* out (bytes) from the escaped text s; its length, or -1 if malformed. */
static long unescape(const char *s, size_t n, char *out)
{
	size_t w = 0;

	for (size_t i = 0; i < n;) {
		uint32_t cp = 0;
		size_t digits;

		if (s[i] != '\\') {
			out[w++] = s[i++];
			continue;
		}
		if (i + 1 >= n)
			return -1;
		switch (s[i + 1]) {
		case 'n': out[w++] = '\n'; i += 2; continue;
		case 't': out[w++] = '\t'; i += 2; continue;
		case 'r': out[w++] = '\r'; i += 2; continue;
		case '\\': out[w++] = '\\'; i += 2; continue;
		case 'x': digits = 2; break;
		case 'u': digits = 4; break;
		default: return -1;
		}
		if (i + 2 + digits > n)
			return -1;
		for (size_t d = 0; d < digits; d++) {
			if (hex(s[i + 2 + d]) < 0)
				return -1;
			cp = cp * 16 + (uint32_t)hex(s[i + 2 + d]);
		}
		i += 2 + digits;
		if (digits == 2) {
			out[w++] = (char)cp;
		} else if (cp < 0x800) {
			out[w++] = (char)(0xc0 | cp >> 6);
			out[w++] = (char)(0x80 | (cp & 0x3f));
		} else {
			out[w++] = (char)(0xe0 | cp >> 12);
			out[w++] = (char)(0x80 | ((cp >> 6) & 0x3f));
			out[w++] = (char)(0x80 | (cp & 0x3f));
		}
	}
	return (long)w;
}

static void check_clean(const char *out)
{
	size_t n = strlen(out);

	for (size_t i = 0; i < n;) {
		const unsigned char *p = (const unsigned char *)out + i;
		size_t len = fuzz_utf8_len(p, n - i);
		uint32_t cp;

		fuzz_check(len > 0, H, "output is UTF-8");
		fuzz_check(len > 1 || (*p >= 0x20 && *p != 0x7f), H, "no C0 control or DEL");
		cp = len == 1 ? *p
		     : len == 2 ? (uint32_t)(p[0] & 0x1f) << 6 | (p[1] & 0x3f)
		     : len == 3 ? (uint32_t)(p[0] & 0x0f) << 12 | (uint32_t)(p[1] & 0x3f) << 6 |
				   (p[2] & 0x3f)
				: 0x10000;
		fuzz_check(!(cp >= 0x80 && cp <= 0x9f), H, "no C1 control");
		fuzz_check(cp != 0x2028 && cp != 0x2029, H, "no line/paragraph separator");
		fuzz_check(!(cp >= 0x202a && cp <= 0x202e) && !(cp >= 0x2066 && cp <= 0x2069), H,
			   "no bidi override or isolate");
		i += len;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t out_len = 4 * size + 8, in_len = strnlen((const char *)data, size), n, max;
	char *in = malloc(size ? size : 1), *full = malloc(out_len), *cut = malloc(out_len);
	char *back = malloc(size + 8);
	long back_len;

	if (!in || !full || !cut || !back)
		goto out;
	memcpy(in, data, size);
	text_escape(in, size, (size_t)-1, full, out_len);
	n = strlen(full);
	fuzz_check(n < out_len - 4, H, "room was enough: no cut");
	check_clean(full);
	back_len = unescape(full, n, back);
	fuzz_check(back_len == (long)in_len && !memcmp(back, data, in_len), H,
		   "unescaped output is the input");

	max = size ? data[0] % 64 : 0;
	text_escape(in, size, max, cut, out_len);
	n = strlen(cut);
	if (strcmp(cut, full) != 0) {
		fuzz_check(n >= 3 && !strcmp(cut + n - 3, "..."), H, "a cut ends with ...");
		fuzz_check(n - 3 <= max && !strncmp(cut, full, n - 3), H,
			   "a cut is a prefix within max_bytes");
		back_len = unescape(cut, n - 3, back);
		fuzz_check(back_len >= 0 && !memcmp(back, data, (size_t)back_len), H,
			   "a cut is at an escape boundary, of the input's prefix");
	}
out:
	free(in);
	free(full);
	free(cut);
	free(back);
	return 0;
}
