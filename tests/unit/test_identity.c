// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for cgroup/identity.c: every layout of docs/IDENTITY.md, table
 * driven, each case checking every field of the result (so a field filled
 * by mistake fails too); the Kubernetes layouts generated for both drivers,
 * every QoS class, every runtime prefix and with and without kind's prefix;
 * odd input (bytes, lengths, near-miss ids) and a deterministic random
 * stress that checks invariants. Every case is checked three ways: at the
 * root "/", moved below a nested cgroups.root (as tests anchor their own
 * trees), and placed where a tenant could create it (inside a service, a
 * container, a user's manager), where no layout may be recognised. Pure path
 * logic: no filesystem. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup/identity.h"

#define ELEMENTSOF(a) (sizeof(a) / sizeof((a)[0]))

#define ID_A "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define ID_B "f31f384749f9115acf01fcf82f5a966b59dcc0a4cbd7c9740888c0bf32aa2bbb"
#define UID_DASH "5f0c3c1e-8a51-4a8e-9c3a-2b7f6d1e0a42"
#define UID_UNDERSCORE "5f0c3c1e_8a51_4a8e_9c3a_2b7f6d1e0a42"
#define UID_STATIC "4b3c2a1f0e9d8c7b6a5f4e3d2c1b0a99"

/* Expected identity; NULL strings stand for "". */
struct expect {
	const char *path;
	enum cg_kind kind;
	const char *runtime, *container_id, *pod_uid, *qos, *unit, *lxc_name;
	bool rootless, infrastructure, container_inner, nested;
	unsigned uid;
};

/* A test tree's root, as tests/lib anchors them with cgroups.root. */
#define TEST_ROOT "/cgperf-test-unit-42/sub tree"

static bool check_str(const char *path, const char *field, const char *got, const char *want)
{
	if (!want)
		want = "";
	if (strcmp(got, want) == 0)
		return true;
	print_error("path '%s': %s is '%s', expected '%s'\n", path, field, got, want);
	return false;
}

static bool check_bool(const char *path, const char *field, bool got, bool want)
{
	if (got == want)
		return true;
	print_error("path '%s': %s is %d, expected %d\n", path, field, got, want);
	return false;
}

/* Where a tenant (a delegated service, a container's own cgroupfs, a user
 * manager's app slice) can mkdir whatever it likes. */
static const char *const tenant_prefixes[] = {
	"/system.slice/tenant.service",
	"/system.slice/docker-"
	"f31f384749f9115acf01fcf82f5a966b59dcc0a4cbd7c9740888c0bf32aa2bbb"
	".scope",
	"/user.slice/user-1000.slice/user@1000.service/app.slice",
	"/user.slice/user-1000.slice/user@1000.service/user.slice/x",
	"/machine.slice/libpod-"
	"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	".scope",
	"/kubepods/besteffort/pod"
	"5f0c3c1e-8a51-4a8e-9c3a-2b7f6d1e0a42"
	"/"
	"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
	"/a/b/c",
};

/* A path a tenant made: never a container or pod, no ids, no names. */
static void check_borrowed(const char *root, const char *path)
{
	struct cg_identity id;

	assert_int_equal(cg_identify_at(root, path, &id), 0);
	if (id.kind == CG_KIND_CONTAINER || id.kind == CG_KIND_POD || id.container_id[0] ||
	    id.pod_uid[0] || id.lxc_name[0] || id.container_inner ||
	    (id.runtime[0] && strcmp(id.runtime, "systemd") != 0)) {
		print_error(
			"path '%s' (root '%s'): recognised as %s %s '%s' '%s' outside its place\n",
			path, root, cg_kind_name(id.kind), id.runtime, id.container_id, id.pod_uid);
		fail();
	}
}

static void check_one(const struct expect *e, const char *root, const char *path)
{
	struct cg_identity id;
	bool ok = true;

	assert_int_equal(cg_identify_at(root, path, &id), 0);
	if (id.kind != e->kind) {
		print_error("path '%s': kind is %s, expected %s\n", e->path, cg_kind_name(id.kind),
			    cg_kind_name(e->kind));
		ok = false;
	}
	ok &= check_str(e->path, "runtime", id.runtime, e->runtime);
	ok &= check_str(e->path, "container_id", id.container_id, e->container_id);
	ok &= check_str(e->path, "pod_uid", id.pod_uid, e->pod_uid);
	ok &= check_str(e->path, "qos", id.qos, e->qos);
	ok &= check_str(e->path, "unit", id.unit, e->unit);
	ok &= check_str(e->path, "lxc_name", id.lxc_name, e->lxc_name);
	ok &= check_bool(e->path, "rootless", id.rootless, e->rootless);
	ok &= check_bool(e->path, "infrastructure", id.infrastructure, e->infrastructure);
	ok &= check_bool(e->path, "container_inner", id.container_inner, e->container_inner);
	ok &= check_bool(e->path, "nested", id.nested, e->nested);
	if (id.uid != e->uid) {
		print_error("path '%s': uid is %u, expected %u\n", e->path, id.uid, e->uid);
		ok = false;
	}
	if (!ok) {
		print_error("(root '%s', path '%s')\n", root, path);
		fail();
	}
}

static void check_expect(const struct expect *e)
{
	char moved[4096];

	check_one(e, "/", e->path);
	assert_int_equal(cg_identify(e->path, &(struct cg_identity){ 0 }), 0);
	/* The same layout below a test's own root, seen with that root. */
	snprintf(moved, sizeof(moved), "%s/%s", TEST_ROOT, e->path + strspn(e->path, "/"));
	check_one(e, TEST_ROOT, moved);
	/* ... and with root "/" it is just a tenant's directory tree. */
	check_borrowed("/", moved);
	/* Below a prefix that is a container itself, "" is that container and
	 * "container" its inner cgroup: not borrowed. */
	if (e->path[strspn(e->path, "/")] == '\0' || !strcmp(e->path, "/container"))
		return;
	/* With a nested root, the host's own layouts are outside it. */
	check_borrowed(TEST_ROOT, e->path);
	for (size_t i = 0; i < ELEMENTSOF(tenant_prefixes); i++) {
		snprintf(moved, sizeof(moved), "%s/%s", tenant_prefixes[i],
			 e->path + strspn(e->path, "/"));
		check_borrowed("/", moved);
		check_borrowed(TEST_ROOT, moved);
	}
}

static void check_table(const struct expect *cases, size_t n)
{
	for (size_t i = 0; i < n; i++)
		check_expect(&cases[i]);
}

/* ---------------------------------------------------------------------------
 * Docker, CRI-O, podman, nerdctl, containerd outside Kubernetes, LXC
 * ------------------------------------------------------------------------- */

static void test_docker(void **state)
{
	static const struct expect cases[] = {
		{ .path = "/system.slice/docker-" ID_A ".scope",
		  .kind = CG_KIND_CONTAINER,
		  .runtime = "docker",
		  .container_id = ID_A,
		  .unit = "docker-" ID_A ".scope" },
		/* trailing slash, no leading slash: same thing */
		{ .path = "system.slice/docker-" ID_A ".scope/",
		  .kind = CG_KIND_CONTAINER,
		  .runtime = "docker",
		  .container_id = ID_A,
		  .unit = "docker-" ID_A ".scope" },
		/* --cgroup-parent elsewhere: not where docker puts containers,
		 * so anyone's scope (docs/IDENTITY.md) */
		{ .path = "/mygroup.slice/docker-" ID_B ".scope",
		  .kind = CG_KIND_OTHER,
		  .runtime = "systemd",
		  .unit = "docker-" ID_B ".scope" },
		/* cgroupfs driver */
		{ .path = "/docker/" ID_A,
		  .kind = CG_KIND_CONTAINER,
		  .runtime = "docker",
		  .container_id = ID_A },
		/* docker in docker: the inner daemon's containers are part of the
		 * outer container, never host containers */
		{ .path = "/system.slice/docker-" ID_A ".scope/docker/" ID_B,
		  .kind = CG_KIND_OTHER,
		  .nested = true },
		{ .path = "/system.slice/docker-" ID_A ".scope/system.slice/x.service",
		  .kind = CG_KIND_SERVICE,
		  .runtime = "systemd",
		  .unit = "x.service",
		  .nested = true },
		/* rootless (systemd driver under the user's manager) */
		{ .path = "/user.slice/user-1000.slice/user@1000.service/user.slice/docker-" ID_A
			  ".scope",
		  .kind = CG_KIND_CONTAINER,
		  .runtime = "docker",
		  .container_id = ID_A,
		  .unit = "docker-" ID_A ".scope",
		  .rootless = true,
		  .uid = 1000 },
		/* the user's app.slice is not where rootless docker puts containers */
		{ .path = "/user.slice/user-1000.slice/user@1000.service/app.slice/docker-" ID_B
			  ".scope",
		  .kind = CG_KIND_OTHER,
		  .runtime = "systemd",
		  .unit = "docker-" ID_B ".scope",
		  .rootless = true,
		  .uid = 1000 },
		/* a user manager's uid must agree with its slice, and sit in user.slice */
		{ .path = "/user.slice/user-1001.slice/user@1000.service/user.slice/docker-" ID_B
			  ".scope",
		  .kind = CG_KIND_OTHER,
		  .runtime = "systemd",
		  .unit = "docker-" ID_B ".scope" },
		{ .path = "/system.slice/user-1000.slice/user@1000.service/user.slice/docker-" ID_B
			  ".scope",
		  .kind = CG_KIND_OTHER,
		  .runtime = "systemd",
		  .unit = "docker-" ID_B ".scope" },
		/* rootless only for rootless runtimes: no rootful layout in a user's manager */
		{ .path = "/user.slice/user-1000.slice/user@1000.service/docker/" ID_B,
		  .kind = CG_KIND_OTHER,
		  .rootless = true,
		  .uid = 1000 },
		{ .path = "/user.slice/user-1000.slice/user@1000.service/kubepods/pod" UID_DASH,
		  .kind = CG_KIND_OTHER,
		  .rootless = true,
		  .uid = 1000 },
		/* the daemon itself and its helpers are services */
		{ .path = "/system.slice/docker.service",
		  .kind = CG_KIND_SERVICE,
		  .runtime = "systemd",
		  .unit = "docker.service" },
		{ .path = "/system.slice/containerd.service",
		  .kind = CG_KIND_SERVICE,
		  .runtime = "systemd",
		  .unit = "containerd.service" },
		{ .path = "/user.slice/user-1000.slice/user@1000.service/app.slice/docker.service",
		  .kind = CG_KIND_SERVICE,
		  .runtime = "systemd",
		  .unit = "docker.service",
		  .rootless = true,
		  .uid = 1000 },
		{ .path = "/system.slice/docker.socket",
		  .kind = CG_KIND_OTHER,
		  .runtime = "systemd",
		  .unit = "docker.socket",
		  .infrastructure = true },
		/* the cgroupfs parent */
		{ .path = "/docker", .kind = CG_KIND_OTHER },
	};

	check_table(cases, ELEMENTSOF(cases));
}

static void test_crio_podman_nerdctl_lxc(void **state)
{
	static const struct expect cases[] = {
		/* CRI-O outside the kubepods layout */
		{ .path = "/system.slice/crio-" ID_A ".scope",
		  .kind = CG_KIND_CONTAINER,
		  .runtime = "crio",
		  .container_id = ID_A,
		  .unit = "crio-" ID_A ".scope" },
		{ .path = "/system.slice/crio-conmon-" ID_A ".scope",
		  .kind = CG_KIND_OTHER,
		  .runtime = "crio",
		  .container_id = ID_A,
		  .unit = "crio-conmon-" ID_A ".scope",
		  .infrastructure = true },
		{ .path = "/system.slice/crio-" ID_A ".scope/container",
		  .kind = CG_KIND_CONTAINER,
		  .runtime = "crio",
		  .container_id = ID_A,
		  .unit = "crio-" ID_A ".scope",
		  .container_inner = true },
		/* CRI-O's cgroupfs manager puts containers in pods only */
		{ .path = "/crio/crio-" ID_A, .kind = CG_KIND_OTHER },
		/* containerd's CRI outside kubepods (cgroup parent chosen elsewhere) */
		{ .path = "/system.slice/cri-containerd-" ID_A ".scope",
		  .kind = CG_KIND_CONTAINER,
		  .runtime = "containerd",
		  .container_id = ID_A,
		  .unit = "cri-containerd-" ID_A ".scope" },

		/* podman rootful (machine.slice), with and without crun's inner cgroup */
		{ .path = "/machine.slice/libpod-" ID_A ".scope",
		  .kind = CG_KIND_CONTAINER,
		  .runtime = "podman",
		  .container_id = ID_A,
		  .unit = "libpod-" ID_A ".scope" },
		{ .path = "/machine.slice/libpod-" ID_A ".scope/container",
		  .kind = CG_KIND_CONTAINER,
		  .runtime = "podman",
		  .container_id = ID_A,
		  .unit = "libpod-" ID_A ".scope",
		  .container_inner = true },
		{ .path = "/machine.slice/libpod-conmon-" ID_A ".scope",
		  .kind = CG_KIND_OTHER,
		  .runtime = "podman",
		  .container_id = ID_A,
		  .unit = "libpod-conmon-" ID_A ".scope",
		  .infrastructure = true },
		/* podman pods: a slice holding the pod's containers */
		{ .path = "/machine.slice/machine-libpod_pod_" ID_B ".slice",
		  .kind = CG_KIND_POD,
		  .runtime = "podman",
		  .pod_uid = ID_B,
		  .unit = "machine-libpod_pod_" ID_B ".slice" },
		{ .path = "/machine.slice/machine-libpod_pod_" ID_B ".slice/libpod-" ID_A ".scope",
		  .kind = CG_KIND_CONTAINER,
		  .runtime = "podman",
		  .container_id = ID_A,
		  .pod_uid = ID_B,
		  .unit = "libpod-" ID_A ".scope" },
		{ .path = "/machine.slice/machine-libpod_pod_" ID_B ".slice/libpod-conmon-" ID_A
			  ".scope",
		  .kind = CG_KIND_OTHER,
		  .runtime = "podman",
		  .container_id = ID_A,
		  .pod_uid = ID_B,
		  .unit = "libpod-conmon-" ID_A ".scope",
		  .infrastructure = true },
		{ .path = "/libpod_parent/" ID_B,
		  .kind = CG_KIND_POD,
		  .runtime = "podman",
		  .pod_uid = ID_B },
		{ .path = "/libpod_parent/" ID_B "/libpod-" ID_A,
		  .kind = CG_KIND_CONTAINER,
		  .runtime = "podman",
		  .container_id = ID_A,
		  .pod_uid = ID_B },
		{ .path = "/libpod_parent/" ID_B "/other", .kind = CG_KIND_OTHER },
		{ .path = "/user.slice/user-1000.slice/user@1000.service/user.slice/user-libpod_pod_" ID_B
			  ".slice/libpod-" ID_A ".scope",
		  .kind = CG_KIND_CONTAINER,
		  .runtime = "podman",
		  .container_id = ID_A,
		  .pod_uid = ID_B,
		  .unit = "libpod-" ID_A ".scope",
		  .rootless = true,
		  .uid = 1000 },
		/* podman rootless (user.slice of the user's manager) */
		{ .path = "/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-" ID_A
			  ".scope",
		  .kind = CG_KIND_CONTAINER,
		  .runtime = "podman",
		  .container_id = ID_A,
		  .unit = "libpod-" ID_A ".scope",
		  .rootless = true,
		  .uid = 1000 },
		{ .path = "/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-" ID_A
			  ".scope/container",
		  .kind = CG_KIND_CONTAINER,
		  .runtime = "podman",
		  .container_id = ID_A,
		  .unit = "libpod-" ID_A ".scope",
		  .rootless = true,
		  .uid = 1000,
		  .container_inner = true },
		/* podman's cgroupfs manager */
		{ .path = "/libpod_parent/libpod-" ID_A,
		  .kind = CG_KIND_CONTAINER,
		  .runtime = "podman",
		  .container_id = ID_A },
		/* only one inner level; anything else below a container is not the container */
		{ .path = "/machine.slice/libpod-" ID_A ".scope/container/container",
		  .kind = CG_KIND_OTHER,
		  .nested = true },
		{ .path = "/machine.slice/libpod-" ID_A ".scope/payload",
		  .kind = CG_KIND_OTHER,
		  .nested = true },
		{ .path = "/machine.slice/libpod-" ID_A ".scope/init.scope",
		  .kind = CG_KIND_OTHER,
		  .runtime = "systemd",
		  .unit = "init.scope",
		  .infrastructure = true,
		  .nested = true },
		{ .path = "/machine.slice/libpod-" ID_A ".scope/machine.slice/libpod-" ID_B
			  ".scope",
		  .kind = CG_KIND_OTHER,
		  .runtime = "systemd",
		  .unit = "libpod-" ID_B ".scope",
		  .nested = true },
		/* "container" under something that is not a container */
		{ .path = "/system.slice/foo.service/container", .kind = CG_KIND_OTHER },
		{ .path = "/container", .kind = CG_KIND_OTHER },

		/* nerdctl */
		{ .path = "/system.slice/nerdctl-" ID_A ".scope",
		  .kind = CG_KIND_CONTAINER,
		  .runtime = "nerdctl",
		  .container_id = ID_A,
		  .unit = "nerdctl-" ID_A ".scope" },

		/* LXC: named, not numbered; its monitor is infrastructure */
		{ .path = "/lxc.payload.web1",
		  .kind = CG_KIND_CONTAINER,
		  .runtime = "lxc",
		  .lxc_name = "web1" },
		{ .path = "/lxc.payload.data.mount",
		  .kind = CG_KIND_CONTAINER,
		  .runtime = "lxc",
		  .lxc_name = "data.mount" },
		{ .path = "/lxc.payload.my container, \"quoted\"",
		  .kind = CG_KIND_CONTAINER,
		  .runtime = "lxc",
		  .lxc_name = "my container, \"quoted\"" },
		{ .path = "/lxc.monitor.web1",
		  .kind = CG_KIND_OTHER,
		  .runtime = "lxc",
		  .infrastructure = true },
		{ .path = "/lxc.pivot",
		  .kind = CG_KIND_OTHER,
		  .runtime = "lxc",
		  .infrastructure = true },
		{ .path = "/lxc.payload.", .kind = CG_KIND_OTHER },
		{ .path = "/lxc.payload.web1/system.slice/sshd.service",
		  .kind = CG_KIND_SERVICE,
		  .runtime = "systemd",
		  .unit = "sshd.service",
		  .nested = true },
		{ .path = "/system.slice/lxc.payload.web1", .kind = CG_KIND_OTHER },
	};

	check_table(cases, ELEMENTSOF(cases));
}

/* ---------------------------------------------------------------------------
 * systemd units
 * ------------------------------------------------------------------------- */

static void test_systemd_units(void **state)
{
	static const struct expect cases[] = {
		{ .path = "/", .kind = CG_KIND_OTHER },
		{ .path = "//", .kind = CG_KIND_OTHER },
		{ .path = "/system.slice",
		  .kind = CG_KIND_SLICE,
		  .runtime = "systemd",
		  .unit = "system.slice" },
		{ .path = "/system.slice/sshd.service",
		  .kind = CG_KIND_SERVICE,
		  .runtime = "systemd",
		  .unit = "sshd.service" },
		{ .path = "/system.slice/system-getty.slice/getty@tty1.service",
		  .kind = CG_KIND_SERVICE,
		  .runtime = "systemd",
		  .unit = "getty@tty1.service" },
		{ .path = "/user.slice/user-1000.slice/session-3.scope",
		  .kind = CG_KIND_OTHER,
		  .runtime = "systemd",
		  .unit = "session-3.scope" },
		/* the user's manager itself is not "under" itself */
		{ .path = "/user.slice/user-1000.slice/user@1000.service",
		  .kind = CG_KIND_SERVICE,
		  .runtime = "systemd",
		  .unit = "user@1000.service" },
		{ .path = "/user.slice/user-1000.slice/user@1000.service/app.slice/app-gnome\\x2dterminal.scope",
		  .kind = CG_KIND_OTHER,
		  .runtime = "systemd",
		  .unit = "app-gnome-terminal.scope",
		  .rootless = true,
		  .uid = 1000 },
		{ .path = "/user.slice/user-1000.slice/user@1000.service/init.scope",
		  .kind = CG_KIND_OTHER,
		  .runtime = "systemd",
		  .unit = "init.scope",
		  .infrastructure = true,
		  .rootless = true,
		  .uid = 1000 },
		{ .path = "/user.slice/user-0.slice/user@0.service/x.service",
		  .kind = CG_KIND_SERVICE,
		  .runtime = "systemd",
		  .unit = "x.service",
		  .rootless = true },
		/* leading zeros, overflow: not a uid */
		{ .path = "/user.slice/user-01000.slice/user@01000.service/x.service",
		  .kind = CG_KIND_SERVICE,
		  .runtime = "systemd",
		  .unit = "x.service" },
		{ .path = "/user.slice/user-99999999999.slice/user@99999999999.service/x.service",
		  .kind = CG_KIND_SERVICE,
		  .runtime = "systemd",
		  .unit = "x.service" },
		/* a user manager needs a numeric uid */
		{ .path = "/user.slice/user@bob.service/x.service",
		  .kind = CG_KIND_SERVICE,
		  .runtime = "systemd",
		  .unit = "x.service" },
		{ .path = "/user.slice/user@.service/x.service",
		  .kind = CG_KIND_SERVICE,
		  .runtime = "systemd",
		  .unit = "x.service" },

		/* unescaping: \x2d, any \xNN, but not \x00 nor broken escapes */
		{ .path = "/system.slice/system-foo\\x2dbar.slice",
		  .kind = CG_KIND_SLICE,
		  .runtime = "systemd",
		  .unit = "system-foo-bar.slice" },
		{ .path = "/system.slice/a\\x41\\x7e\\x2F.service",
		  .kind = CG_KIND_SERVICE,
		  .runtime = "systemd",
		  .unit = "aA~/.service" },
		{ .path = "/system.slice/nul\\x00.service",
		  .kind = CG_KIND_SERVICE,
		  .runtime = "systemd",
		  .unit = "nul\\x00.service" },
		{ .path = "/system.slice/bad\\xZZ\\x4.service",
		  .kind = CG_KIND_SERVICE,
		  .runtime = "systemd",
		  .unit = "bad\\xZZ\\x4.service" },
		{ .path = "/system.slice/end\\x2.scope",
		  .kind = CG_KIND_OTHER,
		  .runtime = "systemd",
		  .unit = "end\\x2.scope" },
		{ .path = "/system.slice/\\xe2\\x82\\xac.service",
		  .kind = CG_KIND_SERVICE,
		  .runtime = "systemd",
		  .unit = "\xe2\x82\xac.service" },

		/* infrastructure */
		{ .path = "/init.scope",
		  .kind = CG_KIND_OTHER,
		  .runtime = "systemd",
		  .unit = "init.scope",
		  .infrastructure = true },
		{ .path = "/system.slice/var-lib-docker.mount",
		  .kind = CG_KIND_OTHER,
		  .runtime = "systemd",
		  .unit = "var-lib-docker.mount",
		  .infrastructure = true },
		{ .path = "/system.slice/dbus.socket",
		  .kind = CG_KIND_OTHER,
		  .runtime = "systemd",
		  .unit = "dbus.socket",
		  .infrastructure = true },
		{ .path = "/system.slice/dev-sda2.swap",
		  .kind = CG_KIND_OTHER,
		  .runtime = "systemd",
		  .unit = "dev-sda2.swap",
		  .infrastructure = true },
		/* conmon only where a runtime puts it */
		{ .path = "/system.slice/my-conmon-thing.service",
		  .kind = CG_KIND_SERVICE,
		  .runtime = "systemd",
		  .unit = "my-conmon-thing.service" },
		{ .path = "/some-conmon-dir", .kind = CG_KIND_OTHER },

		/* a bare suffix is not a unit */
		{ .path = "/.service", .kind = CG_KIND_OTHER },
		{ .path = "/.slice", .kind = CG_KIND_OTHER },
		{ .path = "/system.slice/plain-dir", .kind = CG_KIND_OTHER },
	};

	check_table(cases, ELEMENTSOF(cases));
}

/* ---------------------------------------------------------------------------
 * Kubernetes: generated for every driver x prefix x QoS x runtime
 * ------------------------------------------------------------------------- */

struct k8s_prefix {
	const char *path; /* what sits above kubepods */
	const char *stem; /* systemd: the kubepods slice name without ".slice" */
};

/* Where kubelet's tree is recognised: the root, and kind's kubelet root
 * (cgperf in a kind node). Seen from the host, kind's node is a docker
 * container and its pods are part of it; elsewhere it is anyone's tree
 * (check_expect() also moves every case below tenant prefixes). */
static const struct k8s_prefix systemd_prefixes[] = {
	{ "", "kubepods" },
	{ "/kubelet.slice", "kubelet-kubepods" },
};

static const char *const cgroupfs_prefixes[] = { "", "/kubelet" };

static const char *const qos_classes[] = { "guaranteed", "burstable", "besteffort" };

static const struct {
	const char *prefix, *runtime;
} systemd_runtimes[] = {
	{ "cri-containerd-", "containerd" },
	{ "crio-", "crio" },
	{ "docker-", "docker" },
};

static void check_k8s(const char *path, enum cg_kind kind, const char *runtime, const char *cid,
		      const char *pod_uid, const char *qos, const char *unit, bool infra,
		      bool inner)
{
	struct expect e = {
		.path = path,
		.kind = kind,
		.runtime = runtime,
		.container_id = cid,
		.pod_uid = pod_uid,
		.qos = qos,
		.unit = unit,
		.infrastructure = infra,
		.container_inner = inner,
	};

	check_expect(&e);
}

static void check_nested(const char *path)
{
	struct expect e = { .path = path, .kind = CG_KIND_OTHER, .nested = true };

	check_expect(&e);
}

static void test_kubernetes_systemd(void **state)
{
	char kubepods[512], qos_slice[768], pod[1152], ctr[1536], path[1664], unit[256];
	size_t checked = 0;

	for (size_t p = 0; p < ELEMENTSOF(systemd_prefixes); p++) {
		const char *stem = systemd_prefixes[p].stem;

		snprintf(kubepods, sizeof(kubepods), "%s/%s.slice", systemd_prefixes[p].path, stem);
		check_k8s(kubepods, CG_KIND_SLICE, "systemd", NULL, NULL, NULL,
			  strrchr(kubepods, '/') + 1, false, false);

		for (size_t q = 0; q < ELEMENTSOF(qos_classes); q++) {
			const char *qos = qos_classes[q];
			bool guaranteed = !strcmp(qos, "guaranteed");
			char pod_stem[256];

			/* guaranteed pods sit directly under kubepods */
			if (guaranteed) {
				snprintf(qos_slice, sizeof(qos_slice), "%s", kubepods);
				snprintf(pod_stem, sizeof(pod_stem), "%s", stem);
			} else {
				snprintf(qos_slice, sizeof(qos_slice), "%s/%s-%s.slice", kubepods,
					 stem, qos);
				snprintf(pod_stem, sizeof(pod_stem), "%s-%s", stem, qos);
				check_k8s(qos_slice, CG_KIND_SLICE, "systemd", NULL, NULL, qos,
					  strrchr(qos_slice, '/') + 1, false, false);
			}

			for (int static_pod = 0; static_pod <= 1; static_pod++) {
				const char *uid = static_pod ? UID_STATIC : UID_DASH;

				snprintf(pod, sizeof(pod), "%s/%s-pod%s.slice", qos_slice, pod_stem,
					 static_pod ? UID_STATIC : UID_UNDERSCORE);
				check_k8s(pod, CG_KIND_POD, NULL, NULL, uid, qos,
					  strrchr(pod, '/') + 1, false, false);

				for (size_t r = 0; r < ELEMENTSOF(systemd_runtimes); r++) {
					snprintf(unit, sizeof(unit), "%s%s.scope",
						 systemd_runtimes[r].prefix, ID_A);
					snprintf(ctr, sizeof(ctr), "%s/%s", pod, unit);
					check_k8s(ctr, CG_KIND_CONTAINER,
						  systemd_runtimes[r].runtime, ID_A, uid, qos, unit,
						  false, false);
					snprintf(path, sizeof(path), "%s/container", ctr);
					check_k8s(path, CG_KIND_CONTAINER,
						  systemd_runtimes[r].runtime, ID_A, uid, qos, unit,
						  false, true);
					checked += 2;
				}
				/* CRI-O's conmon next to its container: infrastructure */
				snprintf(path, sizeof(path), "%s/crio-conmon-%s.scope", pod, ID_A);
				check_k8s(path, CG_KIND_OTHER, "crio", ID_A, uid, qos,
					  strrchr(path, '/') + 1, true, false);
				/* a scope of an unknown runtime in a pod is just a scope */
				snprintf(path, sizeof(path), "%s/runc-%s.scope", pod, ID_A);
				check_k8s(path, CG_KIND_OTHER, "systemd", NULL, NULL, NULL,
					  strrchr(path, '/') + 1, false, false);
				/* something below a container: part of it */
				snprintf(path, sizeof(path), "%s/cri-containerd-%s.scope/sub", pod,
					 ID_A);
				check_nested(path);
			}
		}
	}
	/* 2 prefixes x 3 QoS x 2 uid forms x 3 runtimes x (leaf + inner) */
	assert_int_equal(checked, 2 * 3 * 2 * 3 * 2);
}

static void test_kubernetes_cgroupfs(void **state)
{
	char kubepods[512], qos_dir[768], pod[1024], ctr[1280], path[1536];
	size_t checked = 0;

	for (size_t p = 0; p < ELEMENTSOF(cgroupfs_prefixes); p++) {
		snprintf(kubepods, sizeof(kubepods), "%s/kubepods", cgroupfs_prefixes[p]);
		check_k8s(kubepods, CG_KIND_OTHER, NULL, NULL, NULL, NULL, NULL, false, false);

		for (size_t q = 0; q < ELEMENTSOF(qos_classes); q++) {
			const char *qos = qos_classes[q];

			if (!strcmp(qos, "guaranteed"))
				snprintf(qos_dir, sizeof(qos_dir), "%s", kubepods);
			else {
				snprintf(qos_dir, sizeof(qos_dir), "%s/%s", kubepods, qos);
				check_k8s(qos_dir, CG_KIND_OTHER, NULL, NULL, NULL, qos, NULL,
					  false, false);
			}
			for (int static_pod = 0; static_pod <= 1; static_pod++) {
				const char *uid = static_pod ? UID_STATIC : UID_DASH;

				snprintf(pod, sizeof(pod), "%s/pod%s", qos_dir, uid);
				check_k8s(pod, CG_KIND_POD, NULL, NULL, uid, qos, NULL, false,
					  false);

				/* containerd and docker: the bare id, runtime not in the path */
				snprintf(ctr, sizeof(ctr), "%s/%s", pod, ID_A);
				check_k8s(ctr, CG_KIND_CONTAINER, NULL, ID_A, uid, qos, NULL, false,
					  false);
				snprintf(path, sizeof(path), "%s/container", ctr);
				check_k8s(path, CG_KIND_CONTAINER, NULL, ID_A, uid, qos, NULL,
					  false, true);
				/* CRI-O's cgroupfs manager */
				snprintf(ctr, sizeof(ctr), "%s/crio-%s", pod, ID_A);
				check_k8s(ctr, CG_KIND_CONTAINER, "crio", ID_A, uid, qos, NULL,
					  false, false);
				snprintf(path, sizeof(path), "%s/crio-conmon-%s", pod, ID_A);
				check_k8s(path, CG_KIND_OTHER, "crio", ID_A, uid, qos, NULL, true,
					  false);
				snprintf(path, sizeof(path), "%s/%s/x", pod, ID_A);
				check_nested(path);
				checked += 3;
			}
		}
	}
	assert_int_equal(checked, 2 * 3 * 2 * 3);
}

/* Shapes that look Kubernetes-like but are not: no pod, no container. */
static void test_kubernetes_near_misses(void **state)
{
	static const struct expect cases[] = {
		/* pod slice whose prefix does not repeat its parents' */
		{ .path = "/kubepods.slice/kubepods-burstable.slice/kubepods-besteffort-pod" UID_UNDERSCORE
			  ".slice",
		  .kind = CG_KIND_SLICE,
		  .runtime = "systemd",
		  .unit = "kubepods-besteffort-pod" UID_UNDERSCORE ".slice" },
		{ .path = "/kubepods.slice/kubepods-pod" UID_UNDERSCORE ".slice/../x",
		  .kind = CG_KIND_OTHER },
		/* dashes instead of underscores in a slice name (would be nesting) */
		{ .path = "/kubepods.slice/kubepods-pod" UID_DASH ".slice",
		  .kind = CG_KIND_SLICE,
		  .runtime = "systemd",
		  .unit = "kubepods-pod" UID_DASH ".slice" },
		/* underscores in the cgroupfs form */
		{ .path = "/kubepods/pod" UID_UNDERSCORE, .kind = CG_KIND_OTHER },
		/* uid of wrong length, uppercase, non-hex */
		{ .path = "/kubepods/pod5f0c3c1e-8a51-4a8e-9c3a-2b7f6d1e0a4",
		  .kind = CG_KIND_OTHER },
		{ .path = "/kubepods/pod5F0C3C1E-8A51-4A8E-9C3A-2B7F6D1E0A42",
		  .kind = CG_KIND_OTHER },
		{ .path = "/kubepods/pod5f0c3c1e-8a51-4a8e-9c3a-2b7f6d1e0agg",
		  .kind = CG_KIND_OTHER },
		{ .path = "/kubepods/pod4b3c2a1f0e9d8c7b6a5f4e3d2c1b0a9", .kind = CG_KIND_OTHER },
		/* unknown QoS class */
		{ .path = "/kubepods/premium/pod" UID_DASH, .kind = CG_KIND_OTHER },
		{ .path = "/kubepods.slice/kubepods-premium.slice/kubepods-premium-pod" UID_UNDERSCORE
			  ".slice",
		  .kind = CG_KIND_SLICE,
		  .runtime = "systemd",
		  .unit = "kubepods-premium-pod" UID_UNDERSCORE ".slice" },
		/* pod-shaped without kubepods above */
		{ .path = "/pod" UID_DASH "/" ID_A, .kind = CG_KIND_OTHER },
		{ .path = "/system.slice/kubepods-pod" UID_UNDERSCORE ".slice",
		  .kind = CG_KIND_SLICE,
		  .runtime = "systemd",
		  .unit = "kubepods-pod" UID_UNDERSCORE ".slice" },
		/* "xkubepods" is not kubepods */
		{ .path = "/xkubepods.slice/xkubepods-pod" UID_UNDERSCORE ".slice",
		  .kind = CG_KIND_SLICE,
		  .runtime = "systemd",
		  .unit = "xkubepods-pod" UID_UNDERSCORE ".slice" },
		/* containers with bad ids under a real pod */
		{ .path = "/kubepods/pod" UID_DASH "/" ID_A "0", .kind = CG_KIND_OTHER },
		{ .path = "/kubepods/pod" UID_DASH "/docker-" ID_A, .kind = CG_KIND_OTHER },
		{ .path = "/kubepods.slice/kubepods-pod" UID_UNDERSCORE
			  ".slice/cri-containerd-" ID_A ".scope.bak",
		  .kind = CG_KIND_OTHER },
		/* a docker scope under a broken pod slice is no container */
		{ .path = "/kubepods.slice/kubepods-podxyz.slice/docker-" ID_A ".scope",
		  .kind = CG_KIND_OTHER,
		  .runtime = "systemd",
		  .unit = "docker-" ID_A ".scope" },
		/* kubepods away from the root */
		{ .path = "/system.slice/kubepods/pod" UID_DASH, .kind = CG_KIND_OTHER },
		{ .path = "/kubelet.slice/kubepods.slice/kubepods-pod" UID_UNDERSCORE ".slice",
		  .kind = CG_KIND_SLICE,
		  .runtime = "systemd",
		  .unit = "kubepods-pod" UID_UNDERSCORE ".slice" },
	};

	check_table(cases, ELEMENTSOF(cases));
}

/* ---------------------------------------------------------------------------
 * Odd input
 * ------------------------------------------------------------------------- */

static void test_not_containers(void **state)
{
	static const struct expect cases[] = {
		/* wrong length, case, characters */
		{ .path = "/system.slice/docker-" ID_A "0.scope",
		  .kind = CG_KIND_OTHER,
		  .runtime = "systemd",
		  .unit = "docker-" ID_A "0.scope" },
		{ .path = "/system.slice/docker-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde.scope",
		  .kind = CG_KIND_OTHER,
		  .runtime = "systemd",
		  .unit = "docker-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde.scope" },
		{ .path = "/system.slice/docker-0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef.scope",
		  .kind = CG_KIND_OTHER,
		  .runtime = "systemd",
		  .unit = "docker-0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef.scope" },
		{ .path = "/system.slice/docker-0123456789abcdeg0123456789abcdef0123456789abcdef0123456789abcdef.scope",
		  .kind = CG_KIND_OTHER,
		  .runtime = "systemd",
		  .unit = "docker-0123456789abcdeg0123456789abcdef0123456789abcdef0123456789abcdef.scope" },
		{ .path = "/system.slice/docker-.scope",
		  .kind = CG_KIND_OTHER,
		  .runtime = "systemd",
		  .unit = "docker-.scope" },
		{ .path = "/system.slice/docker-" ID_A ".scope.bak", .kind = CG_KIND_OTHER },
		{ .path = "/system.slice/docker-" ID_A ".service",
		  .kind = CG_KIND_SERVICE,
		  .runtime = "systemd",
		  .unit = "docker-" ID_A ".service" },
		{ .path = "/system.slice/xdocker-" ID_A ".scope",
		  .kind = CG_KIND_OTHER,
		  .runtime = "systemd",
		  .unit = "xdocker-" ID_A ".scope" },
		{ .path = "/system.slice/docker-" ID_A " .scope",
		  .kind = CG_KIND_OTHER,
		  .runtime = "systemd",
		  .unit = "docker-" ID_A " .scope" },
		/* cgroupfs docker needs the "docker" parent and a real id */
		{ .path = "/" ID_A, .kind = CG_KIND_OTHER },
		{ .path = "/dockerx/" ID_A, .kind = CG_KIND_OTHER },
		{ .path = "/docker/" ID_A "/extra", .kind = CG_KIND_OTHER, .nested = true },
		{ .path = "/docker/web", .kind = CG_KIND_OTHER },
		/* spaces, commas, quotes, newlines, non-UTF-8 */
		{ .path = "/my slice.slice/a,b \"c\".service",
		  .kind = CG_KIND_SERVICE,
		  .runtime = "systemd",
		  .unit = "a,b \"c\".service" },
		{ .path = "/odd\n\t\x01.scope",
		  .kind = CG_KIND_OTHER,
		  .runtime = "systemd",
		  .unit = "odd\n\t\x01.scope" },
		{ .path = "/\xff\xfe\x80.slice",
		  .kind = CG_KIND_SLICE,
		  .runtime = "systemd",
		  .unit = "\xff\xfe\x80.slice" },
		{ .path = "/system.slice/docker-\xff" ID_A ".scope",
		  .kind = CG_KIND_OTHER,
		  .runtime = "systemd",
		  .unit = "docker-\xff" ID_A ".scope" },
		{ .path = "/lxc.payload.\xc3\x28,\"",
		  .kind = CG_KIND_CONTAINER,
		  .runtime = "lxc",
		  .lxc_name = "\xc3\x28,\"" },
	};

	check_table(cases, ELEMENTSOF(cases));
}

static void test_invalid_arguments(void **state)
{
	struct cg_identity id;

	memset(&id, 0x5a, sizeof(id));
	assert_int_equal(cg_identify(NULL, &id), -EINVAL);
	assert_int_equal(cg_identify("", &id), -EINVAL);
	assert_int_equal(cg_identify("/system.slice", NULL), -EINVAL);
	/* untouched on failure */
	for (size_t i = 0; i < sizeof(id); i++)
		assert_int_equal(((unsigned char *)&id)[i], 0x5a);

	assert_string_equal(cg_kind_name(CG_KIND_CONTAINER), "container");
	assert_string_equal(cg_kind_name(CG_KIND_POD), "pod");
	assert_string_equal(cg_kind_name(CG_KIND_SERVICE), "service");
	assert_string_equal(cg_kind_name(CG_KIND_SLICE), "slice");
	assert_string_equal(cg_kind_name(CG_KIND_OTHER), "other");
	assert_string_equal(cg_kind_name((enum cg_kind)42), "other");
}

static char *repeat(const char *unit, size_t times, const char *tail)
{
	size_t ulen = strlen(unit), tlen = strlen(tail);
	char *s = malloc(ulen * times + tlen + 1);

	assert_non_null(s);
	for (size_t i = 0; i < times; i++)
		memcpy(s + i * ulen, unit, ulen);
	memcpy(s + ulen * times, tail, tlen + 1);
	return s;
}

static void test_long_input(void **state)
{
	struct cg_identity id;
	char *s, *root;

	/* one 100000-byte component: a unit name is cut to fit, nothing else */
	s = repeat("a", 100000, ".service");
	assert_int_equal(cg_identify(s, &id), 0);
	assert_int_equal(id.kind, CG_KIND_SERVICE);
	assert_int_equal(strlen(id.unit), CG_NAME_MAX - 1);
	free(s);

	/* an LXC name longer than the field */
	s = repeat("x", 5000, "");
	memcpy(s, "lxc.payload.", 12);
	assert_int_equal(cg_identify(s, &id), 0);
	assert_int_equal(id.kind, CG_KIND_CONTAINER);
	assert_int_equal(strlen(id.lxc_name), CG_NAME_MAX - 1);
	free(s);

	/* 20000 levels deep, ending in a container-looking scope: not at
	 * docker's place, a plain scope */
	s = repeat("/a.slice", 20000, "/docker-" ID_A ".scope");
	assert_int_equal(cg_identify(s, &id), 0);
	assert_int_equal(id.kind, CG_KIND_OTHER);
	assert_string_equal(id.container_id, "");
	/* ... and a container when the root is that deep */
	s[strlen(s) - strlen("/docker-" ID_A ".scope")] = '\0';
	root = strdup(s);
	assert_non_null(root);
	free(s);
	s = malloc(strlen(root) + 128);
	assert_non_null(s);
	sprintf(s, "%s/system.slice/docker-%s.scope", root, ID_A);
	assert_int_equal(cg_identify_at(root, s, &id), 0);
	assert_int_equal(id.kind, CG_KIND_CONTAINER);
	assert_string_equal(id.container_id, ID_A);
	free(s);
	free(root);

	/* a user manager far above is not a user manager */
	s = repeat("/a", 5000, "/user.slice/libpod-" ID_A ".scope");
	memcpy(s, "/user@0.service", 15);
	s[15] = '/';
	assert_int_equal(cg_identify(s, &id), 0);
	assert_int_equal(id.kind, CG_KIND_OTHER);
	assert_false(id.rootless);
	free(s);

	/* a kind node deep down: nobody's pods */
	s = repeat("/x", 3000,
		   "/kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-besteffort.slice/"
		   "kubelet-kubepods-besteffort-pod" UID_UNDERSCORE ".slice/crio-" ID_A
		   ".scope/container");
	assert_int_equal(cg_identify(s, &id), 0);
	assert_int_equal(id.kind, CG_KIND_OTHER);
	assert_string_equal(id.pod_uid, "");
	assert_false(id.container_inner);
	free(s);

	/* deep below a container: still part of it */
	s = repeat("/x", 3000, "");
	root = malloc(strlen(s) + 128);
	assert_non_null(root);
	sprintf(root, "/docker/%s%s", ID_A, s);
	assert_int_equal(cg_identify(root, &id), 0);
	assert_int_equal(id.kind, CG_KIND_OTHER);
	assert_true(id.nested);
	free(root);
	free(s);

	/* slashes only */
	s = repeat("/", 100000, "");
	assert_int_equal(cg_identify(s, &id), 0);
	assert_int_equal(id.kind, CG_KIND_OTHER);
	free(s);
}

/* Whatever the input, a result is well formed: strings terminated, a
 * container has a 64-hex id or an LXC name, a pod a uid in API form. */
static void check_invariants(const char *path, const struct cg_identity *id)
{
	assert_non_null(memchr(id->runtime, '\0', sizeof(id->runtime)));
	assert_non_null(memchr(id->container_id, '\0', sizeof(id->container_id)));
	assert_non_null(memchr(id->pod_uid, '\0', sizeof(id->pod_uid)));
	assert_non_null(memchr(id->qos, '\0', sizeof(id->qos)));
	assert_non_null(memchr(id->unit, '\0', sizeof(id->unit)));
	assert_non_null(memchr(id->lxc_name, '\0', sizeof(id->lxc_name)));
	if (id->kind == CG_KIND_CONTAINER) {
		if (!strcmp(id->runtime, "lxc")) {
			assert_true(id->lxc_name[0] != '\0');
		} else {
			assert_int_equal(strlen(id->container_id), 64);
			assert_int_equal(strspn(id->container_id, "0123456789abcdef"), 64);
		}
		assert_false(id->infrastructure);
	}
	if (id->kind == CG_KIND_POD) {
		size_t n = strlen(id->pod_uid);

		assert_true(n == 36 || n == 32);
		assert_int_equal(strspn(id->pod_uid, "0123456789abcdef-"), n);
		assert_string_equal(id->container_id, "");
	}
	if (id->container_inner)
		assert_int_equal(id->kind, CG_KIND_CONTAINER);
	(void)path;
}

/* Deterministic: random bytes, and valid layouts with bytes flipped,
 * inserted or cut. */
static void test_random_input(void **state)
{
	static const char *const seeds[] = {
		"/system.slice/docker-" ID_A ".scope",
		"/docker/" ID_A,
		"/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_UNDERSCORE
		".slice/cri-containerd-" ID_A ".scope/container",
		"/kubepods/besteffort/pod" UID_DASH "/crio-" ID_A,
		"/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-" ID_A
		".scope/container",
		"/lxc.payload.web",
		"/system.slice/foo\\x2dbar.service",
	};
	unsigned seed = 12345;
	char buf[600];
	struct cg_identity id;

	for (int round = 0; round < 50000; round++) {
		size_t len;

		if (round % 2 == 0) {
			len = 1 + rand_r(&seed) % (sizeof(buf) - 1);
			for (size_t i = 0; i < len; i++) {
				/* mostly path-ish bytes, some anything */
				static const char alphabet[] =
					"/-_.\\xabcdef0123456789podkubesliceservicescope@";
				int r = rand_r(&seed);

				buf[i] = r % 4 ? alphabet[(r >> 4) % (sizeof(alphabet) - 1)]
					       : (char)(r >> 8);
				if (buf[i] == '\0')
					buf[i] = '/';
			}
		} else {
			const char *s = seeds[rand_r(&seed) % ELEMENTSOF(seeds)];
			int edits = 1 + rand_r(&seed) % 3;

			len = strlen(s);
			memcpy(buf, s, len);
			for (int e = 0; e < edits && len > 1; e++) {
				size_t at = rand_r(&seed) % len;

				switch (rand_r(&seed) % 3) {
				case 0:
					buf[at] = (char)(1 + rand_r(&seed) % 255);
					break;
				case 1:
					len = at + 1;
					break;
				default:
					if (len + 1 < sizeof(buf)) {
						memmove(buf + at + 1, buf + at, len - at);
						buf[at] = "/_-x\xff"[rand_r(&seed) % 5];
						len++;
					}
				}
			}
		}
		buf[len] = '\0';
		assert_int_equal(cg_identify(buf, &id), 0);
		check_invariants(buf, &id);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_docker),
		cmocka_unit_test(test_crio_podman_nerdctl_lxc),
		cmocka_unit_test(test_systemd_units),
		cmocka_unit_test(test_kubernetes_systemd),
		cmocka_unit_test(test_kubernetes_cgroupfs),
		cmocka_unit_test(test_kubernetes_near_misses),
		cmocka_unit_test(test_not_containers),
		cmocka_unit_test(test_invalid_arguments),
		cmocka_unit_test(test_long_input),
		cmocka_unit_test(test_random_input),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
