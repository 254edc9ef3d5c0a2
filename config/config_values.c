// SPDX-License-Identifier: GPL-2.0-only
/* Parsers for the configuration's value types: durations, sizes, syslog
 * targets and facilities. Each returns 0 or a negative errno and leaves its
 * output untouched on failure; the messages naming the key and position are
 * made by the caller (config.c), which knows them. */
#include "config/config.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/un.h>

static void set_err(char *err, size_t err_len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void set_err(char *err, size_t err_len, const char *fmt, ...)
{
	va_list ap;

	if (!err || err_len == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, err_len, fmt, ap);
	va_end(ap);
}

/* Leading decimal digits of s into *ret; returns how many were read, 0 when
 * none, or -ERANGE on overflow. */
static int read_digits(const char *s, uint64_t *ret)
{
	uint64_t v = 0;
	int n = 0;

	for (; isdigit((unsigned char)s[n]); n++) {
		uint64_t d = (uint64_t)(s[n] - '0');

		if (v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	*ret = v;
	return n;
}

static int checked_mul_add(uint64_t *acc, uint64_t v, uint64_t mult)
{
	if (v != 0 && mult > UINT64_MAX / v)
		return -ERANGE;
	if (*acc > UINT64_MAX - v * mult)
		return -ERANGE;
	*acc += v * mult;
	return 0;
}

int config_parse_duration_ms(const char *s, uint64_t *ret)
{
	static const struct {
		const char *unit;
		uint64_t ms;
	} units[] = {
		/* "ms" before "m": the longest unit that matches wins. */
		{ "ms", 1 },
		{ "s", 1000 },
		{ "m", 60 * 1000 },
		{ "h", 3600 * 1000 },
		{ "d", 24 * 3600 * 1000 },
	};
	uint64_t total = 0, v;
	int n;

	if (!s || !*s)
		return -EINVAL;
	/* A bare number is seconds, like the YAML integer form. */
	n = read_digits(s, &v);
	if (n < 0)
		return n;
	if (n > 0 && s[n] == '\0') {
		if (checked_mul_add(&total, v, 1000) < 0)
			return -ERANGE;
		*ret = total;
		return 0;
	}
	/* Otherwise one or more NUMBER UNIT groups: "1h30m", "90s", "500ms". */
	while (*s) {
		size_t i, ulen = 0;

		n = read_digits(s, &v);
		if (n <= 0)
			return n < 0 ? n : -EINVAL;
		s += n;
		for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
			ulen = strlen(units[i].unit);
			if (!strncmp(s, units[i].unit, ulen) && !isalpha((unsigned char)s[ulen]))
				break;
		}
		if (i == sizeof(units) / sizeof(units[0]))
			return -EINVAL;
		if (checked_mul_add(&total, v, units[i].ms) < 0)
			return -ERANGE;
		s += ulen;
	}
	*ret = total;
	return 0;
}

int config_parse_size(const char *s, uint64_t *ret)
{
	static const struct {
		const char *unit;
		uint64_t bytes;
	} units[] = {
		{ "", 1 },
		{ "b", 1 },
		{ "kb", 1000ULL },
		{ "kib", 1ULL << 10 },
		{ "mb", 1000ULL * 1000 },
		{ "mib", 1ULL << 20 },
		{ "gb", 1000ULL * 1000 * 1000 },
		{ "gib", 1ULL << 30 },
		{ "tb", 1000ULL * 1000 * 1000 * 1000 },
		{ "tib", 1ULL << 40 },
	};
	uint64_t v, total = 0;
	int n;

	if (!s)
		return -EINVAL;
	n = read_digits(s, &v);
	if (n <= 0)
		return n < 0 ? n : -EINVAL;
	s += n;
	/* "64 MiB" reads as naturally as "64MiB". */
	if (*s == ' ')
		s++;
	/* Single letters ("64M") are refused: MB or MiB is a factor 1.05 apart
	 * and the reader of the file should not have to guess which. */
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcasecmp(s, units[i].unit)) {
			if (checked_mul_add(&total, v, units[i].bytes) < 0)
				return -ERANGE;
			*ret = total;
			return 0;
		}
	return -EINVAL;
}

/* ------------------------------------------------------------------------- */
/* Syslog targets                                                            */

static bool is_dotted_numeric(const char *host)
{
	return host[strspn(host, "0123456789.")] == '\0';
}

static int check_hostname(const char *host, char *err, size_t err_len)
{
	size_t label = 0, total = strlen(host);
	struct in_addr a4;

	if (total == 0) {
		set_err(err, err_len, "missing host");
		return -EINVAL;
	}
	if (is_dotted_numeric(host)) {
		if (inet_pton(AF_INET, host, &a4) != 1) {
			set_err(err, err_len, "invalid IPv4 address");
			return -EINVAL;
		}
		return 0;
	}
	/* RFC 1123 host names: letters, digits, '-', dot-separated labels. */
	if (total > 253) {
		set_err(err, err_len, "host name longer than 253 characters");
		return -EINVAL;
	}
	for (const char *p = host;; p++) {
		if (*p == '.' || *p == '\0') {
			/* A trailing dot (fully qualified "example.org.") is fine. */
			if (*p == '\0' && label == 0 && p > host + 1 && p[-1] == '.' &&
			    p[-2] != '.')
				return 0;
			if (label == 0 || label > 63) {
				set_err(err, err_len,
					"invalid host name (empty or over-long label)");
				return -EINVAL;
			}
			if (*p == '\0')
				return 0;
			label = 0;
			continue;
		}
		if (!isalnum((unsigned char)*p) && *p != '-' && *p != '_') {
			set_err(err, err_len, "invalid character in host name");
			return -EINVAL;
		}
		label++;
	}
}

static int check_ipv6(const char *addr, char *err, size_t err_len)
{
	char plain[INET6_ADDRSTRLEN];
	const char *zone = strchr(addr, '%');
	size_t n = zone ? (size_t)(zone - addr) : strlen(addr);
	struct in6_addr a6;

	/* A zone ("fe80::1%eth0") is an interface name, checked by the kernel at
	 * connect time; only its shape is checked here. */
	if (n >= sizeof(plain) || (zone && (zone[1] == '\0' || strlen(zone + 1) >= 16))) {
		set_err(err, err_len, "invalid IPv6 address");
		return -EINVAL;
	}
	memcpy(plain, addr, n);
	plain[n] = '\0';
	if (inet_pton(AF_INET6, plain, &a6) != 1) {
		set_err(err, err_len, "invalid IPv6 address");
		return -EINVAL;
	}
	return 0;
}

static int parse_port(const char *s, char *ret, size_t ret_len, char *err, size_t err_len)
{
	uint64_t v;
	int n = read_digits(s, &v);

	if (*s == '\0') {
		set_err(err, err_len, "missing port number after ':'");
		return -EINVAL;
	}
	if (n <= 0 || s[n] != '\0' || v < 1 || v > 65535) {
		set_err(err, err_len, "invalid port (expected a number 1..65535)");
		return -EINVAL;
	}
	snprintf(ret, ret_len, "%u", (unsigned)v);
	return 0;
}

/* "HOST:PORT" or "[IPV6]:PORT" into host and port (each 256 and 16 bytes).
 * Messages show scheme before HOST ("udp://") and port as the example port
 * (never the user's text: it may hold anything). */
static int parse_host_port(const char *s, const char *scheme, const char *port, char *ret_host,
			   char *ret_port, char *err, size_t err_len)
{
	char host[256];
	const char *colon;
	size_t n;
	int r;

	if (*s == '[') {
		const char *close = strchr(s, ']');

		if (!close) {
			set_err(err, err_len, "missing ']' after IPv6 address");
			return -EINVAL;
		}
		n = (size_t)(close - s - 1);
		if (n >= sizeof(host)) {
			set_err(err, err_len, "invalid IPv6 address");
			return -EINVAL;
		}
		memcpy(host, s + 1, n);
		host[n] = '\0';
		r = check_ipv6(host, err, err_len);
		if (r < 0)
			return r;
		if (close[1] != ':') {
			set_err(err, err_len, "missing :PORT (expected %s[ADDRESS]:PORT)", scheme);
			return -EINVAL;
		}
		colon = close + 1;
	} else {
		colon = strrchr(s, ':');
		if (!colon) {
			set_err(err, err_len, "missing :PORT (expected %sHOST:PORT)", scheme);
			return -EINVAL;
		}
		if (memchr(s, ':', (size_t)(colon - s))) {
			set_err(err, err_len, "IPv6 addresses must be in brackets (%s[::1]:%s)",
				scheme, port);
			return -EINVAL;
		}
		n = (size_t)(colon - s);
		if (n >= sizeof(host)) {
			set_err(err, err_len, "host name longer than 253 characters");
			return -EINVAL;
		}
		memcpy(host, s, n);
		host[n] = '\0';
		r = check_hostname(host, err, err_len);
		if (r < 0)
			return r;
	}
	r = parse_port(colon + 1, ret_port, 16, err, err_len);
	if (r < 0)
		return r;
	snprintf(ret_host, 256, "%s", host);
	return 0;
}

/* The PATH of "unix:PATH": absolute, within sockaddr_un's limit. */
static int parse_socket_path(const char *path, const char *example, char *ret, size_t size,
			     char *err, size_t err_len)
{
	size_t max_path = sizeof(((struct sockaddr_un *)NULL)->sun_path) - 1;

	if (path[0] != '/') {
		set_err(err, err_len, "expected an absolute socket path (%s)", example);
		return -EINVAL;
	}
	if (strlen(path) > max_path || strlen(path) >= size) {
		set_err(err, err_len, "socket path longer than %zu bytes",
			max_path < size ? max_path : size - 1);
		return -EINVAL;
	}
	snprintf(ret, size, "%s", path);
	return 0;
}

int config_parse_syslog_target(const char *s, struct syslog_config *c, char *err, size_t err_len)
{
	struct syslog_config t;
	int r;

	if (!s || !c) {
		set_err(err, err_len, "no target");
		return -EINVAL;
	}
	if (strlen(s) >= sizeof(t.target)) {
		set_err(err, err_len, "target longer than %zu bytes", sizeof(t.target) - 1);
		return -EINVAL;
	}
	/* Work on a copy so c stays untouched when the target is refused. */
	t = *c;
	/* Zero-filled, not just emptied: configurations compare byte-for-byte. */
	memset(t.target, 0, sizeof(t.target));
	memset(t.host, 0, sizeof(t.host));
	memset(t.port, 0, sizeof(t.port));
	memset(t.socket_path, 0, sizeof(t.socket_path));
	if (!strncmp(s, "unix:", 5)) {
		r = parse_socket_path(s + 5, "unix:/dev/log", t.socket_path, sizeof(t.socket_path),
				      err, err_len);
		if (r < 0)
			return r;
		t.transport = SYSLOG_UNIX;
	} else if (!strncmp(s, "udp://", 6) || !strncmp(s, "tcp://", 6)) {
		bool udp = s[0] == 'u';

		r = parse_host_port(s + 6, udp ? "udp://" : "tcp://", "514", t.host, t.port, err,
				    err_len);
		if (r < 0)
			return r;
		t.transport = udp ? SYSLOG_UDP : SYSLOG_TCP;
	} else {
		set_err(err, err_len,
			"unknown kind of target (expected unix:/PATH, udp://HOST:PORT or tcp://HOST:PORT)");
		return -EINVAL;
	}
	snprintf(t.target, sizeof(t.target), "%s", s);
	*c = t;
	return 0;
}

/* ------------------------------------------------------------------------- */
/* Listen addresses                                                          */

int config_parse_listen(const char *s, struct prometheus_config *c, char *err, size_t err_len)
{
	struct prometheus_config t;
	int r;

	if (!s || !c || !*s) {
		set_err(err, err_len,
			"no address (expected HOST:PORT, [ADDRESS]:PORT, :PORT or unix:/PATH)");
		return -EINVAL;
	}
	if (strlen(s) >= sizeof(t.listen)) {
		set_err(err, err_len, "address longer than %zu bytes", sizeof(t.listen) - 1);
		return -EINVAL;
	}
	t = *c;
	memset(t.listen, 0, sizeof(t.listen));
	memset(t.host, 0, sizeof(t.host));
	memset(t.port, 0, sizeof(t.port));
	memset(t.socket_path, 0, sizeof(t.socket_path));
	if (!strncmp(s, "unix:", 5)) {
		r = parse_socket_path(s + 5, "unix:/run/cgperf/metrics.sock", t.socket_path,
				      sizeof(t.socket_path), err, err_len);
		if (r < 0)
			return r;
		t.kind = LISTEN_UNIX;
	} else {
		/* ":9464" is every address, as Go exporters write it. */
		r = s[0] == ':' && s[1] != ':'
			    ? parse_port(s + 1, t.port, sizeof(t.port), err, err_len)
			    : parse_host_port(s, "", "9464", t.host, t.port, err, err_len);
		if (r < 0)
			return r;
		t.kind = LISTEN_TCP;
	}
	snprintf(t.listen, sizeof(t.listen), "%s", s);
	*c = t;
	return 0;
}

/* ------------------------------------------------------------------------- */
/* Facilities                                                                */

/* RFC 5424 section 6.2.1 numbering, with the names syslog(3) uses. */
static const char *const facility_names[] = {
	"kern",	  "user",     "mail",	"daemon", "auth",   "syslog", "lpr",   "news",	 "uucp",
	"cron",	  "authpriv", "ftp",	"ntp",	  "audit",  "alert",  "clock", "local0", "local1",
	"local2", "local3",   "local4", "local5", "local6", "local7", NULL,
};

const char *const *config_facility_names(void)
{
	return facility_names;
}

int config_parse_facility(const char *s, int *ret)
{
	if (!s)
		return -EINVAL;
	for (int i = 0; i < 24; i++)
		if (!strcmp(s, facility_names[i])) {
			*ret = i;
			return 0;
		}
	return -EINVAL;
}

const char *config_facility_name(int facility)
{
	if (facility < 0 || facility >= 24)
		return NULL;
	return facility_names[facility];
}

int config_normalize_cgroup_root(const char *s, char *ret, size_t ret_len, char *err,
				 size_t err_len)
{
	char buf[4096];
	size_t w = 0;

	if (!s || s[0] != '/') {
		set_err(err, err_len,
			"must be an absolute cgroup path (\"/\" is the whole hierarchy)");
		return -EINVAL;
	}
	while (*s) {
		size_t len;

		s += strspn(s, "/");
		len = strcspn(s, "/");
		if (len == 0)
			break;
		if ((len == 1 && s[0] == '.') || (len == 2 && s[0] == '.' && s[1] == '.')) {
			set_err(err, err_len, "'.' and '..' are not allowed in the path");
			return -EINVAL;
		}
		if (w + 1 + len + 1 > sizeof(buf))
			return -ENAMETOOLONG;
		buf[w++] = '/';
		memcpy(buf + w, s, len);
		w += len;
		s += len;
	}
	if (w == 0)
		buf[w++] = '/';
	if (w + 1 > ret_len)
		return -ENAMETOOLONG;
	memcpy(ret, buf, w);
	ret[w] = '\0';
	return 0;
}
