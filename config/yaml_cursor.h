/* SPDX-License-Identifier: GPL-2.0-only */
/* A forward cursor over libyaml's event stream that turns every problem into
 * one "NAME:LINE:COL: message" line. Internal to config/.
 *
 * Only the subset of YAML a configuration needs is let through: anchors,
 * aliases and tags are refused where they appear (see docs/CONFIG.md), so a
 * document can never expand (no "billion laughs") and every value means what
 * it looks like. */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <yaml.h>

struct ycursor {
	yaml_parser_t parser;
	yaml_event_t event; /* current event, valid after a successful ycursor_next() */
	bool has_event;
	const char *name; /* file name for messages */
	const char *text; /* the whole input, for positions libyaml gives as offsets */
	size_t len;
	char *err; /* where the one-line error goes */
	size_t err_len;
};

/* Returns 0, or -ENOMEM (with a message in err). */
int ycursor_init(struct ycursor *c, const char *text, size_t len, const char *name, char *err,
		 size_t err_len);
void ycursor_done(struct ycursor *c);

/* Advance to the next event. Returns 0, or -EINVAL / -ENOMEM with the
 * message written (syntax errors, invalid UTF-8, anchors, aliases, tags). */
int ycursor_next(struct ycursor *c);

/* Write "NAME:LINE:COL: <formatted>" for mark and return -EINVAL. */
int ycursor_fail(struct ycursor *c, yaml_mark_t mark, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The current event is a plain (unquoted) scalar YAML reads as null:
 * empty, "~", "null". */
bool ycursor_is_null(const struct ycursor *c);

/* "a mapping", "a list", "null", "a string", ... for type errors. */
const char *ycursor_describe(const struct ycursor *c);
