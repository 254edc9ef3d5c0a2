// SPDX-License-Identifier: GPL-2.0-only
/* The exporter toolkit's web configuration (see web_config.h), read with the
 * agent configuration's cursor and key tables (config_read.c): the same
 * "FILE:LINE:COL: message" errors, unknown keys with a close match. Key
 * names and meanings are the toolkit's docs/web-configuration.md; where
 * cgperf is stricter or reads less, docs/PROMETHEUS.md says so. */
#include "config/web_config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/web_int.h"
#include "util/escape.h"

const char *const web_header_names[WEB_NR_HEADERS] = {
	[WEB_HDR_CSP] = "Content-Security-Policy",
	[WEB_HDR_FRAME_OPTIONS] = "X-Frame-Options",
	[WEB_HDR_CONTENT_TYPE_OPTIONS] = "X-Content-Type-Options",
	[WEB_HDR_XSS_PROTECTION] = "X-XSS-Protection",
	[WEB_HDR_HSTS] = "Strict-Transport-Security",
};

/* ---- http_server_config ---- */

static int parse_http2(struct parse_ctx *p)
{
	return cfg_next_bool(p, &web_of(p)->c->http2);
}

/* A header value: "" leaves it unset (the toolkit's "unset if blank"). */
static int next_header(struct parse_ctx *p, enum web_header h, const char *const *allowed)
{
	char *dst = web_of(p)->c->headers[h], buf[ECHO_MAX + 8];
	const char *s;
	int r = cfg_next_scalar(p, "a header value", &s);

	if (r < 0)
		return r;
	if (cfg_event(p)->data.scalar.length > WEB_CONFIG_HEADER_MAX)
		return ycursor_fail(&p->cur, web_mark(p), "%s: longer than %d bytes", p->key,
				    WEB_CONFIG_HEADER_MAX);
	/* A line break would end the header and start another. */
	for (const char *q = s; *q; q++)
		if (((unsigned char)*q < 32 && *q != '\t') || *q == 127)
			return ycursor_fail(&p->cur, web_mark(p),
					    "%s: control characters are not allowed", p->key);
	if (allowed && s[0]) {
		int i = 0;

		while (allowed[i] && strcmp(s, allowed[i]))
			i++;
		if (!allowed[i])
			return ycursor_fail(
				&p->cur, web_mark(p), "%s: '%s' is not allowed (expected %s)",
				p->key, cfg_echo(p, buf, sizeof(buf)),
				h == WEB_HDR_FRAME_OPTIONS ? "deny or sameorigin" : "nosniff");
	}
	cfg_set_string(dst, WEB_CONFIG_HEADER_MAX + 1, s);
	return 0;
}

static int parse_csp(struct parse_ctx *p)
{
	return next_header(p, WEB_HDR_CSP, NULL);
}

static int parse_frame_options(struct parse_ctx *p)
{
	static const char *const allowed[] = { "deny", "sameorigin", NULL };

	return next_header(p, WEB_HDR_FRAME_OPTIONS, allowed);
}

static int parse_content_type_options(struct parse_ctx *p)
{
	static const char *const allowed[] = { "nosniff", NULL };

	return next_header(p, WEB_HDR_CONTENT_TYPE_OPTIONS, allowed);
}

static int parse_xss_protection(struct parse_ctx *p)
{
	return next_header(p, WEB_HDR_XSS_PROTECTION, NULL);
}

static int parse_hsts(struct parse_ctx *p)
{
	return next_header(p, WEB_HDR_HSTS, NULL);
}

static int parse_headers(struct parse_ctx *p)
{
	/* Indexed by enum web_header, named as web_header_names. */
	static const struct key_def keys[WEB_NR_HEADERS] = {
		{ "Content-Security-Policy", parse_csp },
		{ "X-Frame-Options", parse_frame_options },
		{ "X-Content-Type-Options", parse_content_type_options },
		{ "X-XSS-Protection", parse_xss_protection },
		{ "Strict-Transport-Security", parse_hsts },
	};
	int r = cfg_next_collection(p, YAML_MAPPING_START_EVENT, "a mapping");

	return r < 0 ? r : cfg_parse_section(p, "http_server_config.headers", keys, WEB_NR_HEADERS);
}

static int parse_http(struct parse_ctx *p)
{
	static const struct key_def keys[] = {
		{ "http2", parse_http2 },
		{ "headers", parse_headers },
	};
	int r = cfg_next_collection(p, YAML_MAPPING_START_EVENT, "a mapping");

	return r < 0 ? r : cfg_parse_section(p, "http_server_config", keys, 2);
}

/* ---- basic_auth_users ---- */

static int parse_user(struct parse_ctx *p, int index)
{
	struct web_parse *w = web_of(p);
	const yaml_event_t *e = cfg_event(p);
	char buf[ECHO_MAX + 8], why[256];
	struct web_user *u;
	const char *s;
	size_t n;
	int r;

	if (e->type != YAML_SCALAR_EVENT)
		return ycursor_fail(&p->cur, web_mark(p),
				    "basic_auth_users: user names must be strings, got %s",
				    ycursor_describe(&p->cur));
	s = (const char *)e->data.scalar.value;
	n = e->data.scalar.length;
	cfg_echo(p, buf, sizeof(buf));
	if (n == 0)
		return ycursor_fail(&p->cur, web_mark(p), "basic_auth_users: empty user name");
	if (n > WEB_CONFIG_USER_MAX)
		return ycursor_fail(&p->cur, web_mark(p),
				    "basic_auth_users: user name longer than %d bytes",
				    WEB_CONFIG_USER_MAX);
	/* RFC 7617: the user-id ends at the first ':'. */
	for (size_t i = 0; i < n; i++)
		if (s[i] == ':' || (unsigned char)s[i] < 32 || s[i] == 127)
			return ycursor_fail(&p->cur, web_mark(p),
					    "basic_auth_users: '%s': no ':' or control characters "
					    "in a user name",
					    buf);
	for (int i = 0; i < index; i++)
		if (!strcmp(w->c->users[i].name, s))
			return ycursor_fail(&p->cur, web_mark(p),
					    "basic_auth_users: duplicate user '%s' "
					    "(first at line %zu, column %zu)",
					    buf, w->user_marks[i].line + 1,
					    w->user_marks[i].column + 1);
	if (index >= WEB_CONFIG_MAX_USERS)
		return ycursor_fail(&p->cur, web_mark(p), "basic_auth_users: at most %d users",
				    WEB_CONFIG_MAX_USERS);
	w->user_marks[index] = web_mark(p);
	u = &w->c->users[index];
	cfg_set_string(u->name, sizeof(u->name), s);
	snprintf(p->key, sizeof(p->key), "basic_auth_users.%s", buf);
	r = cfg_next_scalar(p, "a bcrypt hash", &s);
	if (r < 0)
		return r;
	r = web_check_bcrypt(s, why, sizeof(why));
	if (r < 0)
		return ycursor_fail(&p->cur, web_mark(p), "%s: %s", p->key, why);
	if (r > w->max_cost)
		w->max_cost = r;
	cfg_set_string(u->hash, sizeof(u->hash), s);
	w->c->nr_users = index + 1;
	return 0;
}

static int parse_users(struct parse_ctx *p)
{
	int r = cfg_next_collection(p, YAML_MAPPING_START_EVENT,
				    "a mapping of user names to bcrypt hashes");

	for (int i = 0; r == 0; i++) {
		r = ycursor_next(&p->cur);
		if (r == 0 && cfg_event(p)->type == YAML_MAPPING_END_EVENT)
			return 0;
		if (r == 0)
			r = parse_user(p, i);
	}
	return r;
}

/* ---- rate_limit ---- */

static int parse_interval(struct parse_ctx *p)
{
	static const struct cfg_duration d = {
		.what = "a duration (1s, 100ms; 0 turns it off)",
		.examples = "1s, 100ms, 1m; 0 turns it off",
		.max_ms = 24ULL * 3600 * 1000,
		.max_text = "24h",
	};
	const char *s = NULL;
	int r = cfg_next_duration(p, &d, &web_of(p)->c->rate_limit_interval_ms);

	/* Go reads a bare number as nanoseconds, cgperf as seconds: neither. */
	if (r == 0)
		s = (const char *)cfg_event(p)->data.scalar.value;
	if (r == 0 && strspn(s, "0123456789") == strlen(s) && web_of(p)->c->rate_limit_interval_ms)
		return ycursor_fail(&p->cur, web_mark(p), "%s: '%s' needs a unit (1s, 100ms)",
				    p->key, s);
	return r;
}

static int parse_burst(struct parse_ctx *p)
{
	uint64_t v;
	int r = cfg_next_uint(p, 0, 1000000, &v);

	if (r == 0)
		web_of(p)->burst_mark = web_mark(p);
	if (r == 0)
		web_of(p)->c->rate_limit_burst = (unsigned)v;
	return r;
}

static int parse_rate_limit(struct parse_ctx *p)
{
	static const struct key_def keys[] = {
		{ "interval", parse_interval },
		{ "burst", parse_burst },
	};
	struct web_parse *w = web_of(p);
	int r = cfg_next_collection(p, YAML_MAPPING_START_EVENT, "a mapping");

	if (r < 0)
		return r;
	w->burst_mark = web_mark(p); /* the value's, once burst is read */
	r = cfg_parse_section(p, "rate_limit", keys, 2);
	/* A token bucket of 0 tokens lets no request through. */
	if (r == 0 && w->c->rate_limit_interval_ms && w->c->rate_limit_burst == 0)
		return ycursor_fail(&p->cur, w->burst_mark,
				    "rate_limit.burst: must be at least 1 with an interval "
				    "(0 lets no request through)");
	return r;
}

/* ---- the document ---- */

static const struct key_def top_keys[] = {
	{ "tls_server_config", web_parse_tls },
	{ "http_server_config", parse_http },
	{ "basic_auth_users", parse_users },
	{ "rate_limit", parse_rate_limit },
};

static int parse_document(struct web_parse *w)
{
	struct parse_ctx *p = &w->p;
	const yaml_event_t *e;
	int r;

	r = ycursor_next(&p->cur); /* STREAM-START */
	if (r == 0)
		r = cfg_advance(p, &e);
	if (r < 0)
		return r;
	if (e->type == YAML_STREAM_END_EVENT)
		return ycursor_fail(&p->cur, e->start_mark, "empty web configuration");
	r = cfg_advance(p, &e); /* the document's root node */
	if (r < 0)
		return r;
	if (ycursor_is_null(&p->cur))
		return ycursor_fail(&p->cur, e->start_mark, "empty web configuration");
	if (e->type != YAML_MAPPING_START_EVENT)
		return ycursor_fail(&p->cur, e->start_mark,
				    "expected a mapping at the top level, got %s",
				    ycursor_describe(&p->cur));
	r = cfg_parse_section(p, NULL, top_keys, sizeof(top_keys) / sizeof(top_keys[0]));
	if (r == 0)
		r = ycursor_next(&p->cur); /* DOCUMENT-END */
	if (r == 0)
		r = cfg_advance(p, &e);
	if (r < 0)
		return r;
	if (e->type != YAML_STREAM_END_EVENT)
		return ycursor_fail(&p->cur, e->start_mark,
				    "more than one YAML document (a web configuration is one)");
	return web_check_tls(w);
}

int web_config_parse(const char *text, size_t len, const char *name, const char *dir,
		     struct web_config *ret, char *err, size_t err_len)
{
	struct web_parse *w;
	int r;

	if (!ret || (!text && len > 0))
		return -EINVAL;
	if (err && err_len)
		err[0] = '\0';
	w = calloc(1, sizeof(*w) + sizeof(struct web_config));
	if (!w)
		return -ENOMEM;
	w->c = (struct web_config *)(w + 1);
	w->dir = dir;
	w->c->min_version = WEB_TLS12;
	w->c->max_version = WEB_TLS13;
	w->c->prefer_server_cipher_suites = true;
	w->c->http2 = true;
	r = ycursor_init(&w->p.cur, text ? text : "", len, name, err, err_len);
	if (r == 0) {
		r = parse_document(w);
		ycursor_done(&w->p.cur);
	}
	if (r == 0 && w->c->nr_users)
		web_dummy_hash(w->max_cost, w->c->dummy_hash, sizeof(w->c->dummy_hash));
	if (r == 0)
		*ret = *w->c;
	explicit_bzero(w, sizeof(*w) + sizeof(struct web_config));
	free(w);
	return r;
}

int web_config_load(const char *path, struct web_config *ret, char *err, size_t err_len)
{
	char name[256], dir[WEB_CONFIG_PATH_MAX], *text = NULL, *slash;
	struct stat st;
	size_t len = 0;
	int fd, r;

	if (!path || !ret)
		return -EINVAL;
	text_escape(path, strlen(path), 200, name, sizeof(name));
	if (strlen(path) >= sizeof(dir)) {
		if (err && err_len)
			snprintf(err, err_len, "%s: path longer than %zu bytes", name,
				 sizeof(dir) - 1);
		return -ENAMETOOLONG;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		r = -errno;
		if (err && err_len)
			snprintf(err, err_len, "%s: cannot open: %s", name, strerror(-r));
		return r;
	}
	r = fstat(fd, &st) < 0 ? -errno : S_ISREG(st.st_mode) ? 0 : -EINVAL;
	if (r == 0)
		r = cfg_read_fd(fd, WEB_CONFIG_FILE_MAX, &text, &len);
	close(fd);
	if (r < 0) {
		if (err && err_len && r == -EINVAL)
			snprintf(err, err_len, "%s: not a regular file", name);
		else if (err && err_len && r == -EFBIG)
			snprintf(err, err_len, "%s: larger than %d bytes, not a web configuration",
				 name, WEB_CONFIG_FILE_MAX);
		else if (err && err_len)
			snprintf(err, err_len, "%s: cannot read: %s", name, strerror(-r));
		return r;
	}
	/* Relative paths in it are relative to its directory, as the toolkit. */
	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else
		slash[slash == dir] = '\0';
	r = web_config_parse(text, len, path, dir, ret, err, err_len);
	free(text);
	return r;
}
