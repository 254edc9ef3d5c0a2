/* SPDX-License-Identifier: GPL-2.0-only */
/* libFuzzer harness for cgroup path classification (cgroup/identity.c):
 * the input is "root\0path" (cgroups.root and a cgroup's path; tenants name
 * cgroups in delegated subtrees freely). Checked on every input:
 *   - 0, or -EINVAL exactly for an empty path, ret untouched then;
 *   - every string NUL-terminated in its field;
 *   - a container id is 64 lowercase hex digits found in the path; a pod
 *     uid is found there (dashes or the systemd driver's underscores);
 *   - a container has an id (or an LXC name); a nested cgroup is neither a
 *     container nor a pod; a rootless one is below that user's manager;
 *   - the same answer twice (no state). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup/identity.h"
#include "fuzz_util.h"

#define H "fuzz_identity"

static int terminated(const char *s, size_t size)
{
	return memchr(s, '\0', size) != NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cg_identity id, again, before;
	const char *part[2];
	char *buf = fuzz_split(data, size, part, 2), manager[48];
	int r;

	if (!buf)
		return 0;
	memset(&id, 0x5a, sizeof(id));
	before = id;
	r = cg_identify_at(part[0][0] ? part[0] : "/", part[1], &id);
	if (!part[1][0]) {
		fuzz_check(r == -EINVAL, H, "-EINVAL for an empty path");
		fuzz_check(!memcmp(&id, &before, sizeof(id)), H, "untouched on failure");
		goto out;
	}
	fuzz_check(r == 0, H, "0 for a path");
	fuzz_check(terminated(id.runtime, sizeof(id.runtime)) &&
			   terminated(id.container_id, sizeof(id.container_id)) &&
			   terminated(id.pod_uid, sizeof(id.pod_uid)) &&
			   terminated(id.qos, sizeof(id.qos)) &&
			   terminated(id.unit, sizeof(id.unit)) &&
			   terminated(id.lxc_name, sizeof(id.lxc_name)),
		   H, "fields NUL-terminated");
	if (id.container_id[0]) {
		fuzz_check(strlen(id.container_id) == 64 &&
				   strspn(id.container_id, "0123456789abcdef") == 64,
			   H, "container id is 64 lowercase hex");
		fuzz_check(strstr(part[1], id.container_id) != NULL, H, "container id from the path");
	}
	if (id.pod_uid[0]) {
		char underscored[CG_ID_MAX];

		snprintf(underscored, sizeof(underscored), "%s", id.pod_uid);
		for (char *p = underscored; *p; p++)
			if (*p == '-')
				*p = '_';
		fuzz_check(strstr(part[1], id.pod_uid) || strstr(part[1], underscored), H,
			   "pod uid from the path");
	}
	if (id.kind == CG_KIND_CONTAINER)
		fuzz_check(id.container_id[0] || id.lxc_name[0], H, "a container has an id");
	if (id.nested)
		fuzz_check(id.kind != CG_KIND_CONTAINER && id.kind != CG_KIND_POD, H,
			   "nested is neither container nor pod");
	if (id.rootless) {
		snprintf(manager, sizeof(manager), "user@%u.service", id.uid);
		fuzz_check(strstr(part[1], manager) != NULL, H, "rootless below its manager");
	}
	fuzz_check(cg_kind_name(id.kind) != NULL, H, "kind has a name");
	memset(&again, 0x5a, sizeof(again));
	cg_identify_at(part[0][0] ? part[0] : "/", part[1], &again);
	fuzz_check(!memcmp(&id, &again, sizeof(id)), H, "same answer twice");
	(void)cg_may_hold_host_containers(part[0][0] ? part[0] : "/", part[1]);
out:
	free(buf);
	return 0;
}
