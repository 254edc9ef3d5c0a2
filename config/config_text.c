// SPDX-License-Identifier: GPL-2.0-only
/* Text helpers for configuration messages (see config_text.h). */
#include "config/config_text.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Levenshtein distance, capped: anything above `cap` returns cap + 1, which
 * keeps the work bounded for long (hostile) words. */
static size_t edit_distance(const char *a, const char *b, size_t cap)
{
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

const char *config_closest(const char *word, const char *const *candidates)
{
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
