// SPDX-License-Identifier: GPL-2.0-only
/* The agent's configuration: walks libyaml events (config/yaml_cursor.c)
 * against a table of keys per section (config_read.c; outputs in
 * config_outputs.c) and fills struct agent_config. Every
 * problem stops the parse with one "FILE:LINE:COL: key: message" line that
 * points at the offending node. Keys, defaults and errors: docs/CONFIG.md. */
#include "config/config.h"
#include "util/escape.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config_schema.h"
#include "config/config_text.h"
#include "events/event_parse.h"

static const char *const default_events[] = { "cycles", "instructions", "cpu-clock",
					      "context-switches" };

/* ------------------------------------------------------------------------- */
/* Sections                                                                  */

/* A duration greater than 0 and at most 24h (interval, cgroups.rescan_interval). */
static int next_positive_duration(struct parse_ctx *p, uint64_t *ret_ms)
{
	static const struct cfg_duration d = {
		.what = "a duration (10s, 500ms, 1m30s) or whole seconds",
		.examples = "10s, 500ms, 1m30s, 2h or whole seconds",
		.max_ms = 24ULL * 3600 * 1000,
		.max_text = "24h",
		.positive = true,
	};

	return cfg_next_duration(p, &d, ret_ms);
}

static int parse_interval(struct parse_ctx *p)
{
	return next_positive_duration(p, &p->cfg->interval_ms);
}

static bool same_event(const struct parse_ctx *p, int a, int b)
{
	if (p->event_resolved[a] && p->event_resolved[b])
		return !memcmp(&p->event_attrs[a], &p->event_attrs[b], sizeof(p->event_attrs[a]));
	return !strcmp(p->cfg->events[a], p->cfg->events[b]);
}

static int parse_event_item(struct parse_ctx *p, int index)
{
	struct agent_config *c = p->cfg;
	yaml_mark_t mark = cfg_event(p)->start_mark;
	struct event_spec spec;
	char buf[ECHO_MAX + 8], msg[256], esc[320], suggestions[256];
	const char *name;
	int r;

	r = cfg_item_scalar(p, "an event name", EVENT_NAME_MAX - 1, &name);
	if (r < 0)
		return r;
	if (index >= CONFIG_MAX_EVENTS)
		return ycursor_fail(&p->cur, mark, "%s: at most %d events", p->key,
				    CONFIG_MAX_EVENTS);
	r = event_parse(name, &spec, msg, sizeof(msg));
	if (r == -ENOENT && strchr(name, '/')) {
		/* A PMU this host lacks: the agent skips it at run time like any
		 * unsupported event; the file may be meant for other hosts. */
		p->event_resolved[index] = false;
		cfg_set_string(c->events[index], sizeof(c->events[index]), name);
	} else if (r == -ENOENT) {
		if (event_suggest(name, suggestions, sizeof(suggestions), 3) > 0)
			return ycursor_fail(&p->cur, mark,
					    "%s: unknown event '%s' (did you mean %s?)", p->key,
					    cfg_echo(p, buf, sizeof(buf)), suggestions);
		return ycursor_fail(&p->cur, mark,
				    "%s: unknown event '%s' (see 'cgperf events --all')", p->key,
				    cfg_echo(p, buf, sizeof(buf)));
	} else if (r < 0) {
		text_escape(msg, strlen(msg), 200, esc, sizeof(esc));
		return ycursor_fail(&p->cur, mark, "%s: %s", p->key, esc);
	} else {
		p->event_resolved[index] = true;
		p->event_attrs[index] = spec.attr;
		cfg_set_string(c->events[index], sizeof(c->events[index]), spec.name);
	}
	p->event_marks[index] = mark;
	for (int i = 0; i < index; i++) {
		if (!same_event(p, i, index))
			continue;
		if (!strcmp(c->events[i], c->events[index]))
			return ycursor_fail(
				&p->cur, mark,
				"%s: duplicate event '%s' (first at line %zu, column %zu)", p->key,
				cfg_echo(p, buf, sizeof(buf)), p->event_marks[i].line + 1,
				p->event_marks[i].column + 1);
		return ycursor_fail(&p->cur, mark,
				    "%s: '%s' counts the same as '%s' (line %zu, column %zu)",
				    p->key, cfg_echo(p, buf, sizeof(buf)),
				    (text_escape(c->events[i], strlen(c->events[i]), ECHO_MAX, esc,
						 sizeof(esc)),
				     esc),
				    p->event_marks[i].line + 1, p->event_marks[i].column + 1);
	}
	c->nr_events = index + 1;
	return 0;
}

static int parse_events(struct parse_ctx *p)
{
	int n;

	p->cfg->nr_events = 0;
	n = cfg_for_each_item(p, "a list of event names ([cycles, cpu-clock])", parse_event_item);
	if (n < 0)
		return n;
	if (n == 0)
		return ycursor_fail(&p->cur, cfg_event(p)->start_mark,
				    "%s: at least one event is required", p->key);
	return 0;
}

static int add_pattern(struct parse_ctx *p, int index, char (*list)[256], int *nr)
{
	const char *s;
	int r;

	r = cfg_item_scalar(p, "a glob", 255, &s);
	if (r < 0)
		return r;
	if (index >= CONFIG_MAX_PATTERNS)
		return ycursor_fail(&p->cur, cfg_event(p)->start_mark, "%s: at most %d patterns",
				    p->key, CONFIG_MAX_PATTERNS);
	/* "runtime:" and "name:" select on metadata (cgroup/select.h). */
	if ((!strncmp(s, "runtime:", 8) && s[8] == '\0') ||
	    (!strncmp(s, "name:", 5) && s[5] == '\0'))
		return ycursor_fail(&p->cur, cfg_event(p)->start_mark, "%s: empty glob after '%s'",
				    p->key, s);
	cfg_set_string(list[index], sizeof(list[index]), s);
	*nr = index + 1;
	return 0;
}

static int include_item(struct parse_ctx *p, int index)
{
	return add_pattern(p, index, p->cfg->cgroups.include, &p->cfg->cgroups.nr_include);
}

static int exclude_item(struct parse_ctx *p, int index)
{
	return add_pattern(p, index, p->cfg->cgroups.exclude, &p->cfg->cgroups.nr_exclude);
}

static int parse_include(struct parse_ctx *p)
{
	int n;

	p->cfg->cgroups.nr_include = 0;
	n = cfg_for_each_item(p, "a list of globs ([\"/**\"])", include_item);
	if (n < 0)
		return n;
	/* An empty include list would select nothing, which no one means; the
	 * selector itself reads "no patterns" as "everything", a worse surprise. */
	if (n == 0)
		return ycursor_fail(
			&p->cur, cfg_event(p)->start_mark,
			"%s: empty list selects no cgroup (leave the key out for \"/**\", everything)",
			p->key);
	return 0;
}

static int parse_exclude(struct parse_ctx *p)
{
	int n;

	p->cfg->cgroups.nr_exclude = 0;
	n = cfg_for_each_item(p, "a list of globs", exclude_item);
	return n < 0 ? n : 0;
}

static int parse_root(struct parse_ctx *p)
{
	char root[sizeof(p->cfg->cgroups.root)], why[128];
	const char *s;
	int r = cfg_next_scalar(p, "a cgroup path (\"/\")", &s);

	if (r < 0)
		return r;
	r = config_normalize_cgroup_root(s, root, sizeof(root), why, sizeof(why));
	if (r < 0)
		return ycursor_fail(&p->cur, cfg_event(p)->start_mark, "%s: %s", p->key,
				    r == -ENAMETOOLONG ? "longer than 255 bytes" : why);
	cfg_set_string(p->cfg->cgroups.root, sizeof(p->cfg->cgroups.root), root);
	return 0;
}

static int parse_containers_only(struct parse_ctx *p)
{
	return cfg_next_bool(p, &p->cfg->cgroups.containers_only);
}

static int parse_include_infrastructure(struct parse_ctx *p)
{
	return cfg_next_bool(p, &p->cfg->cgroups.include_infrastructure);
}

static int next_unsigned(struct parse_ctx *p, uint64_t min, uint64_t max, unsigned *ret)
{
	uint64_t v;
	int r = cfg_next_uint(p, min, max, &v);

	if (r == 0)
		*ret = (unsigned)v;
	return r;
}

static int parse_max(struct parse_ctx *p)
{
	return next_unsigned(p, 1, 1000000, &p->cfg->cgroups.max);
}

static int parse_max_delegated(struct parse_ctx *p)
{
	return next_unsigned(p, 0, 1000000, &p->cfg->cgroups.max_delegated);
}

static int parse_max_watches(struct parse_ctx *p)
{
	return next_unsigned(p, 0, 10000000, &p->cfg->cgroups.max_watches);
}

static int parse_max_depth(struct parse_ctx *p)
{
	uint64_t v;
	int r = cfg_next_uint(p, 0, INT_MAX, &v);

	if (r == 0)
		p->cfg->cgroups.max_depth = (int)v;
	return r;
}

static int parse_rescan_interval(struct parse_ctx *p)
{
	return next_positive_duration(p, &p->cfg->cgroups.rescan_interval_ms);
}

static int parse_cgroups(struct parse_ctx *p)
{
	static const struct key_def keys[] = {
		{ "root", parse_root },
		{ "include", parse_include },
		{ "exclude", parse_exclude },
		{ "containers_only", parse_containers_only },
		{ "include_infrastructure", parse_include_infrastructure },
		{ "max", parse_max },
		{ "max_delegated", parse_max_delegated },
		{ "max_watches", parse_max_watches },
		{ "max_depth", parse_max_depth },
		{ "rescan_interval", parse_rescan_interval },
	};
	int r = cfg_next_collection(p, YAML_MAPPING_START_EVENT, "a mapping");

	return r < 0 ? r : cfg_parse_section(p, "cgroups", keys, sizeof(keys) / sizeof(keys[0]));
}

bool config_instance_name_ok(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > CONFIG_INSTANCE_MAX || s[0] == '.')
		return false;
	return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") == n;
}

static int parse_instance(struct parse_ctx *p)
{
	const char *v;
	char echo[ECHO_MAX + 8];
	int r = cfg_next_scalar(p, "an instance name", &v);

	if (r < 0)
		return r;
	if (!config_instance_name_ok(v))
		return ycursor_fail(
			&p->cur, cfg_event(p)->start_mark,
			"%s: '%s' is not an instance name (1 to %d letters, digits, '_', '.', '-'; "
			"not starting with '.')",
			p->key, cfg_echo(p, echo, sizeof(echo)), CONFIG_INSTANCE_MAX);
	cfg_set_string(p->cfg->instance, sizeof(p->cfg->instance), v);
	return 0;
}

/* true, false, or auto: the agent decides at start (agent/agent.c). */
static int parse_persist(struct parse_ctx *p)
{
	const char *s;
	char buf[ECHO_MAX + 8];
	int r;

	r = cfg_next_scalar(p, "true, false or auto", &s);
	if (r < 0)
		return r;
	p->cfg->persist_auto = !strcmp(s, "auto");
	if (p->cfg->persist_auto || cfg_bool_word(s, &p->cfg->persist) == 0)
		return 0;
	return ycursor_fail(&p->cur, cfg_event(p)->start_mark,
			    "%s: expected true, false or auto, got '%s'", p->key,
			    cfg_echo(p, buf, sizeof(buf)));
}

static const struct key_def top_keys[] = {
	{ "interval", parse_interval },	    { "instance", parse_instance },
	{ "persist", parse_persist },	    { "events", parse_events },
	{ "cgroups", parse_cgroups },	    { "bpf_programs", cfg_parse_bpf_programs },
	{ "metadata", cfg_parse_metadata }, { "outputs", cfg_parse_outputs },
};

/* ------------------------------------------------------------------------- */
/* Document                                                                  */

/* Everything a file may leave out. Outputs are off: in a file an output is
 * on when its section is present (the embedded default has csv). */
static void set_defaults(struct agent_config *c)
{
	memset(c, 0, sizeof(*c));
	c->interval_ms = 10 * 1000;
	cfg_set_string(c->instance, sizeof(c->instance), "default");
	c->persist = true;
	c->persist_auto = true;
	for (size_t i = 0; i < sizeof(default_events) / sizeof(default_events[0]); i++)
		cfg_set_string(c->events[i], sizeof(c->events[i]), default_events[i]);
	c->nr_events = (int)(sizeof(default_events) / sizeof(default_events[0]));
	cfg_set_string(c->cgroups.root, sizeof(c->cgroups.root), "/");
	cfg_set_string(c->cgroups.include[0], sizeof(c->cgroups.include[0]), "/**");
	c->cgroups.nr_include = 1;
	c->cgroups.max = 4096;
	c->cgroups.max_delegated = 256;
	cfg_metadata_defaults(c);
	c->cgroups.max_watches = 8192;
	c->cgroups.rescan_interval_ms = 60 * 1000;
	cfg_set_string(c->csv.directory, sizeof(c->csv.directory), "/var/log/cgperf");
	c->csv.max_size = 64ULL << 20;
	c->csv.max_files = 10;
	c->csv.keep_removed_ms = 7ULL * 24 * 3600 * 1000;
	c->csv.max_total_size = 1ULL << 30;
	c->csv.flush_interval_ms = 5000;
	c->csv.safe_cells = true;
	(void)config_parse_syslog_target("unix:/dev/log", &c->syslog, NULL, 0);
	c->syslog.facility = 3; /* daemon */
	cfg_set_string(c->syslog.app_name, sizeof(c->syslog.app_name), "cgperf");
	c->syslog.enterprise_id = CONFIG_DEFAULT_ENTERPRISE_ID;
	c->syslog.queue_max = 1000;
	(void)config_parse_listen("127.0.0.1:9464", &c->prometheus, NULL, 0);
	cfg_set_string(c->prometheus.path, sizeof(c->prometheus.path), "/metrics");
	c->prometheus.keep_removed_ms = 5 * 60 * 1000;
	c->prometheus.max_connections = 64;
	c->prometheus.names = PROM_NAMES_CGPERF;
	/* Where Debian's prometheus-node-exporter reads textfiles. */
	cfg_set_string(c->textfile.path, sizeof(c->textfile.path),
		       "/var/lib/prometheus/node-exporter/cgperf.prom");
}

static int parse_document(struct parse_ctx *p)
{
	const yaml_event_t *e;
	int r;

	r = ycursor_next(&p->cur); /* STREAM-START */
	if (r < 0)
		return r;
	r = cfg_advance(p, &e);
	if (r < 0)
		return r;
	if (e->type == YAML_STREAM_END_EVENT)
		return ycursor_fail(&p->cur, e->start_mark,
				    "empty configuration (expected a mapping of settings)");
	r = ycursor_next(&p->cur); /* the document's root node */
	if (r < 0)
		return r;
	e = cfg_event(p);
	if (ycursor_is_null(&p->cur))
		return ycursor_fail(&p->cur, e->start_mark,
				    "empty configuration (expected a mapping of settings)");
	if (e->type != YAML_MAPPING_START_EVENT)
		return ycursor_fail(&p->cur, e->start_mark,
				    "expected a mapping of settings at the top level, got %s",
				    ycursor_describe(&p->cur));
	r = cfg_parse_section(p, NULL, top_keys, sizeof(top_keys) / sizeof(top_keys[0]));
	if (r < 0)
		return r;
	r = ycursor_next(&p->cur); /* DOCUMENT-END */
	if (r < 0)
		return r;
	r = cfg_advance(p, &e);
	if (r < 0)
		return r;
	if (e->type != YAML_STREAM_END_EVENT)
		return ycursor_fail(&p->cur, e->start_mark,
				    "more than one YAML document (a configuration is one)");
	return cfg_check_derived(p);
}

int config_parse(const char *text, size_t len, const char *name, struct agent_config *ret,
		 char *err, size_t err_len)
{
	struct parse_ctx *p;
	int r;

	if (!ret || (!text && len > 0))
		return -EINVAL;
	if (err && err_len)
		err[0] = '\0';
	/* ~40 KiB of fixed arrays: kept off the stack. */
	p = calloc(1, sizeof(*p) + sizeof(struct agent_config));
	if (!p)
		return -ENOMEM;
	p->cfg = (struct agent_config *)(p + 1);
	set_defaults(p->cfg);
	r = ycursor_init(&p->cur, text ? text : "", len, name, err, err_len);
	if (r < 0)
		goto out;
	r = parse_document(p);
	ycursor_done(&p->cur);
	if (r < 0)
		goto out;
	/* RFC 3164 is what the local socket's readers (journald, rsyslog's
	 * imuxsock) expect; network receivers get structured RFC 5424. */
	if (!p->syslog_format_given)
		p->cfg->syslog.format =
			p->cfg->syslog.transport == SYSLOG_UNIX ? SYSLOG_RFC3164 : SYSLOG_RFC5424;
	*ret = *p->cfg;
out:
	free(p);
	return r;
}
