// SPDX-License-Identifier: GPL-2.0-only
/* tls_server_config (see web_config.h): its keys, the names Go and the
 * toolkit give versions, curves and cipher suites with their GnuTLS
 * elements, and what the keys say together once all are read. */
#include "config/web_int.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "config/config_text.h"
#include "util/escape.h"

const struct web_name web_tls_versions[WEB_NR_TLS_VERSIONS] = {
	{ "TLS10", "+VERS-TLS1.0" },
	{ "TLS11", "+VERS-TLS1.1" },
	{ "TLS12", "+VERS-TLS1.2" },
	{ "TLS13", "+VERS-TLS1.3" },
};

const struct web_name web_curves[WEB_NR_CURVES] = {
	{ "CurveP256", "+GROUP-SECP256R1" },
	{ "CurveP384", "+GROUP-SECP384R1" },
	{ "CurveP521", "+GROUP-SECP521R1" },
	{ "X25519", "+GROUP-X25519" },
};

/* Go's tls.CipherSuites(), the names the toolkit takes: key exchange,
 * cipher and MAC as GnuTLS names them; TLS 1.3's are not configurable. */
const struct web_name web_cipher_suites[] = {
	{ "TLS_RSA_WITH_AES_128_CBC_SHA", "+RSA:+AES-128-CBC:+SHA1" },
	{ "TLS_RSA_WITH_AES_256_CBC_SHA", "+RSA:+AES-256-CBC:+SHA1" },
	{ "TLS_RSA_WITH_AES_128_GCM_SHA256", "+RSA:+AES-128-GCM:+AEAD" },
	{ "TLS_RSA_WITH_AES_256_GCM_SHA384", "+RSA:+AES-256-GCM:+AEAD" },
	{ "TLS_AES_128_GCM_SHA256", NULL },
	{ "TLS_AES_256_GCM_SHA384", NULL },
	{ "TLS_CHACHA20_POLY1305_SHA256", NULL },
	{ "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA", "+ECDHE-ECDSA:+AES-128-CBC:+SHA1" },
	{ "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA", "+ECDHE-ECDSA:+AES-256-CBC:+SHA1" },
	{ "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA", "+ECDHE-RSA:+AES-128-CBC:+SHA1" },
	{ "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA", "+ECDHE-RSA:+AES-256-CBC:+SHA1" },
	{ "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "+ECDHE-ECDSA:+AES-128-GCM:+AEAD" },
	{ "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "+ECDHE-RSA:+AES-128-GCM:+AEAD" },
	{ "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384", "+ECDHE-RSA:+AES-256-GCM:+AEAD" },
	{ "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384", "+ECDHE-ECDSA:+AES-256-GCM:+AEAD" },
	{ "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256", "+ECDHE-RSA:+CHACHA20-POLY1305:+AEAD" },
	{ "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
	  "+ECDHE-ECDSA:+CHACHA20-POLY1305:+AEAD" },
};
const size_t web_nr_cipher_suites = sizeof(web_cipher_suites) / sizeof(web_cipher_suites[0]);

const char *const web_client_auth_names[WEB_NR_CLIENT_AUTH] = {
	[WEB_NO_CLIENT_CERT] = "NoClientCert",
	[WEB_REQUEST_CLIENT_CERT] = "RequestClientCert",
	[WEB_REQUIRE_ANY_CLIENT_CERT] = "RequireAnyClientCert",
	[WEB_VERIFY_CLIENT_CERT_IF_GIVEN] = "VerifyClientCertIfGiven",
	[WEB_REQUIRE_AND_VERIFY_CLIENT_CERT] = "RequireAndVerifyClientCert",
};

/* A file path, joined to the web config's directory when relative. */
static int next_path(struct parse_ctx *p, char *dst, yaml_mark_t *ret_mark)
{
	struct web_parse *w = web_of(p);
	char joined[WEB_CONFIG_PATH_MAX + 1];
	const char *s;
	int r = cfg_next_string(p, "a file path", WEB_CONFIG_PATH_MAX - 1, &s);

	if (r < 0)
		return r;
	*ret_mark = web_mark(p);
	w->tls_given = true;
	if (s[0] != '/' && w->dir && w->dir[0])
		snprintf(joined, sizeof(joined), "%s%s%s", w->dir,
			 w->dir[strlen(w->dir) - 1] == '/' ? "" : "/", s);
	else
		snprintf(joined, sizeof(joined), "%s", s);
	if (strlen(joined) >= WEB_CONFIG_PATH_MAX)
		return ycursor_fail(&p->cur, web_mark(p),
				    "%s: longer than %d bytes with the web config's directory",
				    p->key, WEB_CONFIG_PATH_MAX - 1);
	cfg_set_string(dst, WEB_CONFIG_PATH_MAX, joined);
	return 0;
}

static int parse_cert_file(struct parse_ctx *p)
{
	return next_path(p, web_of(p)->c->cert_file, &web_of(p)->cert_mark);
}

static int parse_key_file(struct parse_ctx *p)
{
	return next_path(p, web_of(p)->c->key_file, &web_of(p)->key_mark);
}

static int parse_client_ca_file(struct parse_ctx *p)
{
	return next_path(p, web_of(p)->c->client_ca_file, &web_of(p)->ca_mark);
}

/* cert, key, client_ca: PEM in the web config itself. */
static int parse_inline(struct parse_ctx *p)
{
	return ycursor_fail(&p->cur, web_mark(p), "%s: inline PEM is not supported: use %s_file",
			    p->key, strchr(p->key, '.') + 1);
}

/* One of the first n of names (NULL-terminated, for the close match). */
static int next_choice(struct parse_ctx *p, const char *const *names, int n, const char *what,
		       int *ret)
{
	char buf[ECHO_MAX + 8];
	const char *s, *close;
	int r = cfg_next_scalar(p, what, &s);

	if (r < 0)
		return r;
	for (int i = 0; i < n; i++)
		if (!strcmp(s, names[i])) {
			*ret = i;
			return 0;
		}
	close = config_closest(s, names);
	if (close)
		return ycursor_fail(&p->cur, web_mark(p),
				    "%s: unknown value '%s' (did you mean '%s'?)", p->key,
				    cfg_echo(p, buf, sizeof(buf)), close);
	return ycursor_fail(&p->cur, web_mark(p), "%s: unknown value '%s' (expected %s)", p->key,
			    cfg_echo(p, buf, sizeof(buf)), what);
}

static int parse_client_auth(struct parse_ctx *p)
{
	/* "RequireClientCert": the toolkit's older name, still read. */
	static const char *const names[] = {
		"NoClientCert",
		"RequestClientCert",
		"RequireAnyClientCert",
		"VerifyClientCertIfGiven",
		"RequireAndVerifyClientCert",
		"RequireClientCert",
		NULL,
	};
	int i, r = next_choice(p, names, 6,
			       "NoClientCert, RequestClientCert, RequireAnyClientCert, "
			       "VerifyClientCertIfGiven or RequireAndVerifyClientCert",
			       &i);

	if (r < 0)
		return r;
	web_of(p)->auth_mark = web_mark(p);
	web_of(p)->tls_given = true;
	web_of(p)->c->client_auth = i == 5 ? WEB_REQUIRE_ANY_CLIENT_CERT : (enum web_client_auth)i;
	return 0;
}

static int next_version(struct parse_ctx *p, enum web_tls_version *ret)
{
	static const char *const names[] = { "TLS10", "TLS11", "TLS12", "TLS13", NULL };
	int i, r = next_choice(p, names, 4, "TLS10, TLS11, TLS12 or TLS13", &i);

	web_of(p)->tls_given = true;
	if (r == 0)
		*ret = (enum web_tls_version)i;
	return r;
}

static int parse_min_version(struct parse_ctx *p)
{
	int r = next_version(p, &web_of(p)->c->min_version);

	web_of(p)->min_mark = web_mark(p);
	return r;
}

static int parse_max_version(struct parse_ctx *p)
{
	int r = next_version(p, &web_of(p)->c->max_version);

	web_of(p)->max_mark = web_mark(p);
	web_of(p)->max_given = true;
	return r;
}

/* A list item among table's names, not listed twice. */
static int choice_item(struct parse_ctx *p, const struct web_name *table, size_t n, uint8_t *list,
		       int *nr, int max, const char *what)
{
	const char *names[32], *s, *close; /* n is at most 17 */
	char buf[ECHO_MAX + 8];
	size_t i;
	int r = cfg_item_scalar(p, what, 64, &s);

	if (r < 0)
		return r;
	for (i = 0; i < n && strcmp(s, table[i].name); i++)
		names[i] = table[i].name;
	if (i < n) {
		for (int j = 0; j < *nr; j++)
			if (list[j] == i)
				return ycursor_fail(&p->cur, web_mark(p),
						    "%s: '%s' is listed twice", p->key,
						    cfg_echo(p, buf, sizeof(buf)));
		if (*nr >= max)
			return ycursor_fail(&p->cur, web_mark(p), "%s: at most %d items", p->key,
					    max);
		list[(*nr)++] = (uint8_t)i;
		return 0;
	}
	names[n] = NULL;
	close = config_closest(s, names);
	if (close)
		return ycursor_fail(&p->cur, web_mark(p),
				    "%s: unknown %s '%s' (did you mean '%s'?)", p->key, what,
				    cfg_echo(p, buf, sizeof(buf)), close);
	return ycursor_fail(&p->cur, web_mark(p), "%s: unknown %s '%s' (%s)", p->key, what,
			    cfg_echo(p, buf, sizeof(buf)),
			    table == web_curves
				    ? "expected CurveP256, CurveP384, CurveP521 or X25519"
				    : "Go's tls.CipherSuites() names; insecure ones are "
				      "not accepted");
}

static int cipher_item(struct parse_ctx *p, int index)
{
	struct web_config *c = web_of(p)->c;

	return choice_item(p, web_cipher_suites, web_nr_cipher_suites, c->cipher_suites,
			   &c->nr_cipher_suites, WEB_CONFIG_MAX_CIPHERS, "cipher suite");
}

static int parse_cipher_suites(struct parse_ctx *p)
{
	int n;

	web_of(p)->tls_given = true;
	n = cfg_for_each_item(p, "a list of cipher suites", cipher_item);
	return n < 0 ? n : 0;
}

static int curve_item(struct parse_ctx *p, int index)
{
	struct web_config *c = web_of(p)->c;

	return choice_item(p, web_curves, WEB_NR_CURVES, c->curves, &c->nr_curves, WEB_NR_CURVES,
			   "curve");
}

static int parse_curves(struct parse_ctx *p)
{
	int n;

	web_of(p)->tls_given = true;
	n = cfg_for_each_item(p, "a list of curves ([X25519, CurveP256])", curve_item);
	return n < 0 ? n : 0;
}

static int parse_prefer_server(struct parse_ctx *p)
{
	web_of(p)->tls_given = true;
	return cfg_next_bool(p, &web_of(p)->c->prefer_server_cipher_suites);
}

static int san_item(struct parse_ctx *p, int index)
{
	struct web_config *c = web_of(p)->c;
	const char *s;
	int r = cfg_item_scalar(p, "a subject alternative name", WEB_CONFIG_SAN_MAX, &s);

	if (r < 0)
		return r;
	if (index >= WEB_CONFIG_MAX_SANS)
		return ycursor_fail(&p->cur, web_mark(p), "%s: at most %d names", p->key,
				    WEB_CONFIG_MAX_SANS);
	cfg_set_string(c->client_allowed_sans[index], WEB_CONFIG_SAN_MAX + 1, s);
	c->nr_client_allowed_sans = index + 1;
	return 0;
}

static int parse_sans(struct parse_ctx *p)
{
	struct web_parse *w = web_of(p);
	int n;

	w->sans_mark = web_mark(p); /* the key's: the list may have no item to point at */
	w->sans_given = w->tls_given = true;
	n = cfg_for_each_item(p, "a list of names ([client.example.com])", san_item);
	if (n == 0) /* Go would then match every certificate against nothing */
		return ycursor_fail(&p->cur, w->sans_mark, "%s: an empty list lets no client in",
				    p->key);
	return n < 0 ? n : 0;
}

int web_parse_tls(struct parse_ctx *p)
{
	static const struct key_def keys[] = {
		{ "cert", parse_inline },
		{ "key", parse_inline },
		{ "client_ca", parse_inline },
		{ "cert_file", parse_cert_file },
		{ "key_file", parse_key_file },
		{ "client_auth_type", parse_client_auth },
		{ "client_ca_file", parse_client_ca_file },
		{ "client_allowed_sans", parse_sans },
		{ "min_version", parse_min_version },
		{ "max_version", parse_max_version },
		{ "cipher_suites", parse_cipher_suites },
		{ "prefer_server_cipher_suites", parse_prefer_server },
		{ "curve_preferences", parse_curves },
	};
	int r = cfg_next_collection(p, YAML_MAPPING_START_EVENT, "a mapping");

	/* Each key sets tls_given: any key turns TLS on (the toolkit: a file
	 * or client_auth_type), so that a lone min_version is not silently
	 * plain HTTP. */
	if (r < 0)
		return r;
	web_of(p)->tls_mark = web_mark(p);
	return cfg_parse_section(p, "tls_server_config", keys, sizeof(keys) / sizeof(keys[0]));
}

/* What no single key can tell: pairs of keys, then the files. */
int web_check_tls(struct web_parse *w)
{
	struct web_config *c = w->c;
	struct ycursor *cur = &w->p.cur;
	const char *auth = web_client_auth_names[c->client_auth];
	const char *minv = web_tls_versions[c->min_version].name;
	const char *maxv = web_tls_versions[c->max_version].name;
	char why[256], path[256];
	const struct {
		const char *key, *path;
		enum web_pem_kind kind;
		yaml_mark_t mark;
	} files[] = {
		{ "cert_file", c->cert_file, WEB_PEM_CERT, w->cert_mark },
		{ "key_file", c->key_file, WEB_PEM_KEY, w->key_mark },
		{ "client_ca_file", c->client_ca_file, WEB_PEM_CA, w->ca_mark },
	};

	if (!w->tls_given)
		return 0;
	if (c->cert_file[0] && !c->key_file[0])
		return ycursor_fail(cur, w->cert_mark,
				    "tls_server_config: cert_file needs key_file too");
	if (c->key_file[0] && !c->cert_file[0])
		return ycursor_fail(cur, w->key_mark,
				    "tls_server_config: key_file needs cert_file too");
	if (!c->cert_file[0])
		return ycursor_fail(cur, w->tls_mark,
				    "tls_server_config: cert_file and key_file are required");
	/* The toolkit would verify against the system's CAs: any public
	 * certificate would then pass. */
	if ((c->client_auth == WEB_VERIFY_CLIENT_CERT_IF_GIVEN ||
	     c->client_auth == WEB_REQUIRE_AND_VERIFY_CLIENT_CERT) &&
	    !c->client_ca_file[0])
		return ycursor_fail(cur, w->auth_mark,
				    "tls_server_config.client_auth_type: %s needs client_ca_file "
				    "(the CAs that sign client certificates)",
				    auth);
	/* Without a Verify type the CAs are never checked: any certificate
	 * (a self-signed one) would pass while the file suggests otherwise. */
	if (c->client_ca_file[0] && c->client_auth != WEB_VERIFY_CLIENT_CERT_IF_GIVEN &&
	    c->client_auth != WEB_REQUIRE_AND_VERIFY_CLIENT_CERT)
		return ycursor_fail(cur, w->ca_mark,
				    "tls_server_config.client_ca_file: client certificates are not "
				    "verified with %s (set client_auth_type: "
				    "RequireAndVerifyClientCert or VerifyClientCertIfGiven)",
				    auth);
	if (w->sans_given && c->client_auth != WEB_REQUIRE_ANY_CLIENT_CERT &&
	    c->client_auth != WEB_REQUIRE_AND_VERIFY_CLIENT_CERT)
		return ycursor_fail(cur, w->sans_mark,
				    "tls_server_config.client_allowed_sans: needs client_auth_type "
				    "RequireAnyClientCert or RequireAndVerifyClientCert, not %s",
				    auth);
	if (c->min_version > c->max_version)
		return ycursor_fail(cur, w->max_given ? w->max_mark : w->min_mark,
				    "tls_server_config: min_version %s is above max_version %s",
				    minv, maxv);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		int r;

		if (!files[i].path[0])
			continue;
		r = web_check_pem_file(files[i].path, files[i].kind, why, sizeof(why));
		if (r == -ENOMEM)
			return r;
		if (r < 0)
			return ycursor_fail(cur, files[i].mark, "tls_server_config.%s: %s: %s",
					    files[i].key,
					    text_escape(files[i].path, strlen(files[i].path), 160,
							path, sizeof(path)),
					    why);
	}
	c->tls = true;
	return 0;
}
