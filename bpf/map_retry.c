// SPDX-License-Identifier: GPL-2.0-only
/* See map_retry.h. */
#include "bpf/map_retry.h"

#include <errno.h>
#include <time.h>
#include <bpf/bpf.h>

enum {
	MAP_RETRY_TRIES = 10
};

int map_update_retry(int fd, const void *key, const void *value, __u64 flags)
{
	const struct timespec pause = { 0, 1000 * 1000 };

	for (int i = 0;; i++) {
		if (bpf_map_update_elem(fd, key, value, flags) == 0)
			return 0;
		if (errno != ENOMEM || i + 1 == MAP_RETRY_TRIES)
			return -errno;
		nanosleep(&pause, NULL);
	}
}
