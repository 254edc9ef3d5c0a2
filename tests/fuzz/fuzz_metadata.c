/* SPDX-License-Identifier: GPL-2.0-only */
/* libFuzzer harness for the parsers of the runtimes' metadata files
 * (cgroup/metadata.c through metadata_parse()), one format per binary:
 * FUZZ_FORMAT is METADATA_DOCKER_CONFIG (config.v2.json),
 * METADATA_OCI_CONFIG (containerd's/CRI-O's/podman's config.json),
 * METADATA_STORAGE_INDEX (podman's containers.json) or METADATA_POD_DB
 * (podman's bolt_state.db). The input is the file, not NUL-terminated
 * (ASan sees a read past it). Checked on every input:
 *   - 0, -EBADMSG or -ENOMEM;
 *   - every field NUL-terminated within CG_NAME_MAX, every label value
 *     within METADATA_LABEL_MAX;
 *   - a field that already had a value keeps it (sources are tried best
 *     first);
 *   - the bounds of docs/TESTING.md "Hostile metadata files": json-c is
 *     handed at most 8 x the file (POD_DB_DEPTH) plus the nested "metadata"
 *     strings, and an index keeps at most what its fields can hold.
 * The id looked up is the first 64-hex id in the input (so the fuzzer's
 * mutations of a seed's id move both), else a fixed one. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup/metadata_parse.h"
#include "fuzz_util.h"

#define H "fuzz_metadata"

static void find_id(const uint8_t *data, size_t size, char id[CG_ID_MAX])
{
	size_t run = 0;

	strcpy(id, "1111111111111111111111111111111111111111111111111111111111111111");
	for (size_t i = 0; i < size; i++) {
		run = strchr("0123456789abcdef", data[i]) && data[i] ? run + 1 : 0;
		if (run == 64) {
			memcpy(id, data + i - 63, 64);
			return;
		}
	}
}

static void check_field(const char *f, const char *before)
{
	size_t n = strnlen(f, CG_NAME_MAX);

	fuzz_check(n < CG_NAME_MAX, H, "field NUL-terminated");
	if (before[0])
		fuzz_check(!strcmp(f, before), H, "a field with a value keeps it");
}

/* Label keys as users allow-list them (the seeds carry them). */
static const struct metadata_roots keys = {
	.label_keys = { "app", "com.docker.compose.service", "io.kubernetes.pod.name", "team" },
	.nr_label_keys = 4,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cg_metadata md = { 0 }, before;
	struct metadata_parse_cost cost;
	char id[CG_ID_MAX], *buf = malloc(size ? size : 1);
	int r;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	find_id(data, size, id);
	/* Every other call with one field set: it must stay as it is. */
	if (size & 1)
		strcpy(md.image, "preset");
	before = md;
	memset(&cost, 0x5a, sizeof(cost));
	r = metadata_parse(FUZZ_FORMAT, buf, size, id, &keys, &md, &cost);
	fuzz_check(r == 0 || r == -EBADMSG || r == -ENOMEM, H, "return value");
	check_field(md.container_name, before.container_name);
	check_field(md.image, before.image);
	check_field(md.pod_name, before.pod_name);
	check_field(md.pod_namespace, before.pod_namespace);
	for (int i = 0; i < METADATA_MAX_LABELS; i++)
		fuzz_check(strnlen(md.labels[i], METADATA_LABEL_MAX) < METADATA_LABEL_MAX, H,
			   "label NUL-terminated");
	if (r == 0) {
		/* POD_DB_DEPTH x the file, and the storage index's nested
		 * "metadata" strings are at most the file again. */
		fuzz_check(cost.parsed <= 8 * size + 64, H, "bytes parsed bounded by the file");
		if (FUZZ_FORMAT == METADATA_STORAGE_INDEX || FUZZ_FORMAT == METADATA_POD_DB)
			fuzz_check(cost.kept <= (size / 8 + 1) * (160 + 64 + 2 * CG_NAME_MAX), H,
				   "index memory bounded by its entries");
	}
	free(buf);
	return 0;
}
