/* SPDX-License-Identifier: GPL-2.0-only */
/* A descriptor that becomes readable when a CPU may have gone on- or
 * offline (bpf/cpuhp_notify.bpf.c): what the agent polls instead of reading
 * the online CPU list every second. */
#pragma once
#include <stdint.h>

struct cpuhp_notify;

/* Load and attach the program. Returns 0 or -errno (no raw tracepoint
 * cpuhp_exit, no BPF ring buffer before Linux 5.8, no privilege): the
 * caller keeps its periodic check then. */
int cpuhp_notify_open(struct cpuhp_notify **ret);
void cpuhp_notify_close(struct cpuhp_notify *n);

/* To poll for POLLIN. */
int cpuhp_notify_fd(const struct cpuhp_notify *n);

/* Consume what is pending: returns how many records, or -errno. Read the
 * online list after it, not before. */
int cpuhp_notify_drain(struct cpuhp_notify *n);

/* The program's id (cgperf's own, never profiled), or 0. */
uint32_t cpuhp_notify_prog_id(const struct cpuhp_notify *n);
