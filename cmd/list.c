// SPDX-License-Identifier: GPL-2.0-only
/* `cgperf list`: the cgroups the agent would monitor, with what they are. */
#include "cmd/commands.h"
#include "util/log.h"
#include "cmd/cli.h"
#include "agent/metadata_roots.h"
#include "cgroup/cgroup2.h"
#include "cgroup/display_name.h"
#include "cgroup/identity.h"
#include "cgroup/metadata.h"
#include "cgroup/select.h"
#include "config/config.h"
#include "util/text.h"
#include <getopt.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct list_state {
	const char *root; /* cgroups.root */
	struct cg_selector sel;
	struct metadata_roots roots;
	bool json;
	json_object *array;
	int count;
};

static void usage(FILE *f)
{
	fputs("usage: cgperf list [--json] [-c FILE] [--include PAT]... [--exclude PAT]...\n"
	      "                   [--containers-only] [--all] [--root CGROUP]\n"
	      "\n"
	      "  --json             JSON array with id, path, kind, runtime, container_id,\n"
	      "                     container_name, pod_uid, pod_name, namespace, rootless, uid\n"
	      "  -c, --config FILE  use the selection (cgroups:) of this agent config\n"
	      "  --include PAT      only cgroups matching PAT (path glob, runtime:GLOB, name:GLOB)\n"
	      "  --exclude PAT      not cgroups matching PAT\n"
	      "  --containers-only  only containers and pods\n"
	      "  --all              also infrastructure (conmon, mounts, sockets, init.scope)\n"
	      "  --root CGROUP      where runtime layouts are recognised (cgroups.root, default /)\n",
	      f);
}

static void add_json(struct list_state *s, const char *path, uint64_t id,
		     const struct cg_identity *ident, const struct cg_metadata *md)
{
	json_object *o = json_object_new_object();
	char short_id[CG_SHORT_ID_SIZE];

	cg_short_id(ident, short_id);
	json_object_object_add(o, "id", json_object_new_uint64(id));
#define ADD_STR(key, val) json_object_object_add(o, key, json_string_utf8(val))
	ADD_STR("path", path);
	ADD_STR("kind", cg_kind_name(ident->kind));
	ADD_STR("runtime", ident->runtime[0] ? ident->runtime : md->runtime);
	ADD_STR("container_id", short_id);
	ADD_STR("container_name", cg_container_name(ident, md, short_id));
	ADD_STR("pod_uid", ident->pod_uid);
	ADD_STR("pod_name", md->pod_name);
	ADD_STR("namespace", md->pod_namespace);
#undef ADD_STR
	/* A rootless user's container: its uid; names from that user's storage. */
	json_object_object_add(o, "rootless", json_object_new_boolean(ident->rootless));
	json_object_object_add(o, "uid",
			       ident->rootless ? json_object_new_uint64(ident->uid) : NULL);
	json_object_array_add(s->array, o);
}

static void print_row(const char *path, uint64_t id, const struct cg_identity *ident,
		      const struct cg_metadata *md)
{
	char p[1024], name[300], pod[300], ns[300];
	char display_name[CG_DISPLAY_NAME_SIZE];

	/* The name `cgperf top` shows for the same cgroup. */
	cg_display_name(path, ident, md, display_name, sizeof(display_name));
	text_escape_control(path, p, sizeof(p));
	text_escape_control(display_name, name, sizeof(name));
	text_escape_control(md->pod_name, pod, sizeof(pod));
	text_escape_control(md->pod_namespace, ns, sizeof(ns));
	printf("%-8llu %-10s %-10s %-12.12s %-24s %-24s %-12s %s\n", (unsigned long long)id,
	       cg_kind_name(ident->kind),
	       ident->runtime[0] ? ident->runtime
	       : md->runtime[0]	 ? md->runtime
				 : "-",
	       ident->container_id[0] ? ident->container_id : "-", name[0] ? name : "-",
	       pod[0] ? pod : "-", ns[0] ? ns : "-", p);
}

static int visit(const char *path, uint64_t id, void *data)
{
	struct list_state *s = data;
	struct cg_identity ident;
	struct cg_metadata md = { 0 };

	if (cg_identify_at(s->root, path, &ident) < 0)
		return 0;
	cg_metadata_lookup(&s->roots, &ident, &md);
	if (!cg_select(&s->sel, path, &ident, &md))
		return 0;
	s->count++;
	if (s->json)
		add_json(s, path, id, &ident, &md);
	else
		print_row(path, id, &ident, &md);
	return 0;
}

int do_list(int argc, char **argv)
{
	enum {
		OPT_JSON = 256,
		OPT_INCLUDE,
		OPT_EXCLUDE,
		OPT_CONTAINERS,
		OPT_ALL,
		OPT_ROOT
	};
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, OPT_JSON },
		{ "config", required_argument, NULL, 'c' },
		{ "include", required_argument, NULL, OPT_INCLUDE },
		{ "exclude", required_argument, NULL, OPT_EXCLUDE },
		{ "containers-only", no_argument, NULL, OPT_CONTAINERS },
		{ "all", no_argument, NULL, OPT_ALL },
		{ "root", required_argument, NULL, OPT_ROOT },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	static struct agent_config cfg;
	const char *inc[CONFIG_MAX_PATTERNS], *exc[CONFIG_MAX_PATTERNS];
	struct list_state s = { 0 };
	struct metadata_cache *cache = NULL;
	const char *config_path = NULL, *root, *root_opt = NULL;
	char cg_root[256];
	int nr_inc = 0, nr_exc = 0, opt, r;
	bool containers_only = false, all = false;
	char err[1024] = "";

	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":c:h", longopts, NULL)) != -1) {
		switch (opt) {
		case OPT_JSON:
			s.json = true;
			break;
		case 'c':
			config_path = optarg;
			break;
		case OPT_INCLUDE:
		case OPT_EXCLUDE:
			if (nr_inc >= CONFIG_MAX_PATTERNS || nr_exc >= CONFIG_MAX_PATTERNS) {
				fprintf(stderr, "cgperf list: too many patterns\n");
				return EXIT_USAGE;
			}
			if (opt == OPT_INCLUDE)
				inc[nr_inc++] = optarg;
			else
				exc[nr_exc++] = optarg;
			break;
		case OPT_CONTAINERS:
			containers_only = true;
			break;
		case OPT_ALL:
			all = true;
			break;
		case OPT_ROOT:
			root_opt = optarg;
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		case ':':
			fprintf(stderr, "cgperf list: option '%s' needs an argument\n",
				log_name(argv[optind - 1]));
			return EXIT_USAGE;
		default:
			return cli_usage_error("list", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (config_path) {
		if (config_load_file(config_path, &cfg, err, sizeof(err)) < 0) {
			fprintf(stderr, "%s\n", err);
			return EXIT_USAGE;
		}
		for (int i = 0; i < cfg.cgroups.nr_include && nr_inc < CONFIG_MAX_PATTERNS; i++)
			inc[nr_inc++] = cfg.cgroups.include[i];
		for (int i = 0; i < cfg.cgroups.nr_exclude && nr_exc < CONFIG_MAX_PATTERNS; i++)
			exc[nr_exc++] = cfg.cgroups.exclude[i];
		containers_only |= cfg.cgroups.containers_only;
		all |= cfg.cgroups.include_infrastructure;
		s.sel.max_depth = cfg.cgroups.max_depth;
	} else if (config_load_default(&cfg) < 0) {
		return EXIT_RUNTIME;
	}
	snprintf(cg_root, sizeof(cg_root), "%s", cfg.cgroups.root);
	if (root_opt && config_normalize_cgroup_root(root_opt, cg_root, sizeof(cg_root), err,
						     sizeof(err)) < 0) {
		fprintf(stderr, "cgperf list: --root '%s': %s\n", root_opt,
			err[0] ? err : "longer than 255 bytes");
		return EXIT_USAGE;
	}
	s.root = cg_root;
	if (cgroup2_root(&root, NULL) < 0) {
		fprintf(stderr,
			"cgperf list: no cgroup2 hierarchy is mounted (legacy cgroup v1 only); "
			"per-cgroup counting needs cgroup2\n");
		return EXIT_RUNTIME;
	}
	s.sel.include = inc;
	s.sel.nr_include = nr_inc;
	s.sel.exclude = exc;
	s.sel.nr_exclude = nr_exc;
	s.sel.containers_only = containers_only;
	s.sel.include_infrastructure = all;
	r = metadata_cache_new(&cache);
	if (r < 0) {
		fprintf(stderr, "cgperf list: %s\n", strerror(-r));
		return EXIT_RUNTIME;
	}
	metadata_roots_from_config(&cfg.metadata, cache, &s.roots);
	if (s.json)
		s.array = json_object_new_array();
	else
		printf("%-8s %-10s %-10s %-12s %-24s %-24s %-12s %s\n", "ID", "KIND", "RUNTIME",
		       "CONTAINER", "NAME", "POD", "NAMESPACE", "PATH");
	r = cgroup2_for_each_matching("/**", visit, &s);
	metadata_cache_free(cache);
	if (r < 0) {
		fprintf(stderr, "cgperf list: cannot walk %s: %s\n", log_name(root), strerror(-r));
		json_object_put(s.array);
		return EXIT_RUNTIME;
	}
	if (s.json) {
		puts(json_object_to_json_string_ext(
			s.array, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(s.array);
	}
	return EXIT_OK;
}
