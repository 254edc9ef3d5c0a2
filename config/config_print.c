// SPDX-License-Identifier: GPL-2.0-only
/* Write a configuration back as YAML (`cgperf check-config --print`): every
 * setting, defaults included, in a form config_parse() reads back to the
 * same values. */
#include "config/config.h"
#include "config/config_schema.h"
#include "util/escape.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* What YAML lets appear unescaped (YAML 1.1 "printable", as libyaml checks
 * it on input), minus the characters that end or escape a quoted scalar and
 * the line separators U+2028/U+2029, which YAML reads as line breaks and
 * folds (NEL, U+0085, is already outside the range). */
static bool yaml_printable(uint32_t cp)
{
	if (cp == 0x2028 || cp == 0x2029)
		return false;
	return (cp >= 0x20 && cp <= 0x7e && cp != '"' && cp != '\\') ||
	       (cp >= 0xa0 && cp <= 0xd7ff) || (cp >= 0xe000 && cp <= 0xfffd && cp != 0xfeff) ||
	       (cp >= 0x10000 && cp <= 0x10ffff);
}

/* A YAML double-quoted scalar: always quoted, so values such as "true",
 * "10", "*" or ": x" stay strings. Printable UTF-8 passes through; control
 * characters (C0, DEL, C1), U+FEFF and the like become escapes, or libyaml
 * would refuse to read the output back. A byte that is not UTF-8 at all
 * cannot be written in YAML: it is written as the code point of the same
 * value, the closest there is. */
static void put_quoted(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', f);
	while (*p) {
		uint32_t cp;
		size_t n = utf8_decode(p, &cp);

		if (n == 0) {
			fprintf(f, "\\x%02x", *p);
			p++;
		} else if (yaml_printable(cp)) {
			fwrite(p, 1, n, f);
			p += n;
		} else {
			if (cp == '"' || cp == '\\')
				fprintf(f, "\\%c", (int)cp);
			else if (cp <= 0xff)
				fprintf(f, "\\x%02x", (unsigned)cp);
			else if (cp <= 0xffff)
				fprintf(f, "\\u%04x", (unsigned)cp);
			else
				fprintf(f, "\\U%08x", (unsigned)cp);
			p += n;
		}
	}
	fputc('"', f);
}

/* An output's derived metrics, as a flow list (plain names). */
static void put_derived(FILE *f, const struct derived_list *l)
{
	fputs("    derived: [", f);
	for (int i = 0; i < l->nr; i++)
		fprintf(f, "%s%s", i ? ", " : "", derived_name(l->m[i]));
	fputs("]\n", f);
}

/* n strings, stride bytes apart; key with its indentation. */
static void put_list(FILE *f, const char *key, const char *items, size_t stride, int n)
{
	fprintf(f, "%s: [", key);
	for (int i = 0; i < n; i++) {
		if (i)
			fputs(", ", f);
		put_quoted(f, items + (size_t)i * stride);
	}
	fputs("]\n", f);
}

/* The largest unit that divides the value exactly, so 10000 ms prints as 10s. */
static void put_duration(FILE *f, uint64_t ms)
{
	if (ms != 0 && ms % (24 * 3600 * 1000) == 0)
		fprintf(f, "%" PRIu64 "d", ms / (24 * 3600 * 1000));
	else if (ms % (3600 * 1000) == 0)
		fprintf(f, "%" PRIu64 "h", ms / (3600 * 1000));
	else if (ms % (60 * 1000) == 0)
		fprintf(f, "%" PRIu64 "m", ms / (60 * 1000));
	else if (ms % 1000 == 0)
		fprintf(f, "%" PRIu64 "s", ms / 1000);
	else
		fprintf(f, "%" PRIu64 "ms", ms);
}

static void put_size(FILE *f, uint64_t bytes)
{
	static const char *const units[] = { "TiB", "GiB", "MiB", "KiB" };

	for (int i = 0; i < 4; i++) {
		uint64_t unit = 1ULL << (10 * (4 - i));

		if (bytes != 0 && bytes % unit == 0) {
			fprintf(f, "%" PRIu64 "%s", bytes / unit, units[i]);
			return;
		}
	}
	fprintf(f, "%" PRIu64, bytes);
}

int config_write_yaml(const struct agent_config *c, FILE *f)
{
	const char *facility;

	if (!c || !f)
		return -EINVAL;
	facility = config_facility_name(c->syslog.facility);
	fputs("interval: ", f);
	put_duration(f, c->interval_ms);
	fputs("\ninstance: ", f);
	put_quoted(f, c->instance);
	fprintf(f, "\npersist: %s", c->persist_auto ? "auto" : c->persist ? "true" : "false");
	fputs("\nevents: [", f);
	for (int i = 0; i < c->nr_events; i++) {
		if (i)
			fputs(", ", f);
		put_quoted(f, c->events[i]);
	}
	fputs("]\ncgroups:\n  root: ", f);
	put_quoted(f, c->cgroups.root);
	fputs("\n", f);
	put_list(f, "  include", c->cgroups.include[0], sizeof(c->cgroups.include[0]),
		 c->cgroups.nr_include);
	put_list(f, "  exclude", c->cgroups.exclude[0], sizeof(c->cgroups.exclude[0]),
		 c->cgroups.nr_exclude);
	fprintf(f, "  containers_only: %s\n", c->cgroups.containers_only ? "true" : "false");
	fprintf(f, "  include_infrastructure: %s\n",
		c->cgroups.include_infrastructure ? "true" : "false");
	fprintf(f, "  max: %u\n", c->cgroups.max);
	fprintf(f, "  max_delegated: %u\n", c->cgroups.max_delegated);
	fprintf(f, "  max_watches: %u\n", c->cgroups.max_watches);
	fprintf(f, "  max_depth: %d\n", c->cgroups.max_depth);
	fputs("  rescan_interval: ", f);
	put_duration(f, c->cgroups.rescan_interval_ms);
	fputc('\n', f);
	fputs("bpf_programs:\n", f);
	put_list(f, "  include", c->bpf_programs.include[0], sizeof(c->bpf_programs.include[0]),
		 c->bpf_programs.nr_include);
	put_list(f, "  exclude", c->bpf_programs.exclude[0], sizeof(c->bpf_programs.exclude[0]),
		 c->bpf_programs.nr_exclude);
	fprintf(f, "  events: %s\n", c->bpf_programs.events ? "true" : "false");
	fputs("metadata:\n", f);
	for (size_t i = 0; i < CONFIG_NR_ROOT_KEYS; i++) {
		fprintf(f, "  %s: ", config_root_keys[i].name);
		put_quoted(f, (const char *)c + config_root_keys[i].offset);
		fputc('\n', f);
	}
	fputs("outputs:\n  csv:\n", f);
	fprintf(f, "    enabled: %s\n", c->csv.enabled ? "true" : "false");
	fputs("    directory: ", f);
	put_quoted(f, c->csv.directory);
	fputs("\n    max_size: ", f);
	put_size(f, c->csv.max_size);
	fprintf(f, "\n    max_files: %u\n", c->csv.max_files);
	fputs("    keep_removed: ", f);
	put_duration(f, c->csv.keep_removed_ms);
	fputs("\n    flush_interval: ", f);
	put_duration(f, c->csv.flush_interval_ms);
	fputs("\n    max_total_size: ", f);
	put_size(f, c->csv.max_total_size);
	fprintf(f, "\n    safe_cells: %s\n", c->csv.safe_cells ? "true" : "false");
	put_derived(f, &c->csv.derived);
	fputs("  syslog:\n", f);
	fprintf(f, "    enabled: %s\n", c->syslog.enabled ? "true" : "false");
	fputs("    target: ", f);
	put_quoted(f, c->syslog.target);
	fprintf(f, "\n    format: %s\n",
		c->syslog.format == SYSLOG_RFC3164 ? "rfc3164" : "rfc5424");
	fprintf(f, "    facility: %s\n", facility ? facility : "daemon");
	fputs("    app_name: ", f);
	put_quoted(f, c->syslog.app_name);
	fprintf(f, "\n    enterprise_id: %" PRIu32 "\n", c->syslog.enterprise_id);
	fprintf(f, "    queue_max: %zu\n", c->syslog.queue_max);
	put_derived(f, &c->syslog.derived);
	fputs("  prometheus:\n", f);
	fprintf(f, "    enabled: %s\n", c->prometheus.enabled ? "true" : "false");
	fputs("    listen: ", f);
	put_quoted(f, c->prometheus.listen);
	fputs("\n    path: ", f);
	put_quoted(f, c->prometheus.path);
	fputs("\n    keep_removed: ", f);
	put_duration(f, c->prometheus.keep_removed_ms);
	fprintf(f, "\n    max_connections: %u\n", c->prometheus.max_connections);
	fprintf(f, "    names: %s\n",
		c->prometheus.names == PROM_NAMES_CADVISOR ? "cadvisor"
		: c->prometheus.names == (PROM_NAMES_CGPERF | PROM_NAMES_CADVISOR) ? "both"
										     : "cgperf");
	put_list(f, "    container_labels", c->prometheus.container_labels[0],
		 sizeof(c->prometheus.container_labels[0]), c->prometheus.nr_container_labels);
	/* No default to show: the key is absent when there is none. */
	if (c->prometheus.web_config[0]) {
		fputs("    web_config: ", f);
		put_quoted(f, c->prometheus.web_config);
		fputs("\n", f);
	}
	fputs("  textfile:\n", f);
	fprintf(f, "    enabled: %s\n", c->textfile.enabled ? "true" : "false");
	fputs("    path: ", f);
	put_quoted(f, c->textfile.path);
	fputs("\n", f);
	return ferror(f) ? -EIO : 0;
}
