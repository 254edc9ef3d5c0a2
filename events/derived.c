#include "events/derived.h"
#include <linux/perf_event.h>

static const struct {
	const char *name, *annotation;
} metrics[NR_DERIVED] = {
	[DERIVED_IPC] = { "ipc", "insn per cycle" },
	[DERIVED_CPI] = { "cpi", "cycles per insn" },
	[DERIVED_CPU_CORES] = { "cpu_cores", "CPUs utilized" },
	[DERIVED_CACHE_MISS_PCT] = { "cache_miss_pct", "% of all cache refs" },
	[DERIVED_BRANCH_MISS_PCT] = { "branch_miss_pct", "% of all branches" },
};

static void map_one(struct derived_map *m, const struct perf_event_attr *a, int i)
{
	if (a->type == PERF_TYPE_SOFTWARE) {
		/* task-clock counts only the target's tasks: preferred. */
		if (a->config == PERF_COUNT_SW_TASK_CLOCK ||
		    (a->config == PERF_COUNT_SW_CPU_CLOCK && m->clock < 0))
			m->clock = i;
		return;
	}
	if (a->type != PERF_TYPE_HARDWARE)
		return;
	switch (a->config) {
	case PERF_COUNT_HW_CPU_CYCLES:
		m->cycles = i;
		break;
	case PERF_COUNT_HW_INSTRUCTIONS:
		m->instructions = i;
		break;
	case PERF_COUNT_HW_CACHE_REFERENCES:
		m->cache_refs = i;
		break;
	case PERF_COUNT_HW_CACHE_MISSES:
		m->cache_misses = i;
		break;
	case PERF_COUNT_HW_BRANCH_INSTRUCTIONS:
		m->branches = i;
		break;
	case PERF_COUNT_HW_BRANCH_MISSES:
		m->branch_misses = i;
		break;
	}
}

void derived_map_events(const struct event_spec *ev, int nr, struct derived_map *ret)
{
	*ret = (struct derived_map){ -1, -1, -1, -1, -1, -1, -1 };
	for (int i = 0; i < nr; i++)
		map_one(ret, &ev[i].attr, i);
}

/* The scaled count of event i, if it was counted. */
static bool value(const struct reading *d, int i, double *ret)
{
	return i >= 0 && reading_scale_f(&d[i], ret, NULL) == READING_COUNTED;
}

static bool ratio(const struct reading *d, int num, int den, double scale, double *ret)
{
	double n, q;

	if (!value(d, num, &n) || !value(d, den, &q) || q == 0)
		return false;
	*ret = scale * n / q;
	return true;
}

bool derived_compute(enum derived_metric m, const struct derived_map *map, const struct reading *d,
		     uint64_t interval_ns, double *ret)
{
	double clock;

	switch (m) {
	case DERIVED_IPC:
		return ratio(d, map->instructions, map->cycles, 1, ret);
	case DERIVED_CPI:
		return ratio(d, map->cycles, map->instructions, 1, ret);
	case DERIVED_CPU_CORES:
		if (!value(d, map->clock, &clock) || interval_ns == 0)
			return false;
		*ret = clock / (double)interval_ns;
		return true;
	case DERIVED_CACHE_MISS_PCT:
		return ratio(d, map->cache_misses, map->cache_refs, 100, ret);
	case DERIVED_BRANCH_MISS_PCT:
		return ratio(d, map->branch_misses, map->branches, 100, ret);
	default:
		return false;
	}
}

int derived_row(enum derived_metric m, const struct derived_map *map)
{
	switch (m) {
	case DERIVED_IPC:
		return map->instructions;
	case DERIVED_CPI:
		return -1; /* perf shows IPC only; CPI is for CSV columns */
	case DERIVED_CPU_CORES:
		return map->clock;
	case DERIVED_CACHE_MISS_PCT:
		return map->cache_misses;
	case DERIVED_BRANCH_MISS_PCT:
		return map->branch_misses;
	default:
		return -1;
	}
}

const char *derived_name(enum derived_metric m)
{
	return m < NR_DERIVED ? metrics[m].name : "";
}

const char *derived_annotation(enum derived_metric m)
{
	return m < NR_DERIVED ? metrics[m].annotation : "";
}
