/* SPDX-License-Identifier: GPL-2.0-only */
/* Small parsers shared by the subcommands. All return 0 or -EINVAL. */
#pragma once
#include "bpf/accum.h"
#include <stdbool.h>
#include <stdint.h>

int parse_u64(const char *s, uint64_t max, uint64_t *ret);
/* "2", "2.5", "2s", "500ms", "1m": seconds as a positive double. */
int parse_seconds(const char *s, double *ret);
/* --accumulators: "auto", "hash" or "array". */
int parse_accum_request(const char *s, enum accum_request *ret);
/* Exit codes of every subcommand. */
enum {
	EXIT_OK = 0,
	EXIT_RUNTIME = 1,
	EXIT_USAGE = 2
};
/* "cgperf CMD: " + fmt with arg (escaped: it may be anything the user
 * typed) + " (see 'cgperf CMD --help')" on stderr. Returns EXIT_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, const char *arg);
