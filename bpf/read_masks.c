// SPDX-License-Identifier: GPL-2.0-only
#include "bpf/read_masks.h"
#include "events/event_parse.h"
#include <linux/perf_event.h>

void read_masks_of(const struct event_spec *events, int nr, bool never_idle, struct read_masks *ret)
{
	struct read_masks m = { .idle_skips_reads = never_idle };

	for (int i = 0; i < nr; i++) {
		uint64_t config = events[i].attr.config;

		if (events[i].attr.type != PERF_TYPE_SOFTWARE) {
			m.idle_skips_reads = false;
			continue;
		}
		m.software |= 1u << i;
		if (config == PERF_COUNT_SW_CPU_CLOCK || config == PERF_COUNT_SW_TASK_CLOCK) {
			if (never_idle)
				m.clock |= 1u << i;
		} else if (config == PERF_COUNT_SW_CONTEXT_SWITCHES) {
			m.switches |= 1u << i;
		} else if (config == PERF_COUNT_SW_PAGE_FAULTS) {
			m.minflt |= 1u << i;
			m.majflt |= 1u << i;
		} else if (config == PERF_COUNT_SW_PAGE_FAULTS_MIN) {
			m.minflt |= 1u << i;
		} else if (config == PERF_COUNT_SW_PAGE_FAULTS_MAJ) {
			m.majflt |= 1u << i;
		} else {
			m.idle_skips_reads = false; /* idle may move it */
		}
	}
	*ret = m;
}
