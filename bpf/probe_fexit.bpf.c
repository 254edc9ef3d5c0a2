// SPDX-License-Identifier: GPL-2.0
/* Loaded and attached to probe_target to find out whether this kernel allows
 * BPF trampolines (fexit on a BPF program), exactly what fexit followers need. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

SEC("fexit/probe_target")
int BPF_PROG(probe_fexit)
{
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
