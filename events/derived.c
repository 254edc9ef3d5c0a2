// SPDX-License-Identifier: GPL-2.0-only
#include "events/derived.h"
#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>

static const struct {
	const char *name, *annotation, *inputs;
	int decimals;
} metrics[NR_DERIVED] = {
	[DERIVED_IPC] = { "ipc", "insn per cycle", "instructions and cycles", 3 },
	[DERIVED_CPI] = { "cpi", "cycles per insn", "cycles and instructions", 3 },
	[DERIVED_CPU_CORES] = { "cpu_cores", "CPUs utilized", "task-clock or cpu-clock", 3 },
	[DERIVED_CACHE_MISS_PCT] = { "cache_miss_pct", "% of all cache refs",
				     "cache-misses and cache-references", 2 },
	[DERIVED_BRANCH_MISS_PCT] = { "branch_miss_pct", "% of all branches",
				      "branch-misses and branches", 2 },
};

void derived_map_add(struct derived_map *m, const struct perf_event_attr *a, int i)
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
	*ret = DERIVED_MAP_NONE;
	for (int i = 0; i < nr; i++)
		derived_map_add(ret, &ev[i].attr, i);
}

bool derived_counted(enum derived_metric m, const struct derived_map *map)
{
	switch (m) {
	case DERIVED_IPC:
	case DERIVED_CPI:
		return map->instructions >= 0 && map->cycles >= 0;
	case DERIVED_CPU_CORES:
		return map->clock >= 0;
	case DERIVED_CACHE_MISS_PCT:
		return map->cache_misses >= 0 && map->cache_refs >= 0;
	case DERIVED_BRANCH_MISS_PCT:
		return map->branch_misses >= 0 && map->branches >= 0;
	default:
		return false;
	}
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
		/* Nothing of the target ran (IDLE): exactly 0 cores, unlike a
		 * ratio of two zeros. */
		if (interval_ns == 0 || map->clock < 0 ||
		    reading_scale_f(&d[map->clock], &clock, NULL) == READING_NOT_COUNTED)
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

static bool has_own_metric(const struct derived_map *map, int e)
{
	for (int m = 0; m < NR_DERIVED; m++)
		if (derived_row(m, map) == e)
			return true;
	return false;
}

bool derived_rate(const struct derived_map *map, const struct reading *d, int e, double *ret,
		  const char **ret_unit)
{
	static const char *const units[] = { "/sec", "K/sec", "M/sec", "G/sec" };
	double rate;
	int u = 0;

	if (e == map->clock || has_own_metric(map, e))
		return false;
	if (e == map->cycles) {
		if (!ratio(d, e, map->clock, 1, ret))
			return false;
		*ret_unit = "GHz";
		return true;
	}
	if (!ratio(d, e, map->clock, 1e9, &rate))
		return false;
	/* perf's convert_unit_double: the largest prefix the rate exceeds. */
	for (; u < 3 && rate > 1e3; u++)
		rate /= 1e3;
	*ret = rate;
	*ret_unit = units[u];
	return true;
}

const char *derived_name(enum derived_metric m)
{
	return m < NR_DERIVED ? metrics[m].name : "";
}

const char *derived_annotation(enum derived_metric m)
{
	return m < NR_DERIVED ? metrics[m].annotation : "";
}

const char *derived_inputs(enum derived_metric m)
{
	return m < NR_DERIVED ? metrics[m].inputs : "";
}

int derived_parse(const char *name, enum derived_metric *ret)
{
	for (int m = 0; m < NR_DERIVED; m++)
		if (!strcmp(name, metrics[m].name)) {
			*ret = (enum derived_metric)m;
			return 0;
		}
	return -ENOENT;
}

/* v >= 0 with `decimals` digits after '.', rounded, without stdio. */
static void fixed_point(double v, int decimals, char *ret)
{
	uint64_t scale = decimals == 3 ? 1000 : 100;
	uint64_t x = (uint64_t)(v * (double)scale + 0.5);
	char tmp[DERIVED_CELL_MAX];
	int n = 0;

	for (int i = 0; i < decimals; i++, x /= 10)
		tmp[n++] = (char)('0' + x % 10);
	tmp[n++] = '.';
	do {
		tmp[n++] = (char)('0' + x % 10);
		x /= 10;
	} while (x);
	for (int i = 0; i < n; i++)
		ret[i] = tmp[n - 1 - i];
	ret[n] = '\0';
}

void derived_cell(enum derived_metric m, const struct derived_map *map, const struct reading *d,
		  uint64_t interval_ns, char ret[DERIVED_CELL_MAX])
{
	double v;

	ret[0] = '\0';
	if (m >= NR_DERIVED || !map || !derived_compute(m, map, d, interval_ns, &v))
		return;
	/* NaN fails both comparisons. */
	if (!(v >= 0 && v < 1e12))
		return;
	fixed_point(v, metrics[m].decimals, ret);
}
