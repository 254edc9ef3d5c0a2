// SPDX-License-Identifier: GPL-2.0-only
/* Which CPUs a hub's sync leaves out (bpf/sync_skip.h), on the real hub
 * program loaded into this kernel (not attached: nothing but the test
 * writes its per-CPU state) and its map's own BTF. Each case writes one
 * state per CPU into prev_readings and looks at which CPUs the pass runs:
 * idle CPUs holding nothing counted are left out; a CPU running a task,
 * holding a counted cgroup's charges, never run by the hub, or whose state
 * moved between the two looks is synced; a failed run stops the pass. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "bpf/accum.h"
#include "bpf/cgperf_shared.h"
#include "bpf/hub.h"
#include "bpf/sync_skip.h"
#include "follower_hub.skel.h"
#include "follower_tp.skel.h"
#include "tests/lib/hub_cpu.h"
#include "tests/lib/unit_skip.h"
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_CPUS 64

static struct follower_hub_bpf *skel;
static int filter_fd = -1, accum_fd = -1, nr_cpus;
static struct hub_cpu state[MAX_CPUS];

/* What the pass ran, in order; fail_on: the CPU whose run fails (-1: none);
 * move_on_run: a run of CPU move_from moves CPU move_to's state. */
static int ran[2 * MAX_CPUS], nr_ran, fail_on = -1, move_from = -1, move_to = -1;

static void write_state(void)
{
	__u32 zero = 0;

	assert_int_equal(
		bpf_map_update_elem(bpf_map__fd(skel->maps.prev_readings), &zero, state, BPF_ANY),
		0);
}

static int record_run(void *ctx, int cpu)
{
	(void)ctx;
	ran[nr_ran++] = cpu;
	if (cpu == fail_on)
		return -EIO;
	if (cpu == move_from) {
		state[move_to].ktime++; /* a switch there between the looks */
		write_state();
	}
	return 0;
}

/* The mirror's fields where the program's BTF has them. */
static int mirror_matches(void)
{
	static const struct {
		const char *name;
		size_t off;
	} fields[] = {
		{ "ktime", offsetof(struct hub_cpu, ktime) },
		{ "switches", offsetof(struct hub_cpu, switches) },
		{ "seen", offsetof(struct hub_cpu, seen) },
		{ "held_id", offsetof(struct hub_cpu, held_id) },
		{ "reads_owed", offsetof(struct hub_cpu, reads_owed) },
		{ "held_slots", offsetof(struct hub_cpu, held_slots) },
		{ "syncing", offsetof(struct hub_cpu, syncing) },
	};
	const struct btf *btf = bpf_object__btf(skel->obj);
	int id = btf ? btf__find_by_name_kind(btf, "prev_state", BTF_KIND_STRUCT) : -1;
	const struct btf_type *t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	size_t found = 0;

	if (!t)
		return -1;
	for (int i = 0; i < btf_vlen(t); i++) {
		const char *name = btf__name_by_offset(btf, btf_members(t)[i].name_off);

		for (size_t f = 0; f < sizeof(fields) / sizeof(fields[0]); f++)
			if (!strcmp(name, fields[f].name) &&
			    btf_member_bit_offset(t, i) == fields[f].off * 8)
				found++;
	}
	return found == sizeof(fields) / sizeof(fields[0]) ? 0 : -1;
}

static int group_setup(void **unused)
{
	struct bpf_map_info mi = { 0 };
	__u32 len = sizeof(mi);

	(void)unused;
	nr_cpus = libbpf_num_possible_cpus();
	if (nr_cpus < 2 || nr_cpus > MAX_CPUS)
		return 0; /* each test skips */
	if (hub_session_maps(ACCUM_ARRAY, 16, 16, 2, &filter_fd, &accum_fd) < 0)
		return -1;
	skel = follower_hub_bpf__open();
	if (!skel || bpf_map__set_inner_map_fd(skel->maps.sess_filter, filter_fd) ||
	    bpf_map__set_inner_map_fd(skel->maps.sess_accum, accum_fd) ||
	    follower_hub_bpf__load(skel))
		return -1;
	if (bpf_obj_get_info_by_fd(bpf_map__fd(skel->maps.prev_readings), &mi, &len) ||
	    mi.value_size != sizeof(struct hub_cpu) || mirror_matches() < 0)
		return -1; /* the mirror above is out of date */
	return 0;
}

static int group_teardown(void **unused)
{
	(void)unused;
	follower_hub_bpf__destroy(skel);
	if (filter_fd >= 0)
		close(filter_fd);
	if (accum_fd >= 0)
		close(accum_fd);
	return 0;
}

/* Every CPU idle since ktime 1000, holding nothing; the pass's record clear. */
static void all_idle(void)
{
	memset(state, 0, sizeof(state));
	for (int i = 0; i < nr_cpus; i++)
		state[i].ktime = 1000 + (__u64)i;
	nr_ran = 0;
	fail_on = move_from = move_to = -1;
}

/* One pass over cpus (nr) with the states written: what it returns. */
static int run_pass(const int *cpus, int nr, int *ret_skipped)
{
	struct sync_skip *s;
	int r;

	write_state();
	assert_int_equal(sync_skip_open(bpf_program__fd(skel->progs.on_sync), nr_cpus, &s), 0);
	r = sync_skip_run(s, cpus, nr, record_run, NULL, ret_skipped);
	sync_skip_free(s);
	return r;
}

static void every_cpu(int *cpus)
{
	for (int i = 0; i < nr_cpus; i++)
		cpus[i] = i;
}

/* The pass over every CPU: what it left out. */
static int pass(void)
{
	int cpus[MAX_CPUS], skipped = -1;

	every_cpu(cpus);
	assert_int_equal(run_pass(cpus, nr_cpus, &skipped), 0);
	return skipped;
}

static void need_cpus(void)
{
	if (!skel)
		unit_skip("needs at least 2 possible CPUs (this host has %d)", nr_cpus);
}

static void test_idle_cpus_left_out(void **unused)
{
	(void)unused;
	need_cpus();
	all_idle();
	assert_int_equal(pass(), nr_cpus);
	assert_int_equal(nr_ran, 0);
}

static void test_running_task_synced(void **unused)
{
	(void)unused;
	need_cpus();
	all_idle();
	state[1].seen.cur_pid = 4242;
	assert_int_equal(pass(), nr_cpus - 1);
	assert_int_equal(nr_ran, 1);
	assert_int_equal(ran[0], 1);
}

static void test_counted_charges_synced(void **unused)
{
	(void)unused;
	need_cpus();
	all_idle();
	state[1].held_id = 77;
	state[1].held_slots[CGPERF_HUB_MAX_SESSIONS - 1].nr = 1; /* the last session counts it */
	assert_int_equal(pass(), nr_cpus - 1);
	assert_int_equal(nr_ran, 1);
	assert_int_equal(ran[0], 1);
}

/* Even with reads owed to what is held: nobody counts it. (Should its
 * cgroup be added later, the sync before the filter changes runs on every
 * CPU, counter_sync: only periodic syncs use this.) */
static void test_uncounted_charges_left_out(void **unused)
{
	(void)unused;
	need_cpus();
	all_idle();
	state[1].held_id = 1; /* the root cgroup, which no session counts */
	state[1].reads_owed = 1;
	assert_int_equal(pass(), nr_cpus);
	assert_int_equal(nr_ran, 0);
}

static void test_never_run_synced(void **unused)
{
	(void)unused;
	need_cpus();
	all_idle();
	state[0].ktime = 0; /* the hub never ran there: a sync sets its readings */
	assert_int_equal(pass(), nr_cpus - 1);
	assert_int_equal(nr_ran, 1);
	assert_int_equal(ran[0], 0);
}

/* CPU 0 runs a task (synced first); while it is, a switch on CPU 1 moves
 * its state: CPU 1, idle in both looks, is synced all the same. */
static void test_moved_between_looks_synced(void **unused)
{
	(void)unused;
	need_cpus();
	all_idle();
	state[0].seen.cur_pid = 4242;
	move_from = 0;
	move_to = 1;
	assert_int_equal(pass(), nr_cpus - 2);
	assert_int_equal(nr_ran, 2);
	assert_int_equal(ran[0], 0);
	assert_int_equal(ran[1], 1);
}

static void test_failed_run_stops(void **unused)
{
	int cpus[MAX_CPUS], skipped = -5;

	(void)unused;
	need_cpus();
	all_idle();
	state[0].seen.cur_pid = 4242;
	state[1].seen.cur_pid = 4243;
	fail_on = 0;
	every_cpu(cpus);
	assert_int_equal(run_pass(cpus, nr_cpus, &skipped), -EIO);
	assert_int_equal(nr_ran, 1);
	assert_int_equal(skipped, -5); /* untouched */
}

/* CPUs the values do not cover (more than the possible ones, a number past
 * them): synced, nothing read or written past the pass's buffers. */
static void test_uncovered_cpus_synced(void **unused)
{
	int cpus[MAX_CPUS + 2], skipped = -1;

	(void)unused;
	need_cpus();
	all_idle();
	every_cpu(cpus);
	cpus[nr_cpus] = 4095;
	cpus[nr_cpus + 1] = -2;
	assert_int_equal(run_pass(cpus, nr_cpus + 2, &skipped), 0);
	assert_int_equal(skipped, nr_cpus);
	assert_int_equal(nr_ran, 2);
	assert_int_equal(ran[0], 4095);
	assert_int_equal(ran[1], -2);
}

/* The tp follower's prev_readings has no held charges: never read. */
static void test_other_layout_refused(void **unused)
{
	struct follower_tp_bpf *tp;
	struct sync_skip *s = NULL;

	(void)unused;
	need_cpus();
	tp = follower_tp_bpf__open_and_load();
	assert_non_null(tp);
	assert_int_equal(sync_skip_open(bpf_program__fd(tp->progs.on_sync), nr_cpus, &s), -EPROTO);
	assert_null(s);
	follower_tp_bpf__destroy(tp);
	sync_skip_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_idle_cpus_left_out),
		cmocka_unit_test(test_running_task_synced),
		cmocka_unit_test(test_counted_charges_synced),
		cmocka_unit_test(test_uncounted_charges_left_out),
		cmocka_unit_test(test_never_run_synced),
		cmocka_unit_test(test_moved_between_looks_synced),
		cmocka_unit_test(test_failed_run_stops),
		cmocka_unit_test(test_uncovered_cpus_synced),
		cmocka_unit_test(test_other_layout_refused),
	};

	return unit_result(cmocka_run_group_tests(tests, group_setup, group_teardown));
}
