/* CPU lists as the kernel prints them ("0-3,8,10-11"). */
#pragma once
#include <stdbool.h>

#define CPUS_MAX 4096

/* Parse a cpu list into mask[0..CPUS_MAX). Returns number of cpus set or -EINVAL. */
int cpulist_parse(const char *list, bool *mask);

/* The online CPUs, ascending. *ret_cpus is malloc'd. Returns 0 or negative errno. */
int cpus_online(int **ret_cpus, int *ret_nr);
