// SPDX-License-Identifier: GPL-2.0
/* A do-nothing raw_tp program: loaded (never attached) as the target of the
 * fexit probe and to check that BPF_PROG_TEST_RUN works for raw_tp. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("raw_tp/sched_switch")
int probe_target(void *ctx)
{
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
