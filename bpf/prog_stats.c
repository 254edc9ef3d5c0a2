// SPDX-License-Identifier: GPL-2.0-only
#include "bpf/prog_stats.h"
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define SYSCTL_STATS "/proc/sys/kernel/bpf_stats_enabled"

static bool sysctl_on(void)
{
	FILE *f = fopen(SYSCTL_STATS, "re");
	int v = 0;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v != 0;
}

int prog_stats_enable(int *ret_fd, bool *ret_already)
{
	int fd;

	if (sysctl_on()) {
		*ret_fd = -1;
		*ret_already = true;
		return 0;
	}
	fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (fd < 0)
		return -errno;
	*ret_fd = fd;
	*ret_already = false;
	return 0;
}

int prog_stats_sample(uint32_t id, struct prog_sample *ret)
{
	struct bpf_prog_info info = { 0 };
	uint32_t len = sizeof(info);
	int fd = bpf_prog_get_fd_by_id(id), r = 0;

	/* Not held open between samples: cgperf must not keep someone
	 * else's program alive, and a program that went away is news. */
	if (fd < 0)
		return -errno;
	if (bpf_obj_get_info_by_fd(fd, &info, &len) < 0)
		r = -errno;
	close(fd);
	if (r < 0)
		return r;
	*ret = (struct prog_sample){ .id = id,
				     .type = info.type,
				     .run_cnt = info.run_cnt,
				     .run_time_ns = info.run_time_ns,
				     .load_time_ns = info.load_time };
	memcpy(ret->name, info.name, sizeof(ret->name) - 1);
	for (int i = 0; i < 8; i++)
		snprintf(ret->tag + 2 * i, 3, "%02x", info.tag[i]);
	return 0;
}

int prog_stats_id_of(int fd, uint32_t *ret_id)
{
	struct bpf_prog_info info = { 0 };
	uint32_t len = sizeof(info);

	if (bpf_obj_get_info_by_fd(fd, &info, &len) < 0)
		return -errno;
	*ret_id = info.id;
	return 0;
}

int prog_stats_next_id(uint32_t id, uint32_t *ret_id)
{
	return bpf_prog_get_next_id(id, ret_id) < 0 ? -errno : 0;
}

const char *prog_stats_type_name(uint32_t type, char *buf, int len)
{
	const char *s = libbpf_bpf_prog_type_str(type);

	if (s)
		return s;
	snprintf(buf, len, "type %u", type);
	return buf;
}
