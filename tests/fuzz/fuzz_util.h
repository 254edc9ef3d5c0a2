/* SPDX-License-Identifier: GPL-2.0-only */
/* What the harnesses share: a check that aborts (libFuzzer keeps the input),
 * the input as C strings, and an independent UTF-8 decoder (Unicode's
 * table 3-7 written out again, not util/escape.c's) for the round trips. */
#pragma once
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline void fuzz_check(int ok, const char *harness, const char *what)
{
	if (!ok) {
		fprintf(stderr, "%s: broken invariant: %s\n", harness, what);
		abort();
	}
}

/* data as up to n NUL-terminated strings, split at NUL bytes (the last one
 * takes the rest). Strings not present are "". Returns a malloc'd block
 * that ret[] points into (free it), or NULL. */
static inline char *fuzz_split(const uint8_t *data, size_t size, const char **ret, size_t n)
{
	char *buf = malloc(size + 1), *p;

	if (!buf)
		return NULL;
	memcpy(buf, data, size);
	buf[size] = '\0';
	p = buf;
	for (size_t i = 0; i < n; i++) {
		ret[i] = p;
		if (p < buf + size && i + 1 < n)
			p += strlen(p) + (p + strlen(p) < buf + size);
		else
			p = buf + size;
	}
	return buf;
}

/* Length of the well-formed UTF-8 sequence at s[0..n), or 0. */
static inline size_t fuzz_utf8_len(const unsigned char *s, size_t n)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t len;

	if (n == 0)
		return 0;
	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4;
	else
		return 0;
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

/* s with every byte that starts no valid sequence, and every byte for which
 * replace(c) is true, as U+FFFD: what the formatters promise to write. */
static inline char *fuzz_sanitized(const char *s, int (*replace)(unsigned char c))
{
	size_t n = strlen(s), w = 0;
	char *out = malloc(3 * n + 1);

	if (!out)
		return NULL;
	for (size_t i = 0; i < n;) {
		size_t len = fuzz_utf8_len((const unsigned char *)s + i, n - i);

		if (len == 0 || (replace && replace((unsigned char)s[i]))) {
			memcpy(out + w, "\xef\xbf\xbd", 3);
			w += 3;
			i++;
			continue;
		}
		memcpy(out + w, s + i, len);
		w += len;
		i += len;
	}
	out[w] = '\0';
	return out;
}
