// SPDX-License-Identifier: GPL-2.0-only
#include "bpf/leader.h"
#include "bpf/bpffs.h"
#include "bpf/cgperf_shared.h"
#include "events/event_parse.h"
#include "events/perf_open.h"
#include "leader.skel.h"
#include "util/cpus.h"
#include "util/caps.h"
#include "util/log.h"
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define ATTR_MAP_NAME "attr_map"
#define ATTR_MAP_ENTRIES 64
#define ATTR_LOCK_TIMEOUT_MS 10000

/* Serialise find-or-create between cgperf processes with a flock on cgperf's
 * bpffs directory: a real inode of its own. (A flock on a BPF map fd would
 * lock the one anonymous inode that every map, eventfd and epoll fd on the
 * host shares: any unrelated process could block cgperf.) Bounded, because
 * the callers block SIGINT/SIGTERM for their signalfd. */
int leaders_lock(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), r;

	if (fd < 0)
		return -errno;
	for (int waited_ms = 0;; waited_ms += 10) {
		if (flock(fd, LOCK_EX | LOCK_NB) == 0)
			return fd;
		r = -errno;
		if (r != -EWOULDBLOCK || waited_ms >= ATTR_LOCK_TIMEOUT_MS)
			break;
		usleep(10 * 1000);
	}
	close(fd);
	if (r == -EWOULDBLOCK) {
		log_error("another process has held the lock on %s for %d s; is a cgperf stuck?",
			  log_name(dir), ATTR_LOCK_TIMEOUT_MS / 1000);
		return -ETIMEDOUT;
	}
	return r;
}

static int attr_map_open(const char *dir)
{
	int fd, r = bpffs_map_open(dir, ATTR_MAP_NAME, "cgperf_attrs",
				   sizeof(struct perf_event_attr),
				   sizeof(struct cgperf_leader_entry), ATTR_MAP_ENTRIES, &fd);

	return r < 0 ? r : fd;
}

int attr_map_lock(const char *dir, int *ret_lock_fd)
{
	int lock_fd = leaders_lock(dir), fd;

	if (lock_fd < 0)
		return lock_fd;
	fd = attr_map_open(dir);
	if (fd < 0) {
		close(lock_fd);
		return fd;
	}
	*ret_lock_fd = lock_fd;
	return fd;
}

void attr_map_unlock(int map_fd, int lock_fd)
{
	if (map_fd >= 0)
		close(map_fd);
	if (lock_fd >= 0)
		close(lock_fd); /* drops the flock */
}

/* Put a fresh perf_event for attr on each of cpus into the array at map_fd
 * (replacing what was there: after a CPU went offline and came back, its old
 * perf_event no longer counts). Returns the number of CPUs done, or a
 * negative errno if none could be. */
static int events_map_fill(int map_fd, const struct perf_event_attr *attr, const char *name,
			   const int *cpus, int nr_cpus)
{
	int opened = 0, first_err = 0, r;

	for (int i = 0; i < nr_cpus; i++) {
		__u32 key = cpus[i];
		int pfd = perf_open(attr, -1, cpus[i]);

		if (pfd < 0) {
			if (!first_err)
				first_err = pfd;
			continue;
		}
		if (bpf_map_update_elem(map_fd, &key, &pfd, BPF_ANY) < 0) {
			if (!first_err)
				first_err = -errno;
		} else {
			opened++;
		}
		close(pfd); /* the map holds it now */
	}
	if (opened == 0 && nr_cpus > 0) {
		r = first_err ? first_err : -ENODEV;
		log_error("cannot open event '%s' on any CPU: %s", name, strerror(-r));
		return r;
	}
	if (opened < nr_cpus)
		log_warn("event '%s' could be opened on only %d of %d CPUs", name, opened, nr_cpus);
	return opened;
}

/* A PERF_EVENT_ARRAY with one perf_event per online CPU. BPF_F_PRESERVE_ELEMS
 * keeps the perf_events in the map after this process's fd is closed; they
 * go away with the map itself, i.e. with the last program or fd using it. */
static int events_map_create(const struct perf_event_attr *attr, const char *name, int *ret_fd,
			     int *ret_opened)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = BPF_F_PRESERVE_ELEMS);
	int *cpus = NULL, nr_cpus = 0, map_fd, r;

	map_fd = bpf_map_create(BPF_MAP_TYPE_PERF_EVENT_ARRAY, "events", sizeof(__u32), sizeof(int),
				libbpf_num_possible_cpus(), &opts);
	if (map_fd < 0) {
		r = -errno;
		log_error("cannot create the perf_event array: %s%s", strerror(errno),
			  caps_needed(errno, "CAP_BPF or CAP_SYS_ADMIN"));
		return r;
	}
	r = cpus_online(&cpus, &nr_cpus);
	if (r == 0)
		r = events_map_fill(map_fd, attr, name, cpus, nr_cpus);
	free(cpus);
	if (r < 0) {
		close(map_fd);
		return r;
	}
	*ret_fd = map_fd;
	*ret_opened = r;
	return 0;
}

static bool map_is_events_array(int fd)
{
	struct bpf_map_info info = { 0 };
	__u32 len = sizeof(info);

	return bpf_obj_get_info_by_fd(fd, &info, &len) == 0 &&
	       info.type == BPF_MAP_TYPE_PERF_EVENT_ARRAY &&
	       (info.map_flags & BPF_F_PRESERVE_ELEMS);
}

unsigned bpf_map_id_of(int fd)
{
	struct bpf_map_info info = { 0 };
	__u32 len = sizeof(info);

	return bpf_obj_get_info_by_fd(fd, &info, &len) == 0 ? info.id : 0;
}

/* fexit mode: fds of a live leader program, from its link id. */
static int leader_attach_existing(const struct cgperf_leader_entry *e, struct leader *l)
{
	struct bpf_link_info info = { 0 };
	__u32 len = sizeof(info);

	if (!e->link_id || !e->diff_map_id)
		return -ENOENT;
	l->link_fd = bpf_link_get_fd_by_id(e->link_id);
	if (l->link_fd < 0)
		return errno == EPERM ? -EPERM : -ENOENT;
	/* The link pins the program, the program its maps: if the link is
	 * alive, so are they. */
	if (bpf_obj_get_info_by_fd(l->link_fd, &info, &len) < 0)
		return -errno;
	l->prog_fd = bpf_prog_get_fd_by_id(info.prog_id);
	l->diff_map_fd = bpf_map_get_fd_by_id(e->diff_map_id);
	if (l->prog_fd < 0 || l->diff_map_fd < 0)
		return errno == EPERM ? -EPERM : -ENOENT;
	return 0;
}

static int leader_load_program(struct leader *l)
{
	struct leader_bpf *skel;
	int r;

	skel = leader_bpf__open();
	if (!skel)
		return -errno;
	bpf_map__set_max_entries(skel->maps.events, libbpf_num_possible_cpus());
	r = bpf_map__reuse_fd(skel->maps.events, l->events_map_fd);
	if (r < 0)
		goto fail;
	r = leader_bpf__load(skel);
	if (r < 0)
		goto fail;
	r = leader_bpf__attach(skel);
	if (r < 0)
		goto fail;
	l->skel = skel;
	l->link_fd = dup(bpf_link__fd(skel->links.on_switch));
	l->prog_fd = dup(bpf_program__fd(skel->progs.on_switch));
	l->diff_map_fd = dup(bpf_map__fd(skel->maps.diff_readings));
	return 0;
fail:
	leader_bpf__destroy(skel);
	return r;
}

unsigned bpf_link_id_of(int fd)
{
	struct bpf_link_info info = { 0 };
	__u32 len = sizeof(info);

	return bpf_obj_get_info_by_fd(fd, &info, &len) == 0 ? info.id : 0;
}

int leader_acquire(int attr_map_fd, const struct perf_event_attr *attr, const char *event_name,
		   enum follower_mode mode, struct leader *ret)
{
	struct cgperf_leader_entry e = { 0 };
	struct leader l = { .events_map_fd = -1, .link_fd = -1, .prog_fd = -1, .diff_map_fd = -1 };
	bool have_entry, entry_changed = false;
	int r;

	have_entry = bpf_map_lookup_elem(attr_map_fd, attr, &e) == 0;
	if (have_entry && e.events_map_id) {
		l.events_map_fd = bpf_map_get_fd_by_id(e.events_map_id);
		/* Not allowed to join: opening a second set of perf_events would
		 * silently break the one-set-per-CPU sharing. */
		if (l.events_map_fd < 0 && errno == EPERM) {
			r = -EPERM;
			log_error(
				"cannot share the counters another cgperf session opened for '%s': "
				"bpf(BPF_MAP_GET_FD_BY_ID) needs CAP_SYS_ADMIN",
				event_name);
			goto fail;
		}
		/* Ids are not reused soon, but check the type anyway. */
		if (l.events_map_fd >= 0 && !map_is_events_array(l.events_map_fd)) {
			close(l.events_map_fd);
			l.events_map_fd = -1;
		}
	}
	if (l.events_map_fd < 0) {
		r = events_map_create(attr, event_name, &l.events_map_fd, &l.nr_cpus_opened);
		if (r < 0)
			goto fail;
		l.created = true;
		e = (struct cgperf_leader_entry){ .events_map_id = bpf_map_id_of(l.events_map_fd) };
		cpus_online_signature(&e.cpus_sig);
		entry_changed = true;
	}
	l.events_map_id = e.events_map_id;

	r = mode == FOLLOWER_FEXIT && !l.created ? leader_attach_existing(&e, &l) : 0;
	if (r == -EPERM) {
		log_error("cannot share the leader program another cgperf session loaded for '%s': "
			  "bpf(BPF_LINK_GET_FD_BY_ID) needs CAP_SYS_ADMIN",
			  event_name);
		goto fail;
	}
	if (mode == FOLLOWER_FEXIT && (l.created || r < 0)) {
		if (l.link_fd >= 0)
			close(l.link_fd);
		if (l.prog_fd >= 0)
			close(l.prog_fd);
		if (l.diff_map_fd >= 0)
			close(l.diff_map_fd);
		l.link_fd = l.prog_fd = l.diff_map_fd = -1;
		r = leader_load_program(&l);
		if (r < 0) {
			log_error("cannot load the leader program for '%s': %s", event_name,
				  strerror(-r));
			goto fail;
		}
		e.link_id = bpf_link_id_of(l.link_fd);
		e.diff_map_id = bpf_map_id_of(l.diff_map_fd);
		entry_changed = true;
	}

	if (entry_changed) {
		r = bpf_map_update_elem(attr_map_fd, attr, &e, BPF_ANY);
		if (r < 0 && errno == E2BIG) {
			/* Full of entries whose leaders are gone: forget those. */
			struct perf_event_attr key, next;
			struct cgperf_leader_entry old;
			void *prev = NULL;

			while (bpf_map_get_next_key(attr_map_fd, prev, &next) == 0) {
				key = next;
				prev = &key;
				if (bpf_map_lookup_elem(attr_map_fd, &key, &old) == 0) {
					int fd = bpf_map_get_fd_by_id(old.events_map_id);
					if (fd < 0)
						bpf_map_delete_elem(attr_map_fd, &key);
					else
						close(fd);
				}
			}
			r = bpf_map_update_elem(attr_map_fd, attr, &e, BPF_ANY);
		}
		if (r < 0) {
			r = -errno;
			log_error("cannot record the leader for '%s' in the attr map: %s",
				  event_name, strerror(errno));
			goto fail;
		}
	}
	*ret = l;
	return 0;
fail:
	leader_release(&l);
	return r;
}

int leader_refresh_cpus(int attr_map_fd, const struct perf_event_attr *attr, const char *event_name,
			const struct leader *l, uint32_t cpus_sig, const int *new_cpus, int nr_new)
{
	struct cgperf_leader_entry e;
	int r;

	if (bpf_map_lookup_elem(attr_map_fd, attr, &e) < 0 || e.events_map_id != l->events_map_id)
		return 0; /* not ours to fix: another leader took the attr's entry */
	if (e.cpus_sig == cpus_sig)
		return 0; /* another session already reopened them */
	r = events_map_fill(l->events_map_fd, attr, event_name, new_cpus, nr_new);
	if (r < 0)
		return r;
	e.cpus_sig = cpus_sig;
	if (bpf_map_update_elem(attr_map_fd, attr, &e, BPF_EXIST) < 0)
		return -errno;
	if (nr_new)
		log_info("event '%s': %d CPU(s) came online; their perf_events were reopened",
			 event_name, r);
	return 0;
}

void leader_release(struct leader *l)
{
	if (!l)
		return;
	if (l->events_map_fd >= 0)
		close(l->events_map_fd);
	if (l->link_fd >= 0)
		close(l->link_fd);
	if (l->prog_fd >= 0)
		close(l->prog_fd);
	if (l->diff_map_fd >= 0)
		close(l->diff_map_fd);
	leader_bpf__destroy(l->skel);
	*l = (struct leader){
		.events_map_fd = -1, .link_fd = -1, .prog_fd = -1, .diff_map_fd = -1
	};
}

int leaders_acquire(const struct event_spec *events, int nr, enum follower_mode mode,
		    struct leader *ret, char *ret_dir, size_t dir_len)
{
	char dir[256];
	int map_fd, lock_fd = -1, r = 0, i;

	r = bpffs_prepare(dir, sizeof(dir));
	if (r < 0)
		return r;
	map_fd = attr_map_lock(dir, &lock_fd);
	if (map_fd < 0)
		return map_fd;
	for (i = 0; i < nr; i++) {
		r = leader_acquire(map_fd, &events[i].attr, events[i].name, mode, &ret[i]);
		if (r < 0)
			break;
		log_info("event '%s': %s leader (perf_event array id %u)", events[i].name,
			 ret[i].created ? "created the" : "sharing the", ret[i].events_map_id);
	}
	/* Only find-or-create needs the lock: the fds keep the leaders alive. */
	attr_map_unlock(map_fd, lock_fd);
	if (r < 0) {
		while (i-- > 0)
			leader_release(&ret[i]);
		return r;
	}
	if (ret_dir)
		snprintf(ret_dir, dir_len, "%s", dir);
	return 0;
}

int leaders_share_events(struct bpf_object *obj, const struct leader *l, int nr, int nr_possible)
{
	for (int i = 0; i < CGPERF_MAX_EVENTS; i++) {
		char name[16];
		struct bpf_map *m;
		int r;

		snprintf(name, sizeof(name), "events%d", i);
		m = bpf_object__find_map_by_name(obj, name);
		if (!m)
			return -ENOENT;
		bpf_map__set_max_entries(m, nr_possible);
		/* Slots past nr are never read (the verifier drops that code);
		 * point them at event 0's array instead of making maps. */
		r = bpf_map__reuse_fd(m, l[i < nr ? i : 0].events_map_fd);
		if (r < 0)
			return r;
	}
	return 0;
}
