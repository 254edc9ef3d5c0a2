// SPDX-License-Identifier: GPL-2.0-only
#include "util/cpus.h"
#include "util/hash.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#define CPUS_ONLINE_PATH "/sys/devices/system/cpu/online"
#define CPUS_POSSIBLE_PATH "/sys/devices/system/cpu/possible"

int cpulist_parse(const char *list, bool *mask)
{
	const char *p = list;
	int count = 0;

	memset(mask, 0, sizeof(bool) * CPUS_MAX);
	while (*p && *p != '\n') {
		char *end;
		long lo, hi;

		lo = strtol(p, &end, 10);
		if (end == p || lo < 0 || lo >= CPUS_MAX)
			return -EINVAL;
		hi = lo;
		p = end;
		if (*p == '-') {
			p++;
			hi = strtol(p, &end, 10);
			if (end == p || hi < lo || hi >= CPUS_MAX)
				return -EINVAL;
			p = end;
		}
		for (long c = lo; c <= hi; c++)
			if (!mask[c]) {
				mask[c] = true;
				count++;
			}
		if (*p == ',')
			p++;
		else if (*p && *p != '\n')
			return -EINVAL;
	}
	return count > 0 ? count : -EINVAL;
}

/* The CPUs of the list in the file at path, ascending. */
static int cpus_of(const char *path, int **ret_cpus, int *ret_nr)
{
	static bool mask[CPUS_MAX];
	char buf[4096];
	int *cpus, n, r = 0;
	FILE *f;

	f = fopen(path, "re");
	if (!f)
		return -errno;
	if (!fgets(buf, sizeof(buf), f))
		r = -EIO;
	fclose(f);
	if (r < 0)
		return r;
	n = cpulist_parse(buf, mask);
	if (n < 0)
		return n;
	cpus = calloc(n, sizeof(int));
	if (!cpus)
		return -ENOMEM;
	for (int c = 0, i = 0; c < CPUS_MAX && i < n; c++)
		if (mask[c])
			cpus[i++] = c;
	*ret_cpus = cpus;
	*ret_nr = n;
	return 0;
}

int cpus_online(int **ret_cpus, int *ret_nr)
{
	return cpus_of(CPUS_ONLINE_PATH, ret_cpus, ret_nr);
}

int cpus_possible(int **ret_cpus, int *ret_nr)
{
	return cpus_of(CPUS_POSSIBLE_PATH, ret_cpus, ret_nr);
}

int cpus_online_open(void)
{
	int fd = open(CPUS_ONLINE_PATH, O_RDONLY | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

/* sysfs regenerates an attribute's text at every read from offset 0. */
int cpus_online_signature_fd(int fd, uint32_t *ret)
{
	char buf[4096];
	uint32_t h;
	ssize_t n;

	if (fd < 0)
		return cpus_online_signature(ret);
	do
		n = pread(fd, buf, sizeof(buf), 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	h = hash_bytes32(buf, (size_t)n);
	*ret = h ? h : 1;
	return 0;
}

int cpus_online_signature(uint32_t *ret)
{
	int fd = cpus_online_open(), r;

	if (fd < 0)
		return fd;
	r = cpus_online_signature_fd(fd, ret);
	close(fd);
	return r;
}
