// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for events/event_parse.c (and the message mapping of
 * events/event_probe.c). PMU events are resolved against a fixture sysfs
 * tree built in a temp dir, so the tests do not depend on the host's PMUs. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "events/event_parse.h"
#include "events/event_probe.h"
#include "tests/lib/test_files.h"

#define RF (PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING)
#define CACHE(id, op, res)                                               \
	(PERF_COUNT_HW_CACHE_##id | (PERF_COUNT_HW_CACHE_OP_##op << 8) | \
	 ((uint64_t)PERF_COUNT_HW_CACHE_RESULT_##res << 16))

struct expect {
	const char *name;
	uint32_t type;
	uint64_t config;
};

static const struct expect hardware[] = {
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES },
	{ "ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },
	{ "stalled-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "idle-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "stalled-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "idle-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
};

static const struct expect software[] = {
	{ "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "alignment-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "emulation-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS },
	{ "cgroup-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CGROUP_SWITCHES },
};

static const struct expect hw_cache[] = {
	{ "L1-dcache-loads", PERF_TYPE_HW_CACHE, CACHE(L1D, READ, ACCESS) },
	{ "L1-dcache-load-misses", PERF_TYPE_HW_CACHE, CACHE(L1D, READ, MISS) },
	{ "L1-dcache-stores", PERF_TYPE_HW_CACHE, CACHE(L1D, WRITE, ACCESS) },
	{ "L1-dcache-store-misses", PERF_TYPE_HW_CACHE, CACHE(L1D, WRITE, MISS) },
	{ "L1-dcache-prefetches", PERF_TYPE_HW_CACHE, CACHE(L1D, PREFETCH, ACCESS) },
	{ "L1-dcache-prefetch-misses", PERF_TYPE_HW_CACHE, CACHE(L1D, PREFETCH, MISS) },
	{ "L1-icache-loads", PERF_TYPE_HW_CACHE, CACHE(L1I, READ, ACCESS) },
	{ "L1-icache-load-misses", PERF_TYPE_HW_CACHE, CACHE(L1I, READ, MISS) },
	{ "LLC-loads", PERF_TYPE_HW_CACHE, CACHE(LL, READ, ACCESS) },
	{ "LLC-load-misses", PERF_TYPE_HW_CACHE, CACHE(LL, READ, MISS) },
	{ "LLC-stores", PERF_TYPE_HW_CACHE, CACHE(LL, WRITE, ACCESS) },
	{ "dTLB-loads", PERF_TYPE_HW_CACHE, CACHE(DTLB, READ, ACCESS) },
	{ "dTLB-store-misses", PERF_TYPE_HW_CACHE, CACHE(DTLB, WRITE, MISS) },
	{ "iTLB-load-misses", PERF_TYPE_HW_CACHE, CACHE(ITLB, READ, MISS) },
	{ "branch-loads", PERF_TYPE_HW_CACHE, CACHE(BPU, READ, ACCESS) },
	{ "branch-load-misses", PERF_TYPE_HW_CACHE, CACHE(BPU, READ, MISS) },
	{ "node-loads", PERF_TYPE_HW_CACHE, CACHE(NODE, READ, ACCESS) },
	{ "node-prefetch-misses", PERF_TYPE_HW_CACHE, CACHE(NODE, PREFETCH, MISS) },
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* ------------------------------------------------------------------------- */
/* Helpers                                                                   */

/* The attr must be all zero except type, size, config*, read_format. */
static void assert_attr(const struct perf_event_attr *attr, uint32_t type, uint64_t config,
			uint64_t config1, uint64_t config2)
{
	struct perf_event_attr want;

	memset(&want, 0, sizeof(want));
	want.type = type;
	want.size = sizeof(struct perf_event_attr);
	want.config = config;
	want.config1 = config1;
	want.config2 = config2;
	want.read_format = RF;
	assert_int_equal(attr->type, type);
	assert_int_equal(attr->config, config);
	assert_int_equal(attr->config1, config1);
	assert_int_equal(attr->config2, config2);
	assert_memory_equal(attr, &want, sizeof(want));
}

static void check_table(const struct expect *t, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct event_spec spec;
		char err[256] = "";
		int r = event_parse(t[i].name, &spec, err, sizeof(err));

		if (r != 0)
			fail_msg("%s: %d %s", t[i].name, r, err);
		assert_string_equal(spec.name, t[i].name);
		assert_attr(&spec.attr, t[i].type, t[i].config, 0, 0);
		assert_int_equal(spec.is_time, t[i].type == PERF_TYPE_SOFTWARE &&
						       (t[i].config == PERF_COUNT_SW_CPU_CLOCK ||
							t[i].config == PERF_COUNT_SW_TASK_CLOCK));
	}
}

/* Parse and expect failure; ret_spec must be untouched, the message must
 * mention `needle` (if given). */
static void expect_fail(const char *name, int want, const char *needle)
{
	struct event_spec spec, before;
	char err[512] = "";
	int r;

	memset(&spec, 0xa5, sizeof(spec));
	memcpy(&before, &spec, sizeof(spec));
	r = event_parse(name, &spec, err, sizeof(err));
	if (r != want)
		fail_msg("'%s': got %d, want %d (%s)", name, r, want, err);
	assert_memory_equal(&spec, &before, sizeof(spec));
	assert_true(err[0] != '\0');
	assert_null(strchr(err, '\n'));
	if (needle && !strstr(err, needle))
		fail_msg("'%s': message '%s' does not mention '%s'", name, err, needle);
}

static struct event_spec parse_ok(const char *name)
{
	struct event_spec spec;
	char err[512] = "";
	int r = event_parse(name, &spec, err, sizeof(err));

	if (r != 0)
		fail_msg("'%s': %d %s", name, r, err);
	return spec;
}

static void assert_parses_to(const char *name, uint32_t type, uint64_t config, uint64_t config1,
			     uint64_t config2)
{
	struct event_spec spec = parse_ok(name);

	assert_attr(&spec.attr, type, config, config1, config2);
}

/* ------------------------------------------------------------------------- */
/* Fixture sysfs tree                                                        */

static char fixture_root[64];

/* The tree, parents first: a NULL text is a directory. */
static const struct {
	const char *rel, *text;
} fixture_files[] = {
	{ "cpu", NULL },
	{ "cpu/format", NULL },
	{ "cpu/events", NULL },
	{ "cpu/type", "4\n" },
	{ "cpu/format/event", "config:0-7\n" },
	{ "cpu/format/umask", "config:8-15\n" },
	{ "cpu/format/edge", "config:17\n" },
	{ "cpu/format/cmask", "config:24-31,config:32-35\n" },
	{ "cpu/format/amd_event", "config:0-7,32-35\n" },
	{ "cpu/format/offcore_rsp", "config1:0-63\n" },
	{ "cpu/format/ldlat", "config1:0-15\n" },
	{ "cpu/format/frontend", "config2:0-23\n" },
	{ "cpu/events/cpu-cycles", "event=0x3c,umask=0x00\n" },
	{ "cpu/events/mem-loads", "event=0xcd,umask=0x1,ldlat=3\n" },
	{ "cpu/events/broken", "event=0x3c,nosuchterm=1\n" },
	{ "uncore_x", NULL },
	{ "uncore_x/format", NULL },
	{ "uncore_x/type", "17\n" },
	{ "uncore_x/format/event", "config:0-7\n" },
	/* A directory without a type file is not a PMU. */
	{ "notapmu", NULL },
};

static int setup_sysfs(void **state)
{
	snprintf(fixture_root, sizeof(fixture_root), "/tmp/cgperf-test-sysfs.XXXXXX");
	if (!mkdtemp(fixture_root))
		return -1;
	for (size_t i = 0; i < sizeof(fixture_files) / sizeof(fixture_files[0]); i++) {
		char path[512];

		if (fixture_files[i].text) {
			test_write_at(fixture_root, fixture_files[i].rel, fixture_files[i].text);
			continue;
		}
		snprintf(path, sizeof(path), "%s/%s", fixture_root, fixture_files[i].rel);
		assert_int_equal(mkdir(path, 0755), 0);
	}
	event_set_sysfs_root(fixture_root);
	(void)state;
	return 0;
}

static int teardown_sysfs(void **state)
{
	(void)state;
	event_set_sysfs_root(NULL);
	return test_rmtemp(fixture_root);
}

/* ------------------------------------------------------------------------- */
/* Symbolic and raw                                                          */

static void test_hardware_names(void **state)
{
	(void)state;
	check_table(hardware, N(hardware));
}

static void test_software_names(void **state)
{
	(void)state;
	check_table(software, N(software));
}

static void test_hw_cache_names(void **state)
{
	(void)state;
	check_table(hw_cache, N(hw_cache));
	/* Combinations perf does not list are unknown, not silently encoded. */
	expect_fail("iTLB-stores", -ENOENT, NULL);
	expect_fail("branch-prefetches", -ENOENT, NULL);
	expect_fail("L1-icache-stores", -ENOENT, NULL);
}

static void test_is_time(void **state)
{
	(void)state;
	assert_true(parse_ok("cpu-clock").is_time);
	assert_true(parse_ok("task-clock").is_time);
	assert_false(parse_ok("cycles").is_time);
	assert_false(parse_ok("cs").is_time);
	assert_false(parse_ok("r0").is_time);
}

static void test_name_trimmed_and_kept(void **state)
{
	struct event_spec spec;

	(void)state;
	spec = parse_ok("  cs\t\n");
	assert_string_equal(spec.name, "cs");
	assert_attr(&spec.attr, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, 0, 0);
	spec = parse_ok(" branches ");
	assert_string_equal(spec.name, "branches");
}

static void test_case_sensitive(void **state)
{
	(void)state;
	expect_fail("CYCLES", -ENOENT, "CYCLES");
	expect_fail("Cpu-clock", -ENOENT, NULL);
}

static void test_name_too_long(void **state)
{
	char name[EVENT_NAME_MAX + 10];
	struct event_spec spec;

	(void)state;
	/* Exactly EVENT_NAME_MAX-1 characters fits (and is then just unknown). */
	memset(name, 'x', EVENT_NAME_MAX - 1);
	name[EVENT_NAME_MAX - 1] = '\0';
	expect_fail(name, -ENOENT, NULL);
	memset(name, 'x', EVENT_NAME_MAX);
	name[EVENT_NAME_MAX] = '\0';
	expect_fail(name, -EINVAL, "event name too long");
	/* Surrounding blanks do not count against the limit. */
	snprintf(name, sizeof(name), "   cycles%*s", EVENT_NAME_MAX, "");
	spec = parse_ok(name);
	assert_string_equal(spec.name, "cycles");
}

static void test_empty_and_null(void **state)
{
	struct event_spec spec;

	(void)state;
	expect_fail("", -EINVAL, NULL);
	expect_fail("   ", -EINVAL, NULL);
	assert_int_equal(event_parse(NULL, &spec, NULL, 0), -EINVAL);
	assert_int_equal(event_parse("cycles", NULL, NULL, 0), -EINVAL);
	/* err_buf is optional. */
	assert_int_equal(event_parse("cyclez", &spec, NULL, 0), -ENOENT);
}

static void test_raw(void **state)
{
	struct event_spec spec;

	(void)state;
	spec = parse_ok("r1a8");
	assert_string_equal(spec.name, "r1a8");
	assert_attr(&spec.attr, PERF_TYPE_RAW, 0x1a8, 0, 0);
	assert_parses_to("r0", PERF_TYPE_RAW, 0, 0, 0);
	assert_parses_to("rDeadBeef", PERF_TYPE_RAW, 0xdeadbeef, 0, 0);
	assert_parses_to("rffffffffffffffff", PERF_TYPE_RAW, UINT64_MAX, 0, 0);
	expect_fail("rzz", -EINVAL, "rzz");
	expect_fail("r", -EINVAL, NULL);
	expect_fail("r1g", -EINVAL, NULL);
	expect_fail("r10000000000000000", -EINVAL, NULL); /* 17 digits: > 64 bits */
	/* Symbolic names starting with 'r' are not raw. */
	assert_parses_to("ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES, 0, 0);
	expect_fail("ref-cylces", -ENOENT, NULL);
}

static void test_modifiers_rejected(void **state)
{
	(void)state;
	expect_fail("cycles:u", -EINVAL, "modifier");
	expect_fail("cpu/event=0x3c/u", -EINVAL, NULL);
	expect_fail("cpu/event=0x3c/:k", -EINVAL, "modifier");
}

/* Output must not depend on what was in the output struct before. */
static void test_deterministic(void **state)
{
	const char *names[] = { "cycles", "cpu-clock", "r1a8", "L1-dcache-loads",
				"cpu/event=0x3c,umask=1/" };

	(void)state;
	for (size_t i = 0; i < N(names); i++) {
		struct event_spec a, b;

		memset(&a, 0x00, sizeof(a));
		memset(&b, 0xff, sizeof(b));
		assert_int_equal(event_parse(names[i], &a, NULL, 0), 0);
		assert_int_equal(event_parse(names[i], &b, NULL, 0), 0);
		assert_memory_equal(&a, &b, sizeof(a));
	}
}

/* ------------------------------------------------------------------------- */
/* Suggestions and enumeration                                               */

static void test_suggest(void **state)
{
	char out[256];
	int n;

	(void)state;
	expect_fail("cyclez", -ENOENT, "cyclez");
	n = event_suggest("cyclez", out, sizeof(out), 3);
	assert_true(n >= 1 && n <= 3);
	assert_non_null(strstr(out, "cycles"));
	/* Closest first. */
	assert_memory_equal(out, "cycles", 6);

	expect_fail("context-switch", -ENOENT, NULL);
	n = event_suggest("context-switch", out, sizeof(out), 3);
	assert_true(n >= 1);
	assert_non_null(strstr(out, "context-switches"));

	assert_int_equal(event_suggest("pgae-faults", out, sizeof(out), 1), 1);
	assert_string_equal(out, "page-faults");

	assert_int_equal(event_suggest("completely-unrelated-thing", out, sizeof(out), 5), 0);
	assert_string_equal(out, "");
	/* max and out_len are honoured. */
	assert_int_equal(event_suggest("cycles", out, sizeof(out), 0), 0);
	assert_int_equal(event_suggest("cyclez", out, 4, 3), 0);
	assert_string_equal(out, "");
}

struct known_count {
	size_t total, hw, sw, cache;
	bool seen_cs, seen_llc;
};

static int count_known(const char *name, const char *kind, void *data)
{
	struct known_count *c = data;
	struct event_spec spec;

	/* Everything listed must parse. */
	assert_int_equal(event_parse(name, &spec, NULL, 0), 0);
	c->total++;
	if (strcmp(kind, "hardware") == 0) {
		assert_int_equal(spec.attr.type, PERF_TYPE_HARDWARE);
		c->hw++;
	} else if (strcmp(kind, "software") == 0) {
		assert_int_equal(spec.attr.type, PERF_TYPE_SOFTWARE);
		c->sw++;
	} else if (strcmp(kind, "hardware-cache") == 0) {
		assert_int_equal(spec.attr.type, PERF_TYPE_HW_CACHE);
		c->cache++;
	} else {
		fail_msg("unexpected kind '%s' for '%s'", kind, name);
	}
	c->seen_cs |= strcmp(name, "cs") == 0;
	c->seen_llc |= strcmp(name, "LLC-load-misses") == 0;
	return 0;
}

static int stop_after_three(const char *name, const char *kind, void *data)
{
	int *n = data;

	(void)name;
	(void)kind;
	return ++*n == 3 ? 42 : 0;
}

static void test_for_each_known(void **state)
{
	struct known_count c = { 0 };
	int n = 0;

	(void)state;
	assert_int_equal(event_for_each_known(count_known, &c), 0);
	assert_int_equal(c.hw, N(hardware));
	assert_int_equal(c.sw, N(software));
	assert_int_equal(c.cache, 32);
	assert_true(c.seen_cs);
	assert_true(c.seen_llc);
	assert_int_equal(event_for_each_known(stop_after_three, &n), 42);
	assert_int_equal(n, 3);
}

/* ------------------------------------------------------------------------- */
/* PMU events (fixture sysfs)                                                */

static void test_pmu_basic(void **state)
{
	struct event_spec spec;

	(void)state;
	spec = parse_ok("cpu/event=0x3c,umask=0x1,edge/");
	assert_string_equal(spec.name, "cpu/event=0x3c,umask=0x1,edge/");
	assert_attr(&spec.attr, 4, 0x3c | 0x100 | (1ull << 17), 0, 0);
	assert_false(spec.is_time);
	/* Decimal values; explicit edge=1 same as bare edge. */
	assert_parses_to("cpu/event=60,umask=1,edge=1/", 4, 0x3c | 0x100 | (1ull << 17), 0, 0);
	/* Other PMU, other type. */
	assert_parses_to("uncore_x/event=0xff/", 17, 0xff, 0, 0);
	/* No terms at all is allowed (e.g. intel_pt//). */
	assert_parses_to("cpu//", 4, 0, 0, 0);
	/* Later terms override earlier ones. */
	assert_parses_to("cpu/event=1,event=2/", 4, 2, 0, 0);
}

static void test_pmu_split_and_wide_fields(void **state)
{
	(void)state;
	/* config:24-31,config:32-35: low 8 value bits -> 24..31, next 4 -> 32..35. */
	assert_parses_to("cpu/cmask=0xabc/", 4, (0xbcull << 24) | (0xaull << 32), 0, 0);
	assert_parses_to("cpu/cmask=0xfff/", 4, 0xfffull << 24, 0, 0);
	/* "config:0-7,32-35": a range without a field name continues it. */
	assert_parses_to("cpu/amd_event=0x1c0/", 4, 0xc0 | (1ull << 32), 0, 0);
	assert_parses_to("cpu/offcore_rsp=0xffffffffffffffff/", 4, 0, UINT64_MAX, 0);
	assert_parses_to("cpu/event=0xd1,ldlat=0x20,frontend=0x400006/", 4, 0xd1, 0x20, 0x400006);
	/* Builtin whole-field terms. */
	assert_parses_to("cpu/config=0x1234,config1=5,config2=0x7/", 4, 0x1234, 5, 7);
}

static void test_pmu_value_too_wide(void **state)
{
	(void)state;
	expect_fail("cpu/event=0x100/", -EINVAL, "'event'");
	expect_fail("cpu/umask=256/", -EINVAL, "'umask'");
	expect_fail("cpu/edge=2/", -EINVAL, "'edge'");
	expect_fail("cpu/cmask=0x1000/", -EINVAL, "'cmask'");
	expect_fail("cpu/ldlat=0x10000/", -EINVAL, "'ldlat'");
}

static void test_pmu_bad_values(void **state)
{
	(void)state;
	expect_fail("cpu/event=0xzz/", -EINVAL, "event");
	expect_fail("cpu/event=/", -EINVAL, "event");
	expect_fail("cpu/event=-1/", -EINVAL, NULL);
	expect_fail("cpu/event=0x0x5/", -EINVAL, NULL);
	expect_fail("cpu/event=0x/", -EINVAL, NULL);
	expect_fail("cpu/event=1a/", -EINVAL, NULL);
	expect_fail("cpu/event= 1/", -EINVAL, NULL);
	expect_fail("cpu/event=99999999999999999999999/", -EINVAL, NULL);
	expect_fail("cpu/event=0x3c,,umask=1/", -EINVAL, NULL);
	expect_fail("cpu/event=0x3c,/", -EINVAL, NULL);
	expect_fail("cpu/config/", -EINVAL, "config");
}

static void test_pmu_unknown_term(void **state)
{
	(void)state;
	/* The message lists the valid terms. */
	expect_fail("cpu/bogus=1/", -EINVAL, "bogus");
	expect_fail("cpu/bogus=1/", -EINVAL, "umask");
	expect_fail("cpu/bogus=1/", -EINVAL, "cmask");
	expect_fail("uncore_x/umask=1/", -EINVAL, "valid terms: event");
	/* Terms are never paths. */
	expect_fail("cpu/../type/", -EINVAL, NULL);
}

static void test_pmu_unknown_pmu(void **state)
{
	(void)state;
	expect_fail("nopmu/event=1/", -ENOENT, "nopmu");
	expect_fail("notapmu/event=1/", -ENOENT, "notapmu");
	expect_fail("../cpu/event=1/", -EINVAL, NULL);
	expect_fail("/event=1/", -EINVAL, NULL);
}

static void test_pmu_missing_slash(void **state)
{
	(void)state;
	expect_fail("cpu/event=0x3c", -EINVAL, "'/'");
	expect_fail("cpu/", -EINVAL, "'/'");
}

static void test_pmu_alias(void **state)
{
	(void)state;
	assert_parses_to("cpu/cpu-cycles/", 4, 0x3c, 0, 0);
	assert_parses_to("cpu/mem-loads/", 4, 0x1cd, 3, 0);
	/* Terms after an alias refine it. */
	assert_parses_to("cpu/mem-loads,ldlat=0x40,umask=2/", 4, 0x2cd, 0x40, 0);
	/* An alias cannot take a value; a broken alias reports the bad term. */
	expect_fail("cpu/cpu-cycles=1/", -EINVAL, "cpu-cycles");
	expect_fail("cpu/broken/", -EINVAL, "nosuchterm");
}

static void test_pmu_root_reset(void **state)
{
	(void)state;
	/* Back to the real sysfs: the fixture PMU "uncore_x" is gone. */
	event_set_sysfs_root(NULL);
	expect_fail("uncore_x/event=1/", -ENOENT, NULL);
	event_set_sysfs_root(fixture_root);
	assert_parses_to("uncore_x/event=1/", 17, 1, 0, 0);
}

struct pmu_list {
	char names[8][32];
	uint32_t types[8];
	int n;
};

static int collect_pmu(const char *name, uint32_t type, void *data)
{
	struct pmu_list *l = data;

	assert_true(l->n < 8);
	snprintf(l->names[l->n], sizeof(l->names[0]), "%s", name);
	l->types[l->n++] = type;
	return 0;
}

static void test_for_each_pmu(void **state)
{
	struct pmu_list l = { 0 };

	(void)state;
	assert_int_equal(event_for_each_pmu(collect_pmu, &l), 0);
	assert_int_equal(l.n, 2);
	assert_string_equal(l.names[0], "cpu");
	assert_int_equal(l.types[0], 4);
	assert_string_equal(l.names[1], "uncore_x");
	assert_int_equal(l.types[1], 17);
}

/* ------------------------------------------------------------------------- */
/* Lists                                                                     */

static void test_list(void **state)
{
	struct event_spec specs[8];
	char err[256] = "";
	int n;

	(void)state;
	n = event_parse_list("cycles,cs,cpu/event=0x3c,umask=1/,page-faults", specs, 8, err,
			     sizeof(err));
	if (n != 4)
		fail_msg("got %d: %s", n, err);
	assert_string_equal(specs[0].name, "cycles");
	assert_attr(&specs[0].attr, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0, 0);
	assert_string_equal(specs[1].name, "cs");
	assert_attr(&specs[1].attr, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, 0, 0);
	assert_string_equal(specs[2].name, "cpu/event=0x3c,umask=1/");
	assert_attr(&specs[2].attr, 4, 0x13c, 0, 0);
	assert_string_equal(specs[3].name, "page-faults");

	/* Duplicates are allowed; blanks around items are trimmed. */
	assert_int_equal(event_parse_list("cs, cs ,task-clock", specs, 8, NULL, 0), 3);
	assert_string_equal(specs[1].name, "cs");
	assert_true(specs[2].is_time);
	assert_int_equal(event_parse_list("r1a8", specs, 8, NULL, 0), 1);
}

static void expect_list_fail(const char *list, int max, int want)
{
	struct event_spec specs[4], before[4];
	char err[256] = "";
	int r;

	memset(specs, 0x5a, sizeof(specs));
	memcpy(before, specs, sizeof(specs));
	r = event_parse_list(list, specs, max, err, sizeof(err));
	if (r != want)
		fail_msg("'%s': got %d, want %d (%s)", list, r, want, err);
	assert_true(err[0] != '\0');
	assert_memory_equal(specs, before, sizeof(specs));
}

static void test_list_errors(void **state)
{
	(void)state;
	expect_list_fail("", 4, -EINVAL);
	expect_list_fail(",", 4, -EINVAL);
	expect_list_fail("cycles,", 4, -EINVAL);
	expect_list_fail("cycles,,cs", 4, -EINVAL);
	expect_list_fail("cs,cyclez", 4, -ENOENT);
	expect_list_fail("cs,cpu/event=0x3c", 4, -EINVAL);
	expect_list_fail("cs,cs,cs", 2, -E2BIG);
	expect_list_fail("cs", 0, -EINVAL);
}

/* ------------------------------------------------------------------------- */
/* Probe (real kernel; only checks the errno -> message mapping)             */

static void test_probe(void **state)
{
	struct event_spec spec, copy;
	char msg[512] = "";
	int r;

	(void)state;
	spec = parse_ok("cpu-clock");
	copy = spec;
	r = event_probe(&spec, msg, sizeof(msg));
	if (r == -EACCES || r == -EPERM)
		assert_non_null(strstr(msg, "no permission to open event 'cpu-clock'"));
	else
		assert_int_equal(r, 0);
	/* The probe must not modify the spec (it is a shared key). */
	assert_memory_equal(&spec, &copy, sizeof(spec));

	/* A PMU type that cannot exist: the kernel says ENOENT. */
	spec = parse_ok("r1");
	spec.attr.type = 0x7fffffff;
	r = event_probe(&spec, msg, sizeof(msg));
	assert_int_equal(r, -ENOENT);
	assert_string_equal(msg, "event 'r1' is not supported on this host (no hardware PMU?)");

	/* A software config this kernel does not have. */
	spec = parse_ok("cpu-clock");
	spec.attr.config = 0x7fff;
	r = event_probe(&spec, msg, sizeof(msg));
	assert_true(r == -ENOENT || r == -EINVAL || r == -EOPNOTSUPP);
	assert_string_equal(msg, "event 'cpu-clock' is not supported by this kernel");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hardware_names),
		cmocka_unit_test(test_software_names),
		cmocka_unit_test(test_hw_cache_names),
		cmocka_unit_test(test_is_time),
		cmocka_unit_test(test_name_trimmed_and_kept),
		cmocka_unit_test(test_case_sensitive),
		cmocka_unit_test(test_name_too_long),
		cmocka_unit_test(test_empty_and_null),
		cmocka_unit_test(test_raw),
		cmocka_unit_test(test_modifiers_rejected),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_suggest),
		cmocka_unit_test(test_for_each_known),
		cmocka_unit_test(test_pmu_basic),
		cmocka_unit_test(test_pmu_split_and_wide_fields),
		cmocka_unit_test(test_pmu_value_too_wide),
		cmocka_unit_test(test_pmu_bad_values),
		cmocka_unit_test(test_pmu_unknown_term),
		cmocka_unit_test(test_pmu_unknown_pmu),
		cmocka_unit_test(test_pmu_missing_slash),
		cmocka_unit_test(test_pmu_alias),
		cmocka_unit_test(test_pmu_root_reset),
		cmocka_unit_test(test_for_each_pmu),
		cmocka_unit_test(test_list),
		cmocka_unit_test(test_list_errors),
		cmocka_unit_test(test_probe),
	};

	return cmocka_run_group_tests(tests, setup_sysfs, teardown_sysfs);
}
