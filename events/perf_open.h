/* SPDX-License-Identifier: GPL-2.0-only */
/* perf_event_open(2), which glibc does not wrap. */
#pragma once
#include <errno.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Open attr for (pid, cpu) with close-on-exec. Returns the fd or -errno.
 * attr is copied: the kernel may write to it (size on E2BIG). */
static inline int perf_open(const struct perf_event_attr *attr, int pid, int cpu)
{
	struct perf_event_attr a = *attr;
	long fd = syscall(SYS_perf_event_open, &a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : (int)fd;
}
