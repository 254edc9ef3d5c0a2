/* `cgperf stat -b ID,... / --bpf-prog GLOB`: what given BPF programs cost,
 * from the kernel's BPF statistics (run count, run time), per interval. See
 * docs/STAT.md "BPF programs". */
#pragma once
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct stat_bpf_opts {
	const char *ids; /* -b: "12,34" */
	const char *glob; /* --bpf-prog: program name glob, expanded at start */
	bool events_given; /* -e: events inside programs need trampolines */
	uint64_t interval_ms; /* -I */
	double duration_s;
	const char *sep; /* -x */
	FILE *out;
};

/* Returns the exit code: 0, 1 (cannot count), 2 (no such program). */
int stat_bpf_run(const struct stat_bpf_opts *o, int sig_fd);
