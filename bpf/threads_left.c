#include "bpf/threads_left.h"
#include <bpf/bpf.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>

/* The threads of tgid: entries of /proc/TGID/task (the host's ids: stat
 * refuses -p in another PID namespace). */
static int count_threads(uint64_t tgid, __u64 *ret_nr)
{
	char path[64];
	struct dirent *de;
	__u64 nr = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%llu/task", (unsigned long long)tgid);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			nr++;
	closedir(d);
	*ret_nr = nr;
	return 0;
}

int threads_left_seed(int fd, uint64_t tgid)
{
	__u64 key = tgid, nr;
	int r = count_threads(tgid, &nr);

	if (r < 0)
		return r;
	if (bpf_map_update_elem(fd, &key, &nr, BPF_NOEXIST) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

int threads_left_forget(int fd, uint64_t tgid)
{
	__u64 key = tgid;

	if (bpf_map_delete_elem(fd, &key) < 0 && errno != ENOENT)
		return -errno;
	return 0;
}
