// SPDX-License-Identifier: GPL-2.0-only
/* The `outputs` section: CSV files, syslog, the Prometheus endpoint and the
 * node_exporter textfile. */
#include "config/config_schema.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config_text.h"
#include "util/escape.h"
#include "events/event_parse.h"

static int parse_csv_enabled(struct parse_ctx *p)
{
	return cfg_next_bool(p, &p->cfg->csv.enabled);
}

/* An absolute path into dst (size bytes): the agent runs from "/" as a
 * service, so a relative path would depend on where it happened to be
 * started. what: the value's description in errors. */
static int next_absolute_path(struct parse_ctx *p, const char *what, char *dst, size_t size)
{
	char buf[ECHO_MAX + 8];
	const char *s;
	int r = cfg_next_string(p, what, size - 1, &s);

	if (r < 0)
		return r;
	if (s[0] != '/')
		return ycursor_fail(&p->cur, cfg_event(p)->start_mark,
				    "%s: '%s' is not an absolute path", p->key,
				    cfg_echo(p, buf, sizeof(buf)));
	cfg_set_string(dst, size, s);
	return 0;
}

static int parse_csv_directory(struct parse_ctx *p)
{
	return next_absolute_path(p, "a directory", p->cfg->csv.directory,
				  sizeof(p->cfg->csv.directory));
}

/* A size value (max_size, max_total_size) into *ret. */
static int next_size(struct parse_ctx *p, uint64_t *ret)
{
	const char *s;
	char buf[ECHO_MAX + 8];
	uint64_t v;
	int r;

	r = cfg_next_scalar(p, "a size (64MiB, 10MB) or bytes", &s);
	if (r < 0)
		return r;
	r = config_parse_size(s, &v);
	if (r == -ERANGE)
		return ycursor_fail(&p->cur, cfg_event(p)->start_mark, "%s: '%s' is too large",
				    p->key, cfg_echo(p, buf, sizeof(buf)));
	if (r < 0)
		return ycursor_fail(
			&p->cur, cfg_event(p)->start_mark,
			"%s: invalid size '%s' (expected bytes, or a number with kB, MB, GB, TB "
			"(x1000) or KiB, MiB, GiB, TiB (x1024), e.g. 64MiB)",
			p->key, cfg_echo(p, buf, sizeof(buf)));
	*ret = v;
	return 0;
}

static int parse_csv_max_size(struct parse_ctx *p)
{
	return next_size(p, &p->cfg->csv.max_size);
}

static int parse_csv_max_total_size(struct parse_ctx *p)
{
	return next_size(p, &p->cfg->csv.max_total_size);
}

static int parse_csv_keep_removed(struct parse_ctx *p)
{
	static const struct cfg_duration d = {
		.what = "a duration (7d, 12h, 30m, 5s) or whole seconds",
		.examples = "7d, 12h, 30m, 5s or whole seconds; 0: never deleted",
		.max_ms = UINT64_MAX,
	};

	return cfg_next_duration(p, &d, &p->cfg->csv.keep_removed_ms);
}

static int parse_csv_flush_interval(struct parse_ctx *p)
{
	static const struct cfg_duration d = {
		.what = "a duration (7d, 12h, 30m, 5s) or whole seconds",
		.examples = "7d, 12h, 30m, 5s or whole seconds; 0: every row written at once",
		.max_ms = CONFIG_CSV_FLUSH_MAX_MS,
		.max_text = "1h",
	};

	return cfg_next_duration(p, &d, &p->cfg->csv.flush_interval_ms);
}

static int parse_csv_safe_cells(struct parse_ctx *p)
{
	return cfg_next_bool(p, &p->cfg->csv.safe_cells);
}

static int parse_csv_max_files(struct parse_ctx *p)
{
	uint64_t v;
	int r = cfg_next_uint(p, 0, 1000, &v);

	if (r == 0)
		p->cfg->csv.max_files = (unsigned)v;
	return r;
}

/* ---- derived metrics (both outputs) ---- */

static int parse_derived_item(struct parse_ctx *p, int index)
{
	struct derived_list *l = p->derived_list;
	yaml_mark_t mark = cfg_event(p)->start_mark;
	enum derived_metric m;
	char buf[ECHO_MAX + 8];
	const char *s;
	int r;

	(void)index;
	r = cfg_item_scalar(p, "a metric name", 64, &s);
	if (r < 0)
		return r;
	if (derived_parse(s, &m) < 0)
		return ycursor_fail(&p->cur, mark,
				    "%s: unknown metric '%s' (expected ipc, cpi, cpu_cores, "
				    "cache_miss_pct or branch_miss_pct)",
				    p->key, cfg_echo(p, buf, sizeof(buf)));
	for (int i = 0; i < l->nr; i++)
		if (l->m[i] == m)
			return ycursor_fail(&p->cur, mark, "%s: '%s' is listed twice", p->key,
					    cfg_echo(p, buf, sizeof(buf)));
	l->m[l->nr++] = m;
	return 0;
}

/* A list of metric names into l; *ret_mark: where it was. */
static int parse_derived(struct parse_ctx *p, struct derived_list *l, yaml_mark_t *ret_mark,
			 bool *ret_given)
{
	yaml_mark_t mark = cfg_event(p)->start_mark;
	int n;

	*l = (struct derived_list){ 0 };
	p->derived_list = l;
	n = cfg_for_each_item(p, "a list of metric names ([ipc, cpu_cores])", parse_derived_item);
	p->derived_list = NULL;
	if (n < 0)
		return n;
	*ret_mark = mark;
	*ret_given = true;
	return 0;
}

static int parse_csv_derived(struct parse_ctx *p)
{
	return parse_derived(p, &p->cfg->csv.derived, &p->csv_derived_mark, &p->csv_derived_given);
}

static int parse_syslog_derived(struct parse_ctx *p)
{
	return parse_derived(p, &p->cfg->syslog.derived, &p->syslog_derived_mark,
			     &p->syslog_derived_given);
}

/* A metric none of whose inputs is counted would be an always-empty column.
 * Events of a PMU this host lacks are not resolved here: with one of those
 * the check is left to the agent (which warns). */
static int check_list(struct parse_ctx *p, const char *key, const struct derived_list *l,
		      yaml_mark_t mark)
{
	struct derived_map map = DERIVED_MAP_NONE;
	struct event_spec ev;

	for (int i = 0; i < p->cfg->nr_events; i++) {
		/* Left out of the file: the default events, not parsed yet. */
		if (!p->event_resolved[i] && event_parse(p->cfg->events[i], &ev, NULL, 0) < 0)
			return 0;
		derived_map_add(&map, p->event_resolved[i] ? &p->event_attrs[i] : &ev.attr, i);
	}
	for (int i = 0; i < l->nr; i++)
		if (!derived_counted(l->m[i], &map))
			return ycursor_fail(&p->cur, mark,
					    "%s: %s needs the events %s, which 'events' does "
					    "not count",
					    key, derived_name(l->m[i]), derived_inputs(l->m[i]));
	return 0;
}

int cfg_check_derived(struct parse_ctx *p)
{
	int r = 0;

	if (p->csv_derived_given)
		r = check_list(p, "outputs.csv.derived", &p->cfg->csv.derived, p->csv_derived_mark);
	if (!r && p->syslog_derived_given)
		r = check_list(p, "outputs.syslog.derived", &p->cfg->syslog.derived,
			       p->syslog_derived_mark);
	return r;
}

static int parse_csv(struct parse_ctx *p)
{
	static const struct key_def keys[] = {
		{ "enabled", parse_csv_enabled },
		{ "directory", parse_csv_directory },
		{ "max_size", parse_csv_max_size },
		{ "max_files", parse_csv_max_files },
		{ "keep_removed", parse_csv_keep_removed },
		{ "flush_interval", parse_csv_flush_interval },
		{ "max_total_size", parse_csv_max_total_size },
		{ "safe_cells", parse_csv_safe_cells },
		{ "derived", parse_csv_derived },
	};
	int r = cfg_next_collection(p, YAML_MAPPING_START_EVENT, "a mapping");

	if (r < 0)
		return r;
	/* Present means enabled, unless it says otherwise. */
	p->cfg->csv.enabled = true;
	return cfg_parse_section(p, "outputs.csv", keys, sizeof(keys) / sizeof(keys[0]));
}

static int parse_syslog_enabled(struct parse_ctx *p)
{
	return cfg_next_bool(p, &p->cfg->syslog.enabled);
}

static int parse_syslog_target(struct parse_ctx *p)
{
	const char *s;
	char buf[ECHO_MAX + 8], msg[200];
	int r;

	r = cfg_next_string(p, "a target (unix:/dev/log, udp://HOST:PORT, tcp://HOST:PORT)",
			    sizeof(p->cfg->syslog.target) - 1, &s);
	if (r < 0)
		return r;
	r = config_parse_syslog_target(s, &p->cfg->syslog, msg, sizeof(msg));
	if (r < 0)
		return ycursor_fail(&p->cur, cfg_event(p)->start_mark,
				    "%s: invalid target '%s': %s", p->key,
				    cfg_echo(p, buf, sizeof(buf)), msg);
	return 0;
}

static int parse_syslog_format(struct parse_ctx *p)
{
	const char *s;
	char buf[ECHO_MAX + 8];
	int r;

	r = cfg_next_scalar(p, "rfc5424 or rfc3164", &s);
	if (r < 0)
		return r;
	if (!strcmp(s, "rfc5424"))
		p->cfg->syslog.format = SYSLOG_RFC5424;
	else if (!strcmp(s, "rfc3164"))
		p->cfg->syslog.format = SYSLOG_RFC3164;
	else
		return ycursor_fail(&p->cur, cfg_event(p)->start_mark,
				    "%s: expected rfc5424 or rfc3164, got '%s'", p->key,
				    cfg_echo(p, buf, sizeof(buf)));
	p->syslog_format_given = true;
	return 0;
}

static int parse_syslog_facility(struct parse_ctx *p)
{
	const char *s, *close;
	char buf[ECHO_MAX + 8];
	int r;

	r = cfg_next_scalar(p, "a facility name (daemon, local0, ...)", &s);
	if (r < 0)
		return r;
	if (config_parse_facility(s, &p->cfg->syslog.facility) == 0)
		return 0;
	close = config_closest(s, config_facility_names());
	if (close)
		return ycursor_fail(&p->cur, cfg_event(p)->start_mark,
				    "%s: unknown facility '%s' (did you mean '%s'?)", p->key,
				    cfg_echo(p, buf, sizeof(buf)), close);
	return ycursor_fail(
		&p->cur, cfg_event(p)->start_mark,
		"%s: unknown facility '%s' (expected kern, user, mail, daemon, auth, syslog, lpr, "
		"news, uucp, cron, authpriv, ftp, ntp, audit, alert, clock or local0..local7)",
		p->key, cfg_echo(p, buf, sizeof(buf)));
}

static int parse_syslog_app_name(struct parse_ctx *p)
{
	const char *s;
	int r;

	r = cfg_next_string(p, "a name", sizeof(p->cfg->syslog.app_name) - 1, &s);
	if (r < 0)
		return r;
	/* RFC 5424 APP-NAME is 1*48PRINTUSASCII: no spaces, nothing outside ASCII. */
	for (const char *q = s; *q; q++)
		if ((unsigned char)*q < 33 || (unsigned char)*q > 126)
			return ycursor_fail(
				&p->cur, cfg_event(p)->start_mark,
				"%s: only printable ASCII without spaces is allowed (RFC 5424 APP-NAME)",
				p->key);
	cfg_set_string(p->cfg->syslog.app_name, sizeof(p->cfg->syslog.app_name), s);
	return 0;
}

static int parse_syslog_enterprise_id(struct parse_ctx *p)
{
	uint64_t v;
	int r = cfg_next_uint(p, 1, UINT32_MAX, &v);

	if (r == 0)
		p->cfg->syslog.enterprise_id = (uint32_t)v;
	return r;
}

static int parse_syslog_queue_max(struct parse_ctx *p)
{
	uint64_t v;
	int r = cfg_next_uint(p, 1, 1000000, &v);

	if (r == 0)
		p->cfg->syslog.queue_max = (size_t)v;
	return r;
}

static int parse_syslog(struct parse_ctx *p)
{
	static const struct key_def keys[] = {
		{ "enabled", parse_syslog_enabled },
		{ "target", parse_syslog_target },
		{ "format", parse_syslog_format },
		{ "facility", parse_syslog_facility },
		{ "app_name", parse_syslog_app_name },
		{ "enterprise_id", parse_syslog_enterprise_id },
		{ "queue_max", parse_syslog_queue_max },
		{ "derived", parse_syslog_derived },
	};
	int r = cfg_next_collection(p, YAML_MAPPING_START_EVENT, "a mapping");

	if (r < 0)
		return r;
	p->cfg->syslog.enabled = true;
	return cfg_parse_section(p, "outputs.syslog", keys, sizeof(keys) / sizeof(keys[0]));
}

static int parse_prom_enabled(struct parse_ctx *p)
{
	return cfg_next_bool(p, &p->cfg->prometheus.enabled);
}

static int parse_prom_listen(struct parse_ctx *p)
{
	const char *s;
	char buf[ECHO_MAX + 8], msg[200];
	int r;

	r = cfg_next_string(p, "an address (127.0.0.1:9464, [::]:9464, :9464, unix:/PATH)",
			    sizeof(p->cfg->prometheus.listen) - 1, &s);
	if (r < 0)
		return r;
	r = config_parse_listen(s, &p->cfg->prometheus, msg, sizeof(msg));
	if (r < 0)
		return ycursor_fail(&p->cur, cfg_event(p)->start_mark,
				    "%s: invalid address '%s': %s", p->key,
				    cfg_echo(p, buf, sizeof(buf)), msg);
	return 0;
}

/* An URL path as scrapers write it in their configs: no query, no
 * fragment, nothing that needs percent-encoding. */
static int parse_prom_path(struct parse_ctx *p)
{
	const char *s;
	int r;

	r = cfg_next_string(p, "a URL path (/metrics)", sizeof(p->cfg->prometheus.path) - 1, &s);
	if (r < 0)
		return r;
	if (s[0] != '/')
		return ycursor_fail(&p->cur, cfg_event(p)->start_mark,
				    "%s: must start with '/' (e.g. /metrics)", p->key);
	for (const char *q = s; *q; q++)
		if ((unsigned char)*q <= ' ' || (unsigned char)*q >= 127 || strchr("?#%\\\"<>", *q))
			return ycursor_fail(
				&p->cur, cfg_event(p)->start_mark,
				"%s: only printable ASCII without spaces, '?', '#', '%%', '\\', "
				"quotes or '<>' is allowed",
				p->key);
	cfg_set_string(p->cfg->prometheus.path, sizeof(p->cfg->prometheus.path), s);
	return 0;
}

static int parse_prom_keep_removed(struct parse_ctx *p)
{
	static const struct cfg_duration d = {
		.what = "a duration (5m, 30s; 0 drops them at once)",
		.examples = "5m, 30s, 0",
		.max_ms = 24ULL * 3600 * 1000,
		.max_text = "24h",
	};

	return cfg_next_duration(p, &d, &p->cfg->prometheus.keep_removed_ms);
}

static int parse_prom_max_connections(struct parse_ctx *p)
{
	uint64_t v;
	int r = cfg_next_uint(p, 1, 10000, &v);

	if (r == 0)
		p->cfg->prometheus.max_connections = (unsigned)v;
	return r;
}

static int parse_prom_names(struct parse_ctx *p)
{
	static const struct {
		const char *word;
		unsigned names;
	} words[] = {
		{ "cgperf", PROM_NAMES_CGPERF },
		{ "cadvisor", PROM_NAMES_CADVISOR },
		{ "both", PROM_NAMES_CGPERF | PROM_NAMES_CADVISOR },
	};
	char buf[ECHO_MAX + 8];
	const char *s;
	int r = cfg_next_scalar(p, "cgperf, cadvisor or both", &s);

	if (r < 0)
		return r;
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (!strcmp(s, words[i].word)) {
			p->cfg->prometheus.names = words[i].names;
			return 0;
		}
	return ycursor_fail(&p->cur, cfg_event(p)->start_mark,
			    "%s: unknown value '%s' (expected cgperf, cadvisor or both)", p->key,
			    cfg_echo(p, buf, sizeof(buf)));
}

/* A runtime label key as Docker and Kubernetes write them (app,
 * app.kubernetes.io/name): printable ASCII, and a label name of its own
 * once made one (container_label_<key>, every other byte '_'). */
static int parse_prom_label_item(struct parse_ctx *p, int index)
{
	struct prometheus_config *c = &p->cfg->prometheus;
	yaml_mark_t mark = cfg_event(p)->start_mark;
	char buf[ECHO_MAX + 8], name[2 * METADATA_LABEL_MAX], other[2 * METADATA_LABEL_MAX];
	const char *s;
	int r;

	if (index >= METADATA_MAX_LABELS)
		return ycursor_fail(&p->cur, mark, "%s: at most %d labels", p->key,
				    METADATA_MAX_LABELS);
	r = cfg_item_scalar(p, "a label key", METADATA_LABEL_MAX - 1, &s);
	if (r < 0)
		return r;
	for (const char *q = s; *q; q++)
		if ((unsigned char)*q < 33 || (unsigned char)*q > 126)
			return ycursor_fail(&p->cur, mark,
					    "%s: '%s': only printable ASCII without spaces is "
					    "allowed in a label key",
					    p->key, cfg_echo(p, buf, sizeof(buf)));
	text_label_name("container_label_", s, name, sizeof(name));
	for (int i = 0; i < c->nr_container_labels; i++)
		if (!strcmp(text_label_name("container_label_", c->container_labels[i], other,
					    sizeof(other)),
			    name))
			return ycursor_fail(&p->cur, mark,
					    "%s: '%s' is the label %s, as '%s' already is", p->key,
					    cfg_echo(p, buf, sizeof(buf)), name,
					    c->container_labels[i]);
	cfg_set_string(c->container_labels[c->nr_container_labels++], METADATA_LABEL_MAX, s);
	return 0;
}

static int parse_prom_container_labels(struct parse_ctx *p)
{
	int n;

	p->prom_labels_mark = cfg_event(p)->start_mark;
	p->cfg->prometheus.nr_container_labels = 0;
	n = cfg_for_each_item(p, "a list of label keys ([app, team])", parse_prom_label_item);
	return n < 0 ? n : 0;
}

/* Loaded and checked now, so that check-config reports what is wrong in it
 * (its own FILE:LINE:COL after this key's). */
/* The path only: its file is read by check-config (config_check_files()),
 * not by every load of a config (`cgperf list` as a user cannot read a
 * root-only key; the config fuzzer must not open the paths it makes). */
static int parse_prom_web_config(struct parse_ctx *p)
{
	return next_absolute_path(p, "a file path (/etc/cgperf/web-config.yml)",
				  p->cfg->prometheus.web_config,
				  sizeof(p->cfg->prometheus.web_config));
}

static int parse_prometheus(struct parse_ctx *p)
{
	static const struct key_def keys[] = {
		{ "enabled", parse_prom_enabled },
		{ "listen", parse_prom_listen },
		{ "path", parse_prom_path },
		{ "keep_removed", parse_prom_keep_removed },
		{ "max_connections", parse_prom_max_connections },
		{ "names", parse_prom_names },
		{ "container_labels", parse_prom_container_labels },
		{ "web_config", parse_prom_web_config },
	};
	int r = cfg_next_collection(p, YAML_MAPPING_START_EVENT, "a mapping");

	if (r < 0)
		return r;
	p->cfg->prometheus.enabled = true;
	r = cfg_parse_section(p, "outputs.prometheus", keys, sizeof(keys) / sizeof(keys[0]));
	/* Labels only cAdvisor's names show would be read for nothing. */
	if (r == 0 && p->cfg->prometheus.nr_container_labels &&
	    !(p->cfg->prometheus.names & PROM_NAMES_CADVISOR))
		return ycursor_fail(&p->cur, p->prom_labels_mark,
				    "outputs.prometheus.container_labels: shown only under cAdvisor's "
				    "names (names: cadvisor or both)");
	return r;
}

static int parse_textfile_enabled(struct parse_ctx *p)
{
	return cfg_next_bool(p, &p->cfg->textfile.enabled);
}

static int parse_textfile_path(struct parse_ctx *p)
{
	const char *s, *base;
	char buf[ECHO_MAX + 8];
	size_t n;
	int r;

	r = cfg_next_string(p, "a file path (/var/lib/prometheus/node-exporter/cgperf.prom)",
			    sizeof(p->cfg->textfile.path) - 1, &s);
	if (r < 0)
		return r;
	base = strrchr(s, '/');
	n = strlen(s);
	if (s[0] != '/')
		return ycursor_fail(&p->cur, cfg_event(p)->start_mark,
				    "%s: '%s' is not an absolute path", p->key,
				    cfg_echo(p, buf, sizeof(buf)));
	/* node_exporter's textfile collector reads *.prom only: any other name
	 * would be written every interval and never read. */
	if (n < 6 || strcmp(s + n - 5, ".prom") || !strcmp(base, "/.prom"))
		return ycursor_fail(
			&p->cur, cfg_event(p)->start_mark,
			"%s: '%s' must be a file name ending in .prom (node_exporter's textfile "
			"collector reads only those)",
			p->key, cfg_echo(p, buf, sizeof(buf)));
	cfg_set_string(p->cfg->textfile.path, sizeof(p->cfg->textfile.path), s);
	return 0;
}

static int parse_textfile(struct parse_ctx *p)
{
	static const struct key_def keys[] = {
		{ "enabled", parse_textfile_enabled },
		{ "path", parse_textfile_path },
	};
	int r = cfg_next_collection(p, YAML_MAPPING_START_EVENT, "a mapping");

	if (r < 0)
		return r;
	p->cfg->textfile.enabled = true;
	return cfg_parse_section(p, "outputs.textfile", keys, sizeof(keys) / sizeof(keys[0]));
}

int cfg_parse_outputs(struct parse_ctx *p)
{
	static const struct key_def keys[] = {
		{ "csv", parse_csv },
		{ "syslog", parse_syslog },
		{ "prometheus", parse_prometheus },
		{ "textfile", parse_textfile },
	};
	int r = cfg_next_collection(p, YAML_MAPPING_START_EVENT, "a mapping");

	return r < 0 ? r : cfg_parse_section(p, "outputs", keys, sizeof(keys) / sizeof(keys[0]));
}
