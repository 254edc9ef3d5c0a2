// SPDX-License-Identifier: GPL-2.0-only
/* The `bpf_programs` section: which BPF programs the agent logs, by name
 * (docs/AGENT.md, "BPF programs"). No include list: none, the feature is off.
 * events: also the events counted inside them (off by default). */
#include "config/config_schema.h"

static int add_glob(struct parse_ctx *p, int index, char (*list)[CONFIG_PROG_GLOB_MAX], int *nr)
{
	const char *s;
	int r = cfg_item_scalar(p, "a glob on program names", CONFIG_PROG_GLOB_MAX - 1, &s);

	if (r < 0)
		return r;
	if (index >= CONFIG_MAX_PATTERNS)
		return ycursor_fail(&p->cur, cfg_event(p)->start_mark, "%s: at most %d patterns",
				    p->key, CONFIG_MAX_PATTERNS);
	cfg_set_string(list[index], CONFIG_PROG_GLOB_MAX, s);
	*nr = index + 1;
	return 0;
}

static int include_item(struct parse_ctx *p, int index)
{
	return add_glob(p, index, p->cfg->bpf_programs.include, &p->cfg->bpf_programs.nr_include);
}

static int exclude_item(struct parse_ctx *p, int index)
{
	return add_glob(p, index, p->cfg->bpf_programs.exclude, &p->cfg->bpf_programs.nr_exclude);
}

static int parse_include(struct parse_ctx *p)
{
	int n;

	p->cfg->bpf_programs.nr_include = 0;
	n = cfg_for_each_item(p, "a list of globs ([\"cilium_*\"])", include_item);
	return n < 0 ? n : 0;
}

static int parse_exclude(struct parse_ctx *p)
{
	int n;

	p->cfg->bpf_programs.nr_exclude = 0;
	n = cfg_for_each_item(p, "a list of globs", exclude_item);
	return n < 0 ? n : 0;
}

static int parse_events(struct parse_ctx *p)
{
	return cfg_next_bool(p, &p->cfg->bpf_programs.events);
}

int cfg_parse_bpf_programs(struct parse_ctx *p)
{
	static const struct key_def keys[] = {
		{ "include", parse_include },
		{ "exclude", parse_exclude },
		{ "events", parse_events },
	};
	int r = cfg_next_collection(p, YAML_MAPPING_START_EVENT, "a mapping");

	return r < 0 ? r
		     : cfg_parse_section(p, "bpf_programs", keys, sizeof(keys) / sizeof(keys[0]));
}
