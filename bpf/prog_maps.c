// SPDX-License-Identifier: GPL-2.0-only
#include "bpf/prog_maps.h"
#include <bpf/bpf.h>
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#define PROG_MAPS_MAX 64 /* on_sync uses 15 (eight event arrays among them) */

static bool map_name_is(const char *map, const char *name)
{
	size_t n = strlen(map), k = strlen(name);

	if (name[0] == '.')
		return n >= k && strcmp(map + n - k, name) == 0;
	return strcmp(map, name) == 0;
}

/* Ids are not reused soon, but what names an id (a registry entry, a pin)
 * can outlive it: callers check what they found before writing there. */
int prog_map_by_name(int prog_fd, const char *name, __u32 type, int *ret_fd)
{
	__u32 ids[PROG_MAPS_MAX], len;
	struct bpf_prog_info info = { 0 };

	len = sizeof(info);
	info.nr_map_ids = PROG_MAPS_MAX;
	info.map_ids = (__u64)(unsigned long)ids;
	if (bpf_obj_get_info_by_fd(prog_fd, &info, &len) < 0)
		return -errno;
	for (__u32 i = 0; i < info.nr_map_ids && i < PROG_MAPS_MAX; i++) {
		struct bpf_map_info mi = { 0 };
		__u32 mlen = sizeof(mi);
		int fd = bpf_map_get_fd_by_id(ids[i]);

		if (fd < 0)
			continue;
		if (bpf_obj_get_info_by_fd(fd, &mi, &mlen) == 0 && map_name_is(mi.name, name) &&
		    mi.type == type) {
			*ret_fd = fd;
			return 0;
		}
		close(fd);
	}
	return -ENOENT;
}
