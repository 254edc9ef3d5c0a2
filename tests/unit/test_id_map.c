// SPDX-License-Identifier: GPL-2.0-only
/* id_map: the map from 64-bit ids to pointers behind every id table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "util/id_map.h"

/* Values are pointers into this array: value of id i is &vals[i]. */
#define N 4096
static char vals[N];

/* Linked with --wrap=calloc: the next calloc fails while fail_calloc. */
static bool fail_calloc;
void *__real_calloc(size_t n, size_t size);
void *__wrap_calloc(size_t n, size_t size)
{
	return fail_calloc ? NULL : __real_calloc(n, size);
}

static void test_empty(void **state)
{
	struct id_map m = ID_MAP_INIT;
	size_t pos = 0;

	assert_null(id_map_find(&m, 1));
	assert_int_equal(id_map_remove(&m, 1), -ENOENT);
	assert_int_equal(id_map_replace(&m, 1, &vals[1]), -ENOENT);
	assert_false(id_map_next(&m, &pos, NULL, NULL));
	assert_int_equal(id_map_count(&m), 0);
	id_map_free(&m);
	id_map_free(&m); /* twice is fine */
	id_map_free(NULL);
}

static void test_insert_find(void **state)
{
	struct id_map m = ID_MAP_INIT;

	assert_int_equal(id_map_insert(&m, 0, &vals[0]), 0); /* id 0 is an id like any */
	assert_int_equal(id_map_insert(&m, 7, &vals[7]), 0);
	assert_int_equal(id_map_insert(&m, 7, &vals[8]), -EEXIST);
	assert_int_equal(id_map_insert(&m, 9, NULL), -EINVAL);
	assert_ptr_equal(id_map_find(&m, 0), &vals[0]);
	assert_ptr_equal(id_map_find(&m, 7), &vals[7]);
	assert_null(id_map_find(&m, 9));
	assert_int_equal(id_map_replace(&m, 7, &vals[8]), 0);
	assert_ptr_equal(id_map_find(&m, 7), &vals[8]);
	assert_int_equal(id_map_replace(&m, 7, NULL), -EINVAL);
	assert_int_equal(id_map_count(&m), 2);
	assert_int_equal(id_map_remove(&m, 0), 0);
	assert_int_equal(id_map_remove(&m, 0), -ENOENT);
	assert_null(id_map_find(&m, 0));
	assert_int_equal(id_map_count(&m), 1);
	id_map_free(&m);
	assert_null(id_map_find(&m, 7));
	assert_int_equal(id_map_count(&m), 0);
}

/* Ids whose probes start at the last slot of a 16-slot map: their run
 * wraps to the front, and removals must shift across the wrap. */
static void test_wrap(void **state)
{
	struct id_map m = ID_MAP_INIT;
	uint64_t ids[4];
	int n = 0;

	for (uint64_t id = 1; n < 4; id++)
		if ((hash_u64(id) & 15) == 15)
			ids[n++] = id;
	for (int i = 0; i < 4; i++)
		assert_int_equal(id_map_insert(&m, ids[i], &vals[i]), 0);
	assert_int_equal(m.mask, 15);
	assert_int_equal(id_map_remove(&m, ids[0]), 0);
	for (int i = 1; i < 4; i++)
		assert_ptr_equal(id_map_find(&m, ids[i]), &vals[i]);
	assert_int_equal(id_map_remove(&m, ids[2]), 0);
	assert_ptr_equal(id_map_find(&m, ids[1]), &vals[1]);
	assert_ptr_equal(id_map_find(&m, ids[3]), &vals[3]);
	assert_null(id_map_find(&m, ids[2]));
	id_map_free(&m);
}

/* An id with home slot h in a 16-slot map, not in used[0..n). */
static uint64_t id_at(unsigned h, const uint64_t *used, int n)
{
	for (uint64_t id = 1;; id++) {
		bool taken = false;

		for (int i = 0; i < n; i++)
			taken |= used[i] == id;
		if (!taken && (hash_u64(id) & 15) == h)
			return id;
	}
}

/* Entries after a wrap that must stay: x (home 14, slot 14), y (home 15,
 * slot 15), z (home 15, slot 0), w (home 0, slot 1). Removing x: none of
 * them may move back into slot 14 (before its home: unreachable); removing
 * y: z and w move back (to 15 and 0). A shift rule wrong across the wrap
 * loses an entry here. */
static void test_wrap_stays(void **state)
{
	struct id_map m = ID_MAP_INIT;
	uint64_t ids[4];

	ids[0] = id_at(14, ids, 0);
	ids[1] = id_at(15, ids, 1);
	ids[2] = id_at(15, ids, 2);
	ids[3] = id_at(0, ids, 3);
	for (int i = 0; i < 4; i++)
		assert_int_equal(id_map_insert(&m, ids[i], &vals[i]), 0);
	assert_int_equal(m.mask, 15);
	assert_ptr_equal(m.slots[0].value, &vals[2]);
	assert_ptr_equal(m.slots[1].value, &vals[3]);
	assert_int_equal(id_map_remove(&m, ids[0]), 0);
	assert_null(m.slots[14].value);
	for (int i = 1; i < 4; i++)
		assert_ptr_equal(id_map_find(&m, ids[i]), &vals[i]);
	assert_int_equal(id_map_remove(&m, ids[1]), 0);
	assert_ptr_equal(m.slots[15].value, &vals[2]);
	assert_ptr_equal(m.slots[0].value, &vals[3]);
	assert_null(m.slots[1].value);
	assert_ptr_equal(id_map_find(&m, ids[2]), &vals[2]);
	assert_ptr_equal(id_map_find(&m, ids[3]), &vals[3]);
	id_map_free(&m);
}

/* A burst gone: the slots shrink with the entries, the rest still found. */
static void test_shrink(void **state)
{
	struct id_map m = ID_MAP_INIT;
	size_t grown;

	for (int i = 0; i < 1000; i++)
		assert_int_equal(id_map_insert(&m, (uint64_t)i, &vals[i]), 0);
	grown = m.mask + 1;
	for (int i = 10; i < 1000; i++)
		assert_int_equal(id_map_remove(&m, (uint64_t)i), 0);
	assert_true(m.mask + 1 <= grown / 16);
	for (int i = 0; i < 1000; i++)
		assert_ptr_equal(id_map_find(&m, (uint64_t)i), i < 10 ? &vals[i] : NULL);
	id_map_free(&m);
}

/* Random inserts and removals against a plain array: every id is found
 * (or not) as the array says, the walk visits each entry once. */
static void test_churn(void **state)
{
	struct id_map m = ID_MAP_INIT;
	static bool in[N], seen[N];
	size_t nr = 0, pos = 0, walked = 0;
	uint64_t id;
	void *v;

	srand(42);
	for (int step = 0; step < 200000; step++) {
		int i = rand() % N;

		if (in[i]) {
			assert_int_equal(id_map_remove(&m, (uint64_t)i), 0);
			nr--;
		} else {
			assert_int_equal(id_map_insert(&m, (uint64_t)i, &vals[i]), 0);
			nr++;
		}
		in[i] = !in[i];
		if (step % 997 == 0)
			for (int k = 0; k < N; k++)
				assert_ptr_equal(id_map_find(&m, (uint64_t)k),
						 in[k] ? &vals[k] : NULL);
	}
	assert_int_equal(id_map_count(&m), nr);
	while (id_map_next(&m, &pos, &id, &v)) {
		assert_true(id < N && in[id] && !seen[id]);
		assert_ptr_equal(v, &vals[id]);
		seen[id] = true;
		walked++;
	}
	assert_int_equal(walked, nr);
	id_map_free(&m);
}

/* After a reserve, inserts up to it do not move the slots (cannot fail). */
static void test_reserve(void **state)
{
	struct id_map m = ID_MAP_INIT;
	const struct id_map_slot *slots;

	assert_int_equal(id_map_reserve(&m, 1000), 0);
	slots = m.slots;
	for (int i = 0; i < 1000; i++)
		assert_int_equal(id_map_insert(&m, (uint64_t)i << 32, &vals[i]), 0);
	assert_ptr_equal(m.slots, slots);
	assert_int_equal(id_map_reserve(&m, 10), 0); /* a reserve never shrinks */
	assert_ptr_equal(m.slots, slots);
	for (int i = 0; i < 1000; i++)
		assert_ptr_equal(id_map_find(&m, (uint64_t)i << 32), &vals[i]);
	id_map_free(&m);
}

/* Out of memory: an insert that would grow the map fails with -ENOMEM and
 * leaves the map as it was; a removal whose shrink cannot get memory still
 * removes (the map keeps its slots). */
static void test_no_memory(void **state)
{
	struct id_map m = ID_MAP_INIT;
	const struct id_map_slot *slots;
	int n;

	(void)state;
	fail_calloc = true;
	assert_int_equal(id_map_insert(&m, 1, &vals[1]), -ENOMEM);
	assert_null(id_map_find(&m, 1));
	assert_int_equal(m.nr, 0);
	fail_calloc = false;
	/* Fill up to the last insert that fits without growing. */
	for (n = 0;
	     id_map_insert(&m, (uint64_t)n + 1, &vals[n]) == 0 && 2 * (m.nr + 1) <= m.mask + 1; n++)
		;
	n++;
	slots = m.slots;
	fail_calloc = true;
	assert_int_equal(id_map_insert(&m, 10000, &vals[10]), -ENOMEM);
	assert_ptr_equal(m.slots, slots);
	assert_int_equal((int)m.nr, n);
	for (int i = 0; i < n; i++)
		assert_ptr_equal(id_map_find(&m, (uint64_t)i + 1), &vals[i]);
	assert_null(id_map_find(&m, 10000));
	fail_calloc = false;
	/* Grow well past the minimum, then remove all but one with every
	 * shrink failing: each removal still takes effect. */
	for (int i = n; i < 200; i++)
		assert_int_equal(id_map_insert(&m, (uint64_t)i + 1, &vals[i]), 0);
	fail_calloc = true;
	for (int i = 1; i < 200; i++)
		assert_int_equal(id_map_remove(&m, (uint64_t)i + 1), 0);
	fail_calloc = false;
	assert_int_equal(m.nr, 1);
	assert_ptr_equal(id_map_find(&m, 1), &vals[0]);
	for (int i = 1; i < 200; i++)
		assert_null(id_map_find(&m, (uint64_t)i + 1));
	id_map_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),	   cmocka_unit_test(test_insert_find),
		cmocka_unit_test(test_wrap_stays), cmocka_unit_test(test_shrink),
		cmocka_unit_test(test_wrap),	   cmocka_unit_test(test_churn),
		cmocka_unit_test(test_reserve),	   cmocka_unit_test(test_no_memory),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
