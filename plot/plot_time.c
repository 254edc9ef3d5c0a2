// SPDX-License-Identifier: GPL-2.0-only
#include "plot/plot_time.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* "-N[smhd]" before now. */
static int parse_relative(const char *s, int64_t now_ms, int64_t *ret)
{
	static const struct {
		char unit;
		int64_t ms;
	} units[] = { { 's', 1000 }, { 'm', 60000 }, { 'h', 3600000 }, { 'd', 86400000 } };
	char *end;
	long long n;

	errno = 0;
	n = strtoll(s + 1, &end, 10);
	if (errno || end == s + 1 || n < 0 || end[0] == '\0' || end[1] != '\0')
		return -EINVAL;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (*end == units[i].unit && n <= INT64_MAX / units[i].ms) {
			*ret = now_ms - n * units[i].ms;
			return 0;
		}
	return -EINVAL;
}

/* The date and time forms; *rest is what follows the seconds. */
static const char *parse_civil(const char *s, struct tm *tm)
{
	static const char *const forms[] = { "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M:%S",
					     "%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M", "%Y-%m-%d" };

	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		const char *rest;

		memset(tm, 0, sizeof(*tm));
		rest = strptime(s, forms[i], tm);
		if (rest)
			return rest;
	}
	return NULL;
}

static int parse_absolute(const char *s, bool utc, int64_t *ret)
{
	struct tm tm;
	const char *rest = parse_civil(s, &tm);
	int ms = 0;
	time_t t;

	if (!rest)
		return -EINVAL;
	if (rest[0] == '.' && rest[1] >= '0' && rest[1] <= '9') {
		int scale = 100;

		for (rest++; *rest >= '0' && *rest <= '9'; rest++, scale /= 10)
			ms += (*rest - '0') * scale;
	}
	if (rest[0] == 'Z' && rest[1] == '\0') {
		utc = true;
		rest++;
	}
	if (*rest)
		return -EINVAL;
	tm.tm_isdst = -1;
	t = utc ? timegm(&tm) : mktime(&tm);
	if (t == (time_t)-1 && !(tm.tm_year == 69 && tm.tm_mon == 11 && tm.tm_mday == 31))
		return -EINVAL;
	*ret = (int64_t)t * 1000 + ms;
	return 0;
}

int plot_parse_time(const char *s, bool utc, int64_t now_ms, int64_t *ret)
{
	char *end;
	long long v;

	if (!strcmp(s, "now")) {
		*ret = now_ms;
		return 0;
	}
	if (s[0] == '-')
		return parse_relative(s, now_ms, ret);
	if (s[0] == '@') {
		errno = 0;
		v = strtoll(s + 1, &end, 10);
		if (errno || end == s + 1 || *end || v > INT64_MAX / 1000 || v < INT64_MIN / 1000)
			return -EINVAL;
		*ret = v * 1000;
		return 0;
	}
	return parse_absolute(s, utc, ret);
}
