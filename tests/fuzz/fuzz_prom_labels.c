/* SPDX-License-Identifier: GPL-2.0-only */
/* libFuzzer harness for the Prometheus label values (sink/prom_format.c),
 * by round trip: the input split at NUL bytes into a cgroup's seven label
 * values (path, kind, runtime, container id, container name, pod,
 * namespace: all tenant-chosen or derived from tenant bytes), formatted by
 * prom_cgroup_labels(), then read back by the harness's own parser of the
 * exposition's label syntax (name="value", escapes \\ \" \n only, as
 * Prometheus reads them). Each value must come back as the input with
 * every byte that starts no valid UTF-8 sequence as U+FFFD (by the
 * harness's own decoder), and nothing may follow the last label. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "sink/prom_format.h"

#define H "fuzz_prom_labels"

static const char *const names[7] = { "cgroup",		"kind", "runtime",  "container_id",
				      "container_name", "pod",	"namespace" };

/* Parse name="value" at *pos into value (unescaped); -1 if malformed. */
static long parse_label(const char *s, size_t n, size_t *pos, const char *name, char *value)
{
	size_t i = *pos, w = 0, name_len = strlen(name);

	if (n - i < name_len + 2 || memcmp(s + i, name, name_len) || s[i + name_len] != '=' ||
	    s[i + name_len + 1] != '"')
		return -1;
	for (i += name_len + 2; i < n && s[i] != '"'; i++) {
		if (s[i] == '\n')
			return -1; /* a raw newline ends the sample line */
		if (s[i] != '\\') {
			value[w++] = s[i];
			continue;
		}
		if (++i >= n)
			return -1;
		if (s[i] == 'n')
			value[w++] = '\n';
		else if (s[i] == '\\' || s[i] == '"')
			value[w++] = s[i];
		else
			return -1;
	}
	if (i >= n)
		return -1;
	value[w] = '\0';
	*pos = i + 1;
	return (long)w;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *part[7];
	char *buf = fuzz_split(data, size, part, 7), *value = malloc(3 * size + 1);
	struct buf b = { 0 };
	struct sink_cgroup cg;
	size_t pos = 0;

	if (!buf || !value)
		goto out;
	cg = (struct sink_cgroup){ .path = part[0], .kind = part[1], .runtime = part[2],
				   .container_id = part[3], .container_name = part[4],
				   .pod = part[5], .pod_namespace = part[6] };
	if (prom_cgroup_labels(&b, &cg) != 0)
		goto out;
	for (size_t i = 0; i < 7; i++) {
		char *want = fuzz_sanitized(part[i], NULL);

		if (i > 0) {
			fuzz_check(pos < b.len && b.data[pos] == ',', H, "labels separated by ','");
			pos++;
		}
		fuzz_check(parse_label(b.data, b.len, &pos, names[i], value) >= 0, H,
			   "label parses back");
		fuzz_check(!want || !strcmp(value, want), H,
			   "label value reads back as the sanitized input");
		free(want);
	}
	fuzz_check(pos == b.len, H, "nothing after the last label");
out:
	buf_free(&b);
	free(value);
	free(buf);
	return 0;
}
