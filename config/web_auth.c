// SPDX-License-Identifier: GPL-2.0-only
/* basic_auth_users: the bcrypt hashes the exporter toolkit takes, checked
 * with libxcrypt (no hash of our own), and password checks that cost the
 * same whether the user exists or not. */
#include "config/web_int.h"
#include "config/web_config.h"

#include <crypt.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/escape.h"

static const char bcrypt_chars[] =
	"./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/* Salt and hash of no password in use (made once with crypt_gensalt). */
static const char dummy_tail[] = "37VYRbDEJ.lEkqx.AqEdB.21ilkdVVQ6UqagrBx/9BwxUmXpxYLNa";

int web_check_bcrypt(const char *h, char *why, size_t why_len)
{
	size_t n = strlen(h);
	char esc[64];
	int cost, r;

	/* The hash itself is never echoed: it is a secret of sorts. */
	if (h[0] != '$') {
		snprintf(why, why_len,
			 "not a bcrypt hash (the password goes in hashed: htpasswd -nBC 10 \"\" "
			 "| tr -d ':\\n')");
		return -EINVAL;
	}
	if (n < 4 || h[1] != '2' || !strchr("aby", h[2]) || h[3] != '$') {
		size_t id = strcspn(h + 1, "$");

		/* Named only when it looks like a method id: a pasted
		 * password that starts with '$' is never echoed. */
		if (id >= 1 && id <= 10 && h[1 + id] == '$' &&
		    strspn(h + 1, "abcdefghijklmnopqrstuvwxyz0123456789") == id) {
			text_escape(h, id + 2, 16, esc, sizeof(esc));
			snprintf(why, why_len,
				 "'%s' hashes are not accepted: bcrypt only ($2a$, $2b$, $2y$)",
				 esc);
		} else {
			snprintf(why, why_len, "not a bcrypt hash: bcrypt only ($2a$, $2b$, $2y$)");
		}
		return -EINVAL;
	}
	if (n != WEB_CONFIG_HASH_LEN || h[4] < '0' || h[4] > '9' || h[5] < '0' || h[5] > '9' ||
	    h[6] != '$' || strspn(h + 7, bcrypt_chars) != WEB_CONFIG_HASH_LEN - 7) {
		snprintf(why, why_len,
			 "not a bcrypt hash (expected %.4s, a 2-digit cost, '$' and 53 characters "
			 "of ./A-Za-z0-9)",
			 h);
		return -EINVAL;
	}
	cost = (h[4] - '0') * 10 + (h[5] - '0');
	/* Every check of an unknown user pays the highest cost: one hash of
	 * cost 20 would make each request take a minute (cost 14: ~1 s). */
	if (cost < 4 || cost > WEB_CONFIG_MAX_COST) {
		snprintf(why, why_len,
			 "bcrypt cost %.2s is out of range 04..%02d (each step doubles the time of "
			 "every request's check: cost 10 is ~70 ms)",
			 h + 4, WEB_CONFIG_MAX_COST);
		return -EINVAL;
	}
	/* The salt's last character in its canonical form (bcrypt rewrites it,
	 * so another one would never compare equal). */
	if (!strchr(".Oeu", h[28])) {
		snprintf(why, why_len, "not a canonical bcrypt hash (its salt's 22nd character)");
		return -EINVAL;
	}
	r = crypt_checksalt(h);
	if (r != CRYPT_SALT_OK && r != CRYPT_SALT_METHOD_LEGACY) {
		snprintf(why, why_len, "this system's libcrypt cannot check %.4s hashes", h);
		return -EINVAL;
	}
	return cost;
}

void web_dummy_hash(int cost, char *out, size_t out_len)
{
	snprintf(out, out_len, "$2b$%02d$%s", cost, dummy_tail);
}

/* No early exit: how long it takes says nothing of where they differ. */
static bool same_bytes(const char *a, const char *b, size_t n)
{
	volatile unsigned char d = 0;

	for (size_t i = 0; i < n; i++)
		d |= (unsigned char)(a[i] ^ b[i]);
	return d == 0;
}

int web_config_check_password(const struct web_config *c, const char *user, const char *password)
{
	char name[WEB_CONFIG_USER_MAX + 1] = { 0 };
	const char *hash, *out;
	struct crypt_data *data;
	bool found = false, match;
	size_t len;

	if (!c || !user || !password || c->nr_users <= 0 || !c->dummy_hash[0])
		return 0;
	/* Every name compared whole (they are zero-padded), none skipped. */
	len = strnlen(user, sizeof(name));
	if (len < sizeof(name))
		memcpy(name, user, len);
	hash = c->dummy_hash;
	for (int i = 0; i < c->nr_users && i < WEB_CONFIG_MAX_USERS; i++)
		if (same_bytes(name, c->users[i].name, sizeof(name)) && len < sizeof(name)) {
			hash = c->users[i].hash;
			found = true;
		}
	/* 32 KiB of state: not on a serving thread's stack. */
	data = calloc(1, sizeof(*data));
	if (!data)
		return 0;
	out = crypt_rn(password, hash, data, (int)sizeof(*data));
	/* The NUL too: an output of another length never matches. */
	match = out && same_bytes(out, hash, WEB_CONFIG_HASH_LEN + 1);
	explicit_bzero(data, sizeof(*data));
	free(data);
	return found && match;
}
