// SPDX-License-Identifier: GPL-2.0-only
#include "cmd/stat/stat_targets.h"
#include "cgroup/cgroup2.h"
#include "util/cpus.h"
#include "util/log.h"
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The initial PID namespace's inode number (include/linux/proc_ns.h). */
#define PROC_PID_INIT_INO 0xEFFFFFFCU

void stat_targets_free(struct stat_targets *t)
{
	for (int i = 0; i < t->nr_keys; i++) {
		free(t->keys[i].label);
		free(t->keys[i].path);
	}
	free(t->keys);
	t->keys = NULL;
	t->nr_keys = 0;
}

static struct stat_target_key *push_key(struct stat_targets *t, uint64_t key)
{
	struct stat_target_key *k;

	for (int i = 0; i < t->nr_keys; i++)
		if (t->keys[i].key == key)
			return &t->keys[i]; /* given twice: count once */
	k = realloc(t->keys, (t->nr_keys + 1) * sizeof(*k));
	if (!k)
		return NULL;
	t->keys = k;
	k = &t->keys[t->nr_keys++];
	memset(k, 0, sizeof(*k));
	k->key = key;
	return k;
}

int stat_targets_add_key(struct stat_targets *t, uint64_t key)
{
	return push_key(t, key) ? 0 : -ENOMEM;
}

int stat_targets_cpus(struct stat_targets *t, const char *list)
{
	static bool mask[CPUS_MAX];
	int *online = NULL, nr_online = 0, r;

	if (cpulist_parse(list, mask) < 0) {
		log_error("invalid CPU list '%s' (expected e.g. 0-3,8)", log_name(list));
		return -EINVAL;
	}
	r = cpus_online(&online, &nr_online);
	if (r < 0)
		return r;
	for (int c = 0; c < CPUS_MAX; c++) {
		bool is_online = false;
		if (!mask[c])
			continue;
		for (int i = 0; i < nr_online; i++)
			is_online |= online[i] == c;
		if (!is_online) {
			log_error("CPU %d is not online", c);
			free(online);
			return -ENODEV;
		}
		if (!push_key(t, (uint64_t)c)) {
			free(online);
			return -ENOMEM;
		}
	}
	free(online);
	t->filter = CGPERF_FILTER_CPU;
	snprintf(t->desc, sizeof(t->desc), "CPU(s) %s", list);
	return 0;
}

/* BPF sees the host's pids. Inside another PID namespace (a container
 * without hostPID) the ids cgperf was given, or its own children's, are not
 * those: refuse rather than count nothing. */
int stat_targets_check_pid_namespace(void)
{
	struct stat st;

	if (stat("/proc/self/ns/pid", &st) < 0 || st.st_ino == PROC_PID_INIT_INO)
		return 0;
	log_error("cgperf runs in a PID namespace other than the host's: process and thread ids "
		  "would not match what BPF sees; run it in the host's PID namespace (hostPID) or "
		  "count a cgroup (-G) instead");
	return -EOPNOTSUPP;
}

int stat_targets_pids(struct stat_targets *t, const char *list, bool threads)
{
	char *copy = strdup(list), *save = NULL, *tok;
	int r = 0;

	if (!copy)
		return -ENOMEM;
	r = stat_targets_check_pid_namespace();
	if (r < 0)
		goto out;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *end, path[64];
		long v = strtol(tok, &end, 10);
		struct stat st;

		if (*end || end == tok || v <= 0 || v > INT_MAX) {
			log_error("invalid %s '%s'", threads ? "thread id" : "process id",
				  log_name(tok));
			r = -EINVAL;
			goto out;
		}
		snprintf(path, sizeof(path), "/proc/%ld", v);
		if (stat(path, &st) < 0) {
			log_error("%s %ld does not exist", threads ? "thread" : "process", v);
			r = -ESRCH;
			goto out;
		}
		if (!push_key(t, (uint64_t)v)) {
			r = -ENOMEM;
			goto out;
		}
	}
	if (t->nr_keys == 0) {
		log_error("empty %s list", threads ? "thread" : "process");
		r = -EINVAL;
		goto out;
	}
	t->filter = threads ? CGPERF_FILTER_PID : CGPERF_FILTER_TGID;
	snprintf(t->desc, sizeof(t->desc), "%s '%s'", threads ? "thread" : "process", list);
out:
	free(copy);
	return r;
}

int stat_targets_add_cgroup(struct stat_targets *t, const char *path)
{
	char norm[PATH_MAX];
	struct stat_target_key *k;
	const char *root = NULL;
	uint64_t id;
	int r;

	r = cgroup2_root(&root, NULL);
	if (r < 0) {
		log_error("no cgroup2 hierarchy is mounted; per-cgroup counting needs cgroup2");
		return r;
	}
	r = cgroup2_normalize(path, norm, sizeof(norm));
	if (r < 0) {
		log_error("invalid cgroup path '%s'", log_name(path));
		return r;
	}
	r = cgroup2_id_of(norm, &id);
	if (r < 0) {
		log_error("cgroup '%s' does not exist under %s", log_name(norm), log_name(root));
		return r;
	}
	k = push_key(t, id);
	if (!k)
		return -ENOMEM;
	if (!k->label) {
		/* Escaped once, here: the label goes to the terminal (table, -x
		 * rows, messages) and a tenant chose the name. */
		size_t size = 4 * strlen(norm) + 5;

		k->label = malloc(size);
		if (k->label)
			text_escape_control(norm, k->label, size);
		k->path = strdup(norm);
		r = cgroup2_ancestor_ids(norm, k->ancestors, CGPERF_MAX_CGROUP_DEPTH);
		if (r < 0 || !k->label || !k->path) {
			log_error("cannot resolve the ancestors of cgroup '%s'", log_name(norm));
			return r < 0 ? r : -ENOMEM;
		}
		k->nr_ancestors = r;
	}
	t->filter = CGPERF_FILTER_CGROUP;
	t->per_key_output = true;
	snprintf(t->desc, sizeof(t->desc), "%d cgroup(s)", t->nr_keys);
	return 0;
}

int stat_targets_add_cgroups(struct stat_targets *t, const char *arg)
{
	char norm[PATH_MAX], *copy, *save = NULL, *tok;
	uint64_t id;
	int r = 0;

	/* perf splits -G on commas, but a cgroup's name may hold a comma: if
	 * the whole argument names a cgroup, it is that cgroup. */
	if (cgroup2_normalize(arg, norm, sizeof(norm)) == 0 && cgroup2_id_of(norm, &id) == 0)
		return stat_targets_add_cgroup(t, arg);
	copy = strdup(arg);
	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok && r == 0; tok = strtok_r(NULL, ",", &save))
		r = stat_targets_add_cgroup(t, tok);
	if (r == 0 && t->nr_keys == 0) {
		log_error("empty cgroup list");
		r = -EINVAL;
	}
	free(copy);
	return r;
}

static int add_matching(const char *rel_path, uint64_t id, void *data)
{
	return stat_targets_add_cgroup(data, rel_path);
}

static int for_each_one(struct stat_targets *t, const char *pattern)
{
	int r = cgroup2_for_each_matching(pattern, add_matching, t);

	if (r == 0) {
		log_error("no cgroup matches '%s'", log_name(pattern));
		return -ENOENT;
	}
	return r < 0 ? r : 0;
}

/* perf's form: a comma list, each item a name or a glob. A name that itself
 * holds a comma stays usable: the whole argument is tried first. */
int stat_targets_for_each_cgroup(struct stat_targets *t, const char *arg)
{
	char *copy, *save = NULL;
	int r = cgroup2_for_each_matching(arg, add_matching, t);

	if (r != 0 || !strchr(arg, ','))
		return r == 0 ? for_each_one(t, arg) : r < 0 ? r : 0;
	copy = strdup(arg);
	if (!copy)
		return -ENOMEM;
	for (char *tok = strtok_r(copy, ",", &save); tok && r == 0;
	     tok = strtok_r(NULL, ",", &save))
		r = for_each_one(t, tok);
	if (r == 0 && t->nr_keys == 0) {
		log_error("empty cgroup list");
		r = -EINVAL;
	}
	free(copy);
	return r;
}
