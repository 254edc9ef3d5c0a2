// SPDX-License-Identifier: GPL-2.0-only
/* The `metadata` section: where the runtimes keep the files that name
 * containers and pods (docs/IDENTITY.md). */
#include "config/config_schema.h"

#include <stddef.h>
#include <string.h>

#define ROOT(field, default_root, per_user) \
	{ #field, offsetof(struct agent_config, metadata.field), per_user, default_root },
const struct config_root_key config_root_keys[CONFIG_NR_ROOT_KEYS] = { METADATA_ROOT_FIELDS(ROOT) };
#undef ROOT

/* "" (the source is off) or an absolute path; a template may also start at
 * the user's home. NULL when s is fine, else why not. */
static const char *root_problem(const char *s, bool per_user)
{
	if (!s[0])
		return NULL;
	if (s[0] != '/' && !(per_user && !strncmp(s, "%h", 2) && (s[2] == '/' || !s[2])))
		return per_user ? "is not an absolute path (or %h/...)" : "is not an absolute path";
	/* A host root is a plain path, where '%' is just a byte. */
	for (const char *p = s; per_user && (p = strchr(p, '%')); p += 2)
		if (p[1] != 'u' && p[1] != 'h' && p[1] != '%')
			return "has an unknown %-sequence (known: %u the uid, %h its home, %% a '%')";
	return NULL;
}

static const struct config_root_key *key_of(const struct parse_ctx *p)
{
	const char *name = strrchr(p->key, '.');

	name = name ? name + 1 : p->key;
	for (size_t i = 0; i < CONFIG_NR_ROOT_KEYS; i++)
		if (!strcmp(config_root_keys[i].name, name))
			return &config_root_keys[i];
	return NULL;
}

static int parse_root(struct parse_ctx *p)
{
	const struct config_root_key *k = key_of(p);
	char *dst = (char *)p->cfg + k->offset, buf[ECHO_MAX + 8];
	const char *s, *why;
	int r = cfg_next_scalar(p, "a directory (\"\" turns the source off)", &s);

	if (r < 0)
		return r;
	if (cfg_event(p)->data.scalar.length >= CONFIG_ROOT_MAX)
		return ycursor_fail(&p->cur, cfg_event(p)->start_mark, "%s: longer than %d bytes",
				    p->key, CONFIG_ROOT_MAX - 1);
	why = root_problem(s, k->per_user);
	if (why)
		return ycursor_fail(&p->cur, cfg_event(p)->start_mark, "%s: '%s' %s", p->key,
				    cfg_echo(p, buf, sizeof(buf)), why);
	cfg_set_string(dst, CONFIG_ROOT_MAX, s);
	return 0;
}

int cfg_parse_metadata(struct parse_ctx *p)
{
	struct key_def keys[CONFIG_NR_ROOT_KEYS];
	int r = cfg_next_collection(p, YAML_MAPPING_START_EVENT, "a mapping");

	if (r < 0)
		return r;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		keys[i] = (struct key_def){ config_root_keys[i].name, parse_root };
	return cfg_parse_section(p, "metadata", keys, sizeof(keys) / sizeof(keys[0]));
}

void cfg_metadata_defaults(struct agent_config *c)
{
	for (size_t i = 0; i < CONFIG_NR_ROOT_KEYS; i++)
		cfg_set_string((char *)c + config_root_keys[i].offset, CONFIG_ROOT_MAX,
			       config_root_keys[i].default_root);
}
