/* Text helpers for configuration messages: echo user input safely and
 * suggest the closest valid word. */
#pragma once
#include <stddef.h>

/* Copy len bytes of s into out (always NUL-terminated) for use inside a
 * one-line message: control characters (C0, DEL, C1, U+2028/U+2029) become
 * \n, \t, \xNN or \uNNNN, backslash is doubled, and text longer than max_chars
 * bytes is cut with "...". Never splits a UTF-8 sequence or an escape. */
void config_escape(const char *s, size_t len, size_t max_chars, char *out, size_t out_len);

/* The candidate closest to word by edit distance, or NULL when none is close
 * enough to be a plausible typo. candidates is NULL-terminated. */
const char *config_closest(const char *word, const char *const *candidates);
