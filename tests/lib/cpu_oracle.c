// SPDX-License-Identifier: GPL-2.0-only
/* The cpu.stat oracle under steal time; see cpu_oracle.h for the reasoning. */
#include "tests/lib/cpu_oracle.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int steal_snapshot_take(struct steal_snapshot *ret)
{
	struct steal_snapshot s = { 0 };
	unsigned long long f[8];
	char line[512];
	unsigned cpu;
	FILE *fp;

	fp = fopen("/proc/stat", "re");
	if (!fp)
		return -errno;
	while (fgets(line, sizeof(line), fp)) {
		/* cpuN user nice system idle iowait irq softirq steal ... */
		if (sscanf(line, "cpu%u %llu %llu %llu %llu %llu %llu %llu %llu", &cpu, &f[0],
			   &f[1], &f[2], &f[3], &f[4], &f[5], &f[6], &f[7]) != 9 ||
		    cpu >= STEAL_MAX_CPUS)
			continue;
		s.ticks[cpu] = f[7];
		s.present[cpu] = true;
	}
	fclose(fp);
	*ret = s;
	return 0;
}

int steal_snapshot_format(const struct steal_snapshot *s, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int c = 0; c < STEAL_MAX_CPUS; c++) {
		int n;
		if (!s->present[c])
			continue;
		n = snprintf(buf + off, len - off, "%s%d:%llu", off ? " " : "", c,
			     (unsigned long long)s->ticks[c]);
		if (n < 0 || (size_t)n >= len - off)
			return -ENOSPC;
		off += n;
	}
	return 0;
}

int steal_snapshot_parse(const char *text, struct steal_snapshot *ret)
{
	struct steal_snapshot s = { 0 };
	const char *p = text;

	while (*p) {
		unsigned long long t;
		unsigned c;
		int used;
		if (sscanf(p, " %u:%llu%n", &c, &t, &used) != 2 || c >= STEAL_MAX_CPUS)
			return -EINVAL;
		s.ticks[c] = t;
		s.present[c] = true;
		p += used;
		while (*p == ' ')
			p++;
	}
	*ret = s;
	return 0;
}

/* The kernel tick in ms (CONFIG_HZ from /proc/config.gz; 10 ms, the longest
 * tick, when the config is not exposed). */
static double tick_ms(void)
{
	static double ms;
	char line[128];
	FILE *p;

	if (ms > 0)
		return ms;
	ms = 10;
	p = popen("zcat /proc/config.gz 2>/dev/null", "re");
	if (!p)
		return ms;
	while (fgets(line, sizeof(line), p))
		if (!strncmp(line, "CONFIG_HZ=", 10) && atoi(line + 10) > 0)
			ms = 1000.0 / atoi(line + 10);
	pclose(p);
	return ms;
}

double steal_bound_ms(const struct steal_snapshot *before, const struct steal_snapshot *after,
		      const cpu_set_t *cpus)
{
	double unit = 1000.0 / sysconf(_SC_CLK_TCK), ms = 0;

	for (int c = 0; c < STEAL_MAX_CPUS; c++) {
		if (!after->present[c] || (cpus && !CPU_ISSET(c, cpus)))
			continue;
		/* A CPU that never had steal (bare metal, no paravirt steal
		 * clock) widens nothing. */
		if (after->ticks[c] == 0)
			continue;
		/* The counter is truncated to USER_HZ units and is brought up
		 * to date at the CPU's ticks: what it shows can lag the truth by
		 * one unit plus one tick. */
		ms += (after->ticks[c] - (before->present[c] ? before->ticks[c] : 0)) * unit +
		      unit + tick_ms();
	}
	return ms;
}

bool cpu_clock_agrees(double got_ms, double usage_ms, double tol_pct, double steal_ms, char *msg,
		      size_t len)
{
	return cpu_clock_within(got_ms, usage_ms, usage_ms, tol_pct, steal_ms, msg, len);
}

/* Under software emulation (tests/vm/vm-run without KVM sets
 * CGPERF_ORACLE_TOL_MIN_PCT) the two clocks' windows drift further apart
 * than on real hardware: docs/TESTING.md, "Kernels and hosts". */
static double tol_floor(double tol_pct)
{
	const char *env = getenv("CGPERF_ORACLE_TOL_MIN_PCT");
	double min = env ? atof(env) : 0;

	return min > tol_pct ? min : tol_pct;
}

bool cpu_clock_within(double got_ms, double usage_lo_ms, double usage_hi_ms, double tol_pct,
		      double steal_ms, char *msg, size_t len)
{
	tol_pct = tol_floor(tol_pct);
	double lo = usage_lo_ms * (1 - tol_pct / 100), hi = usage_hi_ms * (1 + tol_pct / 100) + steal_ms;
	bool ok = usage_lo_ms > 0 && got_ms >= lo && got_ms <= hi;

	if (usage_lo_ms == usage_hi_ms)
		snprintf(msg, len,
			 "cpu-clock %.2f ms vs cpu.stat %.2f ms: %s [%.2f, %.2f] (-%g%%, +%g%% + %.1f ms steal)",
			 got_ms, usage_lo_ms, ok ? "within" : "OUTSIDE", lo, hi, tol_pct, tol_pct, steal_ms);
	else
		snprintf(msg, len,
			 "cpu-clock %.2f ms vs cpu.stat %.2f..%.2f ms: %s [%.2f, %.2f] (-%g%%, +%g%% + %.1f ms steal)",
			 got_ms, usage_lo_ms, usage_hi_ms, ok ? "within" : "OUTSIDE", lo, hi, tol_pct,
			 tol_pct, steal_ms);
	return ok;
}

int cpu_list_parse(const char *text, cpu_set_t *ret)
{
	cpu_set_t set;
	const char *p = text;

	CPU_ZERO(&set);
	while (*p) {
		char *end;
		long a = strtol(p, &end, 10), b = a;
		if (end == p || a < 0)
			return -EINVAL;
		if (*end == '-') {
			p = end + 1;
			b = strtol(p, &end, 10);
			if (end == p || b < a)
				return -EINVAL;
		}
		if (b >= CPU_SETSIZE)
			return -EINVAL;
		for (long c = a; c <= b; c++)
			CPU_SET(c, &set);
		p = end;
		if (*p == ',')
			p++;
		else if (*p)
			return -EINVAL;
	}
	*ret = set;
	return 0;
}
