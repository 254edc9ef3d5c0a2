// SPDX-License-Identifier: GPL-2.0-only
/* `cgperf agent`: option parsing; the work is in agent/agent.c. */
#include "cmd/commands.h"
#include "agent/agent.h"
#include "cmd/cli.h"
#include "util/log.h"
#include <getopt.h>
#include <stdio.h>
#include <string.h>

static void usage(FILE *f)
{
	fputs("usage: cgperf agent [-c FILE] [--interval DUR] [--csv-dir DIR] [--syslog TARGET]\n"
	      "                    [--prometheus ADDR] [-e EV,...] [--duration SEC] [--instance NAME]\n"
	      "                    [--persist|--no-persist] [--accumulators KIND] [-v]\n"
	      "\n"
	      "  -c, --config FILE     YAML configuration (default: the embedded one,\n"
	      "                        see 'cgperf check-config --default')\n"
	      "      --interval DUR    logging interval (10s, 500ms, 1m)\n"
	      "      --csv-dir DIR     write per-cgroup CSV files to DIR\n"
	      "      --syslog TARGET   unix:/dev/log, udp://HOST:PORT or tcp://HOST:PORT\n"
	      "      --prometheus ADDR serve metrics at ADDR (127.0.0.1:9464, [::]:9464,\n"
	      "                        :9464, unix:/PATH), path from the config (/metrics)\n"
	      "  -e, --events EV,...   events to count\n"
	      "      --duration SEC    run SEC seconds, write the last rows, exit 0\n"
	      "      --instance NAME   the persistent session's name (config 'instance:')\n"
	      "      --persist         counting goes on in the kernel after the process ends, for\n"
	      "                        the next agent to adopt (config 'persist: true'; the\n"
	      "                        default 'auto' persists unless run from a terminal)\n"
	      "      --no-persist      counting ends with the process (config 'persist: false')\n"
	      "      --accumulators KIND  a new session's: auto (default), hash or array\n"
	      "  -v, --verbose         debug log lines\n"
	      "\n"
	      "Counting outlives the process: SIGTERM and SIGINT write the last rows and\n"
	      "exit while the kernel goes on counting; the next agent of the same instance\n"
	      "adopts the session and loses nothing. 'cgperf release' writes final rows\n"
	      "and gives the counters back. SIGHUP reloads the configuration and reopens\n"
	      "output files.\n",
	      f);
}

static void release_usage(FILE *f)
{
	fputs("usage: cgperf release [-c FILE] [--instance NAME] [--all] [-v]\n"
	      "\n"
	      "End the agent's persistent counting session for good: read it one last\n"
	      "time, write every cgroup's final row to the outputs of the configuration\n"
	      "(-c FILE, or the embedded default), remove its pins from bpffs (the kernel\n"
	      "then gives the counters back) and exit 0. Nothing pinned: exit 0. The\n"
	      "agent of that instance must not be running (exit 1 if it is).\n"
	      "\n"
	      "  -c, --config FILE     the agent's configuration (its outputs, its instance)\n"
	      "      --instance NAME   release this instance (default: the config's)\n"
	      "      --all             also every other instance on this host (pins removed;\n"
	      "                        their final rows need their own configurations)\n"
	      "  -v, --verbose         debug log lines\n",
	      f);
}

enum {
	OPT_INTERVAL = 256,
	OPT_CSV_DIR,
	OPT_SYSLOG,
	OPT_PROMETHEUS,
	OPT_DURATION,
	OPT_INSTANCE,
	OPT_NO_PERSIST,
	OPT_PERSIST,
	OPT_ACCUM,
	OPT_ALL
};

/* `cgperf release` takes the agent's options that say which session and
 * where its final rows go, and --all; the agent does not take --all. */
static bool option_of(int opt, bool release)
{
	bool shared = opt == 'c' || opt == OPT_INSTANCE || opt == 'v' || opt == 'h' || opt == ':' ||
		      opt == '?';

	return shared || (opt == OPT_ALL) == release;
}

/* One option; returns -1 to go on, else the exit code. */
static int take_option(int opt, struct agent_opts *o, int *verbose, const char *cmd, char **argv)
{
	switch (opt) {
	case 'c':
		o->config_path = optarg;
		break;
	case OPT_INTERVAL:
		if (config_parse_duration_ms(optarg, &o->interval_ms) < 0 || o->interval_ms == 0)
			return cli_usage_error(cmd, "invalid interval '%s'", optarg);
		break;
	case OPT_CSV_DIR:
		if (!*optarg)
			return cli_usage_error(cmd, "empty CSV directory '%s'", optarg);
		o->csv_dir = optarg;
		break;
	case OPT_SYSLOG:
		o->syslog_target = optarg;
		break;
	case OPT_PROMETHEUS:
		o->prometheus_listen = optarg;
		break;
	case 'e':
		if (!*optarg)
			return cli_usage_error(cmd, "empty event list '%s'", optarg);
		o->events = optarg;
		break;
	case OPT_DURATION:
		if (parse_seconds(optarg, &o->duration_s) < 0)
			return cli_usage_error(cmd, "invalid duration '%s'", optarg);
		break;
	case OPT_INSTANCE:
		if (!config_instance_name_ok(optarg))
			return cli_usage_error(cmd, "invalid instance name '%s'", optarg);
		o->instance = optarg;
		break;
	case OPT_NO_PERSIST:
		o->no_persist = true;
		o->persist = false;
		break;
	case OPT_PERSIST:
		o->persist = true;
		o->no_persist = false;
		break;
	case OPT_ACCUM:
		if (parse_accum_request(optarg, &o->accum) < 0)
			return cli_usage_error(
				cmd, "invalid accumulators (auto, hash or array) '%s'", optarg);
		break;
	case OPT_ALL:
		o->release_all = true;
		break;
	case 'v':
		(*verbose)++;
		break;
	case 'h':
		o->release ? release_usage(stdout) : usage(stdout);
		return EXIT_OK;
	case ':':
		return cli_usage_error(cmd, "option needs an argument: '%s'", argv[optind - 1]);
	default:
		return cli_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
	}
	return -1;
}

static int run(int argc, char **argv, bool release)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "interval", required_argument, NULL, OPT_INTERVAL },
		{ "csv-dir", required_argument, NULL, OPT_CSV_DIR },
		{ "syslog", required_argument, NULL, OPT_SYSLOG },
		{ "prometheus", required_argument, NULL, OPT_PROMETHEUS },
		{ "events", required_argument, NULL, 'e' },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "instance", required_argument, NULL, OPT_INSTANCE },
		{ "no-persist", no_argument, NULL, OPT_NO_PERSIST },
		{ "persist", no_argument, NULL, OPT_PERSIST },
		{ "accumulators", required_argument, NULL, OPT_ACCUM },
		{ "all", no_argument, NULL, OPT_ALL },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *cmd = release ? "release" : "agent";
	struct agent_opts o = { .release = release };
	struct agent_config cfg;
	int opt, verbose = 0, rc;

	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, release ? ":c:vh" : ":c:e:vh", longopts, NULL)) !=
	       -1) {
		if (!option_of(opt, release)) {
			return cli_usage_error(cmd,
					       release ? "takes only -c, --instance, --all and -v"
						       : "--all is an option of cgperf release",
					       NULL);
		}
		rc = take_option(opt, &o, &verbose, cmd, argv);
		if (rc >= 0)
			return rc;
	}
	if (optind < argc)
		return cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
	/* A daemon says what it does by default (info); -v adds debug lines. */
	log_set_level(verbose ? LOG_LVL_DEBUG : LOG_LVL_INFO);
	/* A configuration that cannot be loaded is the caller's mistake. */
	if (agent_load_config(&o, &cfg) < 0)
		return EXIT_USAGE;
	return agent_run(&o, &cfg) < 0 ? EXIT_RUNTIME : EXIT_OK;
}

int do_agent(int argc, char **argv)
{
	return run(argc, argv, false);
}

int do_release(int argc, char **argv)
{
	return run(argc, argv, true);
}
