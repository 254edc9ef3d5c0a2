// SPDX-License-Identifier: GPL-2.0-only
/* See cpuhp_notify.h. */
#include "bpf/cpuhp_notify.h"
#include "cpuhp_notify.skel.h"
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdlib.h>

struct cpuhp_notify {
	struct cpuhp_notify_bpf *skel;
	struct ring_buffer *rb;
	int drained; /* records of the current drain */
};

static int count_record(void *ctx, void *data, size_t size)
{
	struct cpuhp_notify *n = ctx;

	(void)data;
	(void)size;
	n->drained++;
	return 0;
}

int cpuhp_notify_open(struct cpuhp_notify **ret)
{
	struct cpuhp_notify *n = calloc(1, sizeof(*n));
	int r;

	if (!n)
		return -ENOMEM;
	n->skel = cpuhp_notify_bpf__open_and_load();
	if (!n->skel) {
		r = -errno;
		goto fail;
	}
	r = cpuhp_notify_bpf__attach(n->skel);
	if (r < 0)
		goto fail;
	n->rb = ring_buffer__new(bpf_map__fd(n->skel->maps.cpuhp_events), count_record, n, NULL);
	if (!n->rb) {
		r = -errno;
		goto fail;
	}
	*ret = n;
	return 0;
fail:
	cpuhp_notify_close(n);
	return r < 0 ? r : -EINVAL;
}

void cpuhp_notify_close(struct cpuhp_notify *n)
{
	if (!n)
		return;
	ring_buffer__free(n->rb);
	cpuhp_notify_bpf__destroy(n->skel);
	free(n);
}

int cpuhp_notify_fd(const struct cpuhp_notify *n)
{
	return ring_buffer__epoll_fd(n->rb);
}

int cpuhp_notify_drain(struct cpuhp_notify *n)
{
	int r;

	n->drained = 0;
	r = ring_buffer__consume(n->rb);
	return r < 0 ? r : n->drained;
}

uint32_t cpuhp_notify_prog_id(const struct cpuhp_notify *n)
{
	struct bpf_prog_info info = { 0 };
	__u32 len = sizeof(info);
	int fd = n ? bpf_program__fd(n->skel->progs.on_cpuhp_exit) : -1;

	if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len) < 0)
		return 0;
	return info.id;
}
