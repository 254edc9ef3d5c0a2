// SPDX-License-Identifier: GPL-2.0-only
#include "cmd/cli.h"
#include "util/log.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int parse_u64(const char *s, uint64_t max, uint64_t *ret)
{
	char *end;
	unsigned long long v;

	if (!s || !*s || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v > max)
		return -EINVAL;
	*ret = v;
	return 0;
}

int parse_accum_request(const char *s, enum accum_request *ret)
{
	if (!strcmp(s, "auto"))
		*ret = ACCUM_AUTO;
	else if (!strcmp(s, "hash"))
		*ret = ACCUM_FORCE_HASH;
	else if (!strcmp(s, "array"))
		*ret = ACCUM_FORCE_ARRAY;
	else
		return -EINVAL;
	return 0;
}

int parse_seconds(const char *s, double *ret)
{
	char *end;
	double v, mult = 1;

	if (!s || !*s)
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s)
		return -EINVAL;
	if (!strcmp(end, "ms"))
		mult = 1e-3;
	else if (!strcmp(end, "m"))
		mult = 60;
	else if (!strcmp(end, "h"))
		mult = 3600;
	else if (*end && strcmp(end, "s"))
		return -EINVAL;
	v *= mult;
	if (!isfinite(v) || v <= 0 || v > 1e9)
		return -EINVAL;
	*ret = v;
	return 0;
}

int cli_usage_error(const char *cmd, const char *fmt, const char *arg)
{
	fprintf(stderr, "cgperf %s: ", cmd);
	fprintf(stderr, fmt, log_name(arg));
	fprintf(stderr, " (see 'cgperf %s --help')\n", cmd);
	return EXIT_USAGE;
}
