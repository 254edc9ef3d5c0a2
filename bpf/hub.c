// SPDX-License-Identifier: GPL-2.0-only
#include "bpf/hub.h"
#include "bpf/bpffs.h"
#include "bpf/cgperf_shared.h"
#include "bpf/leader.h"
#include "bpf/probe.h"
#include "bpf/prog_maps.h"
#include "bpf/prog_stats.h"
#include "bpf/read_masks.h"
#include "bpf/session_pin.h"
#include "follower_hub.skel.h"
#include "util/cpus.h"
#include "util/log.h"
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#define HUB_MAP_NAME "hub_map"
#define HUB_MAP_ENTRIES 64

/* The registry: a hub serves the sessions whose events are these leaders'
 * arrays (same attrs, same perf_events) with accumulators of this kind (and
 * for per-CPU arrays, of this size: the kernel compares an inner array's
 * size with the template's). */
struct hub_key {
	__u32 accum_kind;
	__u32 max_slots; /* arrays only; 0 for a hash */
	__u32 nr_events;
	__u32 pad;
	__u32 events_map_id[CGPERF_MAX_EVENTS];
};

struct hub_entry {
	__u32 link_id; /* the on_switch link: alive while some session holds it */
	__u32 sync_prog_id;
};

struct hub {
	struct follower_hub_bpf *skel; /* made here (NULL: found) */
	int link_fd, sync_fd, sessions_fd, filter_outer_fd, accum_outer_fd, gen_fd;
	int bss_fd; /* a hub found or adopted: its .bss (unseen switches); -1: none */
	/* on_attach's link (tasks that move themselves); -1: a hub of an
	 * older build, which has none */
	int attach_fd;
	int index; /* ours in the hub; -1: not registered */
	struct cgperf_hub_session me;
};

int hub_session_maps(enum accum_kind kind, int max_keys, int max_slots, int nr_events,
		     int *ret_filter_fd, int *ret_accum_fd)
{
	/* Like the accumulators: not preallocated where a tracing program may
	 * use such a map (only user space adds and removes cgroup keys). */
	LIBBPF_OPTS(bpf_map_create_opts, opts,
		    .map_flags = kind == ACCUM_HASH ? BPF_F_NO_PREALLOC : 0);
	int filter_fd, accum_fd, r;

	filter_fd = bpf_map_create(BPF_MAP_TYPE_HASH, "filter", sizeof(__u64),
				   sizeof(struct cgperf_slots), max_keys > 0 ? max_keys : 1, &opts);
	if (filter_fd < 0)
		return -errno;
	r = accum_create(kind, max_slots, nr_events, &accum_fd);
	if (r < 0) {
		close(filter_fd);
		return r;
	}
	*ret_filter_fd = filter_fd;
	*ret_accum_fd = accum_fd;
	return 0;
}

/* The start time of the process /proc/<name> is (clock ticks after boot:
 * field 22 of its stat), which tells a process from a later one that got
 * its pid. */
static int proc_start(const char *name, __u64 *ret)
{
	char path[64], buf[1024], *p;
	unsigned long long start;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%s/stat", name);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* The command name (field 2) may hold anything: count after its ')'. */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1,
			 " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d "
			 "%*d %*d %*d %llu",
			 &start) != 1)
		return -EPROTO;
	*ret = start;
	return 0;
}

/* Who registers: this process as the /proc mounted here names it (its pid
 * there, its start time, that procfs's device), so that a reaper reading
 * the same procfs checks the same process, whatever pid namespaces the two
 * run in. A process /proc does not show (another namespace's procfs) is
 * never taken for gone (device 0). */
static void own_identity(struct cgperf_hub_session *s)
{
	char self[32];
	struct stat st;
	ssize_t n = readlink("/proc/self", self, sizeof(self) - 1);

	if (n <= 0 || stat("/proc", &st) < 0)
		return;
	self[n] = '\0';
	if (proc_start("self", &s->owner_start) < 0)
		return;
	s->owner_pid = strtoull(self, NULL, 10);
	s->owner_proc = st.st_dev;
}

/* A member registered through this same procfs whose process is gone (or
 * whose pid is another process's now); a pinned one lives without its
 * process. */
static bool owner_gone(const struct cgperf_hub_session *s)
{
	char pid[24];
	struct stat st;
	__u64 start;
	int r;

	if (s->pinned || !s->owner_proc || stat("/proc", &st) < 0 || st.st_dev != s->owner_proc)
		return false;
	snprintf(pid, sizeof(pid), "%llu", (unsigned long long)s->owner_pid);
	r = proc_start(pid, &start);
	return r == -ENOENT || (r == 0 && start != s->owner_start);
}

static void set_masks(struct follower_hub_bpf *skel, const struct hub_opts *o)
{
	struct read_masks m;

	read_masks_of(o->events, o->nr_events, true, &m);
	skel->rodata->nr_events = o->nr_events;
	READ_MASKS_SET(skel->rodata, m);
}

static int dup_cloexec(int fd)
{
	return fcntl(fd, F_DUPFD_CLOEXEC, 0);
}

/* Every fd a member holds, from the loaded skeleton (close-on-exec: a
 * command run later must not keep the hub attached). */
static int take_skel_fds(struct hub *h)
{
	struct follower_hub_bpf *s = h->skel;

	h->link_fd = dup_cloexec(bpf_link__fd(s->links.on_switch));
	h->attach_fd = dup_cloexec(bpf_link__fd(s->links.on_attach));
	h->sync_fd = dup_cloexec(bpf_program__fd(s->progs.on_sync));
	h->sessions_fd = dup_cloexec(bpf_map__fd(s->maps.sessions));
	h->filter_outer_fd = dup_cloexec(bpf_map__fd(s->maps.sess_filter));
	h->accum_outer_fd = dup_cloexec(bpf_map__fd(s->maps.sess_accum));
	h->gen_fd = dup_cloexec(bpf_map__fd(s->maps.filter_gen));
	if (h->link_fd < 0 || h->attach_fd < 0 || h->sync_fd < 0 || h->sessions_fd < 0 ||
	    h->filter_outer_fd < 0 || h->accum_outer_fd < 0 || h->gen_fd < 0)
		return -errno;
	s->bss->attach_link_id = bpf_link_id_of(h->attach_fd);
	return 0;
}

static int hub_load(struct hub *h, const struct hub_opts *o, int filter_fd, int accum_fd)
{
	struct follower_hub_bpf *skel = follower_hub_bpf__open();
	int r;

	if (!skel)
		return -errno;
	h->skel = skel;
	set_masks(skel, o);
	r = leaders_share_events(skel->obj, o->leaders, o->nr_events, o->nr_possible);
	if (r < 0)
		return r;
	/* The first session's maps are the templates every later one's must
	 * match (type, sizes, flags): all are made by hub_session_maps(). */
	r = bpf_map__set_inner_map_fd(skel->maps.sess_filter, filter_fd);
	if (r == 0)
		r = bpf_map__set_inner_map_fd(skel->maps.sess_accum, accum_fd);
	if (r < 0)
		return r;
	/* on_sync is only run by syncs (test_run), never attached. */
	bpf_program__set_autoattach(skel->progs.on_sync, false);
	r = follower_hub_bpf__load(skel);
	if (r == 0)
		r = follower_hub_bpf__attach(skel);
	return r < 0 ? r : take_skel_fds(h);
}

static bool is_hub_prog(int fd, const char *name)
{
	struct bpf_prog_info info = { 0 };
	__u32 len = sizeof(info);

	return bpf_obj_get_info_by_fd(fd, &info, &len) == 0 && strcmp(info.name, name) == 0;
}

static bool sessions_map_ok(int fd)
{
	struct bpf_map_info info = { 0 };
	__u32 len = sizeof(info);

	return bpf_obj_get_info_by_fd(fd, &info, &len) == 0 &&
	       info.value_size == sizeof(struct cgperf_hub_session) &&
	       info.max_entries == CGPERF_HUB_MAX_SESSIONS;
}

/* The .bss of a hub this process did not make (the unseen-switch counters),
 * through its on_sync program (which updates them too), if its layout is
 * this build's; left -1 otherwise. */
static void open_bss(struct hub *h)
{
	struct bpf_map_info mi = { 0 };
	__u32 mlen = sizeof(mi);

	if (prog_map_by_name(h->sync_fd, ".bss", BPF_MAP_TYPE_ARRAY, &h->bss_fd) == 0 &&
	    (bpf_obj_get_info_by_fd(h->bss_fd, &mi, &mlen) < 0 ||
	     mi.value_size != sizeof(struct follower_hub_bpf__bss))) {
		close(h->bss_fd);
		h->bss_fd = -1;
	}
}

/* A found hub's on_attach link, held as long as the hub is (every member
 * holds it, so it lives while on_switch's does). The id comes from the
 * hub's .bss: the link must be an on_attach program's that shares the hub's
 * prev_readings (ids are not reused soon, but checked all the same). */
static void open_attach_link(struct hub *h, int switch_prog_fd)
{
	struct follower_hub_bpf__bss v;
	struct bpf_link_info li = { 0 };
	__u32 zero = 0, len = sizeof(li);
	int fd = -1, prog_fd = -1, mine = -1, theirs = -1;
	const char *why = "an older cgperf made it";

	if (h->bss_fd < 0)
		why = "its programs are of another cgperf build";
	else if (bpf_map_lookup_elem(h->bss_fd, &zero, &v) == 0 && v.attach_link_id &&
		 (fd = bpf_link_get_fd_by_id(v.attach_link_id)) < 0)
		why = "its link is gone";
	if (fd >= 0 && bpf_obj_get_info_by_fd(fd, &li, &len) == 0 &&
	    (prog_fd = bpf_prog_get_fd_by_id(li.prog_id)) >= 0 &&
	    is_hub_prog(prog_fd, "on_attach") &&
	    prog_map_by_name(prog_fd, "prev_readings", BPF_MAP_TYPE_PERCPU_ARRAY, &theirs) == 0 &&
	    prog_map_by_name(switch_prog_fd, "prev_readings", BPF_MAP_TYPE_PERCPU_ARRAY, &mine) ==
		    0 &&
	    bpf_map_id_of(mine) && bpf_map_id_of(mine) == bpf_map_id_of(theirs)) {
		h->attach_fd = fd;
		fd = -1;
	} else if (fd >= 0) {
		why = "its link is another program's";
	}
	int fds[] = { fd, prog_fd, mine, theirs };
	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
		if (fds[i] >= 0)
			close(fds[i]);
	if (h->attach_fd < 0)
		log_info("the cgroup hub has no cgroup_attach_task program (%s): a task that moves "
			 "itself to another cgroup is charged at its switch out",
			 why);
}

/* The hub of a registry entry, if it is alive: its fds through its link. */
static int hub_find(struct hub *h, const struct hub_entry *e)
{
	struct bpf_link_info li = { 0 };
	__u32 len = sizeof(li);
	int prog_fd, r;

	h->link_fd = bpf_link_get_fd_by_id(e->link_id);
	if (h->link_fd < 0)
		return -ENOENT;
	if (bpf_obj_get_info_by_fd(h->link_fd, &li, &len) < 0)
		return -errno;
	prog_fd = bpf_prog_get_fd_by_id(li.prog_id);
	h->sync_fd = bpf_prog_get_fd_by_id(e->sync_prog_id);
	if (prog_fd < 0 || h->sync_fd < 0) {
		r = -ENOENT;
		goto out;
	}
	r = is_hub_prog(prog_fd, "on_switch") && is_hub_prog(h->sync_fd, "on_sync") ? 0 : -ENOENT;
	if (r == 0)
		r = prog_map_by_name(prog_fd, "sessions", BPF_MAP_TYPE_ARRAY, &h->sessions_fd);
	if (r == 0)
		r = prog_map_by_name(prog_fd, "sess_filter", BPF_MAP_TYPE_ARRAY_OF_MAPS,
				     &h->filter_outer_fd);
	if (r == 0)
		r = prog_map_by_name(prog_fd, "sess_accum", BPF_MAP_TYPE_ARRAY_OF_MAPS,
				     &h->accum_outer_fd);
	if (r == 0)
		r = prog_map_by_name(prog_fd, "filter_gen", BPF_MAP_TYPE_ARRAY, &h->gen_fd);
	if (r == 0 && !sessions_map_ok(h->sessions_fd))
		r = -ENOENT;
	if (r == 0) {
		open_bss(h);
		open_attach_link(h, prog_fd);
	}
out:
	if (prog_fd >= 0)
		close(prog_fd);
	return r;
}

static void hub_fds_close(struct hub *h)
{
	int *fds[] = { &h->link_fd,	   &h->sync_fd, &h->sessions_fd, &h->filter_outer_fd,
		       &h->accum_outer_fd, &h->gen_fd,	&h->bss_fd,	 &h->attach_fd };

	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
	follower_hub_bpf__destroy(h->skel);
	h->skel = NULL;
}

static struct hub *hub_alloc(void)
{
	struct hub *h = calloc(1, sizeof(*h));

	if (h) {
		h->link_fd = h->sync_fd = h->sessions_fd = h->filter_outer_fd = -1;
		h->accum_outer_fd = h->gen_fd = h->bss_fd = h->attach_fd = h->index = -1;
	}
	return h;
}

/* Index i free: nothing registered, or its process gone (its entry, and the
 * hub's references to its maps, are taken back). */
static bool index_free(struct hub *h, __u32 i)
{
	struct cgperf_hub_session s;

	if (bpf_map_lookup_elem(h->sessions_fd, &i, &s) < 0)
		return false;
	if (s.used && !owner_gone(&s))
		return false;
	if (s.used)
		log_info("hub index %u: its session (pid %llu) is gone; taken back", i,
			 (unsigned long long)s.owner_pid);
	return true;
}

static void unregister(int sessions_fd, int filter_outer_fd, int accum_outer_fd, __u32 i)
{
	/* Nothing is added to the maps once their entries are gone; what a
	 * CPU still holds for this index is dropped (no maps) or replaced at
	 * the next registration's sync. The index is marked free last, after
	 * its maps are out: leaving takes no lock, and a registration that
	 * took the index meanwhile would lose its maps. */
	struct cgperf_hub_session none = { 0 };

	bpf_map_delete_elem(filter_outer_fd, &i);
	bpf_map_delete_elem(accum_outer_fd, &i);
	bpf_map_update_elem(sessions_fd, &i, &none, BPF_ANY);
}

/* Wait until no program that may have read an index's old entry still runs:
 * a test run on every online CPU completes only between programs there (its
 * IPI cannot interrupt on_switch, and one that interrupts a local on_sync
 * comes back busy and is run again after it), and a program is never
 * preempted. */
static int wait_out(const struct hub *h)
{
	int *cpus = NULL, nr = 0, r = cpus_online(&cpus, &nr);

	for (int i = 0; r == 0 && i < nr; i++) {
		r = bpf_run_on_cpu(h->sync_fd, cpus[i]);
		r = r == -ENXIO ? 0 : r; /* offline now: runs nothing */
	}
	free(cpus);
	return r;
}

static int hub_register(struct hub *h, int filter_fd, int accum_fd, bool pinned)
{
	struct cgperf_hub_session s = { .used = 1, .pinned = pinned };
	__u32 i;
	int r;

	own_identity(&s);
	for (i = 0; i < CGPERF_HUB_MAX_SESSIONS && !index_free(h, i); i++)
		;
	if (i == CGPERF_HUB_MAX_SESSIONS)
		return -ENOSPC;
	/* A program that read the previous owner's enabled flag may still be
	 * about to look up the maps at i: its entry and maps go first (a
	 * member taken back left them), then every such program is waited
	 * out, and only then are they ours. */
	unregister(h->sessions_fd, h->filter_outer_fd, h->accum_outer_fd, i);
	r = wait_out(h);
	if (r < 0)
		return r;
	/* Disabled until hub_enable(): nothing is added to its slots. */
	if (bpf_map_update_elem(h->sessions_fd, &i, &s, BPF_ANY) < 0 ||
	    bpf_map_update_elem(h->filter_outer_fd, &i, &filter_fd, BPF_ANY) < 0 ||
	    bpf_map_update_elem(h->accum_outer_fd, &i, &accum_fd, BPF_ANY) < 0) {
		r = -errno;
		unregister(h->sessions_fd, h->filter_outer_fd, h->accum_outer_fd, i);
		return r;
	}
	h->index = i;
	h->me = s;
	return 0;
}

static void registry_key(const struct hub_opts *o, struct hub_key *k)
{
	memset(k, 0, sizeof(*k));
	k->accum_kind = o->accum_kind;
	k->max_slots = o->accum_kind == ACCUM_ARRAY ? o->max_slots : 0;
	k->nr_events = o->nr_events;
	for (int i = 0; i < o->nr_events; i++)
		k->events_map_id[i] = o->leaders[i].events_map_id;
}

/* Entries of hubs that are gone (every member exited: their key, the
 * leaders' array ids, will not come again): deleted, so that the registry
 * never fills up. */
static void registry_sweep(int reg_fd)
{
	struct hub_key keys[HUB_MAP_ENTRIES], k, *prev = NULL;
	struct hub_entry e;
	int nr = 0;

	while (nr < HUB_MAP_ENTRIES && bpf_map_get_next_key(reg_fd, prev, &k) == 0) {
		int fd;

		prev = &k;
		if (bpf_map_lookup_elem(reg_fd, &k, &e) < 0)
			continue;
		fd = bpf_link_get_fd_by_id(e.link_id);
		if (fd >= 0)
			close(fd);
		else if (errno == ENOENT)
			keys[nr++] = k;
	}
	for (int i = 0; i < nr; i++)
		bpf_map_delete_elem(reg_fd, &keys[i]);
}

/* With the registry locked: join the published hub (not a persistent
 * session: it makes its own), or make one and publish it (replacing a full
 * or dead one: its members keep it). */
static int join_or_make(struct hub *h, const struct hub_opts *o, int reg_fd, int filter_fd,
			int accum_fd)
{
	struct hub_entry e;
	struct hub_key k;
	int r;

	registry_key(o, &k);
	if (!o->pinned && bpf_map_lookup_elem(reg_fd, &k, &e) == 0 && hub_find(h, &e) == 0 &&
	    (r = hub_register(h, filter_fd, accum_fd, false)) != -ENOSPC) {
		if (r == 0)
			log_info("sharing the cgroup hub (link %u) at index %d", e.link_id,
				 h->index);
		return r;
	}
	hub_fds_close(h);
	r = hub_load(h, o, filter_fd, accum_fd);
	if (r == 0)
		r = hub_register(h, filter_fd, accum_fd, o->pinned);
	if (r < 0)
		return r;
	e = (struct hub_entry){ .link_id = bpf_link_id_of(h->link_fd) };
	if (prog_stats_id_of(h->sync_fd, &e.sync_prog_id) < 0)
		e.sync_prog_id = 0; /* found by nobody: the next session makes its own */
	registry_sweep(reg_fd);
	if (bpf_map_update_elem(reg_fd, &k, &e, BPF_ANY) < 0)
		log_warn("cannot publish the cgroup hub: %s (other sessions make their own)",
			 strerror(errno));
	return 0;
}

int hub_join(const struct hub_opts *o, int filter_fd, int accum_fd, struct hub **ret)
{
	struct hub *h = hub_alloc();
	int reg_fd = -1, lock_fd = -1, r;

	if (!h)
		return -ENOMEM;
	/* The leaders' lock serialises registrations and the registry. */
	lock_fd = leaders_lock(o->bpffs_dir);
	r = lock_fd < 0 ? lock_fd
			: bpffs_map_open(o->bpffs_dir, HUB_MAP_NAME, "cgperf_hubs",
					 sizeof(struct hub_key), sizeof(struct hub_entry),
					 HUB_MAP_ENTRIES, &reg_fd);
	if (r == 0)
		r = join_or_make(h, o, reg_fd, filter_fd, accum_fd);
	if (reg_fd >= 0)
		close(reg_fd);
	if (lock_fd >= 0)
		close(lock_fd); /* drops the flock */
	if (r < 0) {
		hub_leave(h);
		return r;
	}
	*ret = h;
	return 0;
}

int hub_enable(struct hub *h)
{
	struct cgperf_hub_session me = h->me;
	__u32 i = h->index;

	me.enabled = 1;
	if (bpf_map_update_elem(h->sessions_fd, &i, &me, BPF_ANY) < 0)
		return -errno;
	h->me = me;
	return 0;
}

int hub_sync_fd(const struct hub *h)
{
	return h->sync_fd;
}

int hub_gen_fd(const struct hub *h)
{
	return h->gen_fd;
}

const struct bpf_object_skeleton *hub_skeleton(const struct hub *h)
{
	return h->skel ? h->skel->skeleton : NULL;
}

int hub_unseen_switches(const struct hub *h, struct unseen_stats *ret)
{
	struct follower_hub_bpf__bss v;
	__u32 zero = 0;

	if (h->skel) {
		v = *h->skel->bss;
	} else if (h->bss_fd < 0) {
		return -ENODATA;
	} else if (bpf_map_lookup_elem(h->bss_fd, &zero, &v) < 0) {
		return -errno;
	}
	*ret = (struct unseen_stats){ v.unseen_switches, v.unseen_ns, v.unseen_faults,
				      v.unseen_left_ns };
	return 0;
}

static int link_prog_id(int link_fd, __u32 *ret_id)
{
	struct bpf_link_info li = { 0 };
	__u32 len = sizeof(li);

	if (bpf_obj_get_info_by_fd(link_fd, &li, &len) < 0)
		return -errno;
	*ret_id = li.prog_id;
	return 0;
}

int hub_prog_ids(const struct hub *h, __u32 ret_ids[HUB_MAX_PROGS], int *ret_nr)
{
	__u32 ids[HUB_MAX_PROGS];
	int nr = 2, r = prog_stats_id_of(h->sync_fd, &ids[1]);

	if (r == 0)
		r = link_prog_id(h->link_fd, &ids[0]);
	if (r == 0 && h->attach_fd >= 0 && (r = link_prog_id(h->attach_fd, &ids[2])) == 0)
		nr = 3;
	if (r < 0)
		return r;
	memcpy(ret_ids, ids, nr * sizeof(ids[0]));
	*ret_nr = nr;
	return 0;
}

void hub_close(struct hub *h)
{
	if (!h)
		return;
	hub_fds_close(h);
	free(h);
}

/* Index i is still ours: another registration may have taken it back if
 * the owner could not be seen (a /proc that hides other users' processes). */
static bool still_ours(const struct hub *h, __u32 i)
{
	struct cgperf_hub_session s;

	return bpf_map_lookup_elem(h->sessions_fd, &i, &s) == 0 && s.used &&
	       s.owner_pid == h->me.owner_pid && s.owner_start == h->me.owner_start &&
	       s.owner_proc == h->me.owner_proc && s.pinned == h->me.pinned;
}

void hub_leave(struct hub *h)
{
	if (h && h->index >= 0 && still_ours(h, h->index))
		unregister(h->sessions_fd, h->filter_outer_fd, h->accum_outer_fd, h->index);
	hub_close(h);
}

/* Our index: the one whose filter is the map with filter_fd's id (from user
 * space, a map-in-map's value is its inner map's id). */
static int find_index(struct hub *h, int filter_fd)
{
	struct bpf_map_info info = { 0 };
	__u32 len = sizeof(info), inner_id;

	if (bpf_obj_get_info_by_fd(filter_fd, &info, &len) < 0)
		return -errno;
	for (__u32 i = 0; i < CGPERF_HUB_MAX_SESSIONS; i++) {
		if (bpf_map_lookup_elem(h->filter_outer_fd, &i, &inner_id) == 0 &&
		    inner_id == info.id && bpf_map_lookup_elem(h->sessions_fd, &i, &h->me) == 0) {
			h->index = i;
			return 0;
		}
	}
	return -ENOENT;
}

static int open_pins(struct hub *h, const char *dir, int *filter_fd)
{
	static const char *const names[] = { "link_on_switch",	"prog_on_sync",	  "map_sessions",
					     "map_sess_filter", "map_sess_accum", "map_filter_gen",
					     "map_filter" };
	int *fds[] = { &h->link_fd,	   &h->sync_fd, &h->sessions_fd, &h->filter_outer_fd,
		       &h->accum_outer_fd, &h->gen_fd,	filter_fd };
	int r = 0;

	for (size_t i = 0; r == 0 && i < sizeof(names) / sizeof(names[0]); i++)
		r = session_pin_get(dir, names[i], fds[i]);
	return r;
}

int hub_open_pinned(const char *dir, struct hub **ret)
{
	struct hub *h = hub_alloc();
	int filter_fd = -1, r;

	if (!h)
		return -ENOMEM;
	r = open_pins(h, dir, &filter_fd);
	if (r == 0)
		r = find_index(h, filter_fd);
	if (r == 0)
		open_bss(h);
	/* Pinned with the session since the hub has it; a session of an older
	 * build has none. */
	if (r == 0 && session_pin_get(dir, "link_on_attach", &h->attach_fd) < 0)
		log_info("the agent's cgroup hub has no cgroup_attach_task program (an older "
			 "cgperf made it): a task that moves itself to another cgroup is "
			 "charged at its switch out");
	if (filter_fd >= 0)
		close(filter_fd);
	if (r < 0) {
		hub_close(h);
		return r;
	}
	*ret = h;
	return 0;
}
