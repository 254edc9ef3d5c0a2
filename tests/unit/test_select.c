// SPDX-License-Identifier: GPL-2.0-only
/* Which cgroups the agent monitors: globs on path, runtime and name; depth;
 * containers only; infrastructure and podman's inner cgroup skipped. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include "cgroup/select.h"

static const char *web =
	"/system.slice/docker-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef.scope";

static bool sel(const struct cg_selector *s, const char *path, const char *name)
{
	struct cg_identity id;
	struct cg_metadata md = { 0 };

	assert_int_equal(cg_identify(path, &id), 0);
	if (name)
		strcpy(md.container_name, name);
	return cg_select(s, path, &id, &md);
}

static void test_defaults(void **state)
{
	struct cg_selector s = { 0 };

	assert_true(sel(&s, web, NULL));
	assert_true(sel(&s, "/system.slice/cron.service", NULL));
	assert_false(sel(&s, "/", NULL));
	assert_false(sel(&s, "/system.slice/var-lib-docker.mount", NULL));
	assert_false(sel(&s, "/init.scope", NULL));
	s.include_infrastructure = true;
	assert_true(sel(&s, "/init.scope", NULL));
}

static void test_patterns(void **state)
{
	const char *inc[] = { "/system.slice/**" }, *exc[] = { "name:db-*", "*.service" };
	struct cg_selector s = { .include = inc, .nr_include = 1, .exclude = exc, .nr_exclude = 2 };

	assert_true(sel(&s, web, "web-1"));
	assert_false(sel(&s, web, "db-primary")); /* excluded by name */
	assert_false(sel(&s, "/system.slice/cron.service", NULL)); /* excluded by last component */
	assert_false(sel(&s, "/user.slice/x.scope", NULL)); /* not included */

	const char *by_runtime[] = { "runtime:docker" };
	struct cg_selector r = { .include = by_runtime, .nr_include = 1 };
	assert_true(sel(&r, web, NULL));
	assert_false(sel(&r, "/system.slice/cron.service", NULL));
}

static void test_containers_only_and_depth(void **state)
{
	struct cg_selector s = { .containers_only = true };
	const char *pod = "/kubepods.slice/kubepods-besteffort.slice/"
			  "kubepods-besteffort-pod3f0a9c1e_5b7d_4e2f_9a61_2b4c8d0e6f11.slice";

	assert_true(sel(&s, web, NULL));
	assert_true(sel(&s, pod, NULL));
	assert_false(sel(&s, "/system.slice/cron.service", NULL));
	assert_false(sel(&s, "/kubepods.slice", NULL));

	struct cg_selector d = { .max_depth = 2 };
	assert_true(sel(&d, web, NULL));
	assert_false(sel(&d, pod, NULL)); /* level 3 */
}

static void test_podman_inner_once(void **state)
{
	struct cg_selector s = { 0 };
	char outer[200], inner[220];

	snprintf(outer, sizeof(outer), "/machine.slice/libpod-%064x.scope", 5);
	snprintf(inner, sizeof(inner), "%s/container", outer);
	assert_true(sel(&s, outer, NULL));
	assert_false(sel(&s, inner, NULL));
}

/* Which directories can lead to a selected cgroup (the agent watches only
 * those). */
static void test_may_match_below(void **state)
{
	const char *inc[] = { "/kubepods/**", "/system.slice/docker-*.scope", "/a/**/c" };
	const char *exc[] = { "/kubepods/besteffort/**" };
	struct cg_selector s = { .include = inc, .nr_include = 3, .exclude = exc, .nr_exclude = 1 };

	assert_true(cg_select_may_match_below(&s, "/"));
	assert_true(cg_select_may_match_below(&s, "/kubepods"));
	assert_true(cg_select_may_match_below(&s, "/kubepods/burstable/pod1"));
	assert_false(cg_select_may_match_below(&s, "/kubepods/besteffort"));
	assert_false(cg_select_may_match_below(&s, "/kubepods/besteffort/pod2"));
	assert_true(cg_select_may_match_below(&s, "/system.slice"));
	assert_false(cg_select_may_match_below(&s, web));
	assert_false(cg_select_may_match_below(&s, "/user.slice"));
	assert_false(cg_select_may_match_below(&s, "/init.scope"));
	assert_true(cg_select_may_match_below(&s, "/a"));
	assert_true(cg_select_may_match_below(&s, "/a/x/y"));
	assert_false(cg_select_may_match_below(&s, "/b"));

	/* Everything but a tenant's subtree. */
	const char *all[] = { "/**" }, *tenants[] = { "/user.slice/**" };
	s = (struct cg_selector){
		.include = all, .nr_include = 1, .exclude = tenants, .nr_exclude = 1
	};
	assert_true(cg_select_may_match_below(&s, "/"));
	assert_true(cg_select_may_match_below(&s, "/system.slice"));
	assert_false(cg_select_may_match_below(&s, "/user.slice"));
	assert_false(cg_select_may_match_below(&s, "/user.slice/user-1000.slice"));

	/* Runtime, name and name-only patterns can match at any depth; the
	 * depth limit still applies. */
	const char *anywhere[] = { "runtime:docker", "name:web", "*.scope" };
	for (int i = 0; i < 3; i++) {
		s = (struct cg_selector){ .include = &anywhere[i],
					  .nr_include = 1,
					  .max_depth = 2 };
		assert_true(cg_select_may_match_below(&s, "/user.slice"));
		assert_false(cg_select_may_match_below(&s, "/user.slice/user-1000.slice"));
	}
	s = (struct cg_selector){ 0 };
	assert_true(cg_select_may_match_below(&s, "/x/y/z"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_patterns),
		cmocka_unit_test(test_containers_only_and_depth),
		cmocka_unit_test(test_podman_inner_once),
		cmocka_unit_test(test_may_match_below),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
