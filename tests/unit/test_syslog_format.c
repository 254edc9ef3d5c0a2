// SPDX-License-Identifier: GPL-2.0-only
/* Syslog message formatting: exact RFC 5424 / RFC 3164 strings, value
 * escaping and UTF-8 repair, SD-NAME mapping, splitting over the 2048-byte
 * UDP limit with every counter present exactly once, cutting of oversized
 * identifying values. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "sink/syslog_format.h"
#include "util/text.h"

#define FFFD "\xEF\xBF\xBD"

/* Collects emitted messages as NUL-terminated copies. */
struct sent {
	char *msg[64];
	size_t len[64];
	int n;
	int fail_at; /* 1-based message index whose emit fails; 0: never */
};

static int collect(const char *msg, size_t len, void *userdata)
{
	struct sent *s = userdata;

	if (s->fail_at && s->n + 1 == s->fail_at)
		return -EPIPE;
	assert_true(s->n < 64);
	s->msg[s->n] = strndup(msg, len);
	s->len[s->n] = len;
	assert_int_equal(strlen(s->msg[s->n]), len); /* no NUL inside */
	s->n++;
	return 0;
}

static void sent_free(struct sent *s)
{
	for (int i = 0; i < s->n; i++)
		free(s->msg[i]);
	s->n = 0;
}

static struct syslog_header header_5424(void)
{
	return (struct syslog_header){
		.format = SYSLOG_RFC5424,
		.facility = 3,
		.severity = SYSLOG_SEVERITY_INFO,
		.time = { 1700000000, 123456789 },
		.hostname = "host1",
		.app_name = "cgperf",
		.procid = 42,
		.msgid = "counts",
		.enterprise_id = 32473,
	};
}

static const struct syslog_param basic_ids[] = {
	{ "cgroup", "/system.slice/a.service" },
	{ "cgroup_id", "7" },
};
static const struct syslog_param basic_counters[] = {
	{ "cpu-clock", "1000" },
	{ "cpu-clock_running_pct", "100.00" },
	{ "cycles", "" },
	{ "cycles_running_pct", "" },
};

static void test_rfc5424_exact(void **state)
{
	struct syslog_header h = header_5424();
	struct syslog_content c = { basic_ids, 2, basic_counters, 4, 2 };
	struct sent s = { 0 };

	assert_int_equal(syslog_format_record(&h, &c, 2048, collect, &s), 1);
	assert_string_equal(
		s.msg[0], "<30>1 2023-11-14T22:13:20.123Z host1 cgperf 42 counts [cgperf@32473 "
			  "cgroup=\"/system.slice/a.service\" cgroup_id=\"7\" cpu-clock=\"1000\" "
			  "cpu-clock_running_pct=\"100.00\" cycles=\"\" cycles_running_pct=\"\"]");
	sent_free(&s);

	/* Another PEN and facility, no hostname, no params at all. */
	h.enterprise_id = 99999;
	h.facility = 16; /* local0 */
	h.hostname = NULL;
	h.msgid = NULL;
	h.time.tv_nsec = 999999999; /* milliseconds are truncated, never rounded up */
	c = (struct syslog_content){ .group = 1 };
	assert_int_equal(syslog_format_record(&h, &c, 2048, collect, &s), 1);
	assert_string_equal(s.msg[0],
			    "<134>1 2023-11-14T22:13:20.999Z - cgperf 42 - [cgperf@99999]");
	sent_free(&s);
}

static void test_rfc3164_exact(void **state)
{
	struct syslog_header h = header_5424();
	struct syslog_content c = { basic_ids, 2, basic_counters, 2, 2 };
	struct sent s = { 0 };

	setenv("TZ", "UTC", 1);
	tzset();
	h.format = SYSLOG_RFC3164;
	h.hostname = NULL; /* the local socket: no hostname */
	h.time.tv_sec = 1699000000; /* Nov 3: the day is space-padded */
	assert_int_equal(syslog_format_record(&h, &c, 2048, collect, &s), 1);
	assert_string_equal(s.msg[0],
			    "<30>Nov  3 08:26:40 cgperf[42]: cgroup=\"/system.slice/a.service\" "
			    "cgroup_id=\"7\" cpu-clock=\"1000\" cpu-clock_running_pct=\"100.00\"");
	sent_free(&s);

	/* Network receivers get the hostname; a TAG cannot hold ':' or '['. */
	h.hostname = "node-1.example";
	h.app_name = "cg:perf[x]";
	h.time.tv_sec = 1700000000;
	assert_int_equal(syslog_format_record(&h, &c, 2048, collect, &s), 1);
	assert_string_equal(s.msg[0], "<30>Nov 14 22:13:20 node-1.example cg_perf_x_[42]: "
				      "cgroup=\"/system.slice/a.service\" cgroup_id=\"7\" "
				      "cpu-clock=\"1000\" cpu-clock_running_pct=\"100.00\"");
	sent_free(&s);

	/* Local time, not UTC: 5:45 east crosses into the next day, 9:30
	 * west stays on it (POSIX TZ strings: no tzdata needed). RFC 5424
	 * stays in UTC whatever the zone. */
	h.hostname = NULL;
	h.app_name = "cgperf";
	setenv("TZ", "CGT-5:45", 1);
	tzset();
	assert_int_equal(syslog_format_record(&h, &c, 2048, collect, &s), 1);
	assert_memory_equal(s.msg[0], "<30>Nov 15 03:58:20 cgperf[42]:", 31);
	sent_free(&s);
	setenv("TZ", "CGW+9:30", 1);
	tzset();
	assert_int_equal(syslog_format_record(&h, &c, 2048, collect, &s), 1);
	assert_memory_equal(s.msg[0], "<30>Nov 14 12:43:20 cgperf[42]:", 31);
	sent_free(&s);
	h.format = SYSLOG_RFC5424;
	assert_int_equal(syslog_format_record(&h, &c, 2048, collect, &s), 1);
	assert_memory_equal(s.msg[0], "<30>1 2023-11-14T22:13:20.123Z", 30);
	sent_free(&s);
	setenv("TZ", "UTC", 1);
	tzset();
}

static void test_header_tokens(void **state)
{
	struct syslog_header h = header_5424();
	struct syslog_content c = { .group = 1 };
	struct sent s = { 0 };
	char long_app[80];

	/* Spaces or non-ASCII would shift every later header field. */
	memset(long_app, 'a', sizeof(long_app) - 1);
	long_app[sizeof(long_app) - 1] = '\0';
	h.hostname = "my host\xc3\xa9";
	h.app_name = long_app;
	h.msgid = "";
	assert_int_equal(syslog_format_record(&h, &c, 2048, collect, &s), 1);
	assert_string_equal(s.msg[0],
			    "<30>1 2023-11-14T22:13:20.123Z my_host__ "
			    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa 42 - [cgperf@32473]");
	sent_free(&s);
}

static char *escaped(const char *in)
{
	struct buf b = BUF_INIT;
	char *out;

	assert_int_equal(syslog_escape_value(&b, in), 0);
	out = strdup(buf_cstr(&b));
	buf_free(&b);
	return out;
}

static void assert_escape(const char *in, const char *expected)
{
	char *out = escaped(in);

	assert_string_equal(out, expected);
	free(out);
}

static void test_escaping(void **state)
{
	assert_escape("", "");
	assert_escape(NULL, "");
	assert_escape("plain /system.slice", "plain /system.slice");
	/* The three characters RFC 5424 requires escaped. */
	assert_escape("a\"b\\c]d", "a\\\"b\\\\c\\]d");
	/* systemd's \x2d in unit names is text: its backslash is escaped. */
	assert_escape("dev-disk-by\\x2duuid.swap", "dev-disk-by\\\\x2duuid.swap");
	/* '[' '=' and spaces need nothing in a value. */
	assert_escape("k=[v w]", "k=[v w\\]");
	/* Control characters (newlines from container metadata): U+FFFD each. */
	assert_escape("x\ny\tz\x7f\r", "x" FFFD "y" FFFD "z" FFFD FFFD);
	/* Valid UTF-8 is kept as is. */
	assert_escape("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
		      "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
	/* Invalid: stray bytes, overlong forms, surrogates, cut sequences. */
	assert_escape("\xff(", FFFD "(");
	assert_escape("\xc0\xaf", FFFD FFFD);
	assert_escape("\xed\xa0\x80", FFFD FFFD FFFD);
	assert_escape("ab\xe2\x82", "ab" FFFD FFFD);
	assert_escape("\xf4\x90\x80\x80", FFFD FFFD FFFD FFFD); /* past U+10FFFF */
}

static void assert_name(const char *name, const char *suffix, const char *expected)
{
	char out[SYSLOG_SD_NAME_MAX + 1];

	assert_int_equal(syslog_param_name(name, suffix, out), 0);
	assert_string_equal(out, expected);
}

static void test_param_names(void **state)
{
	char out[SYSLOG_SD_NAME_MAX + 1];

	assert_name("cycles", "", "cycles");
	assert_name("cycles", "_running_pct", "cycles_running_pct");
	assert_name("L1-dcache-loads", "_running_pct", "L1-dcache-loads_running_pct");
	assert_name("sched:sched_switch", "", "sched:sched_switch");
	/* 21 + 12 characters would be 33: cut, with a hash that keeps it unique. */
	assert_name("L1-dcache-load-misses", "", "L1-dcache-load-misses");
	assert_name("L1-dcache-load-misses", "_running_pct", "L1-dcache-loa~4d05b1_running_pct");
	/* '=' (raw PMU syntax), spaces and non-ASCII are not SD-NAME characters. */
	assert_name("cpu/event=0x3c/", "", "cpu/event_0x3c/~9b432c");
	assert_name("cpu/event=0x3c/", "_running_pct", "cpu/event_0x3~9b432c_running_pct");
	assert_name("with space", "", "with_space~4ef3ba");
	assert_name("caf\xc3\xa9", "", "caf__~2b50e1");
	/* Names of cgperf's own params are never taken by an event. */
	assert_name("cgroup", "", "cgroup~416dae");
	assert_name("cgroup", "_running_pct", "cgroup~416dae_running_pct");
	assert_name("", "", "~1c9d44");
	assert_name("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "",
		    "aaaaaaaaaaaaaaaaaaaaaaaaa~83bca6");

	assert_int_equal(syslog_param_name("x", "bad suffix", out), -EINVAL);
	assert_int_equal(syslog_param_name("x", "_suffix_longer_than_twenty", out), -EINVAL);
	assert_int_equal(syslog_param_name(NULL, "", out), -EINVAL);

	/* Whatever goes in, what comes out is a valid SD-NAME. */
	srand(7);
	for (int round = 0; round < 2000; round++) {
		char name[64];
		int len = rand() % 63;

		for (int i = 0; i < len; i++)
			name[i] = (char)(1 + rand() % 255);
		name[len] = '\0';
		assert_int_equal(syslog_param_name(name, round % 2 ? "_running_pct" : "", out), 0);
		assert_true(strlen(out) >= 1 && strlen(out) <= SYSLOG_SD_NAME_MAX);
		for (const unsigned char *p = (const unsigned char *)out; *p; p++)
			assert_true(*p > 32 && *p < 127 && *p != '=' && *p != ']' && *p != '"');
	}
}

/* A minimal RFC 5424 SD reader for the tests: the params of the cgperf
 * element, unescaped. Returns the count, -1 on a syntax error. */
struct kv {
	char name[40];
	char value[4096];
};

static int parse_sd(const char *msg, struct kv *out, int max)
{
	const char *p = strstr(msg, " [cgperf@");
	int n = 0;

	if (!p)
		return -1;
	p += 2;
	p += strcspn(p, " ]"); /* after the SD-ID */
	while (*p == ' ') {
		const char *eq = strchr(p, '=');
		size_t o = 0;

		if (!eq || eq[1] != '"' || n >= max || (size_t)(eq - p - 1) >= sizeof(out[n].name))
			return -1;
		memcpy(out[n].name, p + 1, (size_t)(eq - p - 1));
		out[n].name[eq - p - 1] = '\0';
		for (p = eq + 2; *p && *p != '"'; p++) {
			if (*p == '\\' && (p[1] == '"' || p[1] == '\\' || p[1] == ']'))
				p++;
			out[n].value[o++] = *p;
		}
		if (*p != '"')
			return -1;
		out[n].value[o] = '\0';
		n++;
		p++;
	}
	return p[0] == ']' && p[1] == '\0' ? n : -1;
}

static const char *kv_get(const struct kv *kv, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(kv[i].name, name))
			return kv[i].value;
	return NULL;
}

/* 8 events with long names and big values, identifying values of realistic
 * worst-case size: more than 2048 bytes in one message. */
static void test_udp_split(void **state)
{
	struct syslog_header h = header_5424();
	char path[1100], container[260];
	const char *events[8] = {
		"L1-dcache-load-misses", "stalled-cycles-frontend", "cpu-clock",
		"instructions",		 "branch-load-misses",	    "cpu/event=0x3c/",
		"dTLB-load-misses",	 "context-switches"
	};
	char names[16][SYSLOG_SD_NAME_MAX + 1], values[16][32];
	struct syslog_param ids[4], counters[16];
	struct syslog_content c = { ids, 4, counters, 16, 2 };
	struct sent s = { 0 };
	int seen[16] = { 0 };
	int parts;

	memset(path, 'p', sizeof(path) - 1);
	path[0] = '/';
	path[sizeof(path) - 1] = '\0';
	memset(container, 'c', sizeof(container) - 1);
	container[sizeof(container) - 1] = '\0';
	ids[0] = (struct syslog_param){ "cgroup", path };
	ids[1] = (struct syslog_param){ "cgroup_id", "123456789" };
	ids[2] = (struct syslog_param){ "container", container };
	ids[3] = (struct syslog_param){ "interval_ms", "10000" };
	for (int i = 0; i < 8; i++) {
		syslog_param_name(events[i], "", names[2 * i]);
		syslog_param_name(events[i], "_running_pct", names[2 * i + 1]);
		snprintf(values[2 * i], sizeof(values[0]), "%llu",
			 18446744073709551615ULL - (unsigned)i);
		snprintf(values[2 * i + 1], sizeof(values[0]), "%d.%02d", 50 + i, i);
		counters[2 * i] = (struct syslog_param){ names[2 * i], values[2 * i] };
		counters[2 * i + 1] = (struct syslog_param){ names[2 * i + 1], values[2 * i + 1] };
	}

	/* Everything fits in one stream message... */
	assert_int_equal(syslog_format_record(&h, &c, 8192, collect, &s), 1);
	assert_true(s.len[0] > 2048);
	assert_null(strstr(s.msg[0], "part="));
	sent_free(&s);

	/* ...and takes several datagrams of at most 2048 bytes. */
	parts = syslog_format_record(&h, &c, 2048, collect, &s);
	assert_true(parts >= 2);
	assert_int_equal(s.n, parts);
	for (int m = 0; m < s.n; m++) {
		struct kv kv[32];
		int n = parse_sd(s.msg[m], kv, 32);
		char part[16];

		assert_true(s.len[m] <= 2048);
		assert_true(n > 0);
		/* Every part identifies the record... */
		assert_string_equal(kv_get(kv, n, "cgroup"), path);
		assert_string_equal(kv_get(kv, n, "cgroup_id"), "123456789");
		assert_string_equal(kv_get(kv, n, "container"), container);
		assert_string_equal(kv_get(kv, n, "interval_ms"), "10000");
		snprintf(part, sizeof(part), "%d/%d", m + 1, parts);
		assert_string_equal(kv_get(kv, n, "part"), part);
		assert_null(kv_get(kv, n, "truncated"));
		/* ...and carries whole counters, value and percent together. */
		for (int i = 0; i < 16; i++) {
			const char *v = kv_get(kv, n, names[i]);
			if (!v)
				continue;
			assert_string_equal(v, values[i]);
			assert_non_null(kv_get(kv, n, names[i ^ 1]));
			seen[i]++;
		}
	}
	for (int i = 0; i < 16; i++)
		assert_int_equal(seen[i], 1);
	sent_free(&s);
}

static void test_split_exact(void **state)
{
	struct syslog_header h = header_5424();
	struct syslog_content c = { basic_ids, 2, basic_counters, 4, 2 };
	struct sent s = { 0 };

	h.hostname = "h";
	h.time.tv_nsec = 0;
	/* Header 63 + ids 47 + part 11 + "]" leave room for one event only:
	 * part 1 is 170 bytes, all in one would be 191. */
	assert_int_equal(syslog_format_record(&h, &c, 175, collect, &s), 2);
	assert_string_equal(s.msg[0],
			    "<30>1 2023-11-14T22:13:20.000Z h cgperf 42 counts [cgperf@32473 "
			    "cgroup=\"/system.slice/a.service\" cgroup_id=\"7\" part=\"1/2\" "
			    "cpu-clock=\"1000\" cpu-clock_running_pct=\"100.00\"]");
	assert_string_equal(s.msg[1],
			    "<30>1 2023-11-14T22:13:20.000Z h cgperf 42 counts [cgperf@32473 "
			    "cgroup=\"/system.slice/a.service\" cgroup_id=\"7\" part=\"2/2\" "
			    "cycles=\"\" cycles_running_pct=\"\"]");
	sent_free(&s);
}

static bool valid_utf8(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		size_t n = utf8_valid_len(p);
		if (!n)
			return false;
		p += n;
	}
	return true;
}

/* A cgroup path longer than a datagram: the identifying value is cut (at a
 * character boundary, never in an escape), said so, and no counter is lost. */
static void test_truncate_ids(void **state)
{
	struct syslog_header h = header_5424();
	char path[3001];
	struct syslog_param ids[2] = { { "cgroup", path }, { "cgroup_id", "99" } };
	struct syslog_content c = { ids, 2, basic_counters, 4, 2 };
	struct sent s = { 0 };
	struct kv *kv = calloc(32, sizeof(*kv));
	int n, parts, seen[4] = { 0 };

	/* "é" (2 bytes) and '"' (escaped to 2) repeated: any cut could split one. */
	for (size_t i = 0; i + 3 < sizeof(path); i += 3)
		memcpy(path + i, "\xc3\xa9\"", 3);
	path[sizeof(path) - 1] = '\0';
	/* Cut only as much as the largest counter group needs; the rest of the
	 * counters go to further parts. */
	parts = syslog_format_record(&h, &c, 2048, collect, &s);
	assert_true(parts >= 1);
	for (int m = 0; m < s.n; m++) {
		const char *cut;

		assert_true(s.len[m] <= 2048);
		n = parse_sd(s.msg[m], kv, 32);
		assert_true(n > 0);
		assert_string_equal(kv_get(kv, n, "truncated"), "cgroup");
		assert_string_equal(kv_get(kv, n, "cgroup_id"), "99");
		cut = kv_get(kv, n, "cgroup");
		assert_true(valid_utf8(cut));
		assert_true(strlen(cut) > 1000);
		assert_memory_equal(cut, path, strlen(cut));
		for (int i = 0; i < 4; i++)
			if (kv_get(kv, n, basic_counters[i].name)) {
				assert_string_equal(kv_get(kv, n, basic_counters[i].name),
						    basic_counters[i].value);
				seen[i]++;
			}
	}
	for (int i = 0; i < 4; i++)
		assert_int_equal(seen[i], 1);
	assert_true(s.len[0] > 2000); /* cut only as much as needed */
	sent_free(&s);

	/* Too small for even the header and one counter: refused, not cut. */
	assert_int_equal(syslog_format_record(&h, &c, 100, collect, &s), -EMSGSIZE);
	assert_int_equal(s.n, 0);
	free(kv);
}

static void test_errors(void **state)
{
	struct syslog_header h = header_5424();
	struct syslog_content c = { basic_ids, 2, basic_counters, 4, 2 };
	struct sent s = { 0 };

	h.facility = 24;
	assert_int_equal(syslog_format_record(&h, &c, 2048, collect, &s), -EINVAL);
	h = header_5424();
	c.group = 0;
	assert_int_equal(syslog_format_record(&h, &c, 2048, collect, &s), -EINVAL);
	c.group = 2;
	/* The emitter's error stops formatting and is returned. */
	s.fail_at = 2;
	assert_int_equal(syslog_format_record(&h, &c, 175, collect, &s), -EPIPE);
	assert_int_equal(s.n, 1);
	sent_free(&s);
	/* A time RFC 5424 cannot write becomes NILVALUE rather than no message. */
	s.fail_at = 0;
	h.time.tv_nsec = 1000000000;
	c.nr_counters = 0;
	assert_int_equal(syslog_format_record(&h, &c, 2048, collect, &s), 1);
	assert_non_null(strstr(s.msg[0], "<30>1 - host1 "));
	sent_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rfc5424_exact), cmocka_unit_test(test_rfc3164_exact),
		cmocka_unit_test(test_header_tokens), cmocka_unit_test(test_escaping),
		cmocka_unit_test(test_param_names),   cmocka_unit_test(test_udp_split),
		cmocka_unit_test(test_split_exact),   cmocka_unit_test(test_truncate_ids),
		cmocka_unit_test(test_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
