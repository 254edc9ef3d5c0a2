/* SPDX-License-Identifier: GPL-2.0-only */
/* `cgperf stat -b ID,... / --bpf-prog GLOB`: what given BPF programs cost,
 * from the kernel's BPF statistics (run count, run time), per interval, and
 * where BPF trampolines work the events counted inside them (fentry/fexit
 * on each, bpf/prog_profiler.h). See docs/STAT.md "BPF programs". */
#pragma once
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct stat_bpf_opts {
	const char *ids; /* -b: "12,34" */
	const char *glob; /* --bpf-prog: program name glob, expanded at start */
	const char *events; /* -e, or stat's default events */
	bool events_given; /* -e: then its events are tried even without trampolines */
	bool strict; /* --strict: an unsupported event is an error */
	uint64_t interval_ms; /* -I */
	double duration_s;
	const char *sep; /* -x */
	bool json; /* --json */
	FILE *out;
};

/* Returns the exit code: 0, 1 (cannot count), 2 (no such program). */
int stat_bpf_run(const struct stat_bpf_opts *o, int sig_fd);
