#include "bpf/filter_gen.h"
#include <bpf/bpf.h>
#include <errno.h>

static int store(struct filter_gen *g)
{
	__u32 zero = 0;

	if (g->fd < 0)
		return 0;
	return bpf_map_update_elem(g->fd, &zero, &g->v, BPF_ANY) < 0 ? -errno : 0;
}

int filter_gen_open(struct filter_gen *g, int fd)
{
	struct cgperf_filter_gen v = { 0 };
	__u32 zero = 0;

	if (fd >= 0 && bpf_map_lookup_elem(fd, &zero, &v) < 0)
		return -errno;
	g->fd = fd;
	g->v = v;
	return 0;
}

int filter_gen_changed(struct filter_gen *g)
{
	g->v.gen++;
	return store(g);
}

int filter_gen_released(struct filter_gen *g)
{
	g->v.release_gen = g->v.gen;
	return store(g);
}
