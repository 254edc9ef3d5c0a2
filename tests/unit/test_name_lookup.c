// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for agent/name_lookup.c: lookups done by the worker thread come
 * back through the eventfd with the names the fixture files hold, shared
 * files are parsed once for all of them, and freeing with work queued
 * neither hangs nor leaks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/name_lookup.h"

#define DOCKER_WEB "f31f384749f9115acf01fcf82f5a966b59dcc0a4cbd7c9740888c0bf32aa2bbb"
#define PODMAN_TOOLBOX "f28430de2e3880b9f1b5252b4622f6b517ef67748130d4de27352692947144cb"
#define PODMAN_RM "9bf7fedd217ed693153f9ca42bca11b55f1e22626e6ac3ad1ce58057cdbfdf72"

static char dirs[2][1024];
static struct metadata_roots roots;

static int setup(void **state)
{
	const char *src = getenv("CGPERF_SRC");

	if (!src)
		return -1;
	snprintf(dirs[0], sizeof(dirs[0]), "%s/tests/fixtures/metadata/docker", src);
	snprintf(dirs[1], sizeof(dirs[1]), "%s/tests/fixtures/metadata/podman", src);
	roots = (struct metadata_roots){
		.docker = dirs[0], .podman = dirs[1], .containerd = "", .crio = "", .pod_logs = ""
	};
	return 0;
}

struct seen {
	int n;
	char names[64][CG_NAME_MAX];
	uint64_t ids[64];
};

static void on_result(void *ctx, uint64_t id, const char *path, const struct cg_identity *ident,
		      const struct cg_metadata *meta)
{
	struct seen *s = ctx;

	assert_non_null(path);
	assert_true(ident->kind == CG_KIND_CONTAINER);
	assert_true(s->n < 64);
	s->ids[s->n] = id;
	snprintf(s->names[s->n++], CG_NAME_MAX, "%s", meta->container_name);
}

static void submit(struct name_lookup *nl, uint64_t id, const char *path)
{
	struct cg_identity ident;

	assert_int_equal(cg_identify(path, &ident), 0);
	assert_int_equal(name_lookup_submit(nl, id, path, &ident), 0);
}

static void wait_for(struct name_lookup *nl, struct seen *s, int want)
{
	for (int tries = 0; s->n < want && tries < 100; tries++) {
		struct pollfd p = { name_lookup_fd(nl), POLLIN, 0 };

		if (poll(&p, 1, 100) > 0)
			name_lookup_collect(nl, on_result, s);
	}
	assert_int_equal(s->n, want);
}

static const char *name_of(const struct seen *s, uint64_t id)
{
	for (int i = 0; i < s->n; i++)
		if (s->ids[i] == id)
			return s->names[i];
	return NULL;
}

static void test_results_arrive(void **state)
{
	struct name_lookup *nl;
	struct name_lookup_stats st;
	struct seen s = { 0 };

	assert_int_equal(name_lookup_new(&roots, &nl), 0);
	submit(nl, 1, "/system.slice/docker-" DOCKER_WEB ".scope");
	for (int i = 0; i < 10; i++) {
		submit(nl, 100 + i, "/machine.slice/libpod-" PODMAN_TOOLBOX ".scope");
		submit(nl, 200 + i, "/machine.slice/libpod-" PODMAN_RM ".scope");
	}
	submit(nl, 3,
	       "/docker/"
	       "0000000000000000000000000000000000000000000000000000000000000000");
	wait_for(nl, &s, 22);
	assert_string_equal(name_of(&s, 1), "web");
	assert_string_equal(name_of(&s, 109), "toolbox");
	assert_string_equal(name_of(&s, 205), "temp");
	assert_string_equal(name_of(&s, 3), "");
	name_lookup_get_stats(nl, &st);
	assert_int_equal(st.done, 22);
	/* the storage indexes: parsed once each for 20 lookups */
	assert_int_equal(st.cache.parses, 2);
	name_lookup_free(nl);
}

static void test_free_with_work_queued(void **state)
{
	struct name_lookup *nl;

	assert_int_equal(name_lookup_new(&roots, &nl), 0);
	for (int i = 0; i < 1000; i++)
		submit(nl, (uint64_t)i, "/machine.slice/libpod-" PODMAN_TOOLBOX ".scope");
	name_lookup_free(nl);
	name_lookup_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_results_arrive),
		cmocka_unit_test(test_free_with_work_queued),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
