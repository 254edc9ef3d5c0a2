// SPDX-License-Identifier: GPL-2.0-only
/* The hub's split of an interval after a hidden switch (follower_hub.bpf.c,
 * give_to_owner), on the real program loaded into this kernel and run by
 * BPF_PROG_TEST_RUN on this process's CPU (not attached: only the test
 * moves its state). This process is the interval's owner in cgroup A (a
 * first sync makes it so), moves itself to cgroup B, and its CPU's state
 * is made to say that the task seen switched in last was another one (a
 * hidden switch) after tasks of A ran 5 ms by skipped switches. The next
 * sync must give A exactly those 5 ms of cpu-clock and B the rest of the
 * interval; without a hidden switch, all of it goes to B. No perf_event is
 * needed: cpu-clock is derived from the switch times. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "bpf/accum.h"
#include "bpf/cgperf_shared.h"
#include "bpf/hub.h"
#include "cgroup/cgroup2.h"
#include "follower_hub.skel.h"
#include "tests/lib/hub_cpu.h"
#include "tests/lib/rm_tree.h"
#include "tests/lib/unit_skip.h"
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define SKIP_NS 5000000ULL /* what A's skipped tasks ran */
#define BACK_NS 40000000ULL /* the interval starts this long before the sync */

static struct follower_hub_bpf *skel;
static int filter_fd = -1, accum_fd = -1, cpu = -1, nr_cpus;
static size_t value_size;
static char root[PATH_MAX], dir_a[PATH_MAX + 128], dir_b[PATH_MAX + 128], home[PATH_MAX + 64];
static char base[64];

static void write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static void move_self(const char *dir)
{
	char path[PATH_MAX + 32], pid[32];

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	write_file(path, pid);
}

static __u64 id_of(const char *dir)
{
	struct stat st;

	assert_int_equal(stat(dir, &st), 0);
	return st.st_ino; /* a cgroup2 directory's inode number is its id */
}

static void run_sync(void)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts, .flags = BPF_F_TEST_RUN_ON_CPU, .cpu = (__u32)cpu);

	assert_int_equal(bpf_prog_test_run_opts(bpf_program__fd(skel->progs.on_sync), &opts), 0);
}

/* This CPU's state: all CPUs' values are read, this one's changed. */
static void *state_buf;
static struct hub_cpu *my_state(void)
{
	__u32 zero = 0;

	assert_int_equal(bpf_map_lookup_elem(bpf_map__fd(skel->maps.prev_readings), &zero,
					     state_buf),
			 0);
	return (struct hub_cpu *)((char *)state_buf + (size_t)cpu * value_size);
}

static void put_state(void)
{
	__u32 zero = 0;

	assert_int_equal(
		bpf_map_update_elem(bpf_map__fd(skel->maps.prev_readings), &zero, state_buf, BPF_ANY),
		0);
}

/* cpu-clock added to slot (its sum over CPUs), and zero it. */
static __u64 take_slot(__u32 slot)
{
	/* One event: a reading per CPU (24 bytes, 8-byte aligned already). */
	struct cgperf_reading *v = calloc((size_t)nr_cpus, sizeof(*v));
	__u64 sum = 0;

	assert_non_null(v);
	assert_int_equal(bpf_map_lookup_elem(accum_fd, &slot, v), 0);
	for (int c = 0; c < nr_cpus; c++)
		sum += v[c].counter;
	memset(v, 0, (size_t)nr_cpus * sizeof(*v));
	assert_int_equal(bpf_map_update_elem(accum_fd, &slot, v, BPF_ANY), 0);
	free(v);
	return sum;
}

static __u64 now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (__u64)t.tv_sec * 1000000000ULL + (__u64)t.tv_nsec;
}

/* A first sync (owner: A), then this process in B and the interval moved
 * BACK_NS into the past; hidden: the task seen is another one, after A's
 * skipped tasks ran SKIP_NS. Returns the interval's length (at most). */
static __u64 prepare(bool hidden)
{
	struct hub_cpu *s;
	__u64 t0;

	move_self(dir_a);
	run_sync();
	run_sync(); /* the first on a CPU only sets the readings */
	take_slot(0);
	take_slot(1);
	move_self(dir_b);
	s = my_state();
	assert_int_equal(s->owner, id_of(dir_a));
	s->ktime -= BACK_NS;
	if (hidden) {
		s->seen.cur = 1; /* no task: its reads fail, it ran nothing */
		s->seen.cur_pid = 1;
		s->switches = 3;
		s->skip.ns = SKIP_NS;
	}
	t0 = now_ns();
	put_state();
	return BACK_NS + (now_ns() - t0);
}

static void test_hidden_split(void **unused)
{
	__u64 a, b, most;

	(void)unused;
	if (!skel)
		unit_skip("needs the hub program, cgroup2 and BPF_F_TEST_RUN_ON_CPU");
	most = prepare(true);
	run_sync();
	a = take_slot(0);
	b = take_slot(1);
	print_message("# hidden: A %llu ns, B %llu ns (interval <= %llu ns)\n",
		      (unsigned long long)a, (unsigned long long)b, (unsigned long long)most);
	assert_int_equal(a, SKIP_NS);
	assert_true(b >= BACK_NS - SKIP_NS);
	move_self(home);
}

static void test_seen_all_to_current(void **unused)
{
	__u64 a, b;

	(void)unused;
	if (!skel)
		unit_skip("needs the hub program, cgroup2 and BPF_F_TEST_RUN_ON_CPU");
	prepare(false);
	run_sync();
	a = take_slot(0);
	b = take_slot(1);
	print_message("# seen: A %llu ns, B %llu ns\n", (unsigned long long)a,
		      (unsigned long long)b);
	assert_int_equal(a, 0);
	assert_true(b >= BACK_NS);
	move_self(home);
}

static int setup(void **unused)
{
	const char *mnt;
	struct cgperf_slots sa = { .nr = 1, .slot = { 0 } }, sb = { .nr = 1, .slot = { 1 } };
	struct cgperf_hub_session sess = { .enabled = 1, .used = 1 };
	struct cgperf_filter_gen gen = { 0, 0 };
	cpu_set_t set;
	__u32 zero = 0;
	__u64 ia, ib;
	FILE *f;

	(void)unused;
	nr_cpus = libbpf_num_possible_cpus();
	cpu = sched_getcpu();
	if (nr_cpus <= 0 || cpu < 0 || cgroup2_root(&mnt, NULL) < 0)
		return 0;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0)
		return 0;
	/* Where this process is, to go back to. */
	f = fopen("/proc/self/cgroup", "re");
	if (!f)
		return 0;
	{
		char line[PATH_MAX];

		home[0] = '\0';
		while (fgets(line, sizeof(line), f))
			if (!strncmp(line, "0::", 3)) {
				line[strcspn(line, "\n")] = '\0';
				snprintf(home, sizeof(home), "%s%s", mnt, line + 3);
			}
		fclose(f);
	}
	if (!home[0])
		return 0;
	snprintf(root, sizeof(root), "%s", mnt);
	snprintf(base, sizeof(base), "cgperf-test-hidden-split-%d", (int)getpid());
	snprintf(dir_a, sizeof(dir_a), "%s/%s", root, base);
	if (mkdir(dir_a, 0755) < 0)
		return 0;
	snprintf(dir_b, sizeof(dir_b), "%s/%s/b", root, base);
	assert_int_equal(mkdir(dir_b, 0755), 0);
	snprintf(dir_a, sizeof(dir_a), "%s/%s/a", root, base);
	assert_int_equal(mkdir(dir_a, 0755), 0);
	ia = id_of(dir_a);
	ib = id_of(dir_b);

	if (hub_session_maps(ACCUM_ARRAY, 4, 4, 1, &filter_fd, &accum_fd) < 0)
		return -1;
	skel = follower_hub_bpf__open();
	if (!skel)
		return -1;
	skel->rodata->nr_events = 1;
	skel->rodata->clock_mask = 1;
	if (bpf_map__set_inner_map_fd(skel->maps.sess_filter, filter_fd) ||
	    bpf_map__set_inner_map_fd(skel->maps.sess_accum, accum_fd) ||
	    follower_hub_bpf__load(skel)) {
		follower_hub_bpf__destroy(skel);
		skel = NULL;
		return -1;
	}
	value_size = (bpf_map__value_size(skel->maps.prev_readings) + 7) & ~(size_t)7;
	state_buf = calloc((size_t)nr_cpus, value_size);
	assert_non_null(state_buf);
	assert_int_equal(bpf_map__value_size(skel->maps.prev_readings), sizeof(struct hub_cpu));
	assert_int_equal(bpf_map_update_elem(filter_fd, &ia, &sa, BPF_ANY), 0);
	assert_int_equal(bpf_map_update_elem(filter_fd, &ib, &sb, BPF_ANY), 0);
	assert_int_equal(bpf_map_update_elem(bpf_map__fd(skel->maps.sess_filter), &zero, &filter_fd,
					     BPF_ANY),
			 0);
	assert_int_equal(bpf_map_update_elem(bpf_map__fd(skel->maps.sess_accum), &zero, &accum_fd,
					     BPF_ANY),
			 0);
	assert_int_equal(bpf_map_update_elem(bpf_map__fd(skel->maps.sessions), &zero, &sess, BPF_ANY),
			 0);
	assert_int_equal(bpf_map_update_elem(bpf_map__fd(skel->maps.filter_gen), &zero, &gen, BPF_ANY),
			 0);
	return 0;
}

static int teardown(void **unused)
{
	(void)unused;
	if (home[0])
		move_self(home);
	if (base[0] && root[0]) {
		int dfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		if (dfd >= 0) {
			rm_tree_at(dfd, base, false);
			close(dfd);
		}
	}
	follower_hub_bpf__destroy(skel);
	free(state_buf);
	if (filter_fd >= 0)
		close(filter_fd);
	if (accum_fd >= 0)
		close(accum_fd);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hidden_split),
		cmocka_unit_test(test_seen_all_to_current),
	};

	return unit_result(cmocka_run_group_tests(tests, setup, teardown));
}
