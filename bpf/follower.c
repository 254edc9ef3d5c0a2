// SPDX-License-Identifier: GPL-2.0-only
#include "bpf/follower.h"
#include "bpf/counter_int.h"
#include "bpf/prog_stats.h"
#include <bpf/libbpf.h>
#include <errno.h>

bool follower_tracks_tasks(const struct counter *c)
{
	return c->filter == CGPERF_FILTER_PID || c->filter == CGPERF_FILTER_TGID;
}

void follower_size_maps(const struct counter *c, struct bpf_map *filter, struct bpf_map *accum,
			struct bpf_map *threads)
{
	bpf_map__set_max_entries(filter, c->max_keys > 0 ? c->max_keys : 1);
	/* A thread count per child process (on_fork), where the object's
	 * programs keep them (NULL: its threads_left stays at one entry). */
	if (threads && c->filter == CGPERF_FILTER_TGID)
		bpf_map__set_max_entries(threads, c->max_keys > 0 ? c->max_keys : 1);
	/* Where the accumulators follow the live slots, so does a cgroup
	 * filter (user space alone adds and removes its keys; PID/TGID
	 * filters gain keys from on_fork, in the hot path, and stay
	 * preallocated). */
	if (c->accum_kind == ACCUM_HASH && c->filter == CGPERF_FILTER_CGROUP)
		bpf_map__set_map_flags(filter, BPF_F_NO_PREALLOC);
	accum_configure(accum, c->accum_kind, c->max_slots, c->nr_events);
}

/* ENXIO: the CPU went offline since the session started. Nothing runs
 * there, so there is nothing to bring up to date: not an error. */
int follower_run_on_cpu(int prog_fd, int cpu)
{
	int r = bpf_run_on_cpu(prog_fd, cpu);
	return r == -ENXIO ? 0 : r;
}

int follower_sync_prog(struct counter *c, int cpu)
{
	return follower_run_on_cpu(c->sync_fd, cpu);
}

int follower_add_prog_id(int fd, uint32_t *ids, int *nr, int max)
{
	if (fd < 0)
		return 0;
	if (*nr == max)
		return -E2BIG;
	return prog_stats_id_of(fd, &ids[(*nr)++]);
}

/* Autoload off: not loaded. */
int follower_add_obj_ids(struct bpf_object *obj, uint32_t *ids, int *nr, int max)
{
	struct bpf_program *p;
	int r = 0;

	if (!obj)
		return 0;
	bpf_object__for_each_program (p, obj)
		if (!r)
			r = follower_add_prog_id(bpf_program__fd(p), ids, nr, max);
	return r;
}
