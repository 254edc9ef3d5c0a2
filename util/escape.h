/* SPDX-License-Identifier: GPL-2.0-only */
/* Text from the outside world (cgroup names, container metadata, config
 * values) may hold any byte. This makes it safe for a line on a terminal or
 * in a log. No dependencies beyond libc. */
#pragma once
#include <stddef.h>
#include <stdint.h>

/* The one escaper for outside text in a line meant for people: log lines,
 * tables, configuration messages. len bytes of s (up to a NUL) into out,
 * always NUL-terminated: newline, tab, CR and backslash as \n, \t, \r, \\;
 * other control bytes, DEL and bytes that are not valid UTF-8 as \xNN; C1
 * controls, U+2028/U+2029 and bidirectional overrides/isolates as \uNNNN.
 * Output longer than max_bytes (or than out) is cut with "...", never inside
 * an escape or a UTF-8 sequence. Returns out. */
char *text_escape(const char *s, size_t len, size_t max_bytes, char *out, size_t out_len);
/* text_escape() of the C string s, cut only by the size of out. */
char *text_escape_control(const char *s, char *out, size_t out_len);

/* Length of the valid UTF-8 sequence at s (NUL-terminated), or 0 if the byte
 * at s starts none (overlong forms and surrogates included); its code point
 * in *ret_cp, untouched on 0. */
size_t utf8_decode(const unsigned char *s, uint32_t *ret_cp);
size_t utf8_valid_len(const unsigned char *s);

/* A Prometheus label name: prefix, then s with every byte outside
 * [a-zA-Z0-9_] as '_' (cAdvisor's container_label_<key> rule), cut to fit
 * out (always NUL-terminated). Returns out. */
char *text_label_name(const char *prefix, const char *s, char *out, size_t out_len);
