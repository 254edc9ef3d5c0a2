/* SPDX-License-Identifier: GPL-2.0-only */
/* CPU lists as the kernel prints them ("0-3,8,10-11"). */
#pragma once
#include <stdbool.h>

#define CPUS_MAX 4096

/* Parse a cpu list into mask[0..CPUS_MAX). Returns number of cpus set or -EINVAL. */
int cpulist_parse(const char *list, bool *mask);

/* The online CPUs, ascending. *ret_cpus is malloc'd. Returns 0 or negative errno. */
int cpus_online(int **ret_cpus, int *ret_nr);
/* The possible CPUs, likewise: a per-CPU map's values come in this order
 * (the kernel copies them for_each_possible_cpu), one per possible CPU. */
int cpus_possible(int **ret_cpus, int *ret_nr);

/* A signature of the online CPU list (a hash of /sys/devices/system/cpu/online,
 * never 0). Returns 0 or negative errno. */
#include <stdint.h>
int cpus_online_signature(uint32_t *ret);

/* /sys/devices/system/cpu/online opened for cpus_online_signature_fd():
 * a check that runs every second re-reads it with one pread() instead of
 * open, fstat, read and close (~100 us measured on a VM, most of it in the
 * sysfs open). Returns the fd or negative errno. */
int cpus_online_open(void);

/* cpus_online_signature() through fd from cpus_online_open(); fd < 0 (it
 * could not be opened then): opened for this call. */
int cpus_online_signature_fd(int fd, uint32_t *ret);
