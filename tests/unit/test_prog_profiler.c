// SPDX-License-Identifier: GPL-2.0-only
/* The profiler's entry and exit (bpf/prog_profiler.bpf.c) against known
 * work, also where the kernel refuses the trampolines the real profiler
 * needs: the same code as raw_tp programs (check_enter, check_exit), run
 * on this process's CPU around page faults it makes there. Oracle: the
 * process's own minor faults (getrusage). The counters have counted other
 * faults before the entry, so a diff that is not one (the exit's totals)
 * is far off; an exit without its entry counts nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include "bpf/cgperf_shared.h"
#include "bpf/leader.h"
#include "bpf/probe.h"
#include "events/event_parse.h"
#include "prog_profiler.skel.h"
#include "tests/lib/unit_skip.h"
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#define PAGES 1000

static long minflt(void)
{
	struct rusage ru;

	assert_int_equal(getrusage(RUSAGE_SELF, &ru), 0);
	return ru.ru_minflt;
}

/* Touch n fresh small pages: n minor faults. */
static void fault_pages(int n)
{
	long page = sysconf(_SC_PAGESIZE);
	char *m = mmap(NULL, n * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	assert_true(m != MAP_FAILED);
	/* Small pages whatever the THP setting (Debian's kernels: always). */
	assert_true(madvise(m, n * page, MADV_NOHUGEPAGE) == 0 || errno == EINVAL); /* EINVAL: no THP */
	for (int i = 0; i < n; i++)
		m[i * page] = 1;
	munmap(m, n * page);
}

/* Page faults of every task on every CPU (/proc/vmstat pgfault): what a
 * CPU's page-faults counter can have seen at most, whatever else runs. */
static unsigned long long all_faults(void)
{
	unsigned long long n = 0;
	char name[64];
	FILE *f = fopen("/proc/vmstat", "r");

	assert_non_null(f);
	while (fscanf(f, "%63s %llu", name, &n) == 2 && strcmp(name, "pgfault") != 0)
		;
	fclose(f);
	return n;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void sum_accum(struct prog_profiler_bpf *skel, struct cgperf_prof_accum *ret)
{
	int nr = libbpf_num_possible_cpus();
	struct cgperf_prof_accum *v = calloc(nr, sizeof(*v));
	__u32 zero = 0;

	assert_non_null(v);
	assert_int_equal(bpf_map_lookup_elem(bpf_map__fd(skel->maps.accum), &zero, v), 0);
	memset(ret, 0, sizeof(*ret));
	for (int cpu = 0; cpu < nr; cpu++) {
		ret->entries += v[cpu].entries;
		ret->runs += v[cpu].runs;
		for (int e = 0; e < CGPERF_MAX_EVENTS; e++) {
			ret->ev[e].counter += v[cpu].ev[e].counter;
			ret->ev[e].enabled += v[cpu].ev[e].enabled;
			ret->ev[e].running += v[cpu].ev[e].running;
		}
	}
	free(v);
}

static void diff_of_known_faults(void **state)
{
	static const char *const names[] = { "page-faults", "cpu-clock" };
	struct event_spec ev[2];
	struct leader leaders[2];
	struct prog_profiler_bpf *skel;
	struct cgperf_prof_accum acc;
	char err[256];
	cpu_set_t set;
	int cpu = sched_getcpu();
	long made;
	unsigned long long all;
	double wall, inner;

	(void)state;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	assert_int_equal(sched_setaffinity(0, sizeof(set), &set), 0);
	for (int i = 0; i < 2; i++)
		assert_int_equal(event_parse(names[i], &ev[i], err, sizeof(err)), 0);
	assert_int_equal(leaders_acquire(ev, 2, FOLLOWER_TP, leaders, NULL, 0), 0);
	skel = prog_profiler_bpf__open();
	assert_non_null(skel);
	skel->rodata->nr_events = 2;
	/* The fentry/fexit pair needs a target and trampolines. */
	bpf_program__set_autoload(skel->progs.prof_entry, false);
	bpf_program__set_autoload(skel->progs.prof_exit_prog, false);
	assert_int_equal(leaders_share_events(skel->obj, leaders, 2, libbpf_num_possible_cpus()),
			 0);
	assert_int_equal(prog_profiler_bpf__load(skel), 0);

	/* An exit without its entry counts nothing. */
	assert_int_equal(bpf_run_on_cpu(bpf_program__fd(skel->progs.check_exit), cpu), 0);
	/* Faults the counters count before the entry. */
	fault_pages(4 * PAGES);

	all = all_faults();
	made = minflt();
	wall = now_s();
	assert_int_equal(bpf_run_on_cpu(bpf_program__fd(skel->progs.check_enter), cpu), 0);
	inner = now_s();
	fault_pages(PAGES);
	inner = now_s() - inner;
	assert_int_equal(bpf_run_on_cpu(bpf_program__fd(skel->progs.check_exit), cpu), 0);
	wall = now_s() - wall;
	made = minflt() - made;
	all = all_faults() - all;
	sum_accum(skel, &acc);
	print_message("entries %llu runs %llu page-faults %llu (made %ld) cpu-clock %llu ns (wall "
		      "%.0f ns)\n",
		      (unsigned long long)acc.entries, (unsigned long long)acc.runs,
		      (unsigned long long)acc.ev[0].counter, made,
		      (unsigned long long)acc.ev[1].counter, wall * 1e9);
	assert_int_equal(acc.entries, 1);
	assert_int_equal(acc.runs, 1);
	/* Other tasks on this CPU may fault meanwhile (how many depends on the
	 * host): at least ours, at most every task's on every CPU. */
	assert_true(made >= PAGES);
	assert_true(acc.ev[0].counter >= (uint64_t)made);
	assert_true(acc.ev[0].counter <= all);
	/* Software events never multiplex. */
	assert_true(acc.ev[0].enabled > 0 && acc.ev[0].enabled == acc.ev[0].running);
	/* cpu-clock on one CPU is the time between the two reads: inside
	 * the window measured around them, and at least the one measured
	 * between them (however long this task waited for its CPU). */
	assert_true(acc.ev[1].counter <= (uint64_t)(wall * 1e9));
	assert_true(acc.ev[1].counter >= (uint64_t)(inner * 1e9));

	prog_profiler_bpf__destroy(skel);
	for (int i = 0; i < 2; i++)
		leader_release(&leaders[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(diff_of_known_faults),
	};

	return unit_result(cmocka_run_group_tests(tests, NULL, NULL));
}
