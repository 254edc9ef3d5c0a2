/* SPDX-License-Identifier: GPL-2.0-only */
/* Shared by the web configuration's files (web_config.c: the document;
 * web_tls.c: tls_server_config; web_files.c: the files it names;
 * web_auth.c: bcrypt). Internal to config/.
 * The checks here say why in a few words; the parser adds where. */
#pragma once
#include <stdbool.h>
#include <stddef.h>

#include "config/config_schema.h"
#include "config/web_config.h"

/* A parse: the agent configuration's context with this file's state around
 * it (the key callbacks get &w->p and find w with web_of). */
struct web_parse {
	struct parse_ctx p;
	struct web_config *c;
	const char *dir; /* for relative paths; NULL: left relative */
	yaml_mark_t tls_mark, cert_mark, key_mark, ca_mark, auth_mark, min_mark, max_mark,
		sans_mark, burst_mark;
	bool tls_given, max_given, sans_given;
	yaml_mark_t user_marks[WEB_CONFIG_MAX_USERS];
	int max_cost; /* the users' highest bcrypt cost */
};

static inline struct web_parse *web_of(struct parse_ctx *p)
{
	return (struct web_parse *)((char *)p - offsetof(struct web_parse, p));
}

/* Where the cursor's event starts. */
static inline yaml_mark_t web_mark(const struct parse_ctx *p)
{
	return cfg_event(p)->start_mark;
}

/* web_tls.c: the tls_server_config key, and after the document what its
 * keys say together and the files they name. */
int web_parse_tls(struct parse_ctx *p);
int web_check_tls(struct web_parse *w);

enum web_pem_kind {
	WEB_PEM_CERT, /* cert_file: a certificate (chain) */
	WEB_PEM_KEY, /* key_file: an unencrypted private key */
	WEB_PEM_CA, /* client_ca_file: certificates only */
};

/* The file at path opens, is a regular file (symlinks followed: Kubernetes
 * mounts secrets as links), has a mode fit for what it holds and holds the
 * PEM blocks kind needs. 0, or a negative errno with the reason in why. */
int web_check_pem_file(const char *path, enum web_pem_kind kind, char *why, size_t why_len);

/* hash is a bcrypt hash ($2a$, $2b$, $2y$) this libcrypt can check: its
 * cost (4..31), or -EINVAL with the reason in why (the hash not echoed). */
int web_check_bcrypt(const char *hash, char *why, size_t why_len);

/* A bcrypt hash of cost `cost` matching no password anyone types. */
void web_dummy_hash(int cost, char *out, size_t out_len);
