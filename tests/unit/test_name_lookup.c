// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for agent/name_lookup.c: lookups done by the worker thread come
 * back through the eventfd with the names the fixture files hold, shared
 * files are parsed once for all of them, freeing with work queued neither
 * hangs nor leaks, and a lookup stuck in a read (a FUSE mount that stops
 * answering, tests/helpers/stuck_fs) holds neither the queue nor a reload. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent/name_lookup.h"
#include "tests/lib/stuck_fs.h"
#include "tests/lib/test_files.h"
#include "tests/lib/unit_skip.h"

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

/* 30 s: a bound (a stuck lookup is given up after 5 s), never a measure. */
static void wait_for(struct name_lookup *nl, struct seen *s, int want)
{
	for (int tries = 0; s->n < want && tries < 300; tries++) {
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

/* The latest answer for id (a lookup asked again answers twice). */
static const char *last_name_of(const struct seen *s, uint64_t id)
{
	for (int i = s->n - 1; i >= 0; i--)
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

#define STUCK_ID "5757575757575757575757575757575757575757575757575757575757575757"
#define FINE_ID "f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1"

/* Threads of this process named cgperf-names (the workers, left ones too). */
static int name_threads(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d))) {
		char p[300], comm[32] = "";
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "/proc/self/task/%s/comm", e->d_name);
		if ((f = fopen(p, "r"))) {
			if (fgets(comm, sizeof(comm), f) && strcmp(comm, "cgperf-names\n") == 0)
				n++;
			fclose(f);
		}
	}
	closedir(d);
	return n;
}

/* A docker root where container STUCK_ID's directory is a stuck_fs mount
 * (its config.v2.json never answers a read) and FINE_ID's is plain, with the
 * podman fixtures beside (another storage). The daemon's pid, or -errno of
 * stuck_fs_start(). */
static pid_t stuck_docker_root(char *tmp, size_t len, struct metadata_roots *ret)
{
	char dir[1200];
	pid_t pid;

	snprintf(tmp, len, "/tmp/cgperf-stuck.XXXXXX");
	assert_non_null(mkdtemp(tmp));
	snprintf(dir, sizeof(dir), "%s/containers", tmp);
	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(dir, sizeof(dir), "%s/containers/" FINE_ID, tmp);
	assert_int_equal(mkdir(dir, 0755), 0);
	strcat(dir, "/config.v2.json");
	test_write_str(dir, "{\"ID\":\"" FINE_ID
			    "\",\"Name\":\"/fine\",\"Config\":{\"Image\":\"busybox\"}}");
	snprintf(dir, sizeof(dir), "%s/containers/" STUCK_ID, tmp);
	assert_int_equal(mkdir(dir, 0755), 0);
	pid = stuck_fs_start(dir, "config.v2.json", "{\"ID\":\"" STUCK_ID "\",\"Name\":\"/stuck\"}",
			     0);
	*ret = roots;
	ret->docker = tmp;
	return pid;
}

static char stuck_tmp[64];
static pid_t stuck_fs = -1;

/* Also after a failed assertion. */
static int stuck_teardown(void **state)
{
	char dir[200];

	name_lookup_test_reset(8, 0);
	if (!stuck_tmp[0])
		return 0;
	snprintf(dir, sizeof(dir), "%s/containers/" STUCK_ID, stuck_tmp);
	stuck_fs_stop(stuck_fs, dir);
	stuck_fs = -1;
	rmdir(dir);
	snprintf(dir, sizeof(dir), "%s/containers/" FINE_ID "/config.v2.json", stuck_tmp);
	unlink(dir);
	*strrchr(dir, '/') = 0;
	rmdir(dir);
	*strrchr(dir, '/') = 0;
	rmdir(dir);
	rmdir(stuck_tmp);
	stuck_tmp[0] = 0;
	return 0;
}

static void wait_threads(int want)
{
	/* A joined or returned thread's /proc entry may linger a moment. */
	for (int i = 0; i < 300 && name_threads() != want; i++)
		usleep(100 * 1000);
	assert_int_equal(name_threads(), want);
}

static pid_t stuck_setup(struct metadata_roots *sroots)
{
	pid_t fs = stuck_docker_root(stuck_tmp, sizeof(stuck_tmp), sroots);

	if (fs == -ENOENT)
		unit_skip("tests/stuck_fs was not built (libfuse3-dev missing)");
	if (fs == -EPERM)
		unit_skip("needs root and /dev/fuse (a FUSE mount that stops answering)");
	assert_true(fs > 0);
	stuck_fs = fs;
	return fs;
}

#define STUCK_CG "/system.slice/docker-" STUCK_ID ".scope"
#define FINE_CG "/system.slice/docker-" FINE_ID ".scope"
#define TOOLBOX_CG "/machine.slice/libpod-" PODMAN_TOOLBOX ".scope"

/* A lookup stuck in a read: after 5 s it is answered without names and a new
 * thread takes the queue (podman's container is named); the stuck storage
 * (the host's docker) is skipped, in a new name_lookup too (a reload), with
 * no second thread stuck; once the read ends, its thread frees its own and
 * the storage is still skipped for its cool-down. When the cool-down ends,
 * every lookup answered without reading is asked again: the containers
 * that came meanwhile get their names. */
static void test_stuck_read_left_behind(void **state)
{
	struct metadata_roots sroots;
	struct name_lookup *nl, *nl2;
	struct name_lookup_stats st;
	struct seen s = { 0 }, s2 = { 0 };
	pid_t fs = stuck_setup(&sroots);

	name_lookup_test_reset(8, 0.2); /* retries looked at every 0.2 s */
	assert_int_equal(name_lookup_new(&sroots, &nl), 0);
	submit(nl, 1, STUCK_CG);
	submit(nl, 2, TOOLBOX_CG);
	submit(nl, 3, FINE_CG);
	wait_for(nl, &s, 3);
	assert_string_equal(name_of(&s, 1), "");
	assert_string_equal(name_of(&s, 2), "toolbox");
	assert_string_equal(name_of(&s, 3), ""); /* the same storage: skipped */
	name_lookup_get_stats(nl, &st);
	assert_int_equal(st.left_behind, 1);
	assert_int_equal(st.skipped, 1);
	wait_threads(2);
	/* A reload's new lookups: the stuck storage is skipped there too. */
	assert_int_equal(name_lookup_new(&sroots, &nl2), 0);
	submit(nl2, 1, STUCK_CG);
	submit(nl2, 2, TOOLBOX_CG);
	wait_for(nl2, &s2, 2);
	assert_string_equal(name_of(&s2, 2), "toolbox");
	name_lookup_get_stats(nl2, &st);
	assert_int_equal(st.left_behind, 0);
	assert_int_equal(st.skipped, 1);
	wait_threads(3);
	name_lookup_free(nl2);
	wait_threads(2);
	/* The filesystem goes: the read fails, its thread ends and frees its own. */
	kill(fs, SIGKILL);
	assert_int_equal(waitpid(fs, NULL, 0), fs);
	stuck_fs = 0;
	wait_threads(1);
	/* Cooling down: still skipped, and not asked again meanwhile. */
	submit(nl, 4, FINE_CG);
	wait_for(nl, &s, 4);
	assert_string_equal(name_of(&s, 4), "");
	usleep(600 * 1000);
	name_lookup_collect(nl, on_result, &s);
	assert_int_equal(s.n, 4);
	name_lookup_get_stats(nl, &st);
	assert_int_equal(st.skipped, 2);
	assert_int_equal(st.retried, 0);
	/* The cool-down ends: 1, 3 and 4 are asked again; 3 and 4 named. */
	name_lookup_test_reset(8, 0.2);
	wait_for(nl, &s, 7);
	assert_string_equal(last_name_of(&s, 3), "fine");
	assert_string_equal(last_name_of(&s, 4), "fine");
	assert_string_equal(last_name_of(&s, 1), "");
	name_lookup_get_stats(nl, &st);
	assert_int_equal(st.retried, 3);
	assert_int_equal(st.not_retried, 0);
	/* Read: not asked again (three more periods, nothing comes). */
	usleep(600 * 1000);
	name_lookup_collect(nl, on_result, &s);
	assert_int_equal(s.n, 7);
	name_lookup_get_stats(nl, &st);
	assert_int_equal(st.retried, 3);
	name_lookup_free(nl);
}

/* A kept lookup whose cgroup is gone (name_lookup_forget) is not asked
 * again; one id is kept once however often it was answered without
 * reading. */
static void test_retry_forgets_gone(void **state)
{
	struct metadata_roots sroots;
	struct name_lookup *nl;
	struct name_lookup_stats st;
	struct seen s = { 0 };
	pid_t fs = stuck_setup(&sroots);

	name_lookup_test_reset(8, 0.2);
	assert_int_equal(name_lookup_new(&sroots, &nl), 0);
	submit(nl, 1, STUCK_CG);
	wait_for(nl, &s, 1); /* after 5 s, without names */
	submit(nl, 3, FINE_CG);
	submit(nl, 3, FINE_CG);
	submit(nl, 5, FINE_CG);
	wait_for(nl, &s, 4);
	name_lookup_forget(nl, 5);
	kill(fs, SIGKILL);
	assert_int_equal(waitpid(fs, NULL, 0), fs);
	stuck_fs = 0;
	wait_threads(1);
	name_lookup_test_reset(8, 0.2);
	wait_for(nl, &s, 6);
	assert_string_equal(last_name_of(&s, 3), "fine");
	usleep(600 * 1000);
	name_lookup_collect(nl, on_result, &s);
	assert_int_equal(s.n, 6);
	name_lookup_get_stats(nl, &st);
	assert_int_equal(st.retried, 2); /* 1 and 3, once each; not 5 */
	name_lookup_free(nl);
}

/* At the cap of left threads (1 here) no new worker starts: lookups are
 * answered at once without names; once the stuck thread returns, a worker
 * starts again and names come back. */
static void test_stuck_cap_then_back(void **state)
{
	struct metadata_roots sroots;
	struct name_lookup *nl;
	struct name_lookup_stats st;
	struct seen s = { 0 };
	pid_t fs = stuck_setup(&sroots);
	name_lookup_test_reset(1, 0);
	assert_int_equal(name_lookup_new(&sroots, &nl), 0);
	submit(nl, 1, STUCK_CG);
	wait_for(nl, &s, 1);
	name_lookup_get_stats(nl, &st);
	assert_int_equal(st.left_behind, 1);
	wait_threads(1); /* the stuck one; no new worker at the cap */
	submit(nl, 2, TOOLBOX_CG);
	wait_for(nl, &s, 2);
	assert_string_equal(name_of(&s, 2), ""); /* no worker: no names */
	kill(fs, SIGKILL);
	assert_int_equal(waitpid(fs, NULL, 0), fs);
	stuck_fs = 0;
	/* The timer looks every 5 s: a worker starts once the thread returned. */
	for (int i = 0; i < 300; i++) {
		struct pollfd p = { name_lookup_fd(nl), POLLIN, 0 };

		if (poll(&p, 1, 100) > 0)
			name_lookup_collect(nl, on_result, &s);
		if (name_threads() == 1)
			break;
	}
	submit(nl, 3, TOOLBOX_CG);
	wait_for(nl, &s, 3);
	assert_string_equal(name_of(&s, 3), "toolbox");
	name_lookup_free(nl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_results_arrive),
		cmocka_unit_test(test_free_with_work_queued),
		cmocka_unit_test_teardown(test_stuck_read_left_behind, stuck_teardown),
		cmocka_unit_test_teardown(test_retry_forgets_gone, stuck_teardown),
		cmocka_unit_test_teardown(test_stuck_cap_then_back, stuck_teardown),
	};

	return unit_result(cmocka_run_group_tests(tests, setup, NULL));
}
