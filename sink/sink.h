/* Where the agent's per-cgroup counts go: one small interface, one file per
 * output (CSV, syslog, ...). The agent hands every sink CUMULATIVE totals per
 * cgroup; each sink remembers what it last wrote per cgroup and writes the
 * difference, so a row that could not be written is not lost: the next
 * successful row holds its counts too. */
#pragma once
#include "bpf/cgperf_shared.h"
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

struct sink_cgroup {
	uint64_t id;            /* cgroup id */
	const char *path;       /* relative to the cgroup2 root; any bytes but NUL */
	const char *kind;       /* container, pod, service, slice, other */
	const char *runtime;
	const char *container_id;   /* 12-char short id or "" */
	const char *container_name;
	const char *pod;
	const char *pod_namespace;
};

struct sink_record {
	struct timespec time;                 /* CLOCK_REALTIME of the read */
	const struct sink_cgroup *cgroup;
	int nr_events;
	const char *const *event_names;       /* perf-style names */
	const struct cgperf_reading *totals;  /* cumulative since `since` */
	bool final;                           /* the cgroup is gone: last row, forget it after */
	struct timespec since;                /* CLOCK_REALTIME when counting this cgroup started
	                                       * (the first row's interval starts here) */
};

struct sink;

struct sink_ops {
	const char *name;
	/* Write one record. Failures are counted and reported by the sink itself
	 * (rate-limited); returns 0 or negative errno for the caller's stats. */
	int (*write)(struct sink *s, const struct sink_record *r);
	/* Called once per interval after all records (flush, rotate, ...). */
	int (*flush)(struct sink *s);
	/* SIGHUP: reopen files / reconnect. */
	int (*reopen)(struct sink *s);
	void (*free)(struct sink *s);
};

struct sink {
	const struct sink_ops *ops;
};
