// SPDX-License-Identifier: GPL-2.0-only
/* Who gets the agent's slots (agent/admission.c): classes by kind and place,
 * the oldest first within a class, the waiting set's order and counts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "agent/admission.h"

static enum adm_class class_of_path(const char *path)
{
	struct cg_identity ident;

	assert_int_equal(cg_identify_at("/", path, &ident), 0);
	return adm_class_of(&ident);
}

static void test_classes(void **state)
{
	static const char docker[] =
		"/system.slice/docker-"
		"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef.scope";
	static const char pod[] =
		"/kubepods.slice/kubepods-besteffort.slice/"
		"kubepods-besteffort-pod0a1b2c3d_0000_1111_2222_333344445555.slice";
	static const char rootless[] =
		"/user.slice/user-1000.slice/user@1000.service/user.slice/"
		"libpod-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef.scope";

	(void)state;
	assert_int_equal(class_of_path(docker), ADM_HOST_CONTAINER);
	assert_int_equal(class_of_path(pod), ADM_HOST_CONTAINER);
	assert_int_equal(class_of_path("/system.slice/cron.service"), ADM_HOST_OTHER);
	assert_int_equal(class_of_path("/system.slice"), ADM_HOST_OTHER);
	assert_int_equal(class_of_path("/tenant/x"), ADM_HOST_OTHER);
	assert_int_equal(class_of_path(rootless), ADM_DELEGATED_CONTAINER);
	assert_int_equal(
		class_of_path("/user.slice/user-1000.slice/user@1000.service/app.slice/a.scope"),
		ADM_DELEGATED_OTHER);
	/* A look-alike container below a host container is part of it. */
	{
		char nested[300];

		snprintf(nested, sizeof(nested), "%s/system.slice/docker-%064x.scope", docker, 7);
		assert_int_equal(class_of_path(nested), ADM_DELEGATED_OTHER);
	}
	assert_false(adm_delegated(ADM_HOST_OTHER));
	assert_true(adm_delegated(ADM_DELEGATED_CONTAINER));
}

static void test_order(void **state)
{
	struct adm_key old_svc = { 10, ADM_HOST_OTHER }, new_ctr = { 900, ADM_HOST_CONTAINER };
	struct adm_key older = { 5, ADM_HOST_CONTAINER };

	(void)state;
	/* Class first, then age (cgroup ids grow with creation). */
	assert_true(adm_before(new_ctr, old_svc));
	assert_false(adm_before(old_svc, new_ctr));
	assert_true(adm_before(older, new_ctr));
	assert_false(adm_before(older, older));
	/* Only a worse class gives its slot up: a holder keeps it against its own. */
	assert_true(adm_may_evict(ADM_HOST_CONTAINER, ADM_HOST_OTHER));
	assert_true(adm_may_evict(ADM_HOST_OTHER, ADM_DELEGATED_CONTAINER));
	assert_false(adm_may_evict(ADM_HOST_CONTAINER, ADM_HOST_CONTAINER));
	assert_false(adm_may_evict(ADM_DELEGATED_OTHER, ADM_HOST_OTHER));
}

static void test_need(void **state)
{
	struct adm_limits l = { .max = 4, .max_delegated = 2 };
	struct adm_use u = { .held = 3, .delegated = 2 };

	(void)state;
	assert_int_equal(adm_need(&l, &u, ADM_HOST_CONTAINER), ADM_FREE);
	/* The delegated limit binds first, whatever the free slots. */
	assert_int_equal(adm_need(&l, &u, ADM_DELEGATED_CONTAINER), ADM_FULL_DELEGATED);
	u.delegated = 1;
	assert_int_equal(adm_need(&l, &u, ADM_DELEGATED_OTHER), ADM_FREE);
	u.held = 4;
	assert_int_equal(adm_need(&l, &u, ADM_DELEGATED_OTHER), ADM_FULL);
	assert_int_equal(adm_need(&l, &u, ADM_HOST_OTHER), ADM_FULL);
}

/* Keys given in a scrambled order come out best first, whether added one by
 * one or in bulk (the initial scan) and sorted once. */
static void check_pops(struct adm_waiting *w)
{
	static const struct adm_key want[] = {
		{ 3, ADM_HOST_CONTAINER },	{ 8, ADM_HOST_CONTAINER },
		{ 1, ADM_HOST_OTHER },		{ 9, ADM_HOST_OTHER },
		{ 2, ADM_DELEGATED_CONTAINER }, { 4, ADM_DELEGATED_OTHER },
		{ 7, ADM_DELEGATED_OTHER },
	};
	struct adm_key k;

	assert_int_equal(w->nr, 7);
	assert_int_equal(adm_wait_delegated(w), 3);
	for (size_t i = 0; i < 7; i++) {
		assert_true(adm_wait_best(w, &k));
		assert_int_equal(k.id, want[i].id);
		assert_int_equal(k.cls, want[i].cls);
		assert_true(adm_wait_remove(w, k.id));
	}
	assert_false(adm_wait_best(w, &k));
	assert_int_equal(adm_wait_delegated(w), 0);
}

static const struct adm_key scrambled[] = {
	{ 7, ADM_DELEGATED_OTHER }, { 9, ADM_HOST_OTHER }, { 2, ADM_DELEGATED_CONTAINER },
	{ 8, ADM_HOST_CONTAINER },  { 1, ADM_HOST_OTHER }, { 4, ADM_DELEGATED_OTHER },
	{ 3, ADM_HOST_CONTAINER },
};

static void test_waiting_incremental(void **state)
{
	struct adm_waiting w = { 0 };
	enum adm_class cls = ADM_NR_CLASSES;

	(void)state;
	for (size_t i = 0; i < 7; i++)
		assert_int_equal(adm_wait_add(&w, scrambled[i]), 0);
	assert_int_equal(adm_wait_add(&w, (struct adm_key){ 9, ADM_HOST_CONTAINER }), -EEXIST);
	assert_true(adm_wait_find(&w, 2, &cls));
	assert_int_equal(cls, ADM_DELEGATED_CONTAINER);
	assert_false(adm_wait_find(&w, 5, &cls));
	assert_int_equal(cls, ADM_DELEGATED_CONTAINER); /* untouched */
	assert_false(adm_wait_remove(&w, 5));
	check_pops(&w);
	adm_wait_clear(&w);
	adm_wait_clear(&w);
}

static void test_waiting_bulk(void **state)
{
	struct adm_waiting w = { .bulk = true };
	struct adm_key k;

	(void)state;
	for (size_t i = 0; i < 7; i++)
		assert_int_equal(adm_wait_add(&w, scrambled[i]), 0);
	assert_int_equal(adm_wait_add(&w, scrambled[3]), -EEXIST);
	/* Nothing is handed out before the scan is done. */
	assert_false(adm_wait_best(&w, &k));
	adm_wait_sort(&w);
	assert_false(w.bulk);
	check_pops(&w);
	adm_wait_clear(&w);
}

/* Many keys: the sorted set stays sorted through adds and removes. */
static void test_waiting_many(void **state)
{
	struct adm_waiting w = { 0 };
	struct adm_key prev = { 0 }, k;
	unsigned seed = 1;
	size_t n = 0;

	(void)state;
	for (uint64_t id = 1; id <= 5000; id++) {
		seed = seed * 1103515245u + 12345u;
		k = (struct adm_key){ (id * 7919) % 5003 + 1, (enum adm_class)((seed >> 16) % 4) };
		if (adm_wait_add(&w, k) == 0)
			n++;
	}
	for (uint64_t id = 1; id <= 5003; id += 3)
		n -= adm_wait_remove(&w, id);
	assert_int_equal(w.nr, n);
	for (size_t i = 0; adm_wait_best(&w, &k); i++) {
		if (i)
			assert_true(adm_before(prev, k));
		prev = k;
		assert_true(adm_wait_remove(&w, k.id));
	}
	assert_int_equal(w.nr, 0);
	adm_wait_clear(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classes),	     cmocka_unit_test(test_order),
		cmocka_unit_test(test_need),	     cmocka_unit_test(test_waiting_incremental),
		cmocka_unit_test(test_waiting_bulk), cmocka_unit_test(test_waiting_many),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
