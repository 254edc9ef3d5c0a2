/* SPDX-License-Identifier: GPL-2.0-only */
/* cgperf agent: count every selected cgroup, log per-cgroup rows every
 * interval to the configured sinks, follow the cgroup tree live. */
#pragma once
#include "bpf/accum.h"
#include "config/config.h"

struct agent_opts {
	const char *config_path; /* NULL: embedded default */
	/* Command-line overrides (0/NULL: from the config) */
	uint64_t interval_ms;
	const char *csv_dir;
	const char *syslog_target;
	const char *prometheus_listen; /* --prometheus ADDR */
	const char *events; /* comma list */
	double duration_s; /* run this long, flush, exit 0 */
	const char *instance; /* --instance NAME (checked by the caller) */
	bool no_persist; /* --no-persist: the session ends with the process */
	bool persist; /* --persist: it goes on counting after the process ends */
	enum accum_request accum; /* --accumulators: a new session's (bpf/accum.h) */
	bool release; /* `cgperf release`: last rows, remove the pins, exit */
	bool release_all; /* --all: the other instances too (without their rows) */
};

/* The configuration to run: the file (or the embedded default) with the
 * command line's overrides. Says why not on stderr; returns 0 or -errno. */
int agent_load_config(const struct agent_opts *o, struct agent_config *ret);
/* Run with cfg (from agent_load_config; o's again at each SIGHUP) until the
 * duration ends or a signal says stop; `release`: end the persistent session
 * instead. Returns 0, or -errno when the agent could not start or run (what
 * went wrong is logged). */
int agent_run(const struct agent_opts *o, const struct agent_config *cfg);
