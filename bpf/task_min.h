/* Minimal CO-RE type definitions: just the fields cgperf's programs read.
 * preserve_access_index makes libbpf relocate the offsets against the running
 * kernel's BTF at load time, so the build does not depend on the build host's
 * kernel (no generated vmlinux.h). */
#pragma once

struct task_struct {
	int pid;
	int tgid;
} __attribute__((preserve_access_index));
