// SPDX-License-Identifier: GPL-2.0-only
/* counter_prog_ids(): the ids of a counting session's own BPF programs,
 * which the agent must never profile. Real sessions: one loaded here (the
 * oracle: programs that did not exist before counter_open, with the
 * followers' names), pinned; the same session adopted from its pins gives
 * the same ids (the oracle: the ids the loaded session gave). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <bpf/bpf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "bpf/bpffs.h"
#include "bpf/counter.h"
#include "bpf/prog_stats.h"
#include "bpf/session_pin.h"
#include "tests/lib/rm_tree.h"
#include "tests/lib/unit_skip.h"

#define MAX_IDS 4096

/* Every program id on the host now. */
static int all_ids(uint32_t *ids)
{
	uint32_t id = 0;
	int n = 0;

	while (n < MAX_IDS && prog_stats_next_id(id, &id) == 0)
		ids[n++] = id;
	return n;
}

static bool in(const uint32_t *ids, int n, uint32_t id)
{
	for (int i = 0; i < n; i++)
		if (ids[i] == id)
			return true;
	return false;
}

static bool follower_name(const char *name)
{
	static const char *const names[] = { "on_switch",	"on_sync",	 "on_fork",
					     "on_free",		"on_new_thread", "on_switch_out",
					     "fexit_on_switch", "on_attach" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i]))
			return true;
	return false;
}

/* ids: new since before[], each a follower's program, none twice. */
static void assert_session_progs(const uint32_t *ids, int n, const uint32_t *before, int nb)
{
	struct prog_sample s;

	assert_true(n >= 2); /* a switch follower and its sync program at least */
	for (int i = 0; i < n; i++) {
		assert_false(in(before, nb, ids[i]));
		assert_int_equal(prog_stats_sample(ids[i], &s), 0);
		if (!follower_name(s.name))
			fail_msg("program %u (%s) is not one of the session's", ids[i], s.name);
		assert_false(in(ids, i, ids[i]));
	}
}

static struct counter_opts opts(struct event_spec *ev, const char *pin_dir)
{
	char err[256];

	assert_int_equal(event_parse_list("cpu-clock", ev, 1, err, sizeof(err)), 1);
	return (struct counter_opts){ .events = ev,
				      .nr_events = 1,
				      .filter = CGPERF_FILTER_CGROUP,
				      .max_slots = 4,
				      .max_keys = 4,
				      .pin_dir = pin_dir };
}

static void test_loaded(void **state)
{
	static uint32_t before[MAX_IDS];
	uint32_t ids[COUNTER_MAX_PROGS];
	struct event_spec ev[1];
	struct counter_opts o = opts(ev, NULL);
	struct counter *c;
	int nb = all_ids(before), n = -1;

	if (counter_open(&o, &c) < 0)
		unit_skip("cannot load a counting session here");
	assert_int_equal(counter_prog_ids(c, ids, &n), 0);
	assert_session_progs(ids, n, before, nb);
	counter_close(c);
}

static void test_adopted(void **state)
{
	static uint32_t before[MAX_IDS];
	uint32_t ids[COUNTER_MAX_PROGS], again[COUNTER_MAX_PROGS];
	char base[256], dir[600];
	struct event_spec ev[1];
	struct counter_opts o = opts(ev, dir);
	struct counter *c;
	int nb = all_ids(before), n = -1, n2 = -1, lock_fd;

	assert_int_equal(bpffs_prepare(base, sizeof(base)), 0);
	assert_int_equal(session_dir_open(base, "progids", dir, sizeof(dir), &lock_fd), 0);
	if (counter_open(&o, &c) < 0)
		unit_skip("cannot load a counting session here");
	assert_false(counter_adopted(c));
	assert_int_equal(counter_prog_ids(c, ids, &n), 0);
	assert_session_progs(ids, n, before, nb);
	counter_close(c); /* the pins hold it */

	assert_int_equal(counter_open(&o, &c), 0);
	assert_true(counter_adopted(c));
	assert_int_equal(counter_prog_ids(c, again, &n2), 0);
	assert_int_equal(n2, n);
	for (int i = 0; i < n; i++)
		assert_true(in(again, n2, ids[i]));
	assert_int_equal(counter_unpin(c), 0);
	counter_close(c);
	close(lock_fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_loaded),
		cmocka_unit_test(test_adopted),
	};
	char dir[64];
	int r;

	snprintf(dir, sizeof(dir), "/sys/fs/bpf/cgperf-test-progids-%d", (int)getpid());
	setenv("CGPERF_BPFFS_DIR", dir, 1);
	r = cmocka_run_group_tests(tests, NULL, NULL);
	if (rm_tree_at(AT_FDCWD, dir, true) < 0)
		fprintf(stderr, "cannot remove %s\n", dir);
	return unit_result(r);
}
