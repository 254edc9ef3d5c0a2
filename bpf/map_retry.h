/* SPDX-License-Identifier: GPL-2.0-only */
/* Updates of maps that are not preallocated (BPF_F_NO_PREALLOC: the hash
 * accumulators and the filters that go with them). */
#pragma once

#include <linux/types.h>

/* bpf_map_update_elem, trying again on ENOMEM. The kernel's BPF memory
 * allocator hands such maps' elements out of a per-CPU cache that it
 * refills asynchronously (irq_work), so an update from user space that
 * finds the cache empty fails with ENOMEM although memory is free (a known
 * 6.x behaviour, worst for batch updates; seen here once in about 4000
 * single filter updates, by the fourth of run-bench's concurrent sessions
 * at 1000 cgroups). A few tries a millisecond apart let the refill run
 * before ENOMEM is believed. Returns 0 or -errno. */
int map_update_retry(int fd, const void *key, const void *value, __u64 flags);
