// SPDX-License-Identifier: GPL-2.0-only
/* The certificate, key and CA files a web configuration names: present,
 * regular, a key not readable by others, and PEM blocks of the right kind.
 * Only the PEM framing is read here; the TLS library parses the contents
 * when the endpoint loads them. */
#include "config/web_int.h"
#include "util/escape.h"
#include "config/web_config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/config_schema.h"

struct pem_seen {
	int certs, keys;
	bool encrypted, openssh;
	char unterminated[4 * 64 + 8]; /* the type of a BEGIN without its END, escaped */
};

static bool is_private_key(const char *type, size_t n)
{
	return (n == 11 && !memcmp(type, "PRIVATE KEY", 11)) ||
	       (n > 12 && !memcmp(type + n - 12, " PRIVATE KEY", 12));
}

/* Where the line after p starts, or end. */
static const char *next_line(const char *p, const char *end)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));

	return nl ? nl + 1 : end;
}

/* Go's encoding/pem framing: "-----BEGIN TYPE-----" at a line's start, the
 * block up to "-----END TYPE-----"; text between blocks is ignored. */
static void scan_pem(const char *p, const char *end, struct pem_seen *s)
{
	static const char begin[] = "-----BEGIN ", dashes[] = "-----";

	while (p < end) {
		const char *line_end = next_line(p, end), *type, *t_end, *q;
		char close[96];
		size_t n;

		if ((size_t)(line_end - p) < sizeof(begin) || memcmp(p, begin, sizeof(begin) - 1)) {
			p = line_end;
			continue;
		}
		type = p + sizeof(begin) - 1;
		t_end = memmem(type, (size_t)(line_end - type), dashes, 5);
		n = t_end ? (size_t)(t_end - type) : 0;
		if (!t_end || n == 0 || n > 64) {
			p = line_end;
			continue;
		}
		snprintf(close, sizeof(close), "-----END %.*s-----", (int)n, type);
		for (q = line_end; q < end; q = next_line(q, end))
			if ((size_t)(end - q) >= strlen(close) && !memcmp(q, close, strlen(close)))
				break;
		if (q >= end) {
			/* The file's bytes, said on a terminal: escaped. */
			text_escape(type, n, 64, s->unterminated, sizeof(s->unterminated));
			return;
		}
		if (n == 11 && !memcmp(type, "CERTIFICATE", 11))
			s->certs++;
		else if (n == 21 && !memcmp(type, "ENCRYPTED PRIVATE KEY", 21))
			s->encrypted = true;
		else if (n == 19 && !memcmp(type, "OPENSSH PRIVATE KEY", 19))
			s->openssh = true;
		else if (is_private_key(type, n)) {
			/* Traditional OpenSSL encryption: a header in the block. */
			if (memmem(line_end, (size_t)(q - line_end), "Proc-Type: 4,ENCRYPTED", 22))
				s->encrypted = true;
			else
				s->keys++;
		}
		p = next_line(q, end);
	}
}

static int why_kind(const struct pem_seen *s, enum web_pem_kind kind, char *why, size_t why_len)
{
	if (s->unterminated[0]) {
		snprintf(why, why_len, "-----BEGIN %s----- without its END (cut short?)",
			 s->unterminated);
		return -EINVAL;
	}
	if (kind == WEB_PEM_KEY) {
		if (s->keys)
			return 0;
		if (s->encrypted)
			snprintf(
				why, why_len,
				"an encrypted private key: the agent starts unattended, so the key "
				"must not need a passphrase");
		else if (s->openssh)
			snprintf(why, why_len, "an OpenSSH key, not a TLS private key");
		else if (s->certs)
			snprintf(why, why_len,
				 "holds a certificate, no private key (cert_file and key_file "
				 "swapped?)");
		else
			snprintf(why, why_len, "no PEM private key (-----BEGIN PRIVATE KEY-----)");
		return -EINVAL;
	}
	if (s->certs == 0) {
		if (s->keys || s->encrypted)
			snprintf(why, why_len, "holds a private key, no certificate%s",
				 kind == WEB_PEM_CERT ? " (cert_file and key_file swapped?)" : "");
		else
			snprintf(why, why_len, "no PEM certificate (-----BEGIN CERTIFICATE-----)");
		return -EINVAL;
	}
	/* CA bundles are world-readable by nature: a key in one is a leak. */
	if (kind == WEB_PEM_CA && (s->keys || s->encrypted)) {
		snprintf(why, why_len, "holds a private key: a CA file needs certificates only");
		return -EINVAL;
	}
	return 0;
}

static int why_mode(mode_t mode, char *why, size_t why_len)
{
	snprintf(why, why_len,
		 "has mode %04o: a private key must not be readable or writable by group or "
		 "others (chmod 600)",
		 (unsigned)(mode & 07777));
	return -EACCES;
}

int web_check_pem_file(const char *path, enum web_pem_kind kind, char *why, size_t why_len)
{
	struct pem_seen seen = { 0 };
	struct stat st;
	char *text = NULL;
	size_t len = 0;
	int fd, r;

	/* O_NONBLOCK: a FIFO put there must not hang check-config. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		r = -errno;
		snprintf(why, why_len, "cannot open: %s", strerror(-r));
		return r;
	}
	if (fstat(fd, &st) < 0) {
		r = -errno;
		snprintf(why, why_len, "cannot stat: %s", strerror(-r));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(why, why_len, "not a regular file");
		r = -EINVAL;
		goto out;
	}
	/* Before reading: a key others can read is refused as it stands. */
	if (kind == WEB_PEM_KEY && (st.st_mode & 066)) {
		r = why_mode(st.st_mode, why, why_len);
		goto out;
	}
	r = cfg_read_fd(fd, WEB_CONFIG_PEM_MAX, &text, &len);
	if (r == -EFBIG)
		snprintf(why, why_len, "larger than %d bytes, not a PEM file", WEB_CONFIG_PEM_MAX);
	else if (r < 0)
		snprintf(why, why_len, "cannot read: %s", strerror(-r));
	if (r < 0)
		goto out;
	scan_pem(text, text + len, &seen);
	r = why_kind(&seen, kind, why, why_len);
	/* A certificate file with the key in it is a key file too. */
	if (r == 0 && kind == WEB_PEM_CERT && (seen.keys || seen.encrypted) && (st.st_mode & 066))
		r = why_mode(st.st_mode, why, why_len);
out:
	if (text)
		explicit_bzero(text, len); /* a private key, maybe */
	free(text);
	close(fd);
	return r;
}
