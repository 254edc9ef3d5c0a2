// SPDX-License-Identifier: GPL-2.0-only
#include "bpf/filter_gen.h"
#include <bpf/bpf.h>
#include <errno.h>
#include <stddef.h>
#include <sys/mman.h>
#include <unistd.h>

static int store(struct filter_gen *g)
{
	__u32 zero = 0;

	return bpf_map_update_elem(g->fd, &zero, &g->v, BPF_ANY) < 0 ? -errno : 0;
}

int filter_gen_open(struct filter_gen *g, int fd)
{
	struct cgperf_filter_gen v = { 0 };
	void *map = MAP_FAILED;
	__u32 zero = 0;

	if (fd >= 0) {
		map = mmap(NULL, sysconf(_SC_PAGESIZE), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (map == MAP_FAILED && bpf_map_lookup_elem(fd, &zero, &v) < 0)
			return -errno;
	}
	g->fd = fd;
	g->map = map == MAP_FAILED ? NULL : map;
	g->v = v;
	return 0;
}

int filter_gen_open_shared(struct filter_gen *g, int fd)
{
	int r = filter_gen_open(g, fd);

	if (r == 0 && !g->map) {
		g->fd = -1; /* not bound: nothing moves it by syscall */
		return -EOPNOTSUPP;
	}
	return r;
}

void filter_gen_close(struct filter_gen *g)
{
	if (g && g->map)
		munmap(g->map, sysconf(_SC_PAGESIZE));
	if (g)
		g->map = NULL;
}

int filter_gen_changed(struct filter_gen *g)
{
	if (g->map) {
		__atomic_add_fetch(&g->map->gen, 1, __ATOMIC_SEQ_CST);
		return 0;
	}
	if (g->fd < 0)
		return 0;
	g->v.gen++;
	return store(g);
}

__u64 filter_gen_now(const struct filter_gen *g)
{
	return g->map ? __atomic_load_n(&g->map->gen, __ATOMIC_SEQ_CST) : g->v.gen;
}

int filter_gen_released(struct filter_gen *g, __u64 mark)
{
	__u64 to = mark ? mark : filter_gen_now(g);

	if (g->map) {
		/* Up only: another process may have moved it further. */
		__u64 cur = __atomic_load_n(&g->map->release_gen, __ATOMIC_SEQ_CST);

		while (cur < to &&
		       !__atomic_compare_exchange_n(&g->map->release_gen, &cur, to, false,
						    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
			;
		return 0;
	}
	if (g->fd < 0)
		return 0;
	g->v.release_gen = to;
	return store(g);
}
