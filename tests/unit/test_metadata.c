// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for cgroup/metadata.c against real files: the checked-in
 * fixture trees under tests/fixtures/metadata/ (one per runtime, plus
 * malformed ones; see the README there) and, for what cannot be checked in
 * sensibly (4 MiB files, FIFOs, symlinks pointing elsewhere, NUL bytes), a
 * private temporary tree built by the test. Every lookup goes through
 * cg_identify() of a real-looking cgroup path, as the agent does. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/inotify.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgroup/identity.h"
#include "cgroup/metadata.h"
#include "cgroup/metadata_parse.h"
#include "tests/lib/stuck_fs.h"
#include "tests/lib/test_files.h"
#include "tests/lib/unit_skip.h"

/* Fixture ids (sha256 of a label, so they are real 64-hex ids). */
#define DOCKER_WEB "f31f384749f9115acf01fcf82f5a966b59dcc0a4cbd7c9740888c0bf32aa2bbb"
#define DOCKER_K8S "89016fc1ebe735d5d6bfa8fa9b5c0431890483da9035da7f4031b4fd87aff831"
#define DOCKER_ODD "19b9aba0ec6922bf7f4ad2dd3dc4af723f3d863b5500da515d26bd0ec5ca37bb"
#define DOCKER_TRUNCATED "f3e85b417f69407c7b9231e58f0fbe8c28d544be1ae1478b1b58e7b799b5f218"
#define DOCKER_WRONGTYPES "8da88a3eeb860c22c0b13f0232916e8ea68a4adf63418838e8989dc85181f49f"
#define DOCKER_NOTOBJECT "405b2a6ff88b6313ce27fa98b7b6191cbef3073bcf019e67cd20cd06980c05a2"
#define DOCKER_EMPTY "d957ade709d21d967e0da0ad5ee425f7fd496d7d4db1576d1bc52882554ad462"
#define DOCKER_LONGNAME "355aecc5581bcda99d71a6abfcfb37c4097ffee641b8c9a833db7b15b3acb91f"
#define DOCKER_MISSING "0a7def1ed5f553a8398ee3c1469005244b3c1d755c5b4ca8c3415a27539437b7"
#define CONTAINERD_CRI "8b57d0ba9695035faae48b11ea615816a9fd036da4437abc64a427459008d954"
#define CONTAINERD_SANDBOX "85b013213e803c7bc39ff8937f98c8b3b8ba3ee2cf22b5c7f08dfa7dd07f0fc4"
#define CONTAINERD_NERDCTL "40823ee94a5a4342cde4b34934a507a2eee049dc74c8371db9362527314d05a5"
#define CONTAINERD_CRIOKEYS "afbeaaf337e730e3e24c016ad943fde7712e4731a3b35545eb29b7fc248a92c0"
#define CRIO_COREDNS "4957b578bd4152d51429d77e4968f87ec903dec067da2537601a038636347220"
#define CRIO_CRIKEYS "6e8d75c79702d7bd358f10bc2fcc4be66f8e62c7d89552ecc20d4553301aaac3"
#define CRIO_MALFORMED "d189afa0a5e2abb3f670d0f8b0cbac3727c1838a93f89105ac965aac02665a7a"
#define PODMAN_TOOLBOX "f28430de2e3880b9f1b5252b4622f6b517ef67748130d4de27352692947144cb"
#define PODMAN_KUBE "2604f810b933bee7d623e0068b35f709c31945512cae05a7c68c5e981747ad1c"
#define PODMAN_RM "9bf7fedd217ed693153f9ca42bca11b55f1e22626e6ac3ad1ce58057cdbfdf72"
#define PODMAN_NONE "e0a678323f62309dbc2b0ed6a83981015a151dd4ec824b41be0ca33784a1207a"
#define TMP_ID "d61be148da709700acf877f8c9ca9a555558a74fa9150829fa10bd89db451d17"

/* Pod uids: API form and the systemd driver's form. */
#define POD_WEB "5f0c3c1e-8a51-4a8e-9c3a-2b7f6d1e0a42"
#define POD_WEB_U "5f0c3c1e_8a51_4a8e_9c3a_2b7f6d1e0a42"
#define POD_API_U "0d4a7c39_1b2e_4f60_8e5d_93a1c2b4e7f8"
#define POD_DNS_U "7e6b1a2c_3d4e_45f6_8a7b_9c0d1e2f3a4b"
#define POD_STATIC "4b3c2a1f0e9d8c7b6a5f4e3d2c1b0a99"
#define POD_DECOY "11111111-2222-4333-8444-555555555555"
#define POD_NOPODPART "99999999-8888-4777-8666-555555555555"
#define POD_ABSENT "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee"

#define K8S_BURSTABLE "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod"
#define K8S_BESTEFFORT "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod"
#define K8S_GUARANTEED "/kubepods.slice/kubepods-pod"

static char fixtures[1024];
static char dirs[5][1100];
static struct metadata_roots fixture_roots;

/* ---------------------------------------------------------------------------
 * Helpers
 * ------------------------------------------------------------------------- */

static int setup_fixture_roots(void **state)
{
	const char *src = getenv("CGPERF_SRC");
	static const char *const names[] = { "docker", "containerd", "crio", "podman", "pod_logs" };
	struct stat st;

	if (!src || !*src) {
		print_error("CGPERF_SRC is not set (run through ctest)\n");
		return -1;
	}
	snprintf(fixtures, sizeof(fixtures), "%s/tests/fixtures/metadata", src);
	if (stat(fixtures, &st) < 0 || !S_ISDIR(st.st_mode)) {
		print_error("no fixture tree at %s\n", fixtures);
		return -1;
	}
	for (int i = 0; i < 5; i++)
		snprintf(dirs[i], sizeof(dirs[i]), "%s/%s", fixtures, names[i]);
	fixture_roots = (struct metadata_roots){
		.docker = dirs[0],
		.containerd = dirs[1],
		.crio = dirs[2],
		.podman = dirs[3],
		.pod_logs = dirs[4],
	};
	return 0;
}

/* cg_identify(path) then cg_metadata_lookup() with roots. */
static void lookup(const struct metadata_roots *roots, const char *path, struct cg_identity *ret_id,
		   struct cg_metadata *ret_md)
{
	struct cg_identity id;

	assert_int_equal(cg_identify(path, &id), 0);
	/* garbage first: the lookup must set every field */
	memset(ret_md, 0x5a, sizeof(*ret_md));
	assert_int_equal(cg_metadata_lookup(roots, &id, ret_md), 0);
	if (ret_id)
		*ret_id = id;
}

struct want {
	const char *name, *image, *pod, *ns, *runtime; /* NULL: "" */
};

static void check_md(const char *path, const struct cg_metadata *md, struct want w)
{
	const struct {
		const char *field, *got, *want;
	} f[] = {
		{ "container_name", md->container_name, w.name },
		{ "image", md->image, w.image },
		{ "pod_name", md->pod_name, w.pod },
		{ "pod_namespace", md->pod_namespace, w.ns },
		{ "runtime", md->runtime, w.runtime },
	};
	bool ok = true;

	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		const char *want = f[i].want ? f[i].want : "";

		if (strcmp(f[i].got, want) != 0) {
			print_error("%s: %s is '%s', expected '%s'\n", path, f[i].field, f[i].got,
				    want);
			ok = false;
		}
	}
	if (!ok)
		fail();
}

static void expect(const struct metadata_roots *roots, const char *path, struct want w)
{
	struct cg_metadata md;

	lookup(roots, path, NULL, &md);
	check_md(path, &md, w);
}

/* ---------------------------------------------------------------------------
 * One test per runtime, on the fixtures
 * ------------------------------------------------------------------------- */

static void test_docker(void **state)
{
	const struct metadata_roots *r = &fixture_roots;

	expect(r, "/system.slice/docker-" DOCKER_WEB ".scope",
	       (struct want){ "web", "nginx:1.25", .runtime = "docker" });
	expect(r, "/docker/" DOCKER_WEB, (struct want){ "web", "nginx:1.25", .runtime = "docker" });
	/* a rootless look-alike of a host container: the host's files do not
	 * name it (test_rootless) */
	expect(r,
	       "/user.slice/user-1000.slice/user@1000.service/user.slice/docker-" DOCKER_WEB
	       ".scope",
	       (struct want){ 0 });
	/* Docker as the Kubernetes runtime: the labels name the container and
	 * pod, not the generated k8s_... Docker name */
	expect(r, K8S_BURSTABLE POD_API_U ".slice/docker-" DOCKER_K8S ".scope",
	       (struct want){ "app", "registry.example.com/shop/api:2.1", "api-7d9f5c", "shop",
			      "docker" });
	/* not there: nothing, and no runtime claimed */
	expect(r, "/system.slice/docker-" DOCKER_MISSING ".scope", (struct want){ 0 });
}

static void test_containerd(void **state)
{
	const struct metadata_roots *r = &fixture_roots;

	/* containerd's CRI keys, found in the k8s.io namespace */
	expect(r, K8S_BURSTABLE POD_WEB_U ".slice/cri-containerd-" CONTAINERD_CRI ".scope",
	       (struct want){ "app", "docker.io/library/nginx:1.25", "web-0", "prod",
			      "containerd" });
	expect(r,
	       K8S_BURSTABLE POD_WEB_U ".slice/cri-containerd-" CONTAINERD_CRI ".scope/container",
	       (struct want){ "app", "docker.io/library/nginx:1.25", "web-0", "prod",
			      "containerd" });
	/* the pod's sandbox (pause) container: pod known, no container name */
	expect(r, K8S_BURSTABLE POD_WEB_U ".slice/cri-containerd-" CONTAINERD_SANDBOX ".scope",
	       (struct want){ .pod = "web-0", .ns = "prod", .runtime = "containerd" });
	/* CRI-O's keys in a containerd bundle, in another namespace */
	expect(r, K8S_GUARANTEED POD_WEB_U ".slice/cri-containerd-" CONTAINERD_CRIOKEYS ".scope",
	       (struct want){ "sidecar", .pod = "web-1", .ns = "staging",
			      .runtime = "containerd" });
	/* nerdctl: containerd's default namespace, nerdctl/name */
	expect(r, "/system.slice/nerdctl-" CONTAINERD_NERDCTL ".scope",
	       (struct want){ "db", .runtime = "nerdctl" });
	/* an id in no namespace */
	expect(r, "/system.slice/cri-containerd-" DOCKER_MISSING ".scope", (struct want){ 0 });
}

/* The allow-listed runtime labels (outputs.prometheus.container_labels):
 * Docker's Config.Labels, an OCI bundle's annotations, the Kubernetes keys
 * from the names where the runtime spells them otherwise; nothing else. */
static void test_labels(void **state)
{
	struct metadata_roots r = fixture_roots;
	static const char *const keys[] = { "com.docker.compose.service", "io.kubernetes.pod.name",
					    "io.kubernetes.container.name",
					    "io.kubernetes.cri.sandbox-namespace" };
	struct cg_metadata md;

	(void)state;
	for (int i = 0; i < 4; i++)
		snprintf(r.label_keys[i], sizeof(r.label_keys[i]), "%s", keys[i]);
	r.nr_label_keys = 4;
	lookup(&r, "/system.slice/docker-" DOCKER_WEB ".scope", NULL, &md);
	assert_string_equal(md.labels[0], "web");
	assert_string_equal(md.labels[1], "");
	assert_string_equal(md.labels[2], ""); /* not a Kubernetes container */
	assert_string_equal(md.labels[3], "");
	/* Docker under Kubernetes: its labels as they are. */
	lookup(&r, K8S_BURSTABLE POD_API_U ".slice/docker-" DOCKER_K8S ".scope", NULL, &md);
	assert_string_equal(md.labels[0], "");
	assert_string_equal(md.labels[1], "api-7d9f5c");
	assert_string_equal(md.labels[2], "app");
	/* containerd's CRI annotations: read by their own key, and the
	 * Kubernetes keys from the names found. */
	lookup(&r, K8S_BURSTABLE POD_WEB_U ".slice/cri-containerd-" CONTAINERD_CRI ".scope", NULL,
	       &md);
	assert_string_equal(md.labels[0], "");
	assert_string_equal(md.labels[1], "web-0");
	assert_string_equal(md.labels[2], "app");
	assert_string_equal(md.labels[3], "prod");
	/* No keys asked for: nothing read. */
	r.nr_label_keys = 0;
	lookup(&r, "/system.slice/docker-" DOCKER_WEB ".scope", NULL, &md);
	for (int i = 0; i < METADATA_MAX_LABELS; i++)
		assert_string_equal(md.labels[i], "");
	/* A value longer than a label holds is cut, never inside a character. */
	r.nr_label_keys = 1;
	snprintf(r.label_keys[0], sizeof(r.label_keys[0]), "maintainer");
	lookup(&r, "/system.slice/docker-" DOCKER_LONGNAME ".scope", NULL, &md);
	/* "a" + 150 x "é" (2 bytes): 1 + 63 characters fit in 127 bytes. */
	assert_int_equal(strlen(md.labels[0]), 127);
	assert_int_equal(strncmp(md.labels[0], "a\xc3\xa9", 3), 0);
	assert_int_equal((unsigned char)md.labels[0][125], 0xc3);
}

static void test_crio(void **state)
{
	const struct metadata_roots *r = &fixture_roots;

	expect(r, K8S_BESTEFFORT POD_DNS_U ".slice/crio-" CRIO_COREDNS ".scope",
	       (struct want){ "coredns", "registry.k8s.io/coredns/coredns:v1.10.1",
			      "coredns-5d78c9869d-x2xkp", "kube-system", "crio" });
	expect(r, "/kubepods/besteffort/pod7e6b1a2c-3d4e-45f6-8a7b-9c0d1e2f3a4b/crio-" CRIO_COREDNS,
	       (struct want){ "coredns", "registry.k8s.io/coredns/coredns:v1.10.1",
			      "coredns-5d78c9869d-x2xkp", "kube-system", "crio" });
	/* containerd's keys in a CRI-O config */
	expect(r, "/system.slice/crio-" CRIO_CRIKEYS ".scope",
	       (struct want){ "exporter", .pod = "metrics-0", .ns = "monitoring",
			      .runtime = "crio" });
	/* malformed config.json in a known pod: the pod still named from kubelet's logs */
	expect(r, K8S_BESTEFFORT POD_DNS_U ".slice/crio-" CRIO_MALFORMED ".scope",
	       (struct want){ .pod = "coredns-5d78c9869d-x2xkp", .ns = "kube-system" });
	/* conmon is infrastructure, not a container: nothing is looked up */
	expect(r, K8S_BESTEFFORT POD_DNS_U ".slice/crio-conmon-" CRIO_COREDNS ".scope",
	       (struct want){ 0 });
}

static void test_podman(void **state)
{
	const struct metadata_roots *r = &fixture_roots;

	/* config.json has no name: containers.json has it */
	expect(r, "/machine.slice/libpod-" PODMAN_TOOLBOX ".scope",
	       (struct want){ "toolbox", "registry.fedoraproject.org/fedora-toolbox:39",
			      .runtime = "podman" });
	expect(r, "/machine.slice/libpod-" PODMAN_TOOLBOX ".scope/container",
	       (struct want){ "toolbox", "registry.fedoraproject.org/fedora-toolbox:39",
			      .runtime = "podman" });
	expect(r,
	       "/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-" PODMAN_TOOLBOX
	       ".scope/container",
	       (struct want){ 0 });
	/* kube play: annotations name it (before containers.json's name) */
	expect(r, "/machine.slice/libpod-" PODMAN_KUBE ".scope",
	       (struct want){ "redis", "docker.io/library/redis:7", "cache", "default", "podman" });
	/* --rm containers are in volatile-containers.json, without a userdata dir */
	expect(r, "/machine.slice/libpod-" PODMAN_RM ".scope",
	       (struct want){ "temp", "docker.io/library/alpine:3.19", .runtime = "podman" });
	expect(r, "/machine.slice/libpod-" PODMAN_NONE ".scope", (struct want){ 0 });
}

static void test_lxc_and_non_containers(void **state)
{
	const struct metadata_roots *r = &fixture_roots;

	expect(r, "/lxc.payload.web1", (struct want){ "web1", .runtime = "lxc" });
	expect(r, "/lxc.payload.a b,\"c\"\n", (struct want){ "a b,\"c\"\n", .runtime = "lxc" });
	/* services, slices, scopes, infrastructure: nothing to look up */
	expect(r, "/system.slice/docker.service", (struct want){ 0 });
	expect(r, "/system.slice", (struct want){ 0 });
	expect(r, "/machine.slice/libpod-conmon-" PODMAN_TOOLBOX ".scope", (struct want){ 0 });
	expect(r, "/", (struct want){ 0 });
}

/* Kubernetes' cgroupfs driver does not say which runtime: every runtime's
 * files are tried and the one that knows the id is reported. */
static void test_runtime_unknown(void **state)
{
	const struct metadata_roots *r = &fixture_roots;

	expect(r, "/kubepods/burstable/pod" POD_WEB "/" CONTAINERD_CRI,
	       (struct want){ "app", "docker.io/library/nginx:1.25", "web-0", "prod",
			      "containerd" });
	expect(r, "/kubepods/pod" POD_WEB "/" DOCKER_K8S,
	       (struct want){ "app", "registry.example.com/shop/api:2.1", "api-7d9f5c", "shop",
			      "docker" });
	expect(r, "/kubepods/besteffort/pod" POD_WEB "/" CRIO_COREDNS "/container",
	       (struct want){ "coredns", "registry.k8s.io/coredns/coredns:v1.10.1",
			      "coredns-5d78c9869d-x2xkp", "kube-system", "crio" });
	expect(r, "/kubepods/pod" POD_WEB "/" PODMAN_TOOLBOX,
	       (struct want){ "toolbox", "registry.fedoraproject.org/fedora-toolbox:39", "web-0",
			      "prod", "podman" });
	/* nobody knows it: only the pod, from kubelet's log directory */
	expect(r, "/kubepods/pod" POD_WEB "/" DOCKER_MISSING,
	       (struct want){ .pod = "web-0", .ns = "prod" });
}

static void test_pods(void **state)
{
	const struct metadata_roots *r = &fixture_roots;
	struct cg_identity id;
	struct cg_metadata md;

	lookup(r, K8S_BURSTABLE POD_WEB_U ".slice", &id, &md);
	assert_int_equal(id.kind, CG_KIND_POD);
	check_md("pod", &md, (struct want){ .pod = "web-0", .ns = "prod" });
	expect(r, "/kubepods/burstable/pod" POD_WEB, (struct want){ .pod = "web-0", .ns = "prod" });
	expect(r, "/kubelet/kubepods/pod" POD_WEB, (struct want){ .pod = "web-0", .ns = "prod" });
	/* static pod: 32-hex uid */
	expect(r, K8S_GUARANTEED POD_STATIC ".slice",
	       (struct want){ .pod = "etcd-node1", .ns = "kube-system" });
	expect(r, "/kubepods/pod" POD_DECOY, (struct want){ .pod = "decoy", .ns = "default" });
	/* "<ns>_<uid>" without a pod part, and an unknown uid: nothing */
	expect(r, "/kubepods/pod" POD_NOPODPART, (struct want){ 0 });
	expect(r, "/kubepods/pod" POD_ABSENT, (struct want){ 0 });
}

/* Checked-in malformed files: every one is ignored without failing. */
static void test_malformed_fixtures(void **state)
{
	const struct metadata_roots *r = &fixture_roots;
	char want_name[CG_NAME_MAX], want_image[CG_NAME_MAX];
	struct cg_metadata md;

	/* truncated, empty: not JSON, so not found */
	expect(r, "/docker/" DOCKER_TRUNCATED, (struct want){ 0 });
	expect(r, "/docker/" DOCKER_EMPTY, (struct want){ 0 });
	/* valid JSON of the wrong shape: the file is there, no field is usable */
	expect(r, "/docker/" DOCKER_WRONGTYPES, (struct want){ .runtime = "docker" });
	expect(r, "/docker/" DOCKER_NOTOBJECT, (struct want){ .runtime = "docker" });
	expect(r, "/system.slice/crio-" CRIO_MALFORMED ".scope", (struct want){ 0 });

	/* newlines, control characters, commas, quotes, UTF-8: stored raw */
	expect(r, "/docker/" DOCKER_ODD,
	       (struct want){ "we\nb,\"x\"\x01\xc3\xbc \xc3\xa9t\xc3\xa9",
			      "reg.example/a,b:\"q\"\ttag", .runtime = "docker" });

	/* too long: cut to 255 bytes, not inside the 2-byte e-acute at 254..255 */
	memset(want_name, 'a', 254);
	want_name[254] = '\0';
	memset(want_image, 'x', CG_NAME_MAX - 1);
	want_image[CG_NAME_MAX - 1] = '\0';
	lookup(r, "/docker/" DOCKER_LONGNAME, NULL, &md);
	check_md("longname", &md, (struct want){ want_name, want_image, .runtime = "docker" });
}

/* ---------------------------------------------------------------------------
 * Hostile files, built in a private temporary tree
 * ------------------------------------------------------------------------- */

static char tmp_root[256];

static int setup_tmp(void **state)
{
	if (setup_fixture_roots(state) < 0)
		return -1;
	snprintf(tmp_root, sizeof(tmp_root), "/tmp/cgperf-unit-metadata.XXXXXX");
	return mkdtemp(tmp_root) ? 0 : -1;
}

static int teardown_tmp(void **state)
{
	if (tmp_root[0])
		test_rmtemp(tmp_root);
	return 0;
}

/* A fresh docker root in the temp tree with containers/TMP_ID/ made;
 * returns the path of that container's config.v2.json. */
static const char *fresh_docker_root(const char *name, struct metadata_roots *ret_roots)
{
	static char root[512], file[1024];
	char dir[768];

	snprintf(root, sizeof(root), "%s/%s", tmp_root, name);
	snprintf(dir, sizeof(dir), "%s/containers", root);
	assert_int_equal(mkdir(root, 0700), 0);
	assert_int_equal(mkdir(dir, 0700), 0);
	snprintf(dir, sizeof(dir), "%s/containers/" TMP_ID, root);
	assert_int_equal(mkdir(dir, 0700), 0);
	snprintf(file, sizeof(file), "%s/config.v2.json", dir);
	*ret_roots = (struct metadata_roots){
		.docker = root, .containerd = "", .crio = "", .podman = "", .pod_logs = ""
	};
	return file;
}

/* {"Name":"/big","Config":{"Image":"img"},"Pad":"xxx...x"} of exactly size bytes. */
static void write_padded_json(const char *path, size_t size)
{
	static const char head[] = "{\"Name\":\"/big\",\"Config\":{\"Image\":\"img\"},\"Pad\":\"";
	static const char tail[] = "\"}";
	char *buf = malloc(size);

	assert_non_null(buf);
	assert_true(size > sizeof(head) + sizeof(tail));
	memcpy(buf, head, sizeof(head) - 1);
	memset(buf + sizeof(head) - 1, 'x', size - (sizeof(head) - 1) - (sizeof(tail) - 1));
	memcpy(buf + size - (sizeof(tail) - 1), tail, sizeof(tail) - 1);
	test_write_file(path, buf, size);
	free(buf);
}

/* A fresh podman root, tmp_root/name, written to root, with
 * overlay-containers/ made; ret_roots: that root only, with cache c.
 * Returns the path of its containers.json (until the next call). */
static const char *fresh_podman_index(const char *name, char root[static 512],
				      struct metadata_cache *c, struct metadata_roots *ret_roots)
{
	static char file[1024];
	char dir[768];

	snprintf(root, 512, "%s/%s", tmp_root, name);
	snprintf(dir, sizeof(dir), "%s/overlay-containers", root);
	assert_int_equal(mkdir(root, 0700), 0);
	assert_int_equal(mkdir(dir, 0700), 0);
	snprintf(file, sizeof(file), "%s/containers.json", dir);
	*ret_roots = (struct metadata_roots){ .docker = "",
					      .containerd = "",
					      .crio = "",
					      .pod_logs = "",
					      .podman = root,
					      .cache = c };
	return file;
}

/* A containers.json at path of n filler containers, then TMP_ID named name;
 * returns the bytes its index keeps (metadata_parse), what the cache is
 * charged. */
static size_t write_big_index(const char *path, size_t n, const char *name)
{
	size_t cap = n * 40 + 256, len = 0;
	struct metadata_parse_cost cost;
	struct cg_metadata md = { 0 };
	char *buf = malloc(cap);

	assert_non_null(buf);
	buf[len++] = '[';
	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(buf + len, cap - len, "{\"id\":\"%zx\",\"names\":[\"n\"]},",
					i);
	len += (size_t)snprintf(buf + len, cap - len, "{\"id\":\"%s\",\"names\":[\"%s\"]}]", TMP_ID,
				name);
	assert_true(len < cap);
	assert_int_equal(metadata_parse(METADATA_STORAGE_INDEX, buf, len, TMP_ID, NULL, &md, &cost),
			 0);
	assert_string_equal(md.container_name, name);
	test_write_file(path, buf, len);
	free(buf);
	return cost.kept;
}

static void test_size_cap(void **state)
{
	struct metadata_roots r;
	const char *file;

	file = fresh_docker_root("cap-at", &r);
	write_padded_json(file, METADATA_MAX_FILE_BYTES);
	expect(&r, "/docker/" TMP_ID, (struct want){ "big", "img", .runtime = "docker" });

	file = fresh_docker_root("cap-over", &r);
	write_padded_json(file, METADATA_MAX_FILE_BYTES + 1);
	expect(&r, "/docker/" TMP_ID, (struct want){ 0 });
}

static void test_not_regular_files(void **state)
{
	struct metadata_roots r;
	const char *file;

	/* a FIFO nobody writes to: must not block */
	file = fresh_docker_root("fifo", &r);
	assert_int_equal(mkfifo(file, 0600), 0);
	expect(&r, "/docker/" TMP_ID, (struct want){ 0 });

	/* a directory where the file should be */
	file = fresh_docker_root("dir", &r);
	assert_int_equal(mkdir(file, 0700), 0);
	expect(&r, "/docker/" TMP_ID, (struct want){ 0 });

	/* a symlink to an endless file: refused as a symlink, never read */
	file = fresh_docker_root("devzero", &r);
	assert_int_equal(symlink("/dev/zero", file), 0);
	expect(&r, "/docker/" TMP_ID, (struct want){ 0 });
}

static void test_symlinks(void **state)
{
	char target[1400], link_path[1400], real_root[1400];
	struct metadata_roots r;
	const char *file;

	snprintf(target, sizeof(target), "%s/containers/" DOCKER_WEB "/config.v2.json",
		 fixture_roots.docker);

	/* the file is a symlink to a real config elsewhere: refused */
	file = fresh_docker_root("link-file", &r);
	assert_int_equal(symlink(target, file), 0);
	expect(&r, "/docker/" TMP_ID, (struct want){ 0 });

	/* the container directory is a symlink: refused too */
	fresh_docker_root("link-dir", &r);
	snprintf(link_path, sizeof(link_path), "%s/containers/" DOCKER_WEB, r.docker);
	snprintf(target, sizeof(target), "%s/containers/" DOCKER_WEB, fixture_roots.docker);
	assert_int_equal(symlink(target, link_path), 0);
	expect(&r, "/docker/" DOCKER_WEB, (struct want){ 0 });

	/* a symlink loop */
	file = fresh_docker_root("link-loop", &r);
	assert_int_equal(symlink(file, file), 0);
	expect(&r, "/docker/" TMP_ID, (struct want){ 0 });

	/* the root itself may be a symlink (/var/lib/docker -> /data/docker) */
	snprintf(link_path, sizeof(link_path), "%s/root-link", tmp_root);
	assert_int_equal(symlink(fixture_roots.docker, link_path), 0);
	snprintf(real_root, sizeof(real_root), "%s", link_path);
	r = (struct metadata_roots){
		.docker = real_root, .containerd = "", .crio = "", .podman = "", .pod_logs = ""
	};
	expect(&r, "/docker/" DOCKER_WEB,
	       (struct want){ "web", "nginx:1.25", .runtime = "docker" });
}

static void test_odd_bytes_in_json(void **state)
{
	static const char nul_inside[] = "{\"Name\":\"/a\0b\",\"Config\":{\"Image\":\"i\"}}";
	static const char escaped_nul[] = "{\"Name\":\"/a\\u0000b\",\"Config\":{\"Image\":\"i\"}}";
	static const char bad_utf8[] = "{\"Name\":\"/\xff\xfe\x80x\",\"Config\":{\"Image\":\"i\"}}";
	static const char bad_escape[] = "{\"Name\":\"/a\\qb\",\"Config\":{\"Image\":\"i\"}}";
	struct metadata_roots r;
	struct cg_metadata md;
	const char *file;
	char *deep;

	/* a raw NUL byte inside a string: not valid JSON text, ignored */
	file = fresh_docker_root("nul", &r);
	test_write_file(file, nul_inside, sizeof(nul_inside) - 1);
	lookup(&r, "/docker/" TMP_ID, NULL, &md);
	assert_string_equal(md.container_name, "");

	/* an escaped NUL: the name ends there (C strings), nothing beyond leaks */
	file = fresh_docker_root("escaped-nul", &r);
	test_write_file(file, escaped_nul, sizeof(escaped_nul) - 1);
	expect(&r, "/docker/" TMP_ID, (struct want){ "a", "i", .runtime = "docker" });

	/* bytes that are not UTF-8: kept as they are, for the writers to escape */
	file = fresh_docker_root("bad-utf8", &r);
	test_write_file(file, bad_utf8, sizeof(bad_utf8) - 1);
	expect(&r, "/docker/" TMP_ID, (struct want){ "\xff\xfe\x80x", "i", .runtime = "docker" });

	file = fresh_docker_root("bad-escape", &r);
	test_write_file(file, bad_escape, sizeof(bad_escape) - 1);
	expect(&r, "/docker/" TMP_ID, (struct want){ 0 });

	/* nesting far beyond the parser's depth limit */
	file = fresh_docker_root("deep", &r);
	deep = malloc(200001);
	assert_non_null(deep);
	memset(deep, '[', 100000);
	memset(deep + 100000, ']', 100000);
	test_write_file(file, deep, 200000);
	free(deep);
	expect(&r, "/docker/" TMP_ID, (struct want){ 0 });
}

/* ---------------------------------------------------------------------------
 * Roots and arguments
 * ------------------------------------------------------------------------- */

static void test_roots_and_arguments(void **state)
{
	struct metadata_roots d, r = fixture_roots;
	struct cg_identity id;
	struct cg_metadata md;

	metadata_roots_default(&d);
	assert_string_equal(d.docker, "/var/lib/docker");
	assert_string_equal(d.containerd, "/run/containerd/io.containerd.runtime.v2.task");
	assert_string_equal(d.crio, "/run/containers/storage/overlay-containers");
	assert_string_equal(d.podman, "/var/lib/containers/storage");
	assert_string_equal(d.rootless_docker, "%h/.local/share/docker");
	assert_string_equal(d.rootless_podman, "%h/.local/share/containers/storage");
	assert_string_equal(d.rootless_containerd,
			    "/run/user/%u/containerd/io.containerd.runtime.v2.task");
	assert_string_equal(d.pod_logs, "/var/log/pods");

	/* "" switches a source off */
	r.docker = "";
	expect(&r, "/docker/" DOCKER_WEB, (struct want){ 0 });
	r = fixture_roots;
	r.pod_logs = "";
	expect(&r, "/kubepods/pod" POD_WEB, (struct want){ 0 });
	/* a root that does not exist or is a file */
	r = fixture_roots;
	r.docker = "/nonexistent/cgperf-test";
	expect(&r, "/docker/" DOCKER_WEB, (struct want){ 0 });
	r.docker = fixtures; /* a directory without containers/ */
	expect(&r, "/docker/" DOCKER_WEB, (struct want){ 0 });
	r.pod_logs = "/dev/null";
	expect(&r, "/kubepods/pod" POD_WEB, (struct want){ 0 });

	/* NULL roots or NULL fields: the defaults; whatever the host has, 0 */
	assert_int_equal(cg_identify("/system.slice/docker-" DOCKER_MISSING ".scope", &id), 0);
	assert_int_equal(cg_metadata_lookup(NULL, &id, &md), 0);
	r = (struct metadata_roots){ .docker = fixture_roots.docker };
	assert_int_equal(cg_identify("/docker/" DOCKER_WEB, &id), 0);
	assert_int_equal(cg_metadata_lookup(&r, &id, &md), 0);
	assert_string_equal(md.container_name, "web");

	memset(&md, 0x5a, sizeof(md));
	assert_int_equal(cg_metadata_lookup(&fixture_roots, NULL, &md), -EINVAL);
	assert_int_equal(cg_metadata_lookup(&fixture_roots, &id, NULL), -EINVAL);
	for (size_t i = 0; i < sizeof(md); i++)
		assert_int_equal(((unsigned char *)&md)[i], 0x5a);
}

/* Rootless containers are named only from their user's storage, and only by
 * files that user owns. */
static void test_rootless(void **state)
{
	char tmpl[1200], home[1200], dir[1400], file[1500], host_file[1400];
	struct metadata_roots r = fixture_roots;
	const uid_t tenant = 4242;
	struct cg_metadata md;

	/* The fixtures are owned by whoever checked them out: as that user's
	 * storage they name the user's containers. */
	r.rootless_docker = fixture_roots.docker;
	r.rootless_podman = dirs[3];
	snprintf(tmpl, sizeof(tmpl),
		 "/user.slice/user-%u.slice/user@%u.service/user.slice/docker-%s.scope",
		 (unsigned)getuid(), (unsigned)getuid(), DOCKER_WEB);
	expect(&r, tmpl, (struct want){ "web", "nginx:1.25", .runtime = "docker" });
	snprintf(tmpl, sizeof(tmpl),
		 "/user.slice/user-%u.slice/user@%u.service/user.slice/libpod-%s.scope",
		 (unsigned)getuid(), (unsigned)getuid(), PODMAN_TOOLBOX);
	expect(&r, tmpl,
	       (struct want){ "toolbox", "registry.fedoraproject.org/fedora-toolbox:39",
			      .runtime = "podman" });
	/* ... but not another user's */
	snprintf(tmpl, sizeof(tmpl),
		 "/user.slice/user-%u.slice/user@%u.service/user.slice/docker-%s.scope",
		 (unsigned)tenant, (unsigned)tenant, DOCKER_WEB);
	expect(&r, tmpl, (struct want){ 0 });

	/* %u in the template: the tenant's own tree, owned by the tenant */
	snprintf(home, sizeof(home), "%s/home-%u", tmp_root, (unsigned)tenant);
	assert_int_equal(mkdir(home, 0755), 0);
	snprintf(dir, sizeof(dir), "%s/containers", home);
	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(dir, sizeof(dir), "%s/containers/" DOCKER_WEB, home);
	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(file, sizeof(file), "%s/config.v2.json", dir);
	test_write_file(file, "{\"Name\":\"/mine\",\"Config\":{\"Image\":\"own\"}}", 41);
	assert_int_equal(chown(file, tenant, tenant), 0);
	snprintf(tmpl, sizeof(tmpl), "%s/home-%%u", tmp_root);
	r.rootless_docker = tmpl;
	snprintf(dir, sizeof(dir),
		 "/user.slice/user-%u.slice/user@%u.service/user.slice/docker-%s.scope",
		 (unsigned)tenant, (unsigned)tenant, DOCKER_WEB);
	expect(&r, dir, (struct want){ "mine", "own", .runtime = "docker" });
	/* a hard link to the host's file (root's) in the tenant's tree: refused */
	snprintf(host_file, sizeof(host_file), "%s/containers/" DOCKER_WEB "/config.v2.json",
		 fixture_roots.docker);
	assert_int_equal(unlink(file), 0);
	assert_int_equal(link(host_file, file), 0);
	expect(&r, dir, (struct want){ 0 });
	/* the tenant's storage a symlink to the host's: the host's files are not its */
	snprintf(file, sizeof(file), "%s/home-%u", tmp_root, (unsigned)tenant + 1);
	assert_int_equal(symlink(fixture_roots.docker, file), 0);
	snprintf(dir, sizeof(dir),
		 "/user.slice/user-%u.slice/user@%u.service/user.slice/docker-%s.scope",
		 (unsigned)tenant + 1, (unsigned)tenant + 1, DOCKER_WEB);
	expect(&r, dir, (struct want){ 0 });

	/* a rootless source switched off, a %h nobody has: nothing, no fallback to the host */
	r.rootless_docker = "";
	expect(&r, dir, (struct want){ 0 });
	r.rootless_docker = "%h/.local/share/docker";
	snprintf(dir, sizeof(dir),
		 "/user.slice/user-%u.slice/user@%u.service/user.slice/docker-%s.scope",
		 4000000000u, 4000000000u, DOCKER_WEB);
	lookup(&r, dir, NULL, &md);
	assert_string_equal(md.container_name, "");
}

/* podman's pod names from its BoltDB file: records are found inside the
 * binary pages around them. */
static void test_podman_pod_names(void **state)
{
	static const char pod_a[] =
		"1111111111111111111111111111111111111111111111111111111111111111";
	static const char pod_b[] =
		"2222222222222222222222222222222222222222222222222222222222222222";
	struct metadata_roots r = { .docker = "", .containerd = "", .crio = "", .pod_logs = "" };
	char root[1100], dir[1200], file[1300], path[600];
	char db[4096];
	size_t n = 0;

	memset(db, 0, sizeof(db));
	n += (size_t)snprintf(
		db + 100, sizeof(db) - 100,
		"{\"id\":\"%s\",\"name\":\"web-pod\",\"labels\":{},\"created\":\"x\"}", pod_a);
	db[100 + n] = '\x01'; /* binary right after the record */
	snprintf(
		db + 1000, sizeof(db) - 1000,
		"{\"spec\":{},\"id\":\"%s\",\"name\":\"a container\"}\x02\x03{\"id\":\"%s\",\"name\":\"db\"}",
		pod_a, pod_b);
	snprintf(root, sizeof(root), "%s/podman-pods", tmp_root);
	assert_int_equal(mkdir(root, 0700), 0);
	snprintf(dir, sizeof(dir), "%s/libpod", root);
	assert_int_equal(mkdir(dir, 0700), 0);
	snprintf(file, sizeof(file), "%s/bolt_state.db", dir);
	test_write_file(file, db, sizeof(db));
	r.podman = root;

	snprintf(path, sizeof(path), "/libpod_parent/%s", pod_a);
	expect(&r, path, (struct want){ .pod = "web-pod" });
	snprintf(path, sizeof(path),
		 "/machine.slice/machine-libpod_pod_%s.slice/libpod-" PODMAN_NONE ".scope", pod_b);
	expect(&r, path, (struct want){ .pod = "db" });
	snprintf(path, sizeof(path), "/libpod_parent/%.63s3", pod_a);
	expect(&r, path, (struct want){ 0 });
}

/* Shared files are parsed once per version: a lookup of another container
 * in the same index is a cache hit; a rewritten index is parsed again. */
static void test_cache(void **state)
{
	struct metadata_roots r = fixture_roots;
	struct metadata_cache_stats st;
	struct metadata_cache *c;
	const char *file;
	char root[512];

	assert_int_equal(metadata_cache_new(&c), 0);
	r.cache = c;
	for (int i = 0; i < 10; i++) {
		expect(&r, "/machine.slice/libpod-" PODMAN_TOOLBOX ".scope",
		       (struct want){ "toolbox", "registry.fedoraproject.org/fedora-toolbox:39",
				      .runtime = "podman" });
		expect(&r, "/machine.slice/libpod-" PODMAN_RM ".scope",
		       (struct want){ "temp", "docker.io/library/alpine:3.19",
				      .runtime = "podman" });
	}
	metadata_cache_get_stats(c, &st);
	/* containers.json and volatile-containers.json, once each */
	assert_int_equal(st.parses, 2);
	assert_true(st.hits >= 20);

	/* a rewritten index (same inode, new contents) is seen */
	file = fresh_podman_index("podman-cache", root, c, &r);
	test_write_file(file, "[{\"id\":\"" TMP_ID "\",\"names\":[\"one\"]}]", 91);
	expect(&r, "/libpod_parent/libpod-" TMP_ID, (struct want){ "one", .runtime = "podman" });
	/* (mtime, size) tell versions apart: another size, whatever the clock */
	test_write_file(file, "[{\"id\":\"" TMP_ID "\",\"names\":[\"second\"]}]", 94);
	expect(&r, "/libpod_parent/libpod-" TMP_ID, (struct want){ "second", .runtime = "podman" });
	metadata_cache_free(c);
	metadata_cache_free(NULL);
}

/* An index whose parsed form is over the cache's whole budget (a tenant's
 * rootless containers.json of 210 000 containers, 6 MB) gives no names and
 * is parsed once per version, not at every lookup; the warning is said
 * once. A smaller version of it is parsed and names again. */
static void test_cache_over_budget(void **state)
{
	char root[512], log_path[600], line[1024];
	struct metadata_cache_stats st;
	struct metadata_roots r;
	struct metadata_cache *c;
	struct cg_metadata md;
	int saved_stderr, log_fd, named = 0, warnings = 0;
	const char *file;
	FILE *log;

	assert_int_equal(metadata_cache_new(&c), 0);
	file = fresh_podman_index("podman-huge", root, c, &r);
	assert_true(write_big_index(file, 210000, "huge") > METADATA_CACHE_BUDGET_BYTES);
	/* stderr (the warnings) into a file meanwhile: nothing asserted there */
	snprintf(log_path, sizeof(log_path), "%s/over-budget.log", tmp_root);
	log_fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	assert_true(log_fd >= 0);
	fflush(stderr);
	saved_stderr = dup(STDERR_FILENO);
	assert_true(saved_stderr >= 0);
	assert_int_equal(dup2(log_fd, STDERR_FILENO), STDERR_FILENO);
	for (int i = 0; i < 5; i++) {
		lookup(&r, "/libpod_parent/libpod-" TMP_ID, NULL, &md);
		named += md.container_name[0] != '\0';
	}
	fflush(stderr);
	assert_int_equal(dup2(saved_stderr, STDERR_FILENO), STDERR_FILENO);
	close(saved_stderr);
	close(log_fd);
	metadata_cache_get_stats(c, &st);
	assert_int_equal(st.parses, 1);
	assert_int_equal(named, 0);
	assert_int_equal(st.over_budget, 5);
	assert_int_equal(st.hits, 0);
	assert_int_equal(st.kept, 0);
	log = fopen(log_path, "re");
	assert_non_null(log);
	while (fgets(line, sizeof(line), log))
		warnings += strstr(line, "containers.json: its index would keep") != NULL;
	fclose(log);
	assert_int_equal(warnings, 1);

	/* changed: parsed again, and under the budget it names */
	test_write_file(file, "[{\"id\":\"" TMP_ID "\",\"names\":[\"small\"]}]", 93);
	expect(&r, "/libpod_parent/libpod-" TMP_ID, (struct want){ "small", .runtime = "podman" });
	metadata_cache_get_stats(c, &st);
	assert_int_equal(st.parses, 2);
	metadata_cache_free(c);
}

/* The budget and the slots: indexes of 3/8 of the budget each, three in
 * turn: the third evicts the first (the least recently used), which a
 * lookup then parses again, while the two others are hits; never more than
 * the budget kept. Then one index more than there are slots: the first is
 * evicted. */
static void test_cache_budget(void **state)
{
	const size_t n = METADATA_CACHE_BUDGET_BYTES / 8 * 3 / 168;
	char roots[3][512], root[512], first[512], name[32];
	struct metadata_roots r[3], small;
	struct metadata_cache_stats st;
	struct metadata_cache *c;
	size_t kept;

	assert_int_equal(metadata_cache_new(&c), 0);
	for (int i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "budget-%d", i);
		kept = write_big_index(fresh_podman_index(name, roots[i], c, &r[i]), n, name);
		/* two fit in the budget, three do not */
		assert_true(2 * kept <= METADATA_CACHE_BUDGET_BYTES);
		assert_true(3 * kept > METADATA_CACHE_BUDGET_BYTES);
	}
	for (int i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "budget-%d", i);
		expect(&r[i], "/libpod_parent/libpod-" TMP_ID,
		       (struct want){ name, .runtime = "podman" });
		metadata_cache_get_stats(c, &st);
		assert_int_equal(st.parses, i + 1);
		assert_true(st.kept <= METADATA_CACHE_BUDGET_BYTES);
	}
	assert_int_equal(st.evictions, 1);
	expect(&r[1], "/libpod_parent/libpod-" TMP_ID,
	       (struct want){ "budget-1", .runtime = "podman" });
	expect(&r[2], "/libpod_parent/libpod-" TMP_ID,
	       (struct want){ "budget-2", .runtime = "podman" });
	metadata_cache_get_stats(c, &st);
	assert_int_equal(st.parses, 3);
	assert_int_equal(st.hits, 2);
	expect(&r[0], "/libpod_parent/libpod-" TMP_ID,
	       (struct want){ "budget-0", .runtime = "podman" });
	metadata_cache_get_stats(c, &st);
	assert_int_equal(st.parses, 4);
	assert_int_equal(st.evictions, 2);
	assert_true(st.kept <= METADATA_CACHE_BUDGET_BYTES);
	metadata_cache_free(c);

	/* the slots: one small index more than there are, then the first again */
	assert_int_equal(metadata_cache_new(&c), 0);
	for (int i = 0; i <= METADATA_CACHE_SLOTS; i++) {
		snprintf(name, sizeof(name), "slots-%d", i);
		test_write_file(fresh_podman_index(name, i == 0 ? first : root, c, &small),
				"[{\"id\":\"" TMP_ID "\",\"names\":[\"s\"]}]", 89);
		expect(&small, "/libpod_parent/libpod-" TMP_ID,
		       (struct want){ "s", .runtime = "podman" });
	}
	metadata_cache_get_stats(c, &st);
	assert_int_equal(st.parses, METADATA_CACHE_SLOTS + 1);
	assert_int_equal(st.evictions, 1);
	small.podman = first;
	expect(&small, "/libpod_parent/libpod-" TMP_ID, (struct want){ "s", .runtime = "podman" });
	metadata_cache_get_stats(c, &st);
	assert_int_equal(st.parses, METADATA_CACHE_SLOTS + 2);
	metadata_cache_free(c);
}

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

/* Every path above, many times: no fd is left open. */
static void test_no_fd_leak(void **state)
{
	static const char *const paths[] = {
		"/docker/" DOCKER_WEB,
		"/docker/" DOCKER_TRUNCATED,
		"/docker/" DOCKER_MISSING,
		K8S_BURSTABLE POD_WEB_U ".slice/cri-containerd-" CONTAINERD_CRI ".scope",
		"/system.slice/nerdctl-" CONTAINERD_NERDCTL ".scope",
		"/system.slice/crio-" CRIO_MALFORMED ".scope",
		"/machine.slice/libpod-" PODMAN_RM ".scope",
		"/kubepods/pod" POD_WEB "/" DOCKER_MISSING,
		"/kubepods/pod" POD_ABSENT,
	};
	struct cg_metadata md;
	int before = count_fds();

	for (int round = 0; round < 200; round++)
		for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
			lookup(&fixture_roots, paths[i], NULL, &md);
	assert_int_equal(count_fds(), before);
}

/* ---------------------------------------------------------------------------
 * Hostile files: bounded work and memory per lookup (docs/TESTING.md,
 * "Hostile metadata files"). Work is counted (bytes handed to json-c, as
 * metadata_parse() reports them), never timed.
 * ------------------------------------------------------------------------- */

#define POD_ID_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"

/* A pod database of nested record starts: {"id":"<id>","c":{"id":"<id>",...
 * 40 deep (past json-c's depth, so every start fails), over and over, then
 * one real record. Before the bound every start re-parsed everything
 * after it up to 64 KiB (here ~400 x the file); now a byte is parsed at
 * most once per enclosing record (POD_DB_DEPTH, 8) . Also a Bolt page
 * graph that loops (a page header whose overflow and a meta page whose root
 * point at each other): the scan follows no pointer. */
static void test_hostile_pod_db(void **state)
{
	size_t cap = 1 << 20, len = 0;
	char *db = calloc(1, cap);
	struct metadata_parse_cost cost;
	struct cg_metadata md = { 0 };

	assert_non_null(db);
	/* bolt meta page 0 (root = page 1) and page 1 (overflow = page 0) */
	memcpy(db + 16, "\xed\xda\x0c\xed", 4);
	db[4096 + 12] = 0; /* overflow count */
	memcpy(db + 64, "\x01\0\0\0\0\0\0\0", 8);
	memcpy(db + 4096 + 8, "\x10\0\x00\x00", 4);
	len = 8192;
	while (len + 8192 < cap) {
		for (int d = 0; d < 40; d++)
			len += (size_t)snprintf(db + len, cap - len,
						"{\"id\":\"%s\",\"c\":", POD_ID_A);
		len += (size_t)snprintf(db + len, cap - len, "0");
		for (int d = 0; d < 40; d++)
			db[len++] = '}';
	}
	len += (size_t)snprintf(db + len, cap - len,
				"\x01{\"id\":\"%s\",\"name\":\"found-after\"}\x02", POD_ID_A);
	assert_int_equal(metadata_parse(METADATA_POD_DB, db, len, POD_ID_A, NULL, &md, &cost), 0);
	assert_string_equal(md.pod_name, "found-after");
	assert_true(cost.parsed <= 8 * len);
	assert_true(cost.kept <= 160 + 64 + CG_NAME_MAX);
	free(db);
}

/* Huge strings: a 4 MiB name and a 4 MiB "metadata" in containers.json,
 * and an entry whose id is 1 MiB: the index keeps a cut name and no
 * oversized id; memory kept is per entry, not per byte of the file. */
static void test_hostile_huge_strings(void **state)
{
	size_t big = 4 << 20, cap = 3 * big, len = 0;
	char *buf = malloc(cap);
	struct metadata_parse_cost cost;
	struct cg_metadata md = { 0 };

	assert_non_null(buf);
	len += (size_t)snprintf(buf, cap, "[{\"id\":\"%s\",\"names\":[\"", TMP_ID);
	memset(buf + len, 'n', big);
	len += big;
	len += (size_t)snprintf(buf + len, cap - len,
				"\"],\"metadata\":\"{\\\"image-name\\\":\\\"");
	memset(buf + len, 'i', big);
	len += big;
	len += (size_t)snprintf(buf + len, cap - len, "\\\"}\"},{\"id\":\"");
	memset(buf + len, 'd', 1 << 20);
	len += 1 << 20;
	len += (size_t)snprintf(buf + len, cap - len, "\",\"names\":[\"x\"]}]");
	assert_true(len < cap);
	assert_int_equal(metadata_parse(METADATA_STORAGE_INDEX, buf, len, TMP_ID, NULL, &md, &cost),
			 0);
	assert_int_equal(strlen(md.container_name), CG_NAME_MAX - 1);
	assert_int_equal(strlen(md.image), CG_NAME_MAX - 1);
	assert_true(cost.kept <= 160 + 64 + 2 * CG_NAME_MAX);
	free(buf);
}

/* Deep nesting (test_odd_bytes_in_json has the lookup): 1 MiB of '[' is
 * refused where json-c's depth (32) ends, after one pass over at most the
 * file, whatever the format. */
/* Label values a tenant chooses: a 250-byte pod name in the last label
 * slot is cut to the slot (an overflow of the struct before), and a plain
 * Docker container's labels cannot rename it or its image. */
static void test_hostile_labels(void **state)
{
	char root[512], dir[1024], file[1100], big[251], json[1024];
	struct metadata_roots r;
	struct cg_metadata md;
	const char *docker_file;

	(void)state;
	memset(big, 'p', 250);
	big[250] = '\0';
	snprintf(root, sizeof(root), "%s/ctrd", tmp_root);
	snprintf(dir, sizeof(dir), "%s/k8s.io/" TMP_ID, root);
	assert_int_equal(mkdir(root, 0700), 0);
	snprintf(file, sizeof(file), "%s/k8s.io", root);
	assert_int_equal(mkdir(file, 0700), 0);
	assert_int_equal(mkdir(dir, 0700), 0);
	snprintf(file, sizeof(file), "%s/config.json", dir);
	snprintf(json, sizeof(json),
		 "{\"annotations\":{\"io.kubernetes.cri.sandbox-name\":\"%s\","
		 "\"io.kubernetes.cri.container-name\":\"c\"}}",
		 big);
	test_write_file(file, json, strlen(json));
	r = (struct metadata_roots){
		.docker = "",
		.containerd = root,
		.crio = "",
		.podman = "",
		.pod_logs = "",
		.label_keys = { "x", "y", "z", "io.kubernetes.pod.name" },
		.nr_label_keys = 4,
	};
	lookup(&r, K8S_BURSTABLE POD_WEB_U ".slice/cri-containerd-" TMP_ID ".scope", NULL, &md);
	assert_string_equal(md.pod_name, big);
	assert_int_equal(strlen(md.labels[3]), METADATA_LABEL_MAX - 1);
	assert_int_equal(strncmp(md.labels[3], big, METADATA_LABEL_MAX - 1), 0);
	assert_string_equal(md.labels[0], "");
	assert_string_equal(md.labels[2], "");

	docker_file = fresh_docker_root("spoof", &r);
	snprintf(json, sizeof(json),
		 "{\"Name\":\"/mine\",\"Config\":{\"Image\":\"real:1\",\"Labels\":{"
		 "\"io.kubernetes.container.name\":\"victim\","
		 "\"io.kubernetes.cri.image-name\":\"evil:1\"}}}");
	test_write_file(docker_file, json, strlen(json));
	lookup(&r, "/system.slice/docker-" TMP_ID ".scope", NULL, &md);
	assert_string_equal(md.container_name, "mine");
	assert_string_equal(md.image, "real:1");
}

static void test_hostile_deep_nesting(void **state)
{
	size_t len = 1 << 20;
	char *buf = malloc(len);

	assert_non_null(buf);
	memset(buf, '[', len);
	for (int fmt = METADATA_DOCKER_CONFIG; fmt <= METADATA_POD_DB; fmt++) {
		struct metadata_parse_cost cost = { 0 };
		struct cg_metadata md = { 0 };
		int r = metadata_parse(fmt, buf, len, TMP_ID, NULL, &md, &cost);

		assert_true(r == -EBADMSG || (fmt == METADATA_POD_DB && r == 0));
		assert_true(cost.parsed <= len);
		assert_string_equal(md.container_name, "");
	}
	free(buf);
}

/* The file test_hostile_growing_file grows (dev, ino; ino 0: none), at the
 * first read() of it by the code under test, to `to` bytes (a tail of 'x'
 * and "\"}"); `read` counts the bytes read from it. */
static struct {
	dev_t dev;
	ino_t ino;
	int fd;
	size_t to, read;
	bool grown;
} grow;

ssize_t __real_read(int fd, void *buf, size_t n);

/* read() for everything linked into this test (tests/CMakeLists.txt:
 * --wrap=read): a writer appending at the worst moment, after the reader
 * looked at the size, deterministically. */
ssize_t __wrap_read(int fd, void *buf, size_t n)
{
	static char chunk[1 << 16];
	struct stat st;
	ssize_t r;

	if (!grow.ino || fstat(fd, &st) < 0 || st.st_dev != grow.dev || st.st_ino != grow.ino)
		return __real_read(fd, buf, n);
	if (!grow.grown) {
		grow.grown = true;
		memset(chunk, 'x', sizeof(chunk));
		for (off_t at = lseek(grow.fd, 0, SEEK_END); at >= 0 && (size_t)at + 2 < grow.to;) {
			size_t w = grow.to - 2 - (size_t)at;

			r = write(grow.fd, chunk, w < sizeof(chunk) ? w : sizeof(chunk));
			if (r <= 0)
				break;
			at += r;
		}
		if (write(grow.fd, "\"}", 2) != 2)
			grow.to = 0; /* the check below fails */
	}
	r = __real_read(fd, buf, n);
	if (r > 0)
		grow.read += (size_t)r;
	return r;
}

/* A file that grows while it is read (a writer appending without end): the
 * read stops at the cap, checked while reading, not only on the size seen
 * before. Grown at the lookup's first read() to exactly the cap, it is read
 * whole and names; to twice the cap, the lookup reads cap + 1 bytes and
 * gives nothing, where reading on to the end would name it. */
static void test_hostile_growing_file(void **state)
{
	static const char head[] = "{\"Name\":\"/grow\",\"Config\":{\"Image\":\"img\"},\"Pad\":\"";
	const size_t to[] = { METADATA_MAX_FILE_BYTES, 2 * METADATA_MAX_FILE_BYTES };

	for (size_t i = 0; i < 2; i++) {
		struct metadata_roots r;
		const char *file = fresh_docker_root(i == 0 ? "grow-to-cap" : "grow-past-cap", &r);
		struct stat st;

		test_write_file(file, head, sizeof(head) - 1);
		grow = (typeof(grow)){ .fd = open(file, O_WRONLY | O_CLOEXEC), .to = to[i] };
		assert_true(grow.fd >= 0);
		assert_int_equal(fstat(grow.fd, &st), 0);
		grow.dev = st.st_dev;
		grow.ino = st.st_ino;
		if (i == 0)
			expect(&r, "/docker/" TMP_ID,
			       (struct want){ "grow", "img", .runtime = "docker" });
		else
			expect(&r, "/docker/" TMP_ID, (struct want){ 0 });
		grow.ino = 0;
		assert_int_equal(fstat(grow.fd, &st), 0);
		close(grow.fd);
		assert_true(grow.grown);
		assert_int_equal(st.st_size, to[i]);
		if (i == 0)
			assert_int_equal(grow.read, METADATA_MAX_FILE_BYTES);
		else
			assert_true(grow.read <= METADATA_MAX_FILE_BYTES + 1);
	}
}

/* A FIFO or a device in the file's place is never opened (an open of a
 * device runs its driver; of a FIFO, waits or wakes a writer): inotify
 * sees no open of either, where the lookup used to open and then refuse.
 * The device is /dev/null's numbers (root only; skipped otherwise). */
static void test_hostile_special_files_not_opened(void **state)
{
	const char *kinds[] = { "fifo-open", "chardev-open" };

	for (size_t k = 0; k < 2; k++) {
		struct metadata_roots r;
		const char *file = fresh_docker_root(kinds[k], &r);
		char events[4096];
		int in, r_mk;
		ssize_t n;

		r_mk = k == 0 ? mkfifo(file, 0600) : mknod(file, S_IFCHR | 0600, makedev(1, 3));
		if (r_mk < 0 && k == 1 && errno == EPERM)
			continue;
		assert_int_equal(r_mk, 0);
		in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
		assert_true(in >= 0);
		assert_true(inotify_add_watch(in, file, IN_OPEN) >= 0);
		expect(&r, "/docker/" TMP_ID, (struct want){ 0 });
		n = read(in, events, sizeof(events));
		assert_true(n < 0 && errno == EAGAIN);
		close(in);
	}
}

/* The lease holder of test_hostile_lease_not_waited, and how long its
 * lookup may take: milliseconds when it does not wait, far below the 45 s
 * (lease-break-time) of a wait. */
static pid_t lease_holder;
#define LEASE_WAIT_LIMIT_S 10
static char lease_waited_msg[200]; /* written before the alarm is set */

/* SIGALRM: the lookup waits for the lease. Fail now, with why, rather than
 * die of the signal and leave the holder (which has our stdout and stderr:
 * ctest would wait for them until its own timeout). */
static void lease_waited(int sig)
{
	(void)sig;
	(void)!write(STDERR_FILENO, lease_waited_msg, strlen(lease_waited_msg));
	kill(lease_holder, SIGKILL);
	_exit(1);
}

/* A write lease the file's owner holds (F_SETLEASE): the lookup's open does
 * not wait for the lease to be broken (lease-break-time, 45 s, again after
 * each new lease); the file is skipped. A wait fails the test after
 * LEASE_WAIT_LIMIT_S with a message (lease_waited). */
static void test_hostile_lease_not_waited(void **state)
{
	struct sigaction on_alarm = { .sa_handler = lease_waited }, before;
	struct metadata_roots r;
	const char *file = fresh_docker_root("leased", &r);
	pid_t parent = getpid();
	int ready[2];
	char c;

	static const char json[] = "{\"ID\":\"" TMP_ID "\",\"Name\":\"/leased\","
				   "\"Config\":{\"Image\":\"busybox\"}}";

	test_write_file(file, json, strlen(json));
	/* Without the lease, it is found (so the check below can fail). */
	expect(&r, "/docker/" TMP_ID, (struct want){ "leased", "busybox", .runtime = "docker" });
	assert_int_equal(pipe(ready), 0);
	lease_holder = fork();
	assert_true(lease_holder >= 0);
	if (lease_holder == 0) {
		int fd = open(file, O_RDONLY);

		/* gone with the test, however it ends */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
			_exit(1);
		signal(SIGIO, SIG_IGN); /* the lease break's signal */
		if (fd < 0 || fcntl(fd, F_SETLEASE, F_WRLCK) < 0)
			_exit(1);
		(void)!write(ready[1], "l", 1);
		pause();
		_exit(0);
	}
	close(ready[1]);
	assert_int_equal(read(ready[0], &c, 1), 1); /* nothing read: no lease taken */
	close(ready[0]);
	snprintf(lease_waited_msg, sizeof(lease_waited_msg),
		 "test_hostile_lease_not_waited: the lookup still waits for the lease holder "
		 "after %d s (an open without O_NONBLOCK waits lease-break-time, 45 s)\n",
		 LEASE_WAIT_LIMIT_S);
	assert_int_equal(sigaction(SIGALRM, &on_alarm, &before), 0);
	alarm(LEASE_WAIT_LIMIT_S);
	expect(&r, "/docker/" TMP_ID, (struct want){ 0 });
	alarm(0);
	sigaction(SIGALRM, &before, NULL);
	kill(lease_holder, SIGKILL);
	waitpid(lease_holder, NULL, 0);
}

/* A tenant's FUSE mount (with allow_other, where the admin allowed
 * user_allow_other) inside their rootless storage, whose reads never answer:
 * the lookup sees another filesystem below the user's base and does not
 * enter it (no name, at once). Entering would hold the lookup thread in a
 * wait that no signal ends, SIGKILL included: a watchdog process kills the
 * daemon after FUSE_WAIT_LIMIT_S (which ends the read), and the test fails
 * if it had to. */
#define FUSE_WAIT_LIMIT_S 10
static pid_t fuse_daemon, fuse_watchdog;
static char fuse_dir[1400];

static int fuse_teardown(void **state)
{
	(void)state;
	if (fuse_watchdog > 0) {
		kill(fuse_watchdog, SIGKILL);
		waitpid(fuse_watchdog, NULL, 0);
	}
	fuse_watchdog = 0;
	if (fuse_dir[0])
		stuck_fs_stop(fuse_daemon, fuse_dir);
	fuse_dir[0] = '\0';
	return 0;
}

static void test_rootless_fuse_not_entered(void **state)
{
	struct metadata_roots r = fixture_roots;
	const uid_t tenant = 4245;
	char home[1200], tmpl[1200], cg[300], fired;
	int said[2];

	snprintf(home, sizeof(home), "%s/fuse-home-%u", tmp_root, (unsigned)tenant);
	assert_int_equal(mkdir(home, 0755), 0);
	snprintf(fuse_dir, sizeof(fuse_dir), "%s/containers", home);
	assert_int_equal(mkdir(fuse_dir, 0755), 0);
	snprintf(fuse_dir, sizeof(fuse_dir), "%s/containers/" DOCKER_WEB, home);
	assert_int_equal(mkdir(fuse_dir, 0755), 0);
	fuse_daemon = stuck_fs_start(fuse_dir, "config.v2.json",
				     "{\"Name\":\"/fused\",\"Config\":{\"Image\":\"x\"}}", tenant);
	if (fuse_daemon < 0) {
		fuse_dir[0] = '\0';
		if (fuse_daemon == -ENOENT)
			unit_skip("tests/stuck_fs was not built (libfuse3-dev missing)");
		if (fuse_daemon == -EPERM)
			unit_skip("needs root and /dev/fuse (a FUSE mount that stops answering)");
		fail_msg("stuck_fs: %s", strerror((int)-fuse_daemon));
	}
	snprintf(tmpl, sizeof(tmpl), "%s/fuse-home-%%u", tmp_root);
	r.rootless_docker = tmpl;
	snprintf(cg, sizeof(cg),
		 "/user.slice/user-%u.slice/user@%u.service/user.slice/docker-%s.scope",
		 (unsigned)tenant, (unsigned)tenant, DOCKER_WEB);
	assert_int_equal(pipe2(said, O_NONBLOCK), 0);
	fuse_watchdog = fork();
	assert_true(fuse_watchdog >= 0);
	if (fuse_watchdog == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		sleep(FUSE_WAIT_LIMIT_S);
		(void)!write(said[1], "!", 1); /* before the kill that ends the read */
		kill(fuse_daemon, SIGKILL);
		_exit(3);
	}
	close(said[1]);
	expect(&r, cg, (struct want){ 0 });
	fired = read(said[0], &fired, 1) == 1;
	close(said[0]);
	if (fired)
		fail_msg("the lookup entered the tenant's FUSE mount: it read until the daemon was "
			 "killed after %d s",
			 FUSE_WAIT_LIMIT_S);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_docker),
		cmocka_unit_test(test_containerd),
		cmocka_unit_test(test_labels),
		cmocka_unit_test(test_crio),
		cmocka_unit_test(test_podman),
		cmocka_unit_test(test_lxc_and_non_containers),
		cmocka_unit_test(test_runtime_unknown),
		cmocka_unit_test(test_pods),
		cmocka_unit_test(test_malformed_fixtures),
		cmocka_unit_test(test_size_cap),
		cmocka_unit_test(test_not_regular_files),
		cmocka_unit_test(test_symlinks),
		cmocka_unit_test(test_odd_bytes_in_json),
		cmocka_unit_test(test_roots_and_arguments),
		cmocka_unit_test(test_rootless),
		cmocka_unit_test_teardown(test_rootless_fuse_not_entered, fuse_teardown),
		cmocka_unit_test(test_podman_pod_names),
		cmocka_unit_test(test_cache),
		cmocka_unit_test(test_cache_over_budget),
		cmocka_unit_test(test_cache_budget),
		cmocka_unit_test(test_no_fd_leak),
		cmocka_unit_test(test_hostile_pod_db),
		cmocka_unit_test(test_hostile_huge_strings),
		cmocka_unit_test(test_hostile_labels),
		cmocka_unit_test(test_hostile_deep_nesting),
		cmocka_unit_test(test_hostile_growing_file),
		cmocka_unit_test(test_hostile_special_files_not_opened),
		cmocka_unit_test(test_hostile_lease_not_waited),
	};

	return unit_result(cmocka_run_group_tests(tests, setup_tmp, teardown_tmp));
}
