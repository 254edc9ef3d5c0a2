// SPDX-License-Identifier: GPL-2.0-only
/* Reading configuration values of an expected shape (scalar, integer,
 * boolean, list, section of known keys) with one precise error each. */
#include "config/config_schema.h"
#include "util/escape.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <stdlib.h>

#include "config/config_text.h"

void cfg_set_string(char *dst, size_t size, const char *src)
{
	memset(dst, 0, size);
	snprintf(dst, size, "%s", src);
}

const yaml_event_t *cfg_event(const struct parse_ctx *p)
{
	return &p->cur.event;
}

int cfg_advance(struct parse_ctx *p, const yaml_event_t **ret_event)
{
	int r = ycursor_next(&p->cur);

	if (r < 0)
		return r;
	*ret_event = cfg_event(p);
	return 0;
}

/* The current scalar, escaped for a message. */
const char *cfg_echo(const struct parse_ctx *p, char *buf, size_t len)
{
	const yaml_event_t *e = cfg_event(p);

	text_escape((const char *)e->data.scalar.value, e->data.scalar.length, ECHO_MAX, buf, len);
	return buf;
}

/* ------------------------------------------------------------------------- */
/* Reading one value of an expected shape                                    */

/* Advance to the value and require a non-null scalar; *ret_value is valid
 * until the next ycursor_next(). `what` names the expected value for the
 * message ("a duration", "true or false"). */
int cfg_next_scalar(struct parse_ctx *p, const char *what, const char **ret_value)
{
	const yaml_event_t *e;
	int r;

	r = cfg_advance(p, &e);
	if (r < 0)
		return r;
	if (e->type != YAML_SCALAR_EVENT)
		return ycursor_fail(&p->cur, e->start_mark, "%s: expected %s, got %s", p->key, what,
				    ycursor_describe(&p->cur));
	if (ycursor_is_null(&p->cur))
		return ycursor_fail(&p->cur, e->start_mark, "%s: missing value (expected %s)",
				    p->key, what);
	/* "\0" in a double-quoted string: C strings would silently cut there. */
	if (memchr(e->data.scalar.value, '\0', e->data.scalar.length))
		return ycursor_fail(&p->cur, e->start_mark, "%s: value contains a NUL character",
				    p->key);
	*ret_value = (const char *)e->data.scalar.value;
	return 0;
}

int cfg_next_collection(struct parse_ctx *p, yaml_event_type_t type, const char *what)
{
	const yaml_event_t *e;
	int r;

	r = cfg_advance(p, &e);
	if (r < 0)
		return r;
	if (e->type == type)
		return 0;
	if (type == YAML_MAPPING_START_EVENT && ycursor_is_null(&p->cur))
		return ycursor_fail(&p->cur, e->start_mark,
				    "%s: expected %s, got null (write {} for all defaults)", p->key,
				    what);
	return ycursor_fail(&p->cur, e->start_mark, "%s: expected %s, got %s", p->key, what,
			    ycursor_describe(&p->cur));
}

/* A decimal integer in [min, max]. YAML's other integer spellings (0x, 0o,
 * 1_000) are refused rather than guessed at. */
int cfg_next_uint(struct parse_ctx *p, uint64_t min, uint64_t max, uint64_t *ret)
{
	const char *s;
	char buf[ECHO_MAX + 8];
	uint64_t v = 0;
	bool overflow = false;
	size_t i = 0;
	int r;

	r = cfg_next_scalar(p, "an integer", &s);
	if (r < 0)
		return r;
	if (s[0] == '+')
		i++;
	else if (s[0] == '-' && s[1] != '\0' && strspn(s + 1, "0123456789") == strlen(s + 1))
		return ycursor_fail(&p->cur, cfg_event(p)->start_mark,
				    "%s: %s is out of range %llu..%llu", p->key,
				    cfg_echo(p, buf, sizeof(buf)), (unsigned long long)min,
				    (unsigned long long)max);
	if (s[i] == '\0' || strspn(s + i, "0123456789") != strlen(s + i))
		return ycursor_fail(&p->cur, cfg_event(p)->start_mark,
				    "%s: expected a decimal integer, got '%s'", p->key,
				    cfg_echo(p, buf, sizeof(buf)));
	for (; s[i]; i++) {
		if (v > (UINT64_MAX - 9) / 10)
			overflow = true;
		else
			v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (overflow || v < min || v > max)
		return ycursor_fail(&p->cur, cfg_event(p)->start_mark,
				    "%s: %s is out of range %llu..%llu", p->key,
				    cfg_echo(p, buf, sizeof(buf)), (unsigned long long)min,
				    (unsigned long long)max);
	*ret = v;
	return 0;
}

/* YAML 1.2 booleans only: 1.1's yes/no/on/off are the classic trap ("NO"
 * as a country code), so they are an error rather than a surprise. */
int cfg_next_duration(struct parse_ctx *p, const struct cfg_duration *d, uint64_t *ret_ms)
{
	const char *s;
	char buf[ECHO_MAX + 8];
	uint64_t ms;
	int r;

	r = cfg_next_scalar(p, d->what, &s);
	if (r < 0)
		return r;
	if (d->positive && s[0] == '-')
		return ycursor_fail(&p->cur, cfg_event(p)->start_mark,
				    "%s: must be greater than 0, got '%s'", p->key,
				    cfg_echo(p, buf, sizeof(buf)));
	r = config_parse_duration_ms(s, &ms);
	if (r == -ERANGE || (r == 0 && ms > d->max_ms))
		return d->max_text ? ycursor_fail(&p->cur, cfg_event(p)->start_mark,
						  "%s: '%s' is longer than %s", p->key,
						  cfg_echo(p, buf, sizeof(buf)), d->max_text)
				   : ycursor_fail(&p->cur, cfg_event(p)->start_mark,
						  "%s: '%s' is too long", p->key,
						  cfg_echo(p, buf, sizeof(buf)));
	if (r < 0)
		return ycursor_fail(&p->cur, cfg_event(p)->start_mark,
				    "%s: invalid duration '%s' (expected e.g. %s)", p->key,
				    cfg_echo(p, buf, sizeof(buf)), d->examples);
	if (d->positive && ms == 0)
		return ycursor_fail(&p->cur, cfg_event(p)->start_mark, "%s: must be greater than 0",
				    p->key);
	*ret_ms = ms;
	return 0;
}

int cfg_bool_word(const char *s, bool *ret)
{
	static const char *const yes[] = { "true", "True", "TRUE" },
				 *const no[] = { "false", "False", "FALSE" };

	for (size_t i = 0; i < 3; i++) {
		if (!strcmp(s, yes[i]) || !strcmp(s, no[i])) {
			*ret = !strcmp(s, yes[i]);
			return 0;
		}
	}
	return -EINVAL;
}

int cfg_next_bool(struct parse_ctx *p, bool *ret)
{
	const char *s;
	char buf[ECHO_MAX + 8];
	int r;

	r = cfg_next_scalar(p, "true or false", &s);
	if (r < 0)
		return r;
	if (cfg_bool_word(s, ret) == 0)
		return 0;
	return ycursor_fail(&p->cur, cfg_event(p)->start_mark,
			    "%s: expected true or false, got '%s'", p->key,
			    cfg_echo(p, buf, sizeof(buf)));
}

int cfg_next_string(struct parse_ctx *p, const char *what, size_t max_len, const char **ret)
{
	const char *s;
	int r;

	r = cfg_next_scalar(p, what, &s);
	if (r < 0)
		return r;
	if (s[0] == '\0')
		return ycursor_fail(&p->cur, cfg_event(p)->start_mark, "%s: must not be empty",
				    p->key);
	if (cfg_event(p)->data.scalar.length > max_len)
		return ycursor_fail(&p->cur, cfg_event(p)->start_mark, "%s: longer than %zu bytes",
				    p->key, max_len);
	*ret = s;
	return 0;
}

/* Walk a list: for each item, cb(p, index) with the cursor on the item's
 * first event. Returns the number of items or a negative errno. */
int cfg_for_each_item(struct parse_ctx *p, const char *what,
		      int (*cb)(struct parse_ctx *p, int index))
{
	int n = 0, r;

	r = cfg_next_collection(p, YAML_SEQUENCE_START_EVENT, what);
	if (r < 0)
		return r;
	for (;;) {
		r = ycursor_next(&p->cur);
		if (r < 0)
			return r;
		if (cfg_event(p)->type == YAML_SEQUENCE_END_EVENT)
			return n;
		r = cb(p, n);
		if (r < 0)
			return r;
		n++;
	}
}

/* An item already read by the cursor (for_each_item callbacks). */
int cfg_item_scalar(struct parse_ctx *p, const char *what, size_t max_len, const char **ret)
{
	const yaml_event_t *e = cfg_event(p);

	if (e->type != YAML_SCALAR_EVENT)
		return ycursor_fail(&p->cur, e->start_mark, "%s: expected %s, got %s", p->key, what,
				    ycursor_describe(&p->cur));
	if (ycursor_is_null(&p->cur) || e->data.scalar.length == 0)
		return ycursor_fail(&p->cur, e->start_mark, "%s: empty item (expected %s)", p->key,
				    what);
	if (memchr(e->data.scalar.value, '\0', e->data.scalar.length))
		return ycursor_fail(&p->cur, e->start_mark, "%s: value contains a NUL character",
				    p->key);
	if (e->data.scalar.length > max_len)
		return ycursor_fail(&p->cur, e->start_mark, "%s: item longer than %zu bytes",
				    p->key, max_len);
	*ret = (const char *)e->data.scalar.value;
	return 0;
}

static int fail_unknown_key(struct parse_ctx *p, const char *section, const struct key_def *keys,
			    size_t n_keys)
{
	const char *names[MAX_KEYS_PER_SECTION + 1], *close;
	char buf[ECHO_MAX + 8], valid[256] = "";
	/* Top-level keys need no "in ..." to be found. */
	char where[64] = "";

	if (section)
		snprintf(where, sizeof(where), " in %s", section);

	for (size_t i = 0; i < n_keys; i++) {
		names[i] = keys[i].name;
		snprintf(valid + strlen(valid), sizeof(valid) - strlen(valid), "%s%s",
			 i ? ", " : "", keys[i].name);
	}
	names[n_keys] = NULL;
	close = config_closest((const char *)cfg_event(p)->data.scalar.value, names);
	if (close)
		return ycursor_fail(&p->cur, cfg_event(p)->start_mark,
				    "unknown key '%s'%s (did you mean '%s'?)",
				    cfg_echo(p, buf, sizeof(buf)), where, close);
	return ycursor_fail(&p->cur, cfg_event(p)->start_mark,
			    "unknown key '%s'%s (valid keys: %s)", cfg_echo(p, buf, sizeof(buf)),
			    where, valid);
}

/* The cursor is on the section's MAPPING-START; reads up to its end. */
int cfg_parse_section(struct parse_ctx *p, const char *section, const struct key_def *keys,
		      size_t n_keys)
{
	yaml_mark_t first_seen[MAX_KEYS_PER_SECTION];
	bool seen[MAX_KEYS_PER_SECTION] = { false };
	int r;

	for (;;) {
		const yaml_event_t *e;
		const char *key;
		size_t i;

		r = cfg_advance(p, &e);
		if (r < 0)
			return r;
		if (e->type == YAML_MAPPING_END_EVENT)
			return 0;
		if (e->type != YAML_SCALAR_EVENT)
			return ycursor_fail(&p->cur, e->start_mark,
					    "%s%skeys must be names, got %s",
					    section ? section : "", section ? ": " : "",
					    ycursor_describe(&p->cur));
		key = (const char *)e->data.scalar.value;
		for (i = 0; i < n_keys; i++)
			if (strlen(keys[i].name) == e->data.scalar.length &&
			    !strcmp(keys[i].name, key))
				break;
		if (i == n_keys)
			return fail_unknown_key(p, section, keys, n_keys);
		if (seen[i])
			return ycursor_fail(&p->cur, e->start_mark,
					    "duplicate key '%s' (first at line %zu, column %zu)",
					    keys[i].name, first_seen[i].line + 1,
					    first_seen[i].column + 1);
		seen[i] = true;
		first_seen[i] = e->start_mark;
		snprintf(p->key, sizeof(p->key), "%s%s%s", section ? section : "",
			 section ? "." : "", keys[i].name);
		r = keys[i].parse(p);
		if (r < 0)
			return r;
	}
}

int cfg_read_fd(int fd, size_t max, char **ret_text, size_t *ret_len)
{
	size_t len = 0, cap = 4096;
	char *text = malloc(cap), *bigger;

	if (!text)
		return -ENOMEM;
	for (;;) {
		ssize_t n;

		/* One byte past the limit tells "too large" from "exactly full". */
		if (len == cap) {
			if (cap > max) {
				free(text);
				return -EFBIG;
			}
			cap = cap * 2 > max + 1 ? max + 1 : cap * 2;
			bigger = realloc(text, cap);
			if (!bigger) {
				free(text);
				return -ENOMEM;
			}
			text = bigger;
		}
		n = read(fd, text + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int r = -errno;

			free(text);
			return r;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if (len > max) {
		free(text);
		return -EFBIG;
	}
	*ret_text = text;
	*ret_len = len;
	return 0;
}
