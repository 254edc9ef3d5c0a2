// SPDX-License-Identifier: GPL-2.0-only
/* `cgperf events`: list every symbolic event with its kind and whether this
 * host can open it (a real perf_event_open() probe), plus the PMUs in sysfs. */
#include "cmd/commands.h"
#include "util/log.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cli.h"
#include "events/event_parse.h"
#include "events/event_probe.h"

#define REASON_MAX 256

struct events_opts {
	bool json;
	bool all;
	bool help;
};

struct event_row {
	char name[EVENT_NAME_MAX];
	const char *kind; /* static string from event_for_each_known() */
	int probe_r; /* 0 supported, else negative errno */
	char reason[REASON_MAX];
};

struct pmu_row {
	char name[EVENT_NAME_MAX];
	uint32_t type;
};

struct events_report {
	struct event_row *events;
	size_t n_events;
	struct pmu_row *pmus;
	size_t n_pmus;
};

static void usage(FILE *f)
{
	fputs("Usage: cgperf events [--json] [--all]\n"
	      "\n"
	      "List the perf events cgperf knows by name and the events the PMUs in\n"
	      "sysfs name (pmu/event/, kind pmu-event), whether this host supports\n"
	      "them (probed with perf_event_open on one CPU), and the PMUs in sysfs.\n"
	      "\n"
	      "  --all     also list unsupported events, with the reason\n"
	      "  --json    print a JSON array of {name, kind, supported, reason}\n"
	      "            (always includes unsupported events; PMUs have kind \"pmu\"\n"
	      "            and a \"type\")\n"
	      "  -h, --help  show this help\n",
	      f);
}

static int parse_args(int argc, char **argv, struct events_opts *ret_opts)
{
	struct events_opts opts = { 0 };

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (strcmp(a, "--json") == 0)
			opts.json = true;
		else if (strcmp(a, "--all") == 0)
			opts.all = true;
		else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)
			opts.help = true;
		else {
			if (a[0] == '-')
				fprintf(stderr, "cgperf events: unknown option '%s' (try --help)\n",
					log_name(a));
			else
				fprintf(stderr,
					"cgperf events: unexpected argument '%s' (try --help)\n",
					log_name(a));
			return -EINVAL;
		}
	}
	*ret_opts = opts;
	return 0;
}

/* Growable array append; *n is the element count. */
static void *append(void *array, size_t *n, size_t elem_size)
{
	void *p = realloc(array, (*n + 1) * elem_size);

	if (!p)
		return NULL;
	memset((char *)p + *n * elem_size, 0, elem_size);
	(*n)++;
	return p;
}

static void probe_row(struct event_row *row)
{
	struct event_spec spec;
	int r;

	r = event_parse(row->name, &spec, row->reason, sizeof(row->reason));
	if (r == 0)
		r = event_probe(&spec, row->reason, sizeof(row->reason));
	row->probe_r = r;
	if (r == 0)
		row->reason[0] = '\0';
}

static int collect_event(const char *name, const char *kind, void *data)
{
	struct events_report *rep = data;
	struct event_row *rows = append(rep->events, &rep->n_events, sizeof(*rows));
	struct event_row *row;

	if (!rows)
		return -ENOMEM;
	rep->events = rows;
	row = &rows[rep->n_events - 1];
	snprintf(row->name, sizeof(row->name), "%s", name);
	row->kind = kind;
	probe_row(row);
	return 0;
}

static int collect_pmu(const char *name, uint32_t type, void *data)
{
	struct events_report *rep = data;
	struct pmu_row *rows = append(rep->pmus, &rep->n_pmus, sizeof(*rows));

	if (!rows)
		return -ENOMEM;
	rep->pmus = rows;
	snprintf(rows[rep->n_pmus - 1].name, sizeof(rows[0].name), "%s", name);
	rows[rep->n_pmus - 1].type = type;
	return 0;
}

static void report_free(struct events_report *rep)
{
	free(rep->events);
	free(rep->pmus);
}

static int collect_report(struct events_report *ret_rep)
{
	struct events_report rep = { 0 };
	int r;

	r = event_for_each_known(collect_event, &rep);
	if (r < 0)
		goto fail;
	/* No sysfs PMU directory (containers without /sys) is not fatal: the
	 * symbolic events are still useful. */
	r = event_for_each_pmu_event(collect_event, &rep);
	if (r < 0 && r != -ENOENT)
		goto fail;
	r = event_for_each_pmu(collect_pmu, &rep);
	if (r < 0 && r != -ENOENT)
		goto fail;
	*ret_rep = rep;
	return 0;
fail:
	report_free(&rep);
	return r;
}

static bool is_permission_error(int r)
{
	return r == -EACCES || r == -EPERM;
}

static const char *short_status(int r)
{
	if (r == 0)
		return "supported";
	if (is_permission_error(r))
		return "no permission";
	if (r == -ENOENT || r == -EOPNOTSUPP || r == -ENODEV || r == -EINVAL)
		return "not supported";
	return "error";
}

static void print_table(const struct events_report *rep, bool all)
{
	size_t hidden = 0, denied = 0;

	printf("%-28s %-15s %s\n", "EVENT", "KIND", "STATUS");
	for (size_t i = 0; i < rep->n_events; i++) {
		const struct event_row *row = &rep->events[i];

		/* Without permission we cannot tell supported from not: counted
		 * apart so the footer does not call them unsupported. */
		if (is_permission_error(row->probe_r))
			denied++;
		else if (row->probe_r != 0)
			hidden++;
		if (row->probe_r != 0 && !all)
			continue;
		printf("%-28s %-15s %s", row->name, row->kind, short_status(row->probe_r));
		/* The short status says it all, except for unexpected errors. */
		if (strcmp(short_status(row->probe_r), "error") == 0)
			printf(": %s", row->reason);
		putchar('\n');
	}
	if (hidden > 0 && !all)
		printf("(%zu unsupported event%s not shown; use --all to list them)\n", hidden,
		       hidden == 1 ? "" : "s");
	if (denied > 0)
		printf("(%zu event%s could not be probed for lack of permission: run as root or set "
		       "kernel.perf_event_paranoid / CAP_PERFMON)\n",
		       denied, denied == 1 ? "" : "s");

	printf("\n%-28s %s\n", "PMU", "TYPE");
	for (size_t i = 0; i < rep->n_pmus; i++)
		printf("%-28s %u\n", rep->pmus[i].name, rep->pmus[i].type);
}

/* json-c returns NULL on allocation failure; json_object_array_add() and
 * json_object_object_add() take ownership (and tolerate NULL values), so the
 * only failures to catch are the containers themselves. */
static struct json_object *event_to_json(const struct event_row *row)
{
	struct json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	json_object_object_add(o, "name", json_object_new_string(row->name));
	json_object_object_add(o, "kind", json_object_new_string(row->kind));
	json_object_object_add(o, "supported", json_object_new_boolean(row->probe_r == 0));
	json_object_object_add(o, "reason",
			       row->probe_r == 0 ? NULL : json_object_new_string(row->reason));
	return o;
}

static struct json_object *pmu_to_json(const struct pmu_row *row)
{
	struct json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	json_object_object_add(o, "name", json_object_new_string(row->name));
	json_object_object_add(o, "kind", json_object_new_string("pmu"));
	json_object_object_add(o, "supported", json_object_new_boolean(1));
	json_object_object_add(o, "reason", NULL);
	json_object_object_add(o, "type", json_object_new_int64(row->type));
	return o;
}

static int print_json(const struct events_report *rep)
{
	struct json_object *arr = json_object_new_array();
	int r = -ENOMEM;

	if (!arr)
		return -ENOMEM;
	for (size_t i = 0; i < rep->n_events; i++) {
		struct json_object *o = event_to_json(&rep->events[i]);

		if (!o || json_object_array_add(arr, o) < 0)
			goto out;
	}
	for (size_t i = 0; i < rep->n_pmus; i++) {
		struct json_object *o = pmu_to_json(&rep->pmus[i]);

		if (!o || json_object_array_add(arr, o) < 0)
			goto out;
	}
	puts(json_object_to_json_string_ext(arr, JSON_C_TO_STRING_PRETTY |
							 JSON_C_TO_STRING_NOSLASHESCAPE));
	r = 0;
out:
	json_object_put(arr);
	return r;
}

int do_events(int argc, char **argv)
{
	struct events_opts opts;
	struct events_report rep;
	int r;

	if (parse_args(argc, argv, &opts) < 0)
		return EXIT_USAGE;
	if (opts.help) {
		usage(stdout);
		return EXIT_OK;
	}
	r = collect_report(&rep);
	if (r < 0) {
		fprintf(stderr, "cgperf events: %s\n", strerror(-r));
		return EXIT_RUNTIME;
	}
	if (opts.json)
		r = print_json(&rep);
	else
		print_table(&rep, opts.all);
	report_free(&rep);
	if (r == 0 && fflush(stdout) != 0)
		r = -errno;
	if (r < 0) {
		fprintf(stderr, "cgperf events: %s\n", strerror(-r));
		return EXIT_RUNTIME;
	}
	return EXIT_OK;
}
