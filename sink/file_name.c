// SPDX-License-Identifier: GPL-2.0-only
#include "sink/file_name.h"
#include "util/buf.h"
#include "util/sha256.h"
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static bool is_plain(unsigned char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       c == '.' || c == '_' || c == '-';
}

static bool is_hex(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* Append s[0..len) keeping [A-Za-z0-9._-] and writing any other byte as _XX.
 * A leading '.' or '-' is escaped too: no hidden files, never "." or "..",
 * nothing a shell command would take for an option. With
 * slash_sep, '/' separates path components and becomes a plain '_'. */
static void append_escaped(struct buf *b, const char *s, size_t len, bool slash_sep)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = s[i];
		char hex[4];

		if (slash_sep && c == '/') {
			buf_append(b, "_", 1);
			continue;
		}
		if (is_plain(c) && !((c == '.' || c == '-') && b->len == 0)) {
			buf_append(b, (const char *)&c, 1);
			continue;
		}
		snprintf(hex, sizeof(hex), "_%02X", c);
		buf_append(b, hex, 3);
	}
}

static void append_part(struct buf *b, const char *s)
{
	if (b->len)
		buf_append(b, "_", 1);
	append_escaped(b, s, strlen(s), false);
}

static bool empty(const char *s)
{
	return !s || !*s;
}

/* The last path component (no trailing slashes). */
static const char *last_component(const char *path, size_t *ret_len)
{
	size_t end = strlen(path), start;

	while (end > 0 && path[end - 1] == '/')
		end--;
	start = end;
	while (start > 0 && path[start - 1] != '/')
		start--;
	*ret_len = end - start;
	return path + start;
}

static bool has_suffix(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);

	return len > n && memcmp(s + len - n, suffix, n) == 0;
}

/* The first 8 hex digits after "pod" in the last component: the start of the
 * pod uid in both kubelet layouts ("...-pod<uid_with_underscores>.slice" and
 * cgroupfs "pod<uid>"). */
static bool pod_uid8(const char *path, char ret[9])
{
	size_t len;
	const char *c = last_component(path, &len);

	for (size_t i = 0; i + 3 + 8 <= len; i++) {
		size_t j;

		if (memcmp(c + i, "pod", 3) != 0)
			continue;
		for (j = 0; j < 8 && is_hex(c[i + 3 + j]); j++)
			;
		if (j == 8) {
			memcpy(ret, c + i + 3, 8);
			ret[8] = '\0';
			return true;
		}
	}
	return false;
}

/* A unit of the system manager: its name is unique on the host. systemd
 * nests units only in slices, so every component before the unit is a
 * ".slice"; anything else above it (a user manager's user@UID.service, a
 * container's scope with its own systemd inside) makes it someone else's
 * unit, whose name says little: those get the path. */
static bool system_unit_name(const char *path, const char **ret, size_t *ret_len)
{
	size_t len;
	const char *c = last_component(path, &len), *p = path;

	if (!has_suffix(c, len, ".service") && !has_suffix(c, len, ".scope"))
		return false;
	while (p < c) {
		const char *end;

		while (*p == '/')
			p++;
		if (p >= c)
			break;
		end = strchr(p, '/');
		if (!end || !has_suffix(p, end - p, ".slice"))
			return false;
		p = end;
	}
	*ret = c;
	*ret_len = len;
	return true;
}

static void append_path(struct buf *b, const char *path)
{
	while (*path == '/')
		path++;
	if (!*path) {
		buf_append(b, "root", 4);
		return;
	}
	append_escaped(b, path, strlen(path), true);
}

/* buf = the readable part b (cut to CSV_STEM_READABLE_MAX) + "_" + the first
 * CSV_STEM_HASH_HEX hex digits of SHA-256(path). The hash makes the name
 * unique per path whatever the readable part says, and is the same at every
 * start and in any scan order; a cryptographic hash, because paths are
 * tenant-chosen and a tenant must not be able to aim at another cgroup's
 * name. */
static int finish(const struct buf *b, const char *path, char *buf, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	uint8_t digest[SHA256_DIGEST_LEN];
	size_t n = b->len < CSV_STEM_READABLE_MAX ? b->len : CSV_STEM_READABLE_MAX;

	if (len < CSV_STEM_MAX + 1)
		return -ENOBUFS;
	sha256(path, strlen(path), digest);
	memcpy(buf, b->data, n);
	buf[n++] = '_';
	for (int i = 0; i < CSV_STEM_HASH_HEX / 2; i++) {
		buf[n++] = hex[digest[i] >> 4];
		buf[n++] = hex[digest[i] & 15];
	}
	buf[n] = '\0';
	return 0;
}

int csv_file_stem(const struct sink_cgroup *cg, char *buf, size_t len)
{
	struct buf b = BUF_INIT;
	const char *unit;
	size_t unit_len;
	char uid8[9];
	int r;

	if (!cg || empty(cg->path) || !buf)
		return -EINVAL;
	if (cg->kind && strcmp(cg->kind, "container") == 0 && !empty(cg->container_id)) {
		/* Inside a pod the container name alone ("app") says little. */
		if (!empty(cg->pod)) {
			append_part(&b, empty(cg->pod_namespace) ? "-" : cg->pod_namespace);
			append_part(&b, cg->pod);
		}
		/* An unnamed container's name column holds its short id; the
		 * file then says which runtime instead of the id twice. */
		bool named = !empty(cg->container_name) &&
			     strncmp(cg->container_name, cg->container_id, 12) != 0;
		append_part(&b, named		      ? cg->container_name
				: !empty(cg->runtime) ? cg->runtime
						      : "container");
		if (b.len)
			buf_append(&b, "_", 1);
		append_escaped(&b, cg->container_id, strnlen(cg->container_id, 12), false);
	} else if (cg->kind && strcmp(cg->kind, "pod") == 0 && !empty(cg->pod) &&
		   pod_uid8(cg->path, uid8)) {
		append_part(&b, "pod");
		append_part(&b, empty(cg->pod_namespace) ? "-" : cg->pod_namespace);
		append_part(&b, cg->pod);
		append_part(&b, uid8);
	} else if (cg->kind && strcmp(cg->kind, "service") == 0 &&
		   system_unit_name(cg->path, &unit, &unit_len)) {
		append_escaped(&b, unit, unit_len, false);
	} else
		append_path(&b, cg->path);

	r = b.error;
	if (r >= 0)
		r = finish(&b, cg->path, buf, len);
	buf_free(&b);
	return r;
}

int csv_prog_file_stem(const struct sink_prog *p, char *buf, size_t len)
{
	struct buf b = BUF_INIT;
	char id[16];
	int r;

	if (!p || !p->name || !buf)
		return -EINVAL;
	append_part(&b, "bpf-prog");
	if (p->name[0])
		append_part(&b, p->name);
	snprintf(id, sizeof(id), "%u", (unsigned)p->id);
	append_part(&b, id);
	r = b.error;
	if (r == 0 && b.len + 1 > len)
		r = -ENOBUFS;
	if (r == 0) {
		memcpy(buf, b.data, b.len);
		buf[b.len] = '\0';
	}
	buf_free(&b);
	return r;
}
