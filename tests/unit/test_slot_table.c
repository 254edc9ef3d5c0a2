// SPDX-License-Identifier: GPL-2.0-only
/* slot_table: which accumulator slots each filter key's counts go to. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <string.h>
#include "bpf/slot_table.h"

/* A stand-in for the BPF filter map: what was last published per key. */
#define MAP_MAX 64
static struct {
	uint64_t key;
	struct cgperf_slots v;
	int present;
} map[MAP_MAX];

static int publish(void *ctx, uint64_t key, const struct cgperf_slots *v)
{
	for (int i = 0; i < MAP_MAX; i++)
		if (map[i].present && map[i].key == key) {
			if (v)
				map[i].v = *v;
			else
				map[i].present = 0;
			return 0;
		}
	if (!v)
		return -ENOENT;
	for (int i = 0; i < MAP_MAX; i++)
		if (!map[i].present) {
			map[i].key = key;
			map[i].v = *v;
			map[i].present = 1;
			return 0;
		}
	return -E2BIG;
}

static const struct cgperf_slots *published(uint64_t key)
{
	for (int i = 0; i < MAP_MAX; i++)
		if (map[i].present && map[i].key == key)
			return &map[i].v;
	return NULL;
}

static int has_slot(const struct cgperf_slots *v, int slot)
{
	for (uint32_t i = 0; i < v->nr; i++)
		if ((int)v->slot[i] == slot)
			return 1;
	return 0;
}

static int setup(void **state)
{
	memset(map, 0, sizeof(map));
	return 0;
}

/* root(1) -> kubepods(10) -> pod(20) -> container(30) */
static void test_ancestors_added_in_any_order(void **state)
{
	struct slot_table *t;
	uint64_t anc_container[] = { 1, 10, 20 }, anc_pod[] = { 1, 10 };
	int s_container, s_pod;

	assert_int_equal(slot_table_new(8, publish, NULL, &t), 0);
	/* Container first: only its own slot. */
	assert_int_equal(slot_table_add(t, 30, anc_container, 3, &s_container), 0);
	assert_int_equal(published(30)->nr, 1);
	/* Then the pod: the container's list gains the pod's slot. */
	assert_int_equal(slot_table_add(t, 20, anc_pod, 2, &s_pod), 0);
	assert_int_equal(published(20)->nr, 1);
	assert_int_equal(published(30)->nr, 2);
	assert_true(has_slot(published(30), s_container));
	assert_true(has_slot(published(30), s_pod));
	/* Pod removed: the container counts only for itself again. */
	int slot;
	assert_int_equal(slot_table_remove(t, 20, &slot), 0);
	assert_int_equal(slot, s_pod);
	assert_null(published(20));
	assert_int_equal(published(30)->nr, 1);
	/* The slot stays reserved until released (final read window). */
	uint64_t other_anc[] = { 1 };
	int s_other;
	assert_int_equal(slot_table_add(t, 40, other_anc, 1, &s_other), 0);
	assert_int_not_equal(s_other, s_pod);
	slot_table_release_slot(t, s_pod);
	assert_int_equal(slot_table_count(t), 2);
	slot_table_free(t);
}

/* The bound (what a collection reads up to) follows every state change:
 * a removed slot still counts until it is released (its final read), a
 * reserved one from its reservation; releasing the highest slots brings it
 * down past every free slot below them. */
static void test_bound(void **state)
{
	struct slot_table *t;
	int s[4], got;

	assert_int_equal(slot_table_new(8, publish, NULL, &t), 0);
	assert_int_equal(slot_table_bound(t), 0);
	for (int i = 0; i < 4; i++)
		assert_int_equal(slot_table_add(t, 100 + i, NULL, 0, &s[i]), 0);
	assert_int_equal(slot_table_bound(t), 4);
	assert_int_equal(slot_table_remove(t, 101, &got), 0);
	assert_int_equal(got, s[1]);
	slot_table_release_slot(t, s[1]);
	assert_int_equal(slot_table_bound(t), 4); /* a hole below the top */
	assert_int_equal(slot_table_remove(t, 103, &got), 0);
	assert_int_equal(slot_table_bound(t), 4); /* draining: still read */
	slot_table_release_slot(t, s[3]);
	assert_int_equal(slot_table_bound(t), 3);
	assert_int_equal(slot_table_remove(t, 102, &got), 0);
	slot_table_release_slot(t, s[2]);
	assert_int_equal(slot_table_bound(t), 1); /* past the hole at s[1] */
	assert_int_equal(slot_table_reserve(t, 6), 0);
	assert_int_equal(slot_table_bound(t), 7);
	slot_table_release_slot(t, 6);
	assert_int_equal(slot_table_bound(t), 1);
	assert_int_equal(slot_table_remove(t, 100, &got), 0);
	slot_table_release_slot(t, s[0]);
	assert_int_equal(slot_table_bound(t), 0);
	slot_table_free(t);
}

static void test_errors(void **state)
{
	struct slot_table *t;
	int slot;

	assert_int_equal(slot_table_new(2, publish, NULL, &t), 0);
	int slot6;
	assert_int_equal(slot_table_add(t, 5, NULL, 0, &slot), 0);
	assert_int_equal(slot_table_add(t, 5, NULL, 0, &slot), -EEXIST);
	assert_int_equal(slot_table_add(t, 6, NULL, 0, &slot6), 0);
	assert_int_equal(slot_table_bound(t), 2);
	assert_int_equal(slot_table_add(t, 7, NULL, 0, &slot), -ENOSPC);
	assert_null(published(7));
	assert_int_equal(slot_table_remove(t, 99, &slot), -ENOENT);
	assert_int_equal(slot_table_lookup(t, 6), slot6);
	slot_table_free(t);
	slot_table_free(NULL);
}

/* More monitored levels than CGPERF_MAX_NEST: refused, nothing half-published. */
static void test_too_deep(void **state)
{
	struct slot_table *t;
	uint64_t anc[CGPERF_MAX_NEST];
	int slot;

	assert_int_equal(slot_table_new(32, publish, NULL, &t), 0);
	/* Exactly CGPERF_MAX_NEST monitored levels fit... */
	for (int i = 0; i < CGPERF_MAX_NEST; i++) {
		assert_int_equal(slot_table_add(t, 100 + i, anc, i, &slot), 0);
		anc[i] = 100 + i;
	}
	assert_int_equal(published(100 + CGPERF_MAX_NEST - 1)->nr, CGPERF_MAX_NEST);
	/* ...one more does not. */
	assert_int_equal(slot_table_add(t, 999, anc, CGPERF_MAX_NEST, &slot), -E2BIG);
	assert_null(published(999));
	assert_int_equal(slot_table_lookup(t, 999), -ENOENT);
	slot_table_free(t);
}

/* Churn: many adds and removes keep lookups right (index tombstones). */
static void test_churn(void **state)
{
	struct slot_table *t;
	int slot;

	assert_int_equal(slot_table_new(4, publish, NULL, &t), 0);
	for (uint64_t k = 1; k < 5000; k++) {
		assert_int_equal(slot_table_add(t, k, NULL, 0, &slot), 0);
		assert_int_equal(slot_table_lookup(t, k), slot);
		if (k > 2) {
			int old;
			assert_int_equal(slot_table_remove(t, k - 2, &old), 0);
			slot_table_release_slot(t, old);
			assert_int_equal(slot_table_lookup(t, k - 2), -ENOENT);
		}
	}
	assert_int_equal(slot_table_count(t), 2);
	slot_table_free(t);
}

static int reset_calls, reset_slot_seen, reset_result;
static int on_reset(void *ctx, int slot)
{
	reset_calls++;
	reset_slot_seen = slot;
	return reset_result;
}

/* Adding an ancestor that would push a monitored descendant past
 * CGPERF_MAX_NEST is refused after the ancestor's own key went live: the
 * rollback must hand the slot back to be cleared. */
static void test_rollback_resets_slot(void **state)
{
	struct slot_table *t;
	uint64_t anc[CGPERF_MAX_NEST + 1];
	int slot;

	reset_calls = 0;
	reset_result = 0;
	assert_int_equal(slot_table_new(32, publish, NULL, &t), 0);
	slot_table_set_reset(t, on_reset);
	anc[0] = 50; /* not monitored yet */
	for (int i = 1; i < CGPERF_MAX_NEST; i++) {
		assert_int_equal(slot_table_add(t, 100 + i, anc, i, &slot), 0);
		anc[i] = 100 + i;
	}
	assert_int_equal(slot_table_add(t, 999, anc, CGPERF_MAX_NEST, &slot), 0);
	assert_int_equal(published(999)->nr, CGPERF_MAX_NEST);
	assert_int_equal(slot_table_add(t, 50, NULL, 0, &slot), -E2BIG);
	assert_int_equal(reset_calls, 1);
	assert_int_equal(slot_table_lookup(t, 50), -ENOENT);
	assert_null(published(50));
	assert_int_equal(published(999)->nr, CGPERF_MAX_NEST);
	assert_true(slot_table_is_free(t, reset_slot_seen));
	/* A slot that cannot be cleared is not handed to the next owner. */
	reset_result = -EIO;
	assert_int_equal(slot_table_add(t, 50, NULL, 0, &slot), -E2BIG);
	assert_int_equal(reset_calls, 2);
	assert_false(slot_table_is_free(t, reset_slot_seen));
	assert_int_equal(slot_table_add(t, 60, NULL, 0, &slot), 0);
	assert_int_not_equal(slot, reset_slot_seen);
	slot_table_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_ancestors_added_in_any_order, setup),
		cmocka_unit_test_setup(test_bound, setup),
		cmocka_unit_test_setup(test_errors, setup),
		cmocka_unit_test_setup(test_too_deep, setup),
		cmocka_unit_test_setup(test_churn, setup),
		cmocka_unit_test_setup(test_rollback_resets_slot, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
