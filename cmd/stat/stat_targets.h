/* SPDX-License-Identifier: GPL-2.0-only */
/* What `cgperf stat` counts: the filter type and its keys, resolved from the
 * command line against the live system (cgroups exist, pids exist, ...). */
#pragma once
#include "bpf/cgperf_shared.h"
#include <stdbool.h>
#include <stdint.h>

struct stat_target_key {
	uint64_t key;
	char *label; /* cgroup path (CGROUP), escaped for a terminal; else NULL */
	char *path; /* the same as it is (JSON escapes it itself) */
	int nr_ancestors;
	uint64_t ancestors[CGPERF_MAX_CGROUP_DEPTH];
};

struct stat_targets {
	enum cgperf_filter_type filter;
	bool per_key_output; /* one row group per key (cgroups) or one total */
	struct stat_target_key *keys;
	int nr_keys;
	char desc[256]; /* "'system wide'", "process 123", ... */
};

void stat_targets_free(struct stat_targets *t);

/* Each returns 0, or a negative errno after printing a one-line error. */
int stat_targets_cpus(struct stat_targets *t, const char *list);
int stat_targets_pids(struct stat_targets *t, const char *list, bool threads);
/* A -G argument: a cgroup path, or a comma list of them. */
int stat_targets_add_cgroups(struct stat_targets *t, const char *arg);
int stat_targets_for_each_cgroup(struct stat_targets *t, const char *pattern);
int stat_targets_add_cgroup(struct stat_targets *t, const char *path);
int stat_targets_add_key(struct stat_targets *t, uint64_t key);
/* 0, or -EOPNOTSUPP (logged) when pids here are not the host's. */
int stat_targets_check_pid_namespace(void);
