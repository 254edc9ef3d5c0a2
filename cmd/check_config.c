// SPDX-License-Identifier: GPL-2.0-only
/* `cgperf check-config`: parse agent configuration files exactly as the agent
 * would and report the first problem of each as "FILE:LINE:COL: message". */
#include "cmd/commands.h"
#include "util/log.h"
#include "util/escape.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cli.h"
#include "config/config.h"
#include "config/config_text.h"

struct check_opts {
	bool help;
	bool print; /* print the effective settings of each valid file */
	bool use_default;
	int first_file; /* argv index of the first FILE, argc when none */
};

static void usage(FILE *f)
{
	fputs("Usage: cgperf check-config [--print] FILE...\n"
	      "       cgperf check-config --default\n"
	      "\n"
	      "Check agent configuration files (YAML, see cgperf.yaml(5)). A valid file\n"
	      "prints \"FILE: OK\"; an invalid one prints \"FILE:LINE:COL: message\" on\n"
	      "stderr. Exit status 0 when every file is valid, 2 otherwise.\n"
	      "\n"
	      "  --print     also print every setting of each valid file, defaults\n"
	      "              included, as YAML\n"
	      "  --default   check the embedded default configuration and print it\n"
	      "              (a starting point: cgperf check-config --default > cgperf.yaml)\n"
	      "  -h, --help  show this help\n",
	      f);
}

static int parse_args(int argc, char **argv, struct check_opts *ret_opts)
{
	struct check_opts opts = { .first_file = argc };
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (!strcmp(a, "--help") || !strcmp(a, "-h"))
			opts.help = true;
		else if (!strcmp(a, "--print"))
			opts.print = true;
		else if (!strcmp(a, "--default"))
			opts.use_default = true;
		else if (a[0] == '-' && a[1] != '\0') {
			fprintf(stderr, "cgperf check-config: unknown option '%s' (try --help)\n",
				log_name(a));
			return -EINVAL;
		} else
			break;
	}
	/* Options come first; everything after is a file name. */
	opts.first_file = i;
	if (opts.help) {
		*ret_opts = opts;
		return 0;
	}
	if (opts.use_default && i < argc) {
		fprintf(stderr, "cgperf check-config: --default takes no FILE\n");
		return -EINVAL;
	}
	if (!opts.use_default && i == argc) {
		fprintf(stderr, "cgperf check-config: no FILE given (try --help)\n");
		return -EINVAL;
	}
	*ret_opts = opts;
	return 0;
}

static int check_default(void)
{
	struct agent_config c;

	if (config_load_default(&c) < 0)
		return EXIT_RUNTIME;
	fputs(config_default_yaml, stdout);
	return fflush(stdout) == 0 ? EXIT_OK : EXIT_RUNTIME;
}

/* Returns 0 when the file is valid, -EINVAL otherwise (message printed). */
static int check_file(const char *path, bool print)
{
	struct agent_config *c;
	char err[1024] = "", name[256];
	int r;

	/* Escaped like the name in error lines: one line per file, always. */
	text_escape(path, strlen(path), 200, name, sizeof(name));
	c = malloc(sizeof(*c));
	if (!c) {
		fprintf(stderr, "%s: out of memory\n", name);
		return -ENOMEM;
	}
	r = config_load_file(path, c, err, sizeof(err));
	if (r == 0 && (r = config_check_files(c, err, sizeof(err))) < 0 && err[0]) {
		fprintf(stderr, "%s: %s\n", name, err);
		goto out;
	}
	if (r < 0) {
		if (r == -ENOMEM && !err[0])
			snprintf(err, sizeof(err), "%s: out of memory", name);
		fprintf(stderr, "%s\n", err);
		goto out;
	}
	/* Valid, but the agent would have nothing to write to unless its
	 * command line adds an output (--csv-dir, --syslog, --prometheus). */
	if (!c->csv.enabled && !c->syslog.enabled && !c->prometheus.enabled && !c->textfile.enabled)
		fprintf(stderr,
			"%s: warning: no output enabled (add outputs.csv, outputs.syslog, "
			"outputs.prometheus or outputs.textfile)\n",
			name);
	printf("%s: OK\n", name);
	if (print)
		r = config_write_yaml(c, stdout);
out:
	free(c);
	return r;
}

int do_check_config(int argc, char **argv)
{
	struct check_opts opts;
	int status = EXIT_OK;

	if (parse_args(argc, argv, &opts) < 0)
		return EXIT_USAGE;
	if (opts.help) {
		usage(stdout);
		return EXIT_OK;
	}
	if (opts.use_default)
		return check_default();
	for (int i = opts.first_file; i < argc; i++)
		if (check_file(argv[i], opts.print) < 0)
			status = EXIT_USAGE;
	if (fflush(stdout) != 0)
		return EXIT_RUNTIME;
	return status;
}
