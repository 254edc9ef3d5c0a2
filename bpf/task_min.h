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
} __attribute__((preserve_access_index));

struct css_set {
	struct cgroup *dfl_cgrp;
} __attribute__((preserve_access_index));

/* The fair class's runtime: in total, and when the task was last picked. */
struct sched_entity {
	__u64 sum_exec_runtime;
	__u64 prev_sum_exec_runtime;
} __attribute__((preserve_access_index));

struct task_struct {
	int pid;
	int tgid;
	struct css_set *cgroups;
	struct sched_entity se;
} __attribute__((preserve_access_index));
