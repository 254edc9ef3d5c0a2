/* SPDX-License-Identifier: GPL-2.0-only */
/* Minimal CO-RE type definitions: just the fields cgperf's programs read.
 * preserve_access_index makes libbpf relocate the offsets against the running
 * kernel's BTF at load time, so the build does not depend on the build host's
 * kernel (no generated vmlinux.h). */
#pragma once

#include <linux/types.h>

struct kernfs_node {
	__u64 id;
} __attribute__((preserve_access_index));

struct cgroup {
	struct kernfs_node *kn;
	int level; /* the root's is 0 */
	struct cgroup *ancestors[]; /* 6.1 and later; [level] is the cgroup itself */
} __attribute__((preserve_access_index));

/* Before 6.1 the ancestors are kept by id. */
struct cgroup___old {
	int level;
	__u64 ancestor_ids[];
} __attribute__((preserve_access_index));

struct css_set {
	struct cgroup *dfl_cgrp;
} __attribute__((preserve_access_index));

/* The fair class's runtime: in total, and when the task was last picked. */
struct sched_entity {
	__u64 sum_exec_runtime;
	__u64 prev_sum_exec_runtime;
} __attribute__((preserve_access_index));

/* A thread group's threads that have not yet begun to exit (live). */
struct signal_struct {
	struct {
		int counter;
	} live;
} __attribute__((preserve_access_index));

struct task_struct {
	unsigned int __state;
	int pid;
	int tgid;
	struct css_set *cgroups;
	struct sched_entity se;
	struct signal_struct *signal;
	/* The faults it made (mm_account_fault()). */
	unsigned long min_flt;
	unsigned long maj_flt;
} __attribute__((preserve_access_index));

/* Kernels before 5.14 name the state field "state" (a long). */
struct task_struct___pre514 {
	long state;
} __attribute__((preserve_access_index));

/* __state of a task at its last switch out (include/linux/sched.h). */
#define CGPERF_TASK_DEAD 0x80
