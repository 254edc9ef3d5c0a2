/* SPDX-License-Identifier: GPL-2.0-only */
/* libFuzzer harness for the syslog formatter (sink/syslog_format.c), by
 * round trip through the harness's own RFC 5424 parser. The input, split at
 * NUL bytes: two identifying values (a cgroup path and a container name),
 * an event name (the config's, may even be an id param's name), a hostname and an app name. The record is formatted as
 * RFC 5424 and parsed back: the header has its six fields (tokens of
 * printable US-ASCII), the SD element's params are valid SD-NAMEs with
 * PARAM-VALUEs ('"', '\' and ']' escaped, RFC 5424 6.3.3), and each value
 * reads back as its input with control characters and bytes that start no
 * valid UTF-8 sequence as U+FFFD. syslog_param_name() gives a valid
 * SD-NAME for any name, the name itself when that is one. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "sink/syslog_format.h"

#define H "fuzz_syslog_sd"

struct sd {
	size_t n;
	char name[8][SYSLOG_SD_NAME_MAX + 1];
	char *value[8];
};

static int control(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

static int sd_name_valid(const char *s, size_t n)
{
	if (n == 0 || n > SYSLOG_SD_NAME_MAX)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (s[i] < 33 || s[i] > 126 || s[i] == '=' || s[i] == ']' || s[i] == '"' ||
		    s[i] == ' ')
			return 0;
	return 1;
}

/* The SD of one RFC 5424 message into sd (values malloc'd); 0 or -1. */
static int parse_5424(const char *m, size_t n, struct sd *sd)
{
	size_t i = 0;

	/* <PRI>1 TIMESTAMP HOSTNAME APP-NAME PROCID MSGID, then SD */
	for (int field = 0; field < 6; field++) {
		size_t start = i;

		while (i < n && m[i] != ' ') {
			if (field > 0 && (m[i] < 33 || m[i] > 126))
				return -1;
			i++;
		}
		if (i == start || i >= n)
			return -1;
		i++;
	}
	if (m[i++] != '[')
		return -1;
	while (i < n && m[i] != ' ' && m[i] != ']')
		i++;
	while (i < n && m[i] == ' ' && sd->n < 8) {
		size_t start = ++i, w = 0;
		char *v;

		while (i < n && m[i] != '=')
			i++;
		if (i + 1 >= n || m[i + 1] != '"' || !sd_name_valid(m + start, i - start))
			return -1;
		memcpy(sd->name[sd->n], m + start, i - start);
		sd->name[sd->n][i - start] = '\0';
		v = sd->value[sd->n++] = malloc(n);
		if (!v)
			return -1;
		for (i += 2; i < n && m[i] != '"'; i++) {
			if (m[i] == ']')
				return -1; /* must be escaped */
			if (m[i] == '\\' && i + 1 < n &&
			    (m[i + 1] == '"' || m[i + 1] == '\\' || m[i + 1] == ']'))
				i++;
			v[w++] = m[i];
		}
		if (i >= n)
			return -1;
		v[w] = '\0';
		i++;
	}
	return i < n && m[i] == ']' ? 0 : -1;
}

struct emitted {
	int count;
	struct sd sd;
	int parsed;
};

static int emit(const char *msg, size_t len, void *userdata)
{
	struct emitted *e = userdata;

	if (e->count++ == 0)
		e->parsed = parse_5424(msg, len, &e->sd);
	return 0;
}

static void check_value(const struct sd *sd, const char *name, const char *input)
{
	char *want = fuzz_sanitized(input, control);

	for (size_t i = 0; want && i < sd->n; i++)
		if (!strcmp(sd->name[i], name)) {
			fuzz_check(!strcmp(sd->value[i], want), H,
				   "param value reads back as the sanitized input");
			free(want);
			return;
		}
	fuzz_check(!want, H, "param present");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *part[5];
	char *buf = fuzz_split(data, size, part, 5), event[SYSLOG_SD_NAME_MAX + 1];
	struct emitted e = { 0 };
	int r;

	if (!buf)
		return 0;
	fuzz_check(syslog_param_name(part[2], "", event) == 0, H, "param name for any name");
	fuzz_check(sd_name_valid(event, strlen(event)), H, "param name is an SD-NAME");
	if (sd_name_valid(part[2], strlen(part[2])))
		for (size_t i = 0; syslog_reserved_names[i]; i++)
			if (!strcmp(part[2], syslog_reserved_names[i]))
				goto mapped;
	if (sd_name_valid(part[2], strlen(part[2])))
		fuzz_check(!strcmp(event, part[2]), H, "a valid name is kept");
mapped:;
	const struct syslog_param ids[] = { { "cgroup", part[0] }, { "container", part[1] } };
	const struct syslog_param counters[] = { { event, "12345" } };
	const struct syslog_header h = {
		.format = SYSLOG_RFC5424,
		.facility = 1,
		.severity = SYSLOG_SEVERITY_INFO,
		.time = { 1700000000, 123000000 },
		.hostname = part[3],
		.app_name = part[4],
		.procid = 42,
		.enterprise_id = 32473,
	};
	const struct syslog_content c = { .ids = ids, .nr_ids = 2, .counters = counters,
					  .nr_counters = 1, .group = 1 };

	r = syslog_format_record(&h, &c, 65536, emit, &e);
	fuzz_check(r == 1 && e.count == 1, H, "one message (it fits)");
	fuzz_check(e.parsed == 0, H, "the message parses as RFC 5424");
	check_value(&e.sd, "cgroup", part[0]);
	check_value(&e.sd, "container", part[1]);
	check_value(&e.sd, event, "12345");
	for (size_t i = 0; i < e.sd.n; i++)
		free(e.sd.value[i]);
	free(buf);
	return 0;
}
