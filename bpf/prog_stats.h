/* SPDX-License-Identifier: GPL-2.0-only */
/* The kernel's own statistics of BPF programs: how often each ran and for
 * how long (run_cnt, run_time_ns). They are collected only while someone
 * holds a BPF_ENABLE_STATS fd or kernel.bpf_stats_enabled is set; cgperf
 * holds the fd only while it counts, so nothing stays on after it exits.
 * What `cgperf stat -b` shows where BPF trampolines are refused (no event
 * counts inside programs), like bpftop, but per interval and scriptable. */
#pragma once
#include <stdbool.h>
#include <stdint.h>

#define PROG_NAME_MAX 16 /* BPF_OBJ_NAME_LEN */

struct prog_sample {
	uint32_t id;
	char name[PROG_NAME_MAX];
	char tag[17]; /* hex */
	uint32_t type; /* enum bpf_prog_type */
	uint64_t run_cnt;
	uint64_t run_time_ns;
	uint64_t load_time_ns; /* CLOCK_BOOTTIME when it was loaded */
};

/* Turn collection on for as long as *ret_fd is open. When the sysctl is on
 * already, *ret_fd is -1 and it is left as it was; ret_already says which. */
int prog_stats_enable(int *ret_fd, bool *ret_already);
/* The program with this id now. -ENOENT: there is none (any more). */
int prog_stats_sample(uint32_t id, struct prog_sample *ret);
/* The id of the program fd holds. */
int prog_stats_id_of(int fd, uint32_t *ret_id);
/* The next program id after id (0: the first). -ENOENT at the end. */
int prog_stats_next_id(uint32_t id, uint32_t *ret_id);
/* "raw_tracepoint", "xdp", ...; "type N" for types this build does not name. */
const char *prog_stats_type_name(uint32_t type, char *buf, int len);
