// SPDX-License-Identifier: GPL-2.0-only
/* cgperf: per-cgroup performance counters on shared BPF counters.
 * Subcommands in the bpftool style: one do_<verb>() each. */
#include "cmd/cli.h"
#include "util/log.h"
#include "cmd/commands.h"
#include "cmd/version.h"
#include <bpf/libbpf.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <locale.h>

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *help;
};

static const struct command commands[] = {
	{ "agent", do_agent, "run the node agent: per-cgroup CSV logs and syslog" },
	{ "release", do_release, "end the agent's persistent counting session (final rows)" },
	{ "check-config", do_check_config, "validate an agent configuration file" },
	{ "stat", do_stat, "count events for a target (perf-stat-like)" },
	{ "top", do_top, "live view of the monitored cgroups' rates (CPU, IPC, ...)" },
	{ "events", do_events, "list the events this host supports" },
	{ "list", do_list, "list the cgroups the agent would monitor, with what they are" },
	{ "plot", do_plot, "charts of the agent's CSV logs (PNG, SVG, HTML report)" },
};

static void usage(FILE *f)
{
	fputs("usage: cgperf COMMAND [OPTIONS]\n\ncommands:\n", f);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].help);
	fputs("\n'cgperf COMMAND --help' for a command's options, 'cgperf --version' for the version.\n",
	      f);
}

static int do_version(void)
{
	if (cgperf_git_describe[0])
		printf("cgperf %s (git %s)\n", cgperf_version, cgperf_git_describe);
	else
		printf("cgperf %s\n", cgperf_version);
	return fflush(stdout) == 0 ? EXIT_OK : EXIT_RUNTIME;
}

/* libbpf's own messages are verbose on expected failures (probes); show
 * them only with CGPERF_LIBBPF_DEBUG set. */
static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	static int show = -1;
	if (show < 0)
		show = getenv("CGPERF_LIBBPF_DEBUG") != NULL;
	if (!show)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

int main(int argc, char **argv)
{
	/* Numbers are written in the C locale whatever the environment says. */
	setlocale(LC_ALL, "C");
	libbpf_set_print(libbpf_print);
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version") || !strcmp(argv[1], "version"))
		return do_version();
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	fprintf(stderr, "cgperf: unknown command '%s' (see 'cgperf --help')\n", log_name(argv[1]));
	return EXIT_USAGE;
}
