// SPDX-License-Identifier: GPL-2.0-only
#include "bpf/session_pin.h"
#include "bpf/bpffs.h"
#include "bpf/map_retry.h"
#include "bpf/prog_stats.h"
#include "util/log.h"
#include <bpf/bpf.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

static int make_dir(const char *path)
{
	if (mkdir(path, 0700) < 0 && errno != EEXIST)
		return -errno;
	return bpffs_check_dir(path);
}

int session_dir_open(const char *bpffs_dir, const char *instance, char *ret_path, size_t len,
		     int *ret_lock_fd)
{
	char parent[512], path[600];
	int fd, r;

	snprintf(parent, sizeof(parent), "%s/instances", bpffs_dir);
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", parent, instance) >= sizeof(path) ||
	    strlen(path) >= len)
		return -ENAMETOOLONG;
	r = bpffs_check_dir(bpffs_dir);
	if (r == 0)
		r = make_dir(parent);
	if (r == 0)
		r = make_dir(path);
	if (r < 0)
		return r;
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		r = errno == EWOULDBLOCK ? -EBUSY : -errno;
		close(fd);
		return r;
	}
	snprintf(ret_path, len, "%s", path);
	*ret_lock_fd = fd;
	return 0;
}

static void pin_path(char *buf, size_t len, const char *dir, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
}

bool session_pinned(const char *dir)
{
	char p[700];
	struct stat st;

	pin_path(p, sizeof(p), dir, "session");
	return lstat(p, &st) == 0;
}

static int pin_fd(const char *dir, const char *prefix, const char *name, int fd)
{
	char p[700], n[128];

	snprintf(n, sizeof(n), "%s%s", prefix, name);
	/* bpffs refuses names with a dot (internal maps: "follower.bss"). */
	for (char *c = n; *c; c++)
		if (*c == '.')
			*c = '_';
	pin_path(p, sizeof(p), dir, n);
	return bpf_obj_pin(fd, p) < 0 ? -errno : 0;
}

static int pin_meta(const char *dir, const struct session_meta *meta)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts);
	int fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "cgperf_session", 4, sizeof(*meta), 1, &opts);
	uint32_t zero = 0;
	int r;

	if (fd < 0)
		return -errno;
	r = bpf_map_update_elem(fd, &zero, meta, BPF_ANY) < 0 ? -errno : 0;
	if (r == 0)
		r = pin_fd(dir, "", "session", fd);
	close(fd);
	return r;
}

static int pin_objects(const char *dir, const struct bpf_object_skeleton *s)
{
	struct bpf_map *m;
	int r;

	for (int i = 0; i < s->prog_cnt; i++) {
		struct bpf_program *p = *s->progs[i].prog;
		struct bpf_link *l = s->progs[i].link ? *s->progs[i].link : NULL;

		if (bpf_program__fd(p) < 0)
			continue; /* not loaded (autoload off) */
		r = pin_fd(dir, "prog_", bpf_program__name(p), bpf_program__fd(p));
		if (r == 0 && l)
			r = pin_fd(dir, "link_", bpf_program__name(p), bpf_link__fd(l));
		if (r < 0)
			return r;
	}
	bpf_object__for_each_map (m, *s->obj) {
		/* The shared leaders' arrays are not this session's: the pinned
		 * programs hold them anyway. */
		if (bpf_map__type(m) == BPF_MAP_TYPE_PERF_EVENT_ARRAY)
			continue;
		r = pin_fd(dir, "map_", bpf_map__name(m), bpf_map__fd(m));
		if (r < 0)
			return r;
	}
	return 0;
}

int session_pin(const char *dir, const struct bpf_object_skeleton *s,
		const struct session_meta *meta)
{
	/* The description last: a session is pinned once it is there. */
	int r = pin_objects(dir, s);

	if (r == 0)
		r = pin_meta(dir, meta);
	if (r < 0)
		session_unpin(dir);
	return r;
}

int session_pin_map(const char *dir, const char *name, int fd)
{
	return pin_fd(dir, "", name, fd);
}

int session_pin_get(const char *dir, const char *name, int *ret_fd)
{
	char p[700];
	int fd, r;

	pin_path(p, sizeof(p), dir, name);
	r = bpffs_check_pin(p);
	if (r < 0)
		return r;
	fd = bpf_obj_get(p);
	if (fd < 0)
		return -errno;
	*ret_fd = fd;
	return 0;
}

/* The id of the program pinned as name in dir. */
static int pinned_prog_id(const char *dir, const char *name, uint32_t *ret_id)
{
	int fd, r = session_pin_get(dir, name, &fd);

	if (r < 0)
		return r;
	r = prog_stats_id_of(fd, ret_id);
	close(fd);
	return r;
}

int session_prog_ids(const char *dir, uint32_t *ids, int max, int *ret_nr)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int nr = 0, r = 0;

	if (!d)
		return -errno;
	while (!r && (e = readdir(d))) {
		if (strncmp(e->d_name, "prog_", 5) != 0)
			continue;
		r = nr < max ? pinned_prog_id(dir, e->d_name, &ids[nr++]) : -E2BIG;
	}
	closedir(d);
	if (r == 0)
		*ret_nr = nr;
	return r;
}

int session_read_meta(const char *dir, struct session_meta *ret)
{
	struct bpf_map_info info = { 0 };
	uint32_t len = sizeof(info), zero = 0;
	struct session_meta meta;
	int fd, r = session_pin_get(dir, "session", &fd);

	if (r < 0)
		return r;
	if (bpf_obj_get_info_by_fd(fd, &info, &len) < 0)
		r = -errno;
	else if (info.value_size != sizeof(meta) || info.type != BPF_MAP_TYPE_ARRAY)
		r = -EPROTO;
	else if (bpf_map_lookup_elem(fd, &zero, &meta) < 0)
		r = -errno;
	else if (meta.layout < CGPERF_SESSION_LAYOUT_MIN || meta.layout > CGPERF_SESSION_LAYOUT ||
		 meta.nr_events < 1 || meta.nr_events > 8)
		r = -EPROTO;
	close(fd);
	if (r == 0)
		*ret = meta;
	return r;
}

int session_unpin(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int r = 0;

	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' && unlinkat(dirfd(d), e->d_name, 0) < 0 && !r)
			r = -errno;
	closedir(d);
	if (rmdir(dir) < 0 && errno != ENOENT && !r)
		r = -errno;
	return r;
}

int session_state_get(const char *dir, const char *name, size_t value_size, int *ret_fd)
{
	struct bpf_map_info info = { 0 };
	uint32_t len = sizeof(info);
	int fd, r = session_pin_get(dir, name, &fd);

	if (r < 0)
		return r;
	if (bpf_obj_get_info_by_fd(fd, &info, &len) < 0 || info.value_size != value_size ||
	    info.key_size != 8 || info.type != BPF_MAP_TYPE_HASH) {
		close(fd);
		return -EPROTO;
	}
	*ret_fd = fd;
	return 0;
}

int session_state_open(const char *dir, const char *name, size_t value_size, uint32_t max_entries,
		       int *ret_fd)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = BPF_F_NO_PREALLOC);
	char map_name[BPF_OBJ_NAME_LEN];
	int fd, r = session_state_get(dir, name, value_size, ret_fd);

	if (r != -ENOENT)
		return r;
	/* Not preallocated: memory follows the records there are. */
	snprintf(map_name, sizeof(map_name), "cgperf_%s", name);
	fd = bpf_map_create(BPF_MAP_TYPE_HASH, map_name, 8, value_size, max_entries, &opts);
	if (fd < 0)
		return -errno;
	r = pin_fd(dir, "", name, fd);
	if (r < 0) {
		close(fd);
		return r;
	}
	*ret_fd = fd;
	return 0;
}

int session_state_remove(const char *dir, const char *name)
{
	char p[700];

	pin_path(p, sizeof(p), dir, name);
	return unlink(p) < 0 && errno != ENOENT ? -errno : 0;
}

int session_state_put(int fd, uint64_t key, const void *value)
{
	return map_update_retry(fd, &key, value, BPF_ANY);
}

int session_state_put_all(int fd, const uint64_t *keys, const void *values, size_t value_size,
			  uint32_t n)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts, .elem_flags = BPF_ANY);
	uint32_t count = n;

	if (n == 0)
		return 0;
	/* One syscall per collection instead of one per cgroup. The map is
	 * not preallocated: a batch is where an empty allocator cache shows
	 * most (map_retry.h); the elements not written are written one by
	 * one, those trying again. */
	if (bpf_map_update_batch(fd, keys, values, &count, &opts) < 0 && errno != ENOMEM)
		return -errno;
	for (; count < n; count++) {
		int r = session_state_put(fd, keys[count],
					  (const char *)values + count * value_size);

		if (r < 0)
			return r;
	}
	return 0;
}

int session_state_delete(int fd, uint64_t key)
{
	return bpf_map_delete_elem(fd, &key) < 0 && errno != ENOENT ? -errno : 0;
}

int session_state_for_each(int fd, size_t value_size,
			   int (*cb)(void *ctx, uint64_t key, const void *value), void *ctx)
{
	unsigned char value[value_size];
	uint64_t key, *prev = NULL;
	int r = 0;

	while (r >= 0 && bpf_map_get_next_key(fd, prev, &key) == 0) {
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, value) < 0)
			continue; /* deleted meanwhile */
		r = cb(ctx, key, value);
	}
	return r < 0 ? r : 0;
}
