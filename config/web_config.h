/* SPDX-License-Identifier: GPL-2.0-only */
/* The Prometheus exporter toolkit's web configuration file (node_exporter's
 * --web.config.file; cgperf's outputs.prometheus.web_config): TLS, client
 * certificates, basic-auth users with bcrypt hashes. Parsed, checked
 * (files, modes, PEM headers, hashes) with "FILE:LINE:COL: message" errors,
 * and basic-auth passwords checked against it. Serving TLS with it is the
 * next step (sink/prom_http.c); docs/PROMETHEUS.md, "TLS and authentication". */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define WEB_CONFIG_FILE_MAX (64 * 1024) /* the web config itself: a few lines */
#define WEB_CONFIG_PEM_MAX (1024 * 1024) /* a certificate chain or CA bundle */
#define WEB_CONFIG_PATH_MAX 1024 /* a file path once made absolute, NUL included */
#define WEB_CONFIG_MAX_USERS 64
#define WEB_CONFIG_USER_MAX 127 /* bytes of a user name */
#define WEB_CONFIG_HASH_LEN 60 /* $2y$10$ + 22 salt + 31 hash characters */
/* The highest bcrypt cost taken: an unknown user's check pays the highest
 * of the users', and each step doubles it (14: about a second). */
#define WEB_CONFIG_MAX_COST 14
#define WEB_CONFIG_MAX_SANS 32
#define WEB_CONFIG_SAN_MAX 255
#define WEB_CONFIG_HEADER_MAX 1023 /* bytes of a header's value */
#define WEB_CONFIG_MAX_CIPHERS 32

enum web_client_auth {
	WEB_NO_CLIENT_CERT,
	WEB_REQUEST_CLIENT_CERT,
	WEB_REQUIRE_ANY_CLIENT_CERT,
	WEB_VERIFY_CLIENT_CERT_IF_GIVEN,
	WEB_REQUIRE_AND_VERIFY_CLIENT_CERT,
	WEB_NR_CLIENT_AUTH
};

enum web_tls_version {
	WEB_TLS10,
	WEB_TLS11,
	WEB_TLS12,
	WEB_TLS13,
	WEB_NR_TLS_VERSIONS
};

enum web_curve {
	WEB_CURVE_P256,
	WEB_CURVE_P384,
	WEB_CURVE_P521,
	WEB_X25519,
	WEB_NR_CURVES
};

/* http_server_config.headers: the toolkit's fixed set, nothing else. */
enum web_header {
	WEB_HDR_CSP,
	WEB_HDR_FRAME_OPTIONS,
	WEB_HDR_CONTENT_TYPE_OPTIONS,
	WEB_HDR_XSS_PROTECTION,
	WEB_HDR_HSTS,
	WEB_NR_HEADERS
};

/* A name in the file and the GnuTLS priority string elements that enable it
 * ("+VERS-TLS1.2", "+ECDHE-RSA:+AES-128-GCM:+AEAD"). A list of cipher
 * suites becomes the union of their elements: GnuTLS combines key exchanges,
 * ciphers and MACs freely, so mixed suites allow a few combinations more. */
struct web_name {
	const char *name;
	/* NULL for TLS 1.3's cipher suites: Go does not let a configuration
	 * choose those, so listing one changes nothing. */
	const char *gnutls;
};
extern const struct web_name web_tls_versions[WEB_NR_TLS_VERSIONS];
extern const struct web_name web_curves[WEB_NR_CURVES];
extern const struct web_name web_cipher_suites[];
extern const size_t web_nr_cipher_suites;
extern const char *const web_client_auth_names[WEB_NR_CLIENT_AUTH];
extern const char *const web_header_names[WEB_NR_HEADERS];

struct web_user {
	char name[WEB_CONFIG_USER_MAX + 1];
	char hash[WEB_CONFIG_HASH_LEN + 1];
};

/* Everything fixed-size: nothing to free, copied with `=`. Paths are as
 * written when absolute, else joined to the web config file's directory. */
struct web_config {
	bool tls; /* tls_server_config has cert_file and key_file */
	char cert_file[WEB_CONFIG_PATH_MAX];
	char key_file[WEB_CONFIG_PATH_MAX];
	char client_ca_file[WEB_CONFIG_PATH_MAX]; /* "" when not given */
	enum web_client_auth client_auth;
	enum web_tls_version min_version, max_version; /* TLS12, TLS13 */
	uint8_t cipher_suites[WEB_CONFIG_MAX_CIPHERS]; /* web_cipher_suites indices */
	int nr_cipher_suites; /* 0: the TLS library's defaults */
	uint8_t curves[WEB_NR_CURVES]; /* enum web_curve, in preference order */
	int nr_curves;
	bool prefer_server_cipher_suites; /* default true */
	char client_allowed_sans[WEB_CONFIG_MAX_SANS][WEB_CONFIG_SAN_MAX + 1];
	int nr_client_allowed_sans; /* 0: no SAN check */
	bool http2; /* read, not used: the endpoint speaks HTTP/1.1 only */
	char headers[WEB_NR_HEADERS][WEB_CONFIG_HEADER_MAX + 1]; /* "": not sent */
	uint64_t rate_limit_interval_ms; /* 0: no rate limit */
	unsigned rate_limit_burst;
	struct web_user users[WEB_CONFIG_MAX_USERS];
	int nr_users; /* 0: no basic auth */
	/* What an unknown user's password is hashed against: bcrypt of the
	 * users' highest cost, so that it takes as long as a known user's. */
	char dummy_hash[WEB_CONFIG_HASH_LEN + 1];
};

/* Read and check the file at path: 0, or -EINVAL (the file is invalid),
 * -ENOENT, -EACCES, -EFBIG, -ENOMEM... with one "FILE:LINE:COL: message"
 * (or "FILE: message") line in err. ret is untouched on failure. */
int web_config_load(const char *path, struct web_config *ret, char *err, size_t err_len);

/* The same from memory: name for messages, dir for relative file paths
 * (NULL: left relative). The files it names are checked all the same. */
int web_config_parse(const char *text, size_t len, const char *name, const char *dir,
		     struct web_config *ret, char *err, size_t err_len);

/* 1 when user is in basic_auth_users and password matches its hash, else 0
 * (also on any failure). As long for an unknown user as for a known one of
 * the highest cost; the hashes compared in constant time. Thread-safe. */
int web_config_check_password(const struct web_config *c, const char *user, const char *password);
