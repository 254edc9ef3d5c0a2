// SPDX-License-Identifier: GPL-2.0-only
/* Forward cursor over libyaml events with FILE:LINE:COL errors (see yaml_cursor.h). */
#include "config/yaml_cursor.h"
#include "util/escape.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "config/config_text.h"

int ycursor_init(struct ycursor *c, const char *text, size_t len, const char *name, char *err,
		 size_t err_len)
{
	memset(c, 0, sizeof(*c));
	c->name = name ? name : "<config>";
	c->text = text;
	c->len = len;
	c->err = err;
	c->err_len = err_len;
	if (!yaml_parser_initialize(&c->parser)) {
		if (err && err_len)
			snprintf(err, err_len, "%s: out of memory", c->name);
		return -ENOMEM;
	}
	/* Configuration files are UTF-8. Without this libyaml would also take
	 * UTF-16 (by BOM), whose byte offsets our positions could not follow. */
	yaml_parser_set_encoding(&c->parser, YAML_UTF8_ENCODING);
	yaml_parser_set_input_string(&c->parser, (const unsigned char *)text, len);
	return 0;
}

void ycursor_done(struct ycursor *c)
{
	if (!c)
		return;
	if (c->has_event)
		yaml_event_delete(&c->event);
	c->has_event = false;
	yaml_parser_delete(&c->parser);
}

static void format_line(struct ycursor *c, size_t line, size_t column, const char *fmt, va_list ap)
{
	char name[256], msg[1024]; /* a web_config error nests its own line */

	if (!c->err || c->err_len == 0)
		return;
	text_escape(c->name, strlen(c->name), 200, name, sizeof(name));
	vsnprintf(msg, sizeof(msg), fmt, ap);
	snprintf(c->err, c->err_len, "%s:%zu:%zu: %s", name, line, column, msg);
}

int ycursor_fail(struct ycursor *c, yaml_mark_t mark, const char *fmt, ...)
{
	va_list ap;

	/* libyaml counts from 0; editors and compilers count from 1. */
	va_start(ap, fmt);
	format_line(c, mark.line + 1, mark.column + 1, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* Reader errors carry a byte offset, not a mark: count lines and characters
 * the way libyaml does for "\n", "\r\n" and "\r" breaks. */
static yaml_mark_t mark_of_offset(const struct ycursor *c, size_t offset)
{
	yaml_mark_t m = { 0 };

	if (offset > c->len)
		offset = c->len;
	for (size_t i = 0; i < offset; i++) {
		unsigned char b = (unsigned char)c->text[i];

		if (b == '\n' || (b == '\r' && !(i + 1 < c->len && c->text[i + 1] == '\n'))) {
			m.line++;
			m.column = 0;
		} else if ((b & 0xc0) != 0x80 && b != '\r') {
			m.column++;
		}
	}
	m.index = offset;
	return m;
}

static int fail_from_parser(struct ycursor *c)
{
	yaml_parser_t *p = &c->parser;
	const char *problem = p->problem ? p->problem : "unknown problem";

	switch (p->error) {
	case YAML_MEMORY_ERROR:
		ycursor_fail(c, p->problem_mark, "out of memory");
		return -ENOMEM;
	case YAML_READER_ERROR: {
		yaml_mark_t m = mark_of_offset(c, p->problem_offset);
		bool utf16 = c->len >= 2 && ((unsigned char)c->text[0] == 0xff ||
					     (unsigned char)c->text[0] == 0xfe);

		const char *hint = utf16 ? "; UTF-16? configuration files must be UTF-8" : "";

		/* libyaml reports the offending octet for encoding problems and
		 * the decoded code point for forbidden characters. */
		if (p->problem_value >= 0 && strstr(problem, "octet"))
			return ycursor_fail(c, m, "not valid UTF-8 text: %s (byte 0x%02x)%s",
					    problem, (unsigned)p->problem_value & 0xff, hint);
		if (p->problem_value >= 0)
			return ycursor_fail(c, m, "not valid UTF-8 text: %s (U+%04X)%s", problem,
					    (unsigned)p->problem_value, hint);
		return ycursor_fail(c, m, "not valid UTF-8 text: %s%s", problem, hint);
	}
	case YAML_SCANNER_ERROR:
	case YAML_PARSER_ERROR:
		if (p->context)
			return ycursor_fail(c, p->problem_mark,
					    "YAML syntax error: %s (%s at line %zu, column %zu)",
					    problem, p->context, p->context_mark.line + 1,
					    p->context_mark.column + 1);
		return ycursor_fail(c, p->problem_mark, "YAML syntax error: %s", problem);
	default:
		return ycursor_fail(c, p->problem_mark, "YAML error: %s", problem);
	}
}

/* Anchors and tags sit on scalars and collection starts. */
static int refuse_extensions(struct ycursor *c)
{
	const yaml_event_t *e = &c->event;
	const yaml_char_t *anchor = NULL, *tag = NULL;
	bool implicit_tag = true;

	switch (e->type) {
	case YAML_ALIAS_EVENT:
		return ycursor_fail(c, e->start_mark,
				    "aliases (*name) are not supported: write the value out");
	case YAML_SCALAR_EVENT:
		anchor = e->data.scalar.anchor;
		tag = e->data.scalar.tag;
		/* A tag libyaml only implied (plain or quoted scalar) is fine. */
		implicit_tag = e->data.scalar.plain_implicit || e->data.scalar.quoted_implicit;
		break;
	case YAML_SEQUENCE_START_EVENT:
		anchor = e->data.sequence_start.anchor;
		tag = e->data.sequence_start.tag;
		implicit_tag = e->data.sequence_start.implicit;
		break;
	case YAML_MAPPING_START_EVENT:
		anchor = e->data.mapping_start.anchor;
		tag = e->data.mapping_start.tag;
		implicit_tag = e->data.mapping_start.implicit;
		break;
	default:
		return 0;
	}
	if (anchor)
		return ycursor_fail(c, e->start_mark,
				    "anchors (&name) are not supported: write the value out");
	if (tag && !implicit_tag)
		return ycursor_fail(c, e->start_mark,
				    "YAML tags (!tag) are not supported: remove the tag");
	return 0;
}

int ycursor_next(struct ycursor *c)
{
	if (c->has_event) {
		yaml_event_delete(&c->event);
		c->has_event = false;
	}
	if (!yaml_parser_parse(&c->parser, &c->event))
		return fail_from_parser(c);
	c->has_event = true;
	return refuse_extensions(c);
}

bool ycursor_is_null(const struct ycursor *c)
{
	const yaml_event_t *e = &c->event;
	const char *v = (const char *)e->data.scalar.value;
	size_t n = e->data.scalar.length;

	if (!c->has_event || e->type != YAML_SCALAR_EVENT ||
	    e->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return false;
	return n == 0 || (n == 1 && v[0] == '~') ||
	       (n == 4 &&
		(!memcmp(v, "null", 4) || !memcmp(v, "Null", 4) || !memcmp(v, "NULL", 4)));
}

const char *ycursor_describe(const struct ycursor *c)
{
	if (!c->has_event)
		return "nothing";
	switch (c->event.type) {
	case YAML_MAPPING_START_EVENT:
		return "a mapping";
	case YAML_SEQUENCE_START_EVENT:
		return "a list";
	case YAML_SCALAR_EVENT:
		return ycursor_is_null(c) ? "null" : "a single value";
	case YAML_ALIAS_EVENT:
		return "an alias";
	default:
		return "the end of the collection";
	}
}
