/* SPDX-License-Identifier: GPL-2.0-only */
/* Text helpers for configuration messages: suggest the closest valid word.
 * User input is echoed through text_escape() (util/text.h). */
#pragma once
#include <stddef.h>

/* The candidate closest to word by edit distance, or NULL when none is close
 * enough to be a plausible typo. candidates is NULL-terminated. */
const char *config_closest(const char *word, const char *const *candidates);
