// SPDX-License-Identifier: GPL-2.0
/* Loaded (never attached) to ask the verifier whether a tracing program may
 * look up a per-CPU hash that is not preallocated: where it may, a session's
 * accumulators follow its live slots (bpf/accum.h); where it refuses, they
 * are a per-CPU array sized for every slot up front. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 1);
} probe_accum_map SEC(".maps");

SEC("raw_tp/sched_switch")
int probe_accum(void *ctx)
{
	__u32 zero = 0;
	__u64 *v = bpf_map_lookup_elem(&probe_accum_map, &zero);

	if (v)
		*v += 1;
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
