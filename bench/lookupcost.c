// SPDX-License-Identifier: GPL-2.0-only
/* lookupcost: what naming one podman container costs, with and without the
 * parsed-file cache, side by side in one run.
 *
 * Writes a podman storage root into a temporary directory whose
 * containers.json holds N entries shaped like podman's (about 700 bytes
 * each: 5000 entries = 3.5 MB), then times cg_metadata_lookup() of
 * containers spread over that index: first with no cache (every lookup
 * parses the index, as before the cache), then with one cache (the index is
 * parsed once per version). Prints microseconds per lookup for each and the
 * ratio.
 *
 * usage: lookupcost [-n ENTRIES] [-i LOOKUPS] */
#include "cgroup/identity.h"
#include "cgroup/metadata.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static void id_of(int i, char out[65])
{
	snprintf(out, 65, "%016x%016x%016x%016x", i, i * 7 + 1, i * 13 + 2, i * 31 + 3);
}

static int write_index(const char *root, int n, size_t *ret_bytes)
{
	char path[512], id[65];
	FILE *f;

	snprintf(path, sizeof(path), "%s/overlay-containers", root);
	if (mkdir(root, 0700) < 0 || mkdir(path, 0700) < 0)
		return -1;
	snprintf(path, sizeof(path), "%s/overlay-containers/containers.json", root);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputc('[', f);
	for (int i = 0; i < n; i++) {
		id_of(i, id);
		fprintf(f,
			"%s{\"id\":\"%s\",\"names\":[\"container-%d\"],\"image\":\"%s\",\"layer\":\"%s\","
			"\"metadata\":\"{\\\"image-name\\\":\\\"registry.example.com/team/app:%d\\\","
			"\\\"image-id\\\":\\\"%s\\\",\\\"name\\\":\\\"container-%d\\\","
			"\\\"created-at\\\":1700000000,\\\"mountlabel\\\":\\\"system_u:object_r:container_file_t:s0\\\"}\","
			"\"created\":\"2024-01-01T00:00:00.000000000Z\",\"flags\":{\"MountLabel\":\"system_u:object_r:"
			"container_file_t:s0:c1,c2\",\"ProcessLabel\":\"system_u:system_r:container_t:s0:c1,c2\"}}",
			i ? "," : "", id, i, id, id, i, id, i);
	}
	fputc(']', f);
	*ret_bytes = (size_t)ftell(f);
	return fclose(f);
}

static double time_lookups(const struct metadata_roots *roots, int n, int lookups)
{
	double start = now_us();

	for (int i = 0; i < lookups; i++) {
		char path[128], id[65];
		struct cg_identity ident;
		struct cg_metadata md;

		id_of((int)((long)i * 7919 % n), id);
		snprintf(path, sizeof(path), "/machine.slice/libpod-%s.scope", id);
		cg_identify(path, &ident);
		cg_metadata_lookup(roots, &ident, &md);
		if (strncmp(md.container_name, "container-", 10) != 0) {
			fprintf(stderr, "lookupcost: %s not named (got '%s')\n", id,
				md.container_name);
			exit(1);
		}
	}
	return (now_us() - start) / lookups;
}

int main(int argc, char **argv)
{
	int n = 5000, lookups = 20, opt;
	char root[] = "/tmp/cgperf-lookupcost.XXXXXX", cmd[600];
	struct metadata_roots roots = {
		.docker = "", .containerd = "", .crio = "", .pod_logs = ""
	};
	struct metadata_cache *cache;
	double uncached, cached;
	size_t bytes = 0;

	while ((opt = getopt(argc, argv, "n:i:")) != -1) {
		if (opt == 'n')
			n = atoi(optarg);
		else if (opt == 'i')
			lookups = atoi(optarg);
		else
			return 2;
	}
	if (n < 1 || lookups < 1 || !mkdtemp(root))
		return 2;
	strcat(root, "/p");
	if (write_index(root, n, &bytes) < 0 || metadata_cache_new(&cache) < 0) {
		perror("lookupcost");
		return 1;
	}
	roots.podman = root;
	uncached = time_lookups(&roots, n, lookups);
	roots.cache = cache;
	cached = time_lookups(&roots, n, lookups * 50);
	printf("containers.json: %d entries, %zu bytes\n", n, bytes);
	printf("lookup without cache: %10.1f us\n", uncached);
	printf("lookup with cache:    %10.1f us (first one parses: included)\n", cached);
	printf("ratio:                %10.0fx\n", uncached / cached);
	metadata_cache_free(cache);
	root[strlen(root) - 2] = '\0';
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : 1;
}
