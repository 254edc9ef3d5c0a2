// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for the exporter toolkit's web configuration
 * (config/web_config.h): a full file read back field by field, one row per
 * kind of bad input with its exact "FILE:LINE:COL: message", the files it
 * names (modes, PEM framing, symlinks), real openssl output, basic-auth
 * passwords (and that an unknown user costs a bcrypt of the same cost), and
 * outputs.prometheus.web_config in the agent configuration. */
#include <crypt.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "config/config.h"
#include "config/web_config.h"
#include "tests/lib/test_files.h"
#include "tests/lib/unit_skip.h"

static char dir[] = "/tmp/cgperf-test-web.XXXXXX";
/* bcrypt of "s3cret": cost 4 as $2b$, cost 5 as $2y$, cost 4 as $2a$. */
static char hash_b[64], hash_y[64], hash_a[64];

/* Only the PEM framing is checked: the contents need not be real. */
#define PEM(type, body) "-----BEGIN " type "-----\n" body "\n-----END " type "-----\n"
static const char cert_pem[] = PEM("CERTIFICATE", "MIIBszCCAVmgAwIBAgIU");
static const char key_pem[] = PEM("PRIVATE KEY", "MIGHAgEAMBMGByqGSM49");

/* crypt_rn wrapped (tests/CMakeLists.txt): how often, and with what. */
static int crypt_calls;
static char crypt_setting[128];
char *__real_crypt_rn(const char *phrase, const char *setting, void *data, int size);
char *__wrap_crypt_rn(const char *phrase, const char *setting, void *data, int size)
{
	crypt_calls++;
	snprintf(crypt_setting, sizeof(crypt_setting), "%s", setting);
	return __real_crypt_rn(phrase, setting, data, size);
}

static void make_hash(const char *prefix, int cost, char *out)
{
	char salt[CRYPT_GENSALT_OUTPUT_SIZE];
	struct crypt_data *d = calloc(1, sizeof(*d));

	assert_non_null(d);
	assert_non_null(crypt_gensalt_rn(prefix, cost, NULL, 0, salt, sizeof(salt)));
	snprintf(out, 64, "%s", __real_crypt_rn("s3cret", salt, d, sizeof(*d)));
	assert_int_equal(strlen(out), 60);
	free(d);
}

static void put(const char *name, const char *text, mode_t mode)
{
	char *path;

	assert_true(asprintf(&path, "%s/%s", dir, name) > 0);
	test_write_str(path, text);
	assert_int_equal(chmod(path, mode), 0);
	free(path);
}

static int setup(void **state)
{
	char *p, *q;

	if (!mkdtemp(dir))
		return -1;
	make_hash("$2b$", 4, hash_b);
	make_hash("$2y$", 5, hash_y);
	make_hash("$2a$", 4, hash_a);
	put("cert.pem", cert_pem, 0644);
	put("ca.pem", "bundle\n" PEM("CERTIFICATE", "a") PEM("CERTIFICATE", "b"), 0644);
	put("key.pem", key_pem, 0600);
	put("key644.pem", key_pem, 0644);
	put("key640.pem", key_pem, 0640);
	put("both.pem", PEM("CERTIFICATE", "a") PEM("EC PRIVATE KEY", "b"), 0644);
	put("enc.pem", PEM("ENCRYPTED PRIVATE KEY", "x"), 0600);
	put("trad.pem", PEM("RSA PRIVATE KEY", "Proc-Type: 4,ENCRYPTED\nDEK-Info: AES\n\nx"), 0600);
	put("ssh.pem", PEM("OPENSSH PRIVATE KEY", "x"), 0600);
	put("cut.pem", "-----BEGIN CERTIFICATE-----\nMIIB\n", 0644);
	put("text.pem", "not PEM at all\n", 0644);
	assert_true(asprintf(&p, "%s/sub", dir) > 0);
	assert_int_equal(mkdir(p, 0755), 0);
	free(p);
	/* Kubernetes mounts secrets as symlinks: followed. */
	assert_true(asprintf(&p, "%s/link.pem", dir) > 0);
	assert_int_equal(symlink("key.pem", p), 0);
	free(p);
	assert_true(asprintf(&q, "%s/dangling.pem", dir) > 0);
	assert_int_equal(symlink("gone.pem", q), 0);
	free(q);
	return 0;
}

static int teardown(void **state)
{
	return test_rmtemp(dir);
}

/* ------------------------------------------------------------------------- */
/* Bad input: one row per kind of problem ("%s": the test directory)         */

#define TLS "tls_server_config:\n  cert_file: cert.pem\n  key_file: key.pem\n"

struct bad_case {
	const char *yaml;
	const char *expect; /* exact prefix of the error line */
};

static const struct bad_case bad_cases[] = {
	/* The document. */
	{ "", "w.yml:1:1: empty web configuration" },
	{ "---\n", "w.yml:2:1: empty web configuration" },
	{ "~\n", "w.yml:1:1: empty web configuration" },
	{ "- a\n", "w.yml:1:1: expected a mapping at the top level, got a list" },
	{ "rate_limit: {}\n---\nrate_limit: {}\n", "w.yml:2:1: more than one YAML document" },
	{ "tls_server_config: &a {}\n", "w.yml:1:20: anchors (&name) are not supported" },
	{ "rate_limit: {}\nrate_limit: {}\n",
	  "w.yml:2:1: duplicate key 'rate_limit' (first at line 1, column 1)" },
	/* Unknown keys, with and without a close match. */
	{ "tls_server_confg: {}\n",
	  "w.yml:1:1: unknown key 'tls_server_confg' (did you mean 'tls_server_config'?)" },
	{ "foo: 1\n", "w.yml:1:1: unknown key 'foo' (valid keys: tls_server_config, "
		      "http_server_config, basic_auth_users, rate_limit)" },
	{ "tls_server_config:\n  cert_fil: cert.pem\n",
	  "w.yml:2:3: unknown key 'cert_fil' in tls_server_config (did you mean 'cert_file'?)" },
	{ "http_server_config:\n  headers:\n    X-Powered-By: me\n",
	  "w.yml:3:5: unknown key 'X-Powered-By' in http_server_config.headers (valid keys: "
	  "Content-Security-Policy, X-Frame-Options, X-Content-Type-Options, X-XSS-Protection, "
	  "Strict-Transport-Security)" },
	/* Types. */
	{ "tls_server_config: []\n",
	  "w.yml:1:20: tls_server_config: expected a mapping, got a list" },
	{ "http_server_config: {http2: yes}\n",
	  "w.yml:1:29: http_server_config.http2: expected true or false, got 'yes'" },
	{ "tls_server_config:\n  cert_file: \"\"\n",
	  "w.yml:2:14: tls_server_config.cert_file: must not be empty" },
	{ "tls_server_config:\n  cert: |\n    -----BEGIN CERTIFICATE-----\n",
	  "w.yml:2:3: tls_server_config.cert: inline PEM is not supported: use cert_file" },
	/* Enumerations. */
	{ TLS "  client_auth_type: RequireAndVerifyClientCerts\n",
	  "w.yml:4:21: tls_server_config.client_auth_type: unknown value "
	  "'RequireAndVerifyClientCerts' (did you mean 'RequireAndVerifyClientCert'?)" },
	{ TLS "  client_auth_type: Always\n",
	  "w.yml:4:21: tls_server_config.client_auth_type: unknown value 'Always' (expected "
	  "NoClientCert, RequestClientCert, RequireAnyClientCert, VerifyClientCertIfGiven or "
	  "RequireAndVerifyClientCert)" },
	{ TLS "  min_version: TLS1.2\n",
	  "w.yml:4:16: tls_server_config.min_version: unknown value 'TLS1.2' (did you mean "
	  "'TLS12'?)" },
	{ TLS "  cipher_suites: [TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA265]\n",
	  "w.yml:4:19: tls_server_config.cipher_suites: unknown cipher suite "
	  "'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA265' (did you mean "
	  "'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256'?)" },
	{ TLS "  cipher_suites: [TLS_RSA_WITH_RC4_128_SHA]\n",
	  "w.yml:4:19: tls_server_config.cipher_suites: unknown cipher suite "
	  "'TLS_RSA_WITH_RC4_128_SHA' (Go's tls.CipherSuites() names; insecure ones are not "
	  "accepted)" },
	{ TLS "  cipher_suites: [TLS_AES_128_GCM_SHA256, TLS_AES_128_GCM_SHA256]\n",
	  "w.yml:4:43: tls_server_config.cipher_suites: 'TLS_AES_128_GCM_SHA256' is listed "
	  "twice" },
	{ TLS "  curve_preferences: [X25519, P256]\n",
	  "w.yml:4:31: tls_server_config.curve_preferences: unknown curve 'P256' (expected "
	  "CurveP256, CurveP384, CurveP521 or X25519)" },
	{ "http_server_config:\n  headers:\n    X-Frame-Options: allow\n",
	  "w.yml:3:22: http_server_config.headers.X-Frame-Options: 'allow' is not allowed "
	  "(expected deny or sameorigin)" },
	{ "http_server_config:\n  headers:\n    X-Content-Type-Options: sniff\n",
	  "w.yml:3:29: http_server_config.headers.X-Content-Type-Options: 'sniff' is not allowed "
	  "(expected nosniff)" },
	{ "http_server_config:\n  headers:\n    Content-Security-Policy: \"a\\r\\nSet-Cookie: x\"\n",
	  "w.yml:3:30: http_server_config.headers.Content-Security-Policy: control characters "
	  "are not allowed" },
	/* Keys that go together. */
	{ TLS "  min_version: TLS13\n  max_version: TLS12\n",
	  "w.yml:5:16: tls_server_config: min_version TLS13 is above max_version TLS12" },
	{ TLS "  max_version: TLS11\n",
	  "w.yml:4:16: tls_server_config: min_version TLS12 is above max_version TLS11" },
	{ TLS "  client_auth_type: RequireAndVerifyClientCert\n",
	  "w.yml:4:21: tls_server_config.client_auth_type: RequireAndVerifyClientCert needs "
	  "client_ca_file (the CAs that sign client certificates)" },
	{ TLS "  client_auth_type: VerifyClientCertIfGiven\n",
	  "w.yml:4:21: tls_server_config.client_auth_type: VerifyClientCertIfGiven needs "
	  "client_ca_file" },
	{ TLS "  client_ca_file: ca.pem\n",
	  "w.yml:4:19: tls_server_config.client_ca_file: client certificates are not verified "
	  "with NoClientCert" },
	{ TLS "  client_auth_type: RequireAnyClientCert\n  client_ca_file: ca.pem\n",
	  "w.yml:5:19: tls_server_config.client_ca_file: client certificates are not verified "
	  "with RequireAnyClientCert" },
	{ "tls_server_config:\n  cert_file: cert.pem\n",
	  "w.yml:2:14: tls_server_config: cert_file needs key_file too" },
	{ "tls_server_config:\n  key_file: key.pem\n",
	  "w.yml:2:13: tls_server_config: key_file needs cert_file too" },
	{ "tls_server_config:\n  min_version: TLS13\n",
	  "w.yml:2:3: tls_server_config: cert_file and key_file are required" },
	{ TLS "  client_auth_type: VerifyClientCertIfGiven\n  client_ca_file: ca.pem\n"
	      "  client_allowed_sans: [a.example]\n",
	  "w.yml:6:3: tls_server_config.client_allowed_sans: needs client_auth_type "
	  "RequireAnyClientCert or RequireAndVerifyClientCert, not VerifyClientCertIfGiven" },
	{ TLS "  client_allowed_sans: []\n",
	  "w.yml:4:3: tls_server_config.client_allowed_sans: an empty list lets no client in" },
	{ "rate_limit: {interval: 5}\n",
	  "w.yml:1:24: rate_limit.interval: '5' needs a unit (1s, 100ms)" },
	{ "rate_limit: {interval: 1s}\n",
	  "w.yml:1:13: rate_limit.burst: must be at least 1 with an interval" },
	{ "rate_limit: {interval: 1s, burst: 0}\n",
	  "w.yml:1:35: rate_limit.burst: must be at least 1 with an interval" },
	/* Hashes: bcrypt only, never echoed. */
	{ "basic_auth_users: {alice: s3cret}\n",
	  "w.yml:1:27: basic_auth_users.alice: not a bcrypt hash (the password goes in hashed: "
	  "htpasswd -nBC 10 \"\" | tr -d ':\\n')" },
	{ "basic_auth_users:\n  alice: $6$salt$Wx5d3kbb\n",
	  "w.yml:2:10: basic_auth_users.alice: '$6$' hashes are not accepted: bcrypt only "
	  "($2a$, $2b$, $2y$)" },
	{ "basic_auth_users:\n  alice: $2x$10$37VYRbDEJ.lEkqx.AqEdB.21ilkdVVQ6UqagrBx/9BwxUmXpxYLNa\n",
	  "w.yml:2:10: basic_auth_users.alice: '$2x$' hashes are not accepted" },
	{ "basic_auth_users:\n  alice: $2y$03$37VYRbDEJ.lEkqx.AqEdB.21ilkdVVQ6UqagrBx/9BwxUmXpxYLNa\n",
	  "w.yml:2:10: basic_auth_users.alice: bcrypt cost 03 is out of range 04..14" },
	/* Cost 31: 40 hours a check, every unknown user's request too. */
	{ "basic_auth_users:\n  alice: $2y$31$37VYRbDEJ.lEkqx.AqEdB.21ilkdVVQ6UqagrBx/9BwxUmXpxYLNa\n",
	  "w.yml:2:10: basic_auth_users.alice: bcrypt cost 31 is out of range 04..14" },
	{ "basic_auth_users:\n  alice: $2y$10$37VYRbDEJ.lEkqx.AqEdB/21ilkdVVQ6UqagrBx/9BwxUmXpxYLNa\n",
	  "w.yml:2:10: basic_auth_users.alice: not a canonical bcrypt hash" },
	/* A password pasted where its hash goes is never echoed. */
	{ "basic_auth_users:\n  alice: \"$ecretPa$$word\"\n",
	  "w.yml:2:10: basic_auth_users.alice: not a bcrypt hash: bcrypt only" },
	{ "basic_auth_users:\n  alice: $2y$10$37VYRbDEJ.lEkqx.AqEdB.21ilkdVVQ6UqagrBx/9Bwx\n",
	  "w.yml:2:10: basic_auth_users.alice: not a bcrypt hash (expected $2y$, a 2-digit cost, "
	  "'$' and 53 characters of ./A-Za-z0-9)" },
	{ "basic_auth_users:\n  alice:\n", "w.yml:2:9: basic_auth_users.alice: missing value" },
	{ "basic_auth_users:\n  \"a:b\": x\n",
	  "w.yml:2:3: basic_auth_users: 'a:b': no ':' or control characters in a user name" },
	{ "basic_auth_users:\n  [a]: x\n",
	  "w.yml:2:3: basic_auth_users: user names must be strings, got a list" },
	/* The files. */
	{ "tls_server_config:\n  cert_file: cert.pem\n  key_file: key644.pem\n",
	  "w.yml:3:13: tls_server_config.key_file: %s/key644.pem: has mode 0644: a private key "
	  "must not be readable or writable by group or others (chmod 600)" },
	{ "tls_server_config:\n  cert_file: cert.pem\n  key_file: key640.pem\n",
	  "w.yml:3:13: tls_server_config.key_file: %s/key640.pem: has mode 0640" },
	{ "tls_server_config:\n  cert_file: nope.pem\n  key_file: key.pem\n",
	  "w.yml:2:14: tls_server_config.cert_file: %s/nope.pem: cannot open: No such file or "
	  "directory" },
	{ "tls_server_config:\n  cert_file: cert.pem\n  key_file: dangling.pem\n",
	  "w.yml:3:13: tls_server_config.key_file: %s/dangling.pem: cannot open: No such file" },
	{ "tls_server_config:\n  cert_file: sub\n  key_file: key.pem\n",
	  "w.yml:2:14: tls_server_config.cert_file: %s/sub: not a regular file" },
	{ "tls_server_config:\n  cert_file: key.pem\n  key_file: cert.pem\n",
	  "w.yml:2:14: tls_server_config.cert_file: %s/key.pem: holds a private key, no "
	  "certificate (cert_file and key_file swapped?)" },
	{ "tls_server_config:\n  cert_file: cert.pem\n  key_file: ca.pem\n",
	  "w.yml:3:13: tls_server_config.key_file: %s/ca.pem: has mode 0644" },
	{ "tls_server_config:\n  cert_file: text.pem\n  key_file: key.pem\n",
	  "w.yml:2:14: tls_server_config.cert_file: %s/text.pem: no PEM certificate "
	  "(-----BEGIN CERTIFICATE-----)" },
	{ "tls_server_config:\n  cert_file: cut.pem\n  key_file: key.pem\n",
	  "w.yml:2:14: tls_server_config.cert_file: %s/cut.pem: -----BEGIN CERTIFICATE----- "
	  "without its END (cut short?)" },
	{ "tls_server_config:\n  cert_file: both.pem\n  key_file: key.pem\n",
	  "w.yml:2:14: tls_server_config.cert_file: %s/both.pem: has mode 0644: a private key" },
	{ "tls_server_config:\n  cert_file: cert.pem\n  key_file: enc.pem\n",
	  "w.yml:3:13: tls_server_config.key_file: %s/enc.pem: an encrypted private key: the "
	  "agent starts unattended" },
	{ "tls_server_config:\n  cert_file: cert.pem\n  key_file: trad.pem\n",
	  "w.yml:3:13: tls_server_config.key_file: %s/trad.pem: an encrypted private key" },
	{ "tls_server_config:\n  cert_file: cert.pem\n  key_file: ssh.pem\n",
	  "w.yml:3:13: tls_server_config.key_file: %s/ssh.pem: an OpenSSH key, not a TLS private "
	  "key" },
	{ TLS "  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: key.pem\n",
	  "w.yml:5:19: tls_server_config.client_ca_file: %s/key.pem: holds a private key, no "
	  "certificate\n" },
	{ TLS "  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: both.pem\n",
	  "w.yml:5:19: tls_server_config.client_ca_file: %s/both.pem: holds a private key: a CA "
	  "file needs certificates only" },
};

static void expect_error(const char *yaml, const char *expect_fmt)
{
	struct web_config *c = malloc(sizeof(*c)), *untouched = malloc(sizeof(*c));
	char err[1024], expect[1024];
	size_t n;
	int r;

	assert_non_null(c);
	assert_non_null(untouched);
	snprintf(expect, sizeof(expect), expect_fmt, dir);
	/* A row may end in "\n": the message ends there. */
	n = strlen(expect);
	if (n && expect[n - 1] == '\n')
		expect[--n] = '\0';
	memset(c, 0xa5, sizeof(*c));
	*untouched = *c;
	memset(err, 'x', sizeof(err));
	r = web_config_parse(yaml, strlen(yaml), "w.yml", dir, c, err, sizeof(err));
	if (r != -EINVAL || strncmp(err, expect, n) != 0 ||
	    (expect_fmt[strlen(expect_fmt) - 1] == '\n' && err[n] != '\0'))
		fail_msg("input:\n%s\nexpected: %s\ngot (%d): %s", yaml, expect, r, err);
	assert_null(strchr(err, '\n'));
	assert_memory_equal(c, untouched, sizeof(*c));
	free(c);
	free(untouched);
}

static void test_bad_inputs(void **state)
{
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++)
		expect_error(bad_cases[i].yaml, bad_cases[i].expect);
}

/* Rows that need real hashes or many lines. */
static void test_bad_users(void **state)
{
	char *yaml, *p;

	assert_true(asprintf(&yaml, "basic_auth_users:\n  alice: %s\n  bob: %s\n  alice: %s\n",
			     hash_b, hash_y, hash_a) > 0);
	expect_error(yaml, "w.yml:4:3: basic_auth_users: duplicate user 'alice' (first at line 2, "
			   "column 3)");
	free(yaml);
	yaml = malloc(80 * (WEB_CONFIG_MAX_USERS + 1) + 32);
	assert_non_null(yaml);
	p = stpcpy(yaml, "basic_auth_users:\n");
	for (int i = 0; i <= WEB_CONFIG_MAX_USERS; i++)
		p += sprintf(p, "  user%d: %s\n", i, hash_b);
	expect_error(yaml, "w.yml:66:3: basic_auth_users: at most 64 users");
	free(yaml);
}

/* ------------------------------------------------------------------------- */
/* Good files                                                                */

static void test_full_file(void **state)
{
	struct web_config *c = calloc(1, sizeof(*c));
	char *yaml, *path, err[1024] = "";

	assert_non_null(c);
	assert_true(asprintf(&yaml,
			     "tls_server_config:\n"
			     "  cert_file: cert.pem\n"
			     "  key_file: %s/link.pem\n"
			     "  client_auth_type: RequireAndVerifyClientCert\n"
			     "  client_ca_file: ca.pem\n"
			     "  client_allowed_sans: [client.example.com, \"10.0.0.1\"]\n"
			     "  min_version: TLS13\n"
			     "  max_version: TLS13\n"
			     "  cipher_suites: [TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, "
			     "TLS_AES_128_GCM_SHA256]\n"
			     "  prefer_server_cipher_suites: false\n"
			     "  curve_preferences: [X25519, CurveP256]\n"
			     "http_server_config:\n"
			     "  http2: false\n"
			     "  headers:\n"
			     "    X-Frame-Options: deny\n"
			     "    X-Content-Type-Options: nosniff\n"
			     "    Strict-Transport-Security: max-age=31536000\n"
			     "    Content-Security-Policy: \"\"\n"
			     "rate_limit:\n"
			     "  interval: 1s\n"
			     "  burst: 5\n"
			     "basic_auth_users:\n"
			     "  alice: %s\n"
			     "  bob: %s\n",
			     dir, hash_b, hash_y) > 0);
	assert_int_equal(web_config_parse(yaml, strlen(yaml), "w.yml", dir, c, err, sizeof(err)),
			 0);
	assert_true(c->tls);
	assert_true(asprintf(&path, "%s/cert.pem", dir) > 0);
	assert_string_equal(c->cert_file, path);
	free(path);
	assert_true(asprintf(&path, "%s/link.pem", dir) > 0);
	assert_string_equal(c->key_file, path);
	free(path);
	assert_true(asprintf(&path, "%s/ca.pem", dir) > 0);
	assert_string_equal(c->client_ca_file, path);
	free(path);
	assert_int_equal(c->client_auth, WEB_REQUIRE_AND_VERIFY_CLIENT_CERT);
	assert_int_equal(c->nr_client_allowed_sans, 2);
	assert_string_equal(c->client_allowed_sans[1], "10.0.0.1");
	assert_int_equal(c->min_version, WEB_TLS13);
	assert_int_equal(c->max_version, WEB_TLS13);
	assert_int_equal(c->nr_cipher_suites, 2);
	assert_string_equal(web_cipher_suites[c->cipher_suites[0]].gnutls,
			    "+ECDHE-RSA:+AES-128-GCM:+AEAD");
	assert_null(web_cipher_suites[c->cipher_suites[1]].gnutls); /* TLS 1.3's */
	assert_false(c->prefer_server_cipher_suites);
	assert_int_equal(c->nr_curves, 2);
	assert_string_equal(web_curves[c->curves[0]].gnutls, "+GROUP-X25519");
	assert_int_equal(c->curves[1], WEB_CURVE_P256);
	assert_false(c->http2);
	assert_string_equal(c->headers[WEB_HDR_FRAME_OPTIONS], "deny");
	assert_string_equal(c->headers[WEB_HDR_CONTENT_TYPE_OPTIONS], "nosniff");
	assert_string_equal(c->headers[WEB_HDR_HSTS], "max-age=31536000");
	assert_string_equal(c->headers[WEB_HDR_CSP], ""); /* blank: not sent */
	assert_string_equal(c->headers[WEB_HDR_XSS_PROTECTION], "");
	assert_int_equal(c->rate_limit_interval_ms, 1000);
	assert_int_equal(c->rate_limit_burst, 5);
	assert_int_equal(c->nr_users, 2);
	assert_string_equal(c->users[0].name, "alice");
	assert_string_equal(c->users[0].hash, hash_b);
	assert_string_equal(c->users[1].name, "bob");
	/* The highest cost of the users: bob's. */
	assert_memory_equal(c->dummy_hash, "$2b$05$", 7);
	free(yaml);
	free(c);
}

static void test_defaults(void **state)
{
	struct web_config c;
	char err[1024] = "";
	const char *yaml = TLS "  client_auth_type: RequireClientCert\n";

	assert_int_equal(web_config_parse(yaml, strlen(yaml), "w.yml", dir, &c, err, sizeof(err)),
			 0);
	assert_true(c.tls);
	assert_int_equal(c.client_auth, WEB_REQUIRE_ANY_CLIENT_CERT); /* the older name */
	assert_int_equal(c.min_version, WEB_TLS12);
	assert_int_equal(c.max_version, WEB_TLS13);
	assert_true(c.prefer_server_cipher_suites);
	assert_true(c.http2);
	assert_int_equal(c.nr_cipher_suites + c.nr_curves + c.nr_users, 0);
	assert_int_equal(c.rate_limit_interval_ms, 0);
	/* Basic auth alone is plain HTTP (the toolkit's meaning); so is {}. */
	yaml = "tls_server_config: {}\nrate_limit: {interval: 0}\n";
	assert_int_equal(web_config_parse(yaml, strlen(yaml), "w.yml", dir, &c, err, sizeof(err)),
			 0);
	assert_false(c.tls);
}

static void test_load(void **state)
{
	struct web_config c, untouched;
	char *sub, *path, *big, err[1024];

	/* Relative to the web config's own directory, not the caller's. */
	assert_true(asprintf(&sub, "%s/sub/w.yml", dir) > 0);
	test_write_str(sub, "tls_server_config:\n  cert_file: ../cert.pem\n"
			    "  key_file: ../key.pem\n");
	assert_int_equal(web_config_load(sub, &c, err, sizeof(err)), 0);
	assert_true(asprintf(&path, "%s/sub/../cert.pem", dir) > 0);
	assert_string_equal(c.cert_file, path);
	free(path);

	memset(&c, 0x5a, sizeof(c));
	untouched = c;
	assert_true(asprintf(&path, "%s/none.yml", dir) > 0);
	assert_int_equal(web_config_load(path, &c, err, sizeof(err)), -ENOENT);
	assert_true(strstr(err, "none.yml: cannot open: No such file or directory") != NULL);
	free(path);
	assert_true(asprintf(&path, "%s/sub", dir) > 0);
	assert_int_equal(web_config_load(path, &c, err, sizeof(err)), -EINVAL);
	assert_true(strstr(err, "/sub: not a regular file") != NULL);
	free(path);
	big = calloc(1, WEB_CONFIG_FILE_MAX + 2);
	assert_non_null(big);
	memset(big, '#', WEB_CONFIG_FILE_MAX + 1);
	test_write_str(sub, big);
	assert_int_equal(web_config_load(sub, &c, err, sizeof(err)), -EFBIG);
	assert_true(strstr(err, "larger than 65536 bytes") != NULL);
	assert_memory_equal(&c, &untouched, sizeof(c));
	free(big);
	free(sub);
}

/* What openssl writes: PKCS#8, "EC PARAMETERS" before the key, encrypted. */
static void test_openssl_files(void **state)
{
	struct web_config c;
	char *cmd, *yaml, err[1024] = "";

	if (system("command -v openssl >/dev/null 2>&1") != 0)
		unit_skip("openssl is not installed");
	assert_true(asprintf(&cmd,
			     "cd %s && (openssl req -x509 -newkey ec -pkeyopt "
			     "ec_paramgen_curve:prime256v1 -nodes -keyout o.key -out o.crt -days 1 "
			     "-subj /CN=cgperf-test && openssl ecparam -genkey -name prime256v1 "
			     "-out o-ec.key && openssl genpkey -algorithm EC -pkeyopt "
			     "ec_paramgen_curve:P-256 -aes256 -pass pass:x -out o-enc.key && "
			     "chmod 600 o.key o-ec.key o-enc.key) >/dev/null 2>&1",
			     dir) > 0);
	assert_int_equal(system(cmd) >> 8, 0);
	free(cmd);
	yaml = "tls_server_config:\n  cert_file: o.crt\n  key_file: o.key\n";
	assert_int_equal(web_config_parse(yaml, strlen(yaml), "w.yml", dir, &c, err, sizeof(err)),
			 0);
	yaml = "tls_server_config:\n  cert_file: o.crt\n  key_file: o-ec.key\n";
	assert_int_equal(web_config_parse(yaml, strlen(yaml), "w.yml", dir, &c, err, sizeof(err)),
			 0);
	expect_error("tls_server_config:\n  cert_file: o.crt\n  key_file: o-enc.key\n",
		     "w.yml:3:13: tls_server_config.key_file: %s/o-enc.key: an encrypted private "
		     "key");
}

/* ------------------------------------------------------------------------- */
/* Passwords                                                                 */

static void test_passwords(void **state)
{
	struct web_config c;
	char *yaml, err[1024] = "", long_name[300];

	assert_true(asprintf(&yaml, "basic_auth_users:\n  alice: %s\n  bob: %s\n  carol: %s\n",
			     hash_b, hash_y, hash_a) > 0);
	assert_int_equal(web_config_parse(yaml, strlen(yaml), "w.yml", dir, &c, err, sizeof(err)),
			 0);
	free(yaml);
	assert_int_equal(web_config_check_password(&c, "alice", "s3cret"), 1);
	assert_int_equal(web_config_check_password(&c, "bob", "s3cret"), 1); /* $2y$ */
	assert_int_equal(web_config_check_password(&c, "carol", "s3cret"), 1); /* $2a$ */
	assert_int_equal(web_config_check_password(&c, "alice", "s3cre"), 0);
	assert_int_equal(web_config_check_password(&c, "alice", "s3cret "), 0);
	assert_int_equal(web_config_check_password(&c, "alice", ""), 0);
	assert_int_equal(web_config_check_password(&c, "Alice", "s3cret"), 0);
	assert_int_equal(web_config_check_password(&c, "alic", "s3cret"), 0);
	assert_int_equal(web_config_check_password(&c, "dave", "s3cret"), 0);
	assert_int_equal(web_config_check_password(&c, NULL, "s3cret"), 0);
	assert_int_equal(web_config_check_password(&c, "alice", NULL), 0);
	assert_int_equal(web_config_check_password(NULL, "alice", "s3cret"), 0);
	memset(long_name, 'a', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';
	assert_int_equal(web_config_check_password(&c, long_name, "s3cret"), 0);

	/* A known user: one bcrypt, with its own hash. */
	crypt_calls = 0;
	assert_int_equal(web_config_check_password(&c, "alice", "wrong"), 0);
	assert_int_equal(crypt_calls, 1);
	assert_string_equal(crypt_setting, hash_b);
	/* An unknown one: one bcrypt too, of the highest cost (bob's 05). */
	crypt_calls = 0;
	assert_int_equal(web_config_check_password(&c, "mallory", "s3cret"), 0);
	assert_int_equal(crypt_calls, 1);
	assert_memory_equal(crypt_setting, "$2b$05$", 7);
	crypt_calls = 0;
	assert_int_equal(web_config_check_password(&c, long_name, "s3cret"), 0);
	assert_int_equal(crypt_calls, 1);

	/* No users: nobody gets in, and nothing is hashed. */
	yaml = TLS;
	assert_int_equal(web_config_parse(yaml, strlen(yaml), "w.yml", dir, &c, err, sizeof(err)),
			 0);
	crypt_calls = 0;
	assert_int_equal(web_config_check_password(&c, "alice", "s3cret"), 0);
	assert_int_equal(crypt_calls, 0);
}

/* ------------------------------------------------------------------------- */
/* outputs.prometheus.web_config                                             */

static void expect_config(const char *yaml_fmt, int want, const char *expect_fmt)
{
	struct agent_config *c = malloc(sizeof(*c));
	char yaml[1024], expect[1024], err[1024] = "";
	int r;

	assert_non_null(c);
	snprintf(yaml, sizeof(yaml), yaml_fmt, dir);
	snprintf(expect, sizeof(expect), expect_fmt, dir, dir);
	r = config_parse(yaml, strlen(yaml), "t.yaml", c, err, sizeof(err));
	if (r != want || strncmp(err, expect, strlen(expect)) != 0)
		fail_msg("input:\n%s\nexpected (%d): %s\ngot (%d): %s", yaml, want, expect, r, err);
	if (r == 0) {
		char *out = NULL, *path;
		size_t len = 0;
		FILE *f = open_memstream(&out, &len);

		assert_true(asprintf(&path, "%s/w.yml", dir) > 0);
		assert_string_equal(c->prometheus.web_config, path);
		assert_int_equal(config_write_yaml(c, f), 0);
		fclose(f);
		assert_non_null(strstr(out, "    web_config: \"/tmp/cgperf-test-web."));
		free(out);
		free(path);
	}
	free(c);
}

/* config_check_files() on a config naming the web config at path_fmt. */
static void expect_files(const char *path_fmt, int want, const char *expect_fmt)
{
	struct agent_config *c = calloc(1, sizeof(*c));
	char expect[1024], err[1024] = "";
	int r;

	assert_non_null(c);
	snprintf(c->prometheus.web_config, sizeof(c->prometheus.web_config), path_fmt, dir);
	snprintf(expect, sizeof(expect), expect_fmt, dir, dir);
	r = config_check_files(c, err, sizeof(err));
	if (r != want || strncmp(err, expect, strlen(expect)) != 0)
		fail_msg("expected (%d): %s\ngot (%d): %s", want, expect, r, err);
	free(c);
}

static void test_agent_config(void **state)
{
	char *path;

	assert_true(asprintf(&path, "%s/w.yml", dir) > 0);
	test_write_str(path, TLS);
	expect_config("outputs:\n  prometheus:\n    web_config: %s/w.yml\n", 0, "");
	expect_config(
		"outputs:\n  prometheus:\n    web_config: w.yml\n", -EINVAL,
		"t.yaml:3:17: outputs.prometheus.web_config: 'w.yml' is not an absolute path");
	/* The file is read by check-config (config_check_files), not by the
	 * parse: a missing or bad one parses. */
	expect_config("outputs:\n  prometheus:\n    web_config: %s/w.yml\n", 0, "");
	expect_files("%s/none.yml", -ENOENT,
		     "outputs.prometheus.web_config: %s/none.yml: cannot open: No such file or "
		     "directory");
	test_write_str(path, "tls_server_config:\n  cert_file: cert.pem\n");
	expect_files("%s/w.yml", -EINVAL,
		     "outputs.prometheus.web_config: %s/w.yml:2:14: tls_server_config: cert_file "
		     "needs key_file too");
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_inputs), cmocka_unit_test(test_bad_users),
		cmocka_unit_test(test_full_file),  cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_load),	   cmocka_unit_test(test_openssl_files),
		cmocka_unit_test(test_passwords),  cmocka_unit_test(test_agent_config),
	};

	return unit_result(cmocka_run_group_tests(tests, setup, teardown));
}
