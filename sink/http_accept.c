// SPDX-License-Identifier: GPL-2.0-only
/* Accept / Accept-Encoding: a list of "token;param=value;q=0.5" elements.
 * Only what the metrics endpoint needs is understood; anything odd counts as
 * not offered, never as an error (a scraper always gets an answer). */
#include "sink/http_accept.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* One list element, split. */
struct element {
	char token[64]; /* lowercased media range or coding */
	char version[16]; /* "version" parameter, "" when absent */
	int q; /* q-value x 1000; 1000 when absent */
};

static const char *skip_ws(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* Copy [s, end) trimmed and lowercased into out (cut at size-1). */
static void copy_trimmed(const char *s, const char *end, char *out, size_t size)
{
	size_t n = 0;

	s = skip_ws(s);
	while (end > s && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	if (end - s >= 2 && s[0] == '"' && end[-1] == '"')
		s++, end--;
	for (; s < end && n + 1 < size; s++)
		out[n++] = (char)(*s >= 'A' && *s <= 'Z' ? *s + 32 : *s);
	out[n] = '\0';
}

/* "1", "0.5", "0.125", "1.000" -> 0..1000; anything else -> 0. */
static int parse_q(const char *s)
{
	int q = 0, digits = 0;

	if (s[0] == '1')
		return strspn(s + 1, ".0") == strlen(s + 1) ? 1000 : 0;
	if (s[0] != '0')
		return 0;
	if (s[1] == '\0')
		return 0;
	if (s[1] != '.')
		return 0;
	for (s += 2; *s >= '0' && *s <= '9' && digits < 3; s++, digits++)
		q = q * 10 + (*s - '0');
	if (*s)
		return 0;
	for (; digits < 3; digits++)
		q *= 10;
	return q;
}

/* Parse the element [s, end). */
static void parse_element(const char *s, const char *end, struct element *e)
{
	const char *semi = memchr(s, ';', (size_t)(end - s));

	*e = (struct element){ .q = 1000 };
	copy_trimmed(s, semi ? semi : end, e->token, sizeof(e->token));
	while (semi) {
		const char *p = semi + 1, *next = memchr(p, ';', (size_t)(end - p));
		const char *stop = next ? next : end, *eq = memchr(p, '=', (size_t)(stop - p));
		char name[16], value[16];

		semi = next;
		if (!eq)
			continue;
		copy_trimmed(p, eq, name, sizeof(name));
		copy_trimmed(eq + 1, stop, value, sizeof(value));
		if (!strcmp(name, "q"))
			e->q = parse_q(value);
		else if (!strcmp(name, "version"))
			memcpy(e->version, value, sizeof(value));
	}
}

/* Call fn for each element of a comma-separated list. */
static void for_each_element(const char *list, void (*fn)(const struct element *e, void *ctx),
			     void *ctx)
{
	while (list && *list) {
		const char *comma = strchr(list, ',');
		const char *end = comma ? comma : list + strlen(list);
		struct element e;

		if (end > list) {
			parse_element(list, end, &e);
			fn(&e, ctx);
		}
		list = comma ? comma + 1 : NULL;
	}
}

/* How well one format is matched: the most specific range naming it
 * (RFC 9110 12.5.1: "text/plain;version=0.0.4" over "text/plain" over
 * "text/ *" over "* / *"), the highest q among those; spec -1: not named. */
struct match {
	int spec, q;
};

struct format_pick {
	struct match m[2]; /* by enum prom_format */
	bool any_range; /* some element was a media range (type/subtype) */
};

static void consider(struct match *m, int spec, int q)
{
	if (spec > m->spec || (spec == m->spec && q > m->q))
		*m = (struct match){ spec, q };
}

/* How specifically the element names a type: 3 with the version served, 2
 * without a version, -1 when it names another version (it does not match). */
static int exact_spec(const struct element *e, const char *version)
{
	return !e->version[0] ? 2 : !strcmp(e->version, version) ? 3 : -1;
}

static void rank_format(const struct element *e, void *ctx)
{
	struct format_pick *p = ctx;
	const char *slash = strchr(e->token, '/');
	int spec;

	if (!slash || slash == e->token || !slash[1])
		return; /* not a media range: not offered */
	p->any_range = true;
	if (!strcmp(e->token, "*/*")) {
		consider(&p->m[PROM_FORMAT_TEXT], 0, e->q);
		consider(&p->m[PROM_FORMAT_OPENMETRICS], 0, e->q);
	} else if (!strcmp(e->token, "text/*")) {
		consider(&p->m[PROM_FORMAT_TEXT], 1, e->q);
	} else if (!strcmp(e->token, "application/*")) {
		consider(&p->m[PROM_FORMAT_OPENMETRICS], 1, e->q);
	} else if (!strcmp(e->token, "text/plain")) {
		if ((spec = exact_spec(e, "0.0.4")) >= 0)
			consider(&p->m[PROM_FORMAT_TEXT], spec, e->q);
	} else if (!strcmp(e->token, "application/openmetrics-text")) {
		if ((spec = exact_spec(e, "1.0.0")) >= 0)
			consider(&p->m[PROM_FORMAT_OPENMETRICS], spec, e->q);
	}
}

void http_negotiate(const char *accept, struct http_accept *ret)
{
	struct format_pick p = { { { -1, 0 }, { -1, 0 } }, false };
	const struct match *t = &p.m[PROM_FORMAT_TEXT], *o = &p.m[PROM_FORMAT_OPENMETRICS];

	for_each_element(accept, rank_format, &p);
	/* No header, or nothing in it that reads as a media range: anything
	 * goes (RFC 9110: no Accept means any type), text first. */
	if (!p.any_range) {
		*ret = (struct http_accept){ PROM_FORMAT_TEXT, { true, true } };
		return;
	}
	ret->ok[PROM_FORMAT_TEXT] = t->spec >= 0 && t->q > 0;
	ret->ok[PROM_FORMAT_OPENMETRICS] = o->spec >= 0 && o->q > 0;
	/* The higher q; at equal q the more specific match; OpenMetrics when
	 * both are named as specifically (Prometheus' preference), text when
	 * only wildcards name them (curl's * / *). */
	if (!ret->ok[PROM_FORMAT_OPENMETRICS])
		ret->best = PROM_FORMAT_TEXT;
	else if (!ret->ok[PROM_FORMAT_TEXT] || o->q > t->q ||
		 (o->q == t->q && (o->spec > t->spec || (o->spec == t->spec && o->spec >= 2))))
		ret->best = PROM_FORMAT_OPENMETRICS;
	else
		ret->best = PROM_FORMAT_TEXT;
}

struct gzip_pick {
	int gzip_q, star_q; /* -1: not listed */
};

static void rank_gzip(const struct element *e, void *ctx)
{
	struct gzip_pick *p = ctx;
	int *q = !strcmp(e->token, "*")					    ? &p->star_q
		 : !strcmp(e->token, "gzip") || !strcmp(e->token, "x-gzip") ? &p->gzip_q
									    : NULL;

	if (q && e->q > *q)
		*q = e->q;
}

/* An explicit gzip entry wins over "*" (gzip;q=0 refuses it whatever * says). */
bool http_accepts_gzip(const char *accept_encoding)
{
	struct gzip_pick p = { -1, -1 };

	for_each_element(accept_encoding, rank_gzip, &p);
	return p.gzip_q >= 0 ? p.gzip_q > 0 : p.star_q > 0;
}
