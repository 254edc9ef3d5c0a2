// SPDX-License-Identifier: GPL-2.0-only
/* libFuzzer harness for the agent configuration parser (config/).
 *
 * Beyond "no crash, no leak, no undefined behaviour" (ASan, UBSan), it checks
 * the parser's contract on every input:
 *   - failure: -EINVAL or -ENOMEM, one line "fuzz:LINE:COL: ..." (no newline),
 *     the output struct untouched;
 *   - success: values within their documented ranges, and the settings
 *     printed by config_write_yaml() parse back to the same bytes.
 * The value parsers are fed the same bytes as one string. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"

static void check(int ok, const char *what, const char *err)
{
	if (!ok) {
		fprintf(stderr, "fuzz_config: broken invariant: %s (%s)\n", what, err ? err : "");
		abort();
	}
}

static int terminated(const char *s, size_t size)
{
	return memchr(s, '\0', size) != NULL;
}

static void check_valid(const struct agent_config *c)
{
	check(c->interval_ms > 0 && c->interval_ms <= 24ULL * 3600 * 1000, "interval range", NULL);
	check(c->nr_events >= 1 && c->nr_events <= CONFIG_MAX_EVENTS, "event count", NULL);
	for (int i = 0; i < c->nr_events; i++)
		check(terminated(c->events[i], sizeof(c->events[i])) && c->events[i][0],
		      "event name", NULL);
	check(c->cgroups.nr_include >= 1 && c->cgroups.nr_include <= CONFIG_MAX_PATTERNS,
	      "include count", NULL);
	check(c->cgroups.nr_exclude >= 0 && c->cgroups.nr_exclude <= CONFIG_MAX_PATTERNS,
	      "exclude count", NULL);
	check(c->cgroups.max >= 1 && c->cgroups.max <= 1000000, "max range", NULL);
	check(c->cgroups.max_depth >= 0, "max_depth range", NULL);
	check(c->csv.directory[0] == '/' && terminated(c->csv.directory, sizeof(c->csv.directory)),
	      "csv directory", NULL);
	check(c->csv.max_files <= 1000, "max_files range", NULL);
	check(c->syslog.facility >= 0 && c->syslog.facility <= 23, "facility range", NULL);
	check(c->syslog.app_name[0] && strlen(c->syslog.app_name) <= 48, "app_name", NULL);
	check(c->syslog.enterprise_id >= 1, "enterprise_id", NULL);
	check(c->syslog.queue_max >= 1 && c->syslog.queue_max <= 1000000, "queue_max range", NULL);
	check(c->syslog.transport == SYSLOG_UNIX ? c->syslog.socket_path[0] == '/'
						 : c->syslog.host[0] && c->syslog.port[0],
	      "syslog target parts", NULL);
}

static void check_round_trip(const struct agent_config *c)
{
	static struct agent_config again;
	char *buf = NULL, err[1024];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int r;

	check(f != NULL, "open_memstream", NULL);
	check(config_write_yaml(c, f) == 0, "config_write_yaml", NULL);
	check(fclose(f) == 0, "fclose", NULL);
	r = config_parse(buf, len, "printed", &again, err, sizeof(err));
	check(r == 0, "printed config parses", err);
	check(memcmp(c, &again, sizeof(again)) == 0, "printed config reads back the same", buf);
	free(buf);
}

static void fuzz_value_parsers(const uint8_t *data, size_t size)
{
	struct syslog_config sc;
	char *s = malloc(size + 1), err[256];
	uint64_t v;
	int facility;

	if (!s)
		return;
	memcpy(s, data, size);
	s[size] = '\0';
	if (config_parse_duration_ms(s, &v) == 0)
		check(strspn(s, "0123456789mshd") == strlen(s), "duration characters", s);
	(void)config_parse_size(s, &v);
	memset(&sc, 0, sizeof(sc));
	if (config_parse_syslog_target(s, &sc, err, sizeof(err)) == 0)
		check(terminated(sc.host, sizeof(sc.host)) &&
			      terminated(sc.socket_path, sizeof(sc.socket_path)),
		      "target parts terminated", s);
	else
		check(terminated(err, sizeof(err)) && err[0], "target error message", s);
	(void)config_parse_facility(s, &facility);
	free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct agent_config c, before;
	char err[1024];
	int r;

	memset(&c, 0x5a, sizeof(c));
	before = c;
	memset(err, 0, sizeof(err));
	r = config_parse((const char *)data, size, "fuzz", &c, err, sizeof(err));
	if (r == 0) {
		check_valid(&c);
		check_round_trip(&c);
	} else {
		check(r == -EINVAL || r == -ENOMEM, "error code", err);
		check(r == -ENOMEM || (!strncmp(err, "fuzz:", 5) && err[5] >= '1' &&
				       err[5] <= '9' && !strchr(err, '\n')),
		      "one-line FILE:LINE:COL message", err);
		check(memcmp(&c, &before, sizeof(c)) == 0, "output untouched on failure", err);
	}
	fuzz_value_parsers(data, size);
	return 0;
}
