// SPDX-License-Identifier: GPL-2.0
/* Wakes the agent when a CPU goes on- or offline, so that it need not read
 * the online CPU list every second (each wake-up of an idle agent costs
 * about as much as its rows at a 10 s interval, on a VM). perf has no
 * counterpart: it opens its events once per run.
 *
 * cpuhp_exit fires after every state's callback of a hotplug, both ways, so
 * the last record of one comes after the online list changed: the agent
 * drains the ring and then reads the list. A full ring drops records, but
 * only while undrained ones wait, and the drain that follows reads the list
 * after the drops. raw_tp: no tracefs needed (containers often lack it). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} cpuhp_events SEC(".maps");

SEC("raw_tp/cpuhp_exit")
int on_cpuhp_exit(void *ctx)
{
	__u32 one = 1;

	bpf_ringbuf_output(&cpuhp_events, &one, sizeof(one), 0);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
