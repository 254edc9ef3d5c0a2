/* SPDX-License-Identifier: GPL-2.0-only */
/* Event names -> perf_event_attr, the way `perf stat -e` spells them. */
#pragma once
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define EVENT_NAME_MAX 128

struct event_spec {
	char name[EVENT_NAME_MAX]; /* canonical name as the user wrote it (alias kept) */
	struct perf_event_attr attr; /* fully zeroed except the fields that matter: usable
	                              * as a byte-exact key in the shared attr map */
	bool is_time; /* cpu-clock / task-clock: value is ns, printed as msec */
};

/* Parse one event name: hardware (cycles, instructions, ...), software
 * (cpu-clock, cs, ...), raw "rNNNN" (hex), or "pmu/term=val,.../" resolved
 * through /sys/bus/event_source/devices (the root is overridable for tests via
 * event_set_sysfs_root()). Returns 0 or a negative errno:
 *   -ENOENT unknown name (use event_suggest() for close matches)
 *   -EINVAL malformed (bad raw hex, bad pmu term, ...)
 * On error, if err_buf is non-NULL, a one-line human message is written there. */
int event_parse(const char *name, struct event_spec *ret_spec, char *err_buf, size_t err_len);

/* Parse a comma-separated list ("cycles,cs,cpu/event=0x3c/") into an array.
 * Commas inside pmu/.../ are not separators. Returns number parsed or negative errno. */
int event_parse_list(const char *list, struct event_spec *ret_specs, int max_specs, char *err_buf,
		     size_t err_len);

/* Up to `max` known event names close to `name` (edit distance), written into out
 * as ", "-separated text. Returns number of suggestions. */
int event_suggest(const char *name, char *out, size_t out_len, int max);

/* Iterate over every known symbolic name (hardware + software + aliases). */
typedef int (*event_name_cb)(const char *name, const char *kind, void *data);
int event_for_each_known(event_name_cb cb, void *data);

/* For tests: where PMU directories live (default /sys/bus/event_source/devices). */
void event_set_sysfs_root(const char *root);

/* Iterate over the PMUs in the sysfs root (sorted by name), with their
 * perf_event_attr.type. A non-zero return from cb stops and is returned;
 * otherwise 0, or a negative errno if the root cannot be read. */
typedef int (*event_pmu_cb)(const char *name, uint32_t type, void *data);
int event_for_each_pmu(event_pmu_cb cb, void *data);

/* Iterate over the events the PMUs in the sysfs root name in their events/
 * directories, as "pmu/alias/" (msr/tsc/, power/energy-pkg/), the way perf
 * list shows Kernel PMU events; kind is "pmu-event". Returns as
 * event_for_each_pmu(). */
int event_for_each_pmu_event(event_name_cb cb, void *data);
