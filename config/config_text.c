/* Text helpers for configuration messages (see config_text.h). */
#include "config/config_text.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Length of the escape for the byte sequence at s (0: copy as is), written
 * into esc. Multi-byte sequences handled: C1 controls (C2 80..C2 9F) and the
 * Unicode line/paragraph separators (E2 80 A8/A9), which terminals and log
 * viewers treat as line breaks. *consumed is how many input bytes it covers. */
static size_t escape_of(const unsigned char *s, size_t left, char esc[8], size_t *consumed) {
	*consumed = 1;
	switch (s[0]) {
	case '\n': memcpy(esc, "\\n", 3); return 2;
	case '\t': memcpy(esc, "\\t", 3); return 2;
	case '\r': memcpy(esc, "\\r", 3); return 2;
	case '\\': memcpy(esc, "\\\\", 3); return 2;
	default: break;
	}
	if (s[0] < 0x20 || s[0] == 0x7f) {
		snprintf(esc, 8, "\\x%02x", s[0]);
		return 4;
	}
	if (s[0] == 0xc2 && left >= 2 && s[1] >= 0x80 && s[1] <= 0x9f) {
		*consumed = 2;
		snprintf(esc, 8, "\\u%04x", s[1]);
		return 6;
	}
	if (s[0] == 0xe2 && left >= 3 && s[1] == 0x80 && (s[2] == 0xa8 || s[2] == 0xa9)) {
		*consumed = 3;
		snprintf(esc, 8, "\\u%04x", 0x2000 + (s[2] - 0x80));
		return 6;
	}
	return 0;
}

static size_t utf8_sequence_length(const unsigned char *s, size_t left) {
	size_t n = 1;

	if (s[0] >= 0xf0)
		n = 4;
	else if (s[0] >= 0xe0)
		n = 3;
	else if (s[0] >= 0xc0)
		n = 2;
	/* Stray or truncated bytes are copied one at a time. */
	if (n > left)
		return 1;
	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 1;
	return n;
}

void config_escape(const char *s, size_t len, size_t max_chars, char *out, size_t out_len) {
	const unsigned char *in = (const unsigned char *)s;
	size_t o = 0, i = 0;

	if (!out || out_len == 0)
		return;
	/* Room for "..." and the NUL is kept back so a cut is always visible. */
	if (out_len < 5) {
		out[0] = '\0';
		return;
	}
	while (s && i < len) {
		char esc[8];
		size_t used, n = escape_of(in + i, len - i, esc, &used);
		const char *piece = n ? esc : (const char *)in + i;

		if (!n)
			n = used = utf8_sequence_length(in + i, len - i);
		if (o + n > max_chars || o + n + 4 > out_len) {
			memcpy(out + o, "...", 3);
			o += 3;
			break;
		}
		memcpy(out + o, piece, n);
		o += n;
		i += used;
	}
	out[o] = '\0';
}

/* Levenshtein distance, capped: anything above `cap` returns cap + 1, which
 * keeps the work bounded for long (hostile) words. */
static size_t edit_distance(const char *a, const char *b, size_t cap) {
	size_t la = strlen(a), lb = strlen(b);
	size_t row[64];

	if (la > 63 || lb > 63)
		return cap + 1;
	if ((la > lb ? la - lb : lb - la) > cap)
		return cap + 1;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];

		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t best = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

const char *config_closest(const char *word, const char *const *candidates) {
	const char *best = NULL;
	size_t len = strlen(word), best_distance;
	/* Short words get a tight bound, or "ab" would "match" every short key. */
	size_t cap = len <= 3 ? 1 : len <= 8 ? 2 : 3;

	best_distance = cap + 1;
	for (size_t i = 0; candidates[i]; i++) {
		size_t d = edit_distance(word, candidates[i], cap);

		if (d < best_distance) {
			best = candidates[i];
			best_distance = d;
		}
	}
	return best;
}
