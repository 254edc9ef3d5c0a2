// SPDX-License-Identifier: GPL-2.0-only
/* cgroup/display_name.c: every branch of the one naming rule (the agent's
 * container_name column, `cgperf list`'s and `cgperf top`'s NAME), with
 * hostile bytes: names come from files anyone in a container may write. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "cgroup/display_name.h"

#define ID_A "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define UID "5f0c3c1e-8a51-4a8e-9c3a-2b7f6d1e0a42"

#define SET(field, s) snprintf(field, sizeof(field), "%s", s)

/* cg_container_name() and cg_display_name() of one cgroup. */
static void names_are(const char *path, const struct cg_identity *id, const struct cg_metadata *md,
		      const char *container, const char *display)
{
	char short_id[CG_SHORT_ID_SIZE], buf[CG_DISPLAY_NAME_SIZE];

	cg_short_id(id, short_id);
	assert_string_equal(cg_container_name(id, md, short_id), container);
	cg_display_name(path, id, md, buf, sizeof(buf));
	assert_string_equal(buf, display);
}

static void test_short_id(void **state)
{
	struct cg_identity id = { .kind = CG_KIND_CONTAINER };
	char short_id[CG_SHORT_ID_SIZE];

	SET(id.container_id, ID_A);
	cg_short_id(&id, short_id);
	assert_string_equal(short_id, "0123456789ab");
	SET(id.container_id, "abc"); /* shorter than 12: whole */
	cg_short_id(&id, short_id);
	assert_string_equal(short_id, "abc");
	id.container_id[0] = '\0';
	cg_short_id(&id, short_id);
	assert_string_equal(short_id, "");
}

static void test_containers(void **state)
{
	struct cg_identity id = { .kind = CG_KIND_CONTAINER };
	struct cg_metadata md = { 0 };

	/* Not named (yet): the short id, as `docker ps` shows it. */
	SET(id.container_id, ID_A);
	SET(id.unit, "docker-" ID_A ".scope");
	names_are("/system.slice/docker-" ID_A ".scope", &id, &md, "0123456789ab", "0123456789ab");
	/* Named: the name, before the id and the unit. */
	SET(md.container_name, "web");
	names_are("/system.slice/docker-" ID_A ".scope", &id, &md, "web", "web");
	/* A container in a pod is still called by its own name. */
	SET(md.pod_name, "web-0");
	SET(md.pod_namespace, "prod");
	names_are("/system.slice/docker-" ID_A ".scope", &id, &md, "web", "web");

	/* LXC: named by its cgroup, no id; metadata copies the same name. */
	id = (struct cg_identity){ .kind = CG_KIND_CONTAINER };
	md = (struct cg_metadata){ 0 };
	SET(id.lxc_name, "db");
	names_are("/lxc.payload.db", &id, &md, "db", "db");
	SET(md.container_name, "db");
	names_are("/lxc.payload.db", &id, &md, "db", "db");

	/* A container with neither name nor id has no container name: the
	 * display name falls through to the path. */
	id = (struct cg_identity){ .kind = CG_KIND_CONTAINER };
	md = (struct cg_metadata){ 0 };
	names_are("/kubepods/odd", &id, &md, "", "odd");
}

static void test_pods(void **state)
{
	struct cg_identity id = { .kind = CG_KIND_POD };
	struct cg_metadata md = { 0 };

	SET(id.pod_uid, UID);
	SET(md.pod_name, "web-0");
	SET(md.pod_namespace, "prod");
	names_are("/kubepods/pod" UID, &id, &md, "", "prod/web-0");
	md.pod_namespace[0] = '\0'; /* a podman pod has no namespace */
	names_are("/kubepods/pod" UID, &id, &md, "", "web-0");
	/* A namespace without a name does not name a pod. */
	SET(md.pod_namespace, "prod");
	md.pod_name[0] = '\0';
	names_are("/kubepods/pod" UID, &id, &md, "", "pod " UID);
	/* No uid either: the systemd driver's slice, else the path's end. */
	id.pod_uid[0] = '\0';
	SET(id.unit, "kubepods-pod.slice");
	names_are("/kubepods.slice/kubepods-pod.slice", &id, &md, "", "kubepods-pod.slice");
	id.unit[0] = '\0';
	names_are("/kubepods/podX", &id, &md, "", "podX");
	/* Pod names are for pods alone. */
	id = (struct cg_identity){ .kind = CG_KIND_SERVICE };
	SET(id.unit, "cron.service");
	SET(md.pod_name, "web-0");
	names_are("/system.slice/cron.service", &id, &md, "", "cron.service");
}

static void test_units_and_paths(void **state)
{
	struct cg_identity id = { .kind = CG_KIND_SERVICE };
	struct cg_metadata md = { 0 };

	/* The unit as identity unescaped it, not the path's spelling. */
	SET(id.unit, "my-app.service");
	names_are("/system.slice/my\\x2dapp.service", &id, &md, "", "my-app.service");
	id = (struct cg_identity){ .kind = CG_KIND_SLICE };
	SET(id.unit, "user.slice");
	names_are("/user.slice", &id, &md, "", "user.slice");
	id = (struct cg_identity){ .kind = CG_KIND_OTHER };
	names_are("/a/b", &id, &md, "", "b");
	names_are("/", &id, &md, "", "/"); /* the root */
	names_are("/a/", &id, &md, "", "/a/"); /* no last component */
	names_are("plain", &id, &md, "", "plain"); /* no slash at all */
}

/* Names a runtime's files gave stay with the cgroup whatever the kind (a
 * persisted record re-read under another cgroups.root): the agent's rule. */
static void test_names_stay(void **state)
{
	struct cg_identity id = { .kind = CG_KIND_OTHER };
	struct cg_metadata md = { 0 };

	SET(md.container_name, "web");
	names_are("/a/b", &id, &md, "web", "web");
}

/* Raw bytes in, raw bytes out: control characters, quotes and invalid
 * UTF-8 are every output's to escape, never cut or changed here. */
static void test_hostile_bytes(void **state)
{
	static const char evil[] = "a\nb\r\t\x1b[31m\"'\\,\xff\xfe=cmd|";
	struct cg_identity id = { .kind = CG_KIND_CONTAINER };
	struct cg_metadata md = { 0 };

	SET(id.container_id, ID_A);
	SET(md.container_name, evil);
	names_are("/docker/" ID_A, &id, &md, evil, evil);

	/* In a pod's name and namespace, and in a unit or a path. */
	id = (struct cg_identity){ .kind = CG_KIND_POD };
	md = (struct cg_metadata){ 0 };
	SET(md.pod_name, evil);
	SET(md.pod_namespace, "\x01");
	names_are("/kubepods/p", &id, &md, "", "\x01/a\nb\r\t\x1b[31m\"'\\,\xff\xfe=cmd|");
	id = (struct cg_identity){ .kind = CG_KIND_SERVICE };
	md = (struct cg_metadata){ 0 };
	SET(id.unit, evil);
	names_are("/system.slice/x", &id, &md, "", evil);
	id = (struct cg_identity){ .kind = CG_KIND_OTHER };
	names_are("/a/line\nbreak\x7f", &id, &md, "", "line\nbreak\x7f");
}

/* Names at their limit fit whole; a smaller buffer cuts, NUL-terminated. */
static void test_overlong(void **state)
{
	struct cg_identity id = { .kind = CG_KIND_POD };
	struct cg_metadata md = { 0 };
	char want[CG_DISPLAY_NAME_SIZE], buf[8];

	memset(md.pod_namespace, 'n', sizeof(md.pod_namespace) - 1);
	memset(md.pod_name, 'p', sizeof(md.pod_name) - 1);
	snprintf(want, sizeof(want), "%s/%s", md.pod_namespace, md.pod_name);
	assert_int_equal(strlen(want), 2 * (CG_NAME_MAX - 1) + 1);
	names_are("/kubepods/p", &id, &md, "", want);

	id = (struct cg_identity){ .kind = CG_KIND_CONTAINER };
	md = (struct cg_metadata){ 0 };
	memset(md.container_name, 'c', sizeof(md.container_name) - 1);
	names_are("/docker/x", &id, &md, md.container_name, md.container_name);
	cg_display_name("/docker/x", &id, &md, buf, sizeof(buf));
	assert_string_equal(buf, "ccccccc");

	/* A last path component longer than any cgroup's (255 bytes). */
	char path[1024] = "/";

	memset(path + 1, 'x', 600);
	id = (struct cg_identity){ .kind = CG_KIND_OTHER };
	md = (struct cg_metadata){ 0 };
	char got[CG_DISPLAY_NAME_SIZE];

	cg_display_name(path, &id, &md, got, sizeof(got));
	assert_int_equal(strlen(got), sizeof(got) - 1);
	assert_memory_equal(got, path + 1, sizeof(got) - 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_short_id),   cmocka_unit_test(test_containers),
		cmocka_unit_test(test_pods),	   cmocka_unit_test(test_units_and_paths),
		cmocka_unit_test(test_names_stay), cmocka_unit_test(test_hostile_bytes),
		cmocka_unit_test(test_overlong),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
