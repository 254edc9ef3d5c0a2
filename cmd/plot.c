// SPDX-License-Identifier: GPL-2.0-only
/* `cgperf plot`: the agent's CSV logs as charts, PNG, SVG or an HTML
 * report (docs/PLOT.md). Reads, checks and streams the files (plot/
 * plot_input.c) into a per-pixel-column model (plot/plot_model.c), then
 * draws it with cairo (plot/plot_render.c, plot/plot_html.c). */
#include "cmd/commands.h"
#include "cmd/cli.h"
#include "plot/plot_html.h"
#include "util/dl_lib.h"
#include "plot/plot_input.h"
#include "plot/plot_model.h"
#include "plot/plot_render.h"
#include "plot/plot_time.h"
#include "util/log.h"
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct plot_opts {
	const char *metrics; /* -m, comma-separated; NULL: every metric */
	const char *since, *until, *glob, *out;
	struct plot_view view;
};

static void usage(FILE *f)
{
	fputs("usage: cgperf plot DIR|FILE... -o OUT.png|OUT.svg|OUT.html [-m METRIC,...]\n"
	      "                   [--since T] [--until T] [--cgroup GLOB] [--top N] [--utc]\n"
	      "\n"
	      "  -o, --output FILE  PNG or SVG (one chart per metric), or an HTML report\n"
	      "  -m, --metrics LIST CSV columns to draw (cpu-clock, context-switches, cpu_cores,\n"
	      "                     ...); default: every metric in the files\n"
	      "  --since T          from T: 2026-12-04 13:05[:SS], @EPOCH, now, -30m, -2h,\n"
	      "                     -1d (default: the files' first row)\n"
	      "  --until T          up to T, the same forms (default: the files' last row)\n"
	      "  --cgroup GLOB      only cgroups whose path or display name matches\n"
	      "  --top N            lines per chart: the N busiest (default 20; 0: all)\n"
	      "  --utc              times in UTC (default: local time)\n",
	      f);
}

/* What the options must hold once parsed; -1 when they do. */
static int check_opts(const struct plot_opts *o, int argc, int *ret_first)
{
	if (!o->out)
		return cli_usage_error("plot", "-o OUT.png|OUT.svg|OUT.html is needed", NULL);
	if (!plot_output_kind(o->out))
		return cli_usage_error("plot", "-o '%s': the name must end in .png, .svg or .html",
				       o->out);
	if (optind >= argc)
		return cli_usage_error("plot", "no input: give the agent's CSV directory or files",
				       NULL);
	*ret_first = optind;
	return -1;
}

/* Options into o; *ret_first is the first input argument. */
static int parse_opts(int argc, char **argv, struct plot_opts *o, int *ret_first)
{
	enum {
		OPT_SINCE = 256,
		OPT_UNTIL,
		OPT_CGROUP,
		OPT_TOP,
		OPT_UTC
	};
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "metrics", required_argument, NULL, 'm' },
		{ "since", required_argument, NULL, OPT_SINCE },
		{ "until", required_argument, NULL, OPT_UNTIL },
		{ "cgroup", required_argument, NULL, OPT_CGROUP },
		{ "top", required_argument, NULL, OPT_TOP },
		{ "utc", no_argument, NULL, OPT_UTC },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	uint64_t top;
	int opt;

	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":o:m:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'o':
			o->out = optarg;
			break;
		case 'm':
			o->metrics = optarg;
			break;
		case OPT_SINCE:
			o->since = optarg;
			break;
		case OPT_UNTIL:
			o->until = optarg;
			break;
		case OPT_CGROUP:
			o->glob = optarg;
			break;
		case OPT_UTC:
			o->view.utc = true;
			break;
		case OPT_TOP:
			if (parse_u64(optarg, 100000, &top) < 0)
				return cli_usage_error("plot", "--top '%s': a number of lines",
						       optarg);
			o->view.top = (size_t)top;
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		case ':':
			return cli_usage_error("plot", "option '%s' needs an argument",
					       argv[optind - 1]);
		default:
			return cli_usage_error("plot", "unknown option '%s'", argv[optind - 1]);
		}
	}
	return check_opts(o, argc, ret_first);
}

/* The metrics to draw: -m's names, each one the files have, else all. */
static int pick_metrics(const struct plot_input *in, const char *list, const char ***ret_names,
			bool **ret_gauge, size_t *ret_n)
{
	const char **names = calloc(in->nr_metrics + 1, sizeof(*names));
	bool *gauge = calloc(in->nr_metrics + 1, sizeof(*gauge));
	char *copy = list ? strdup(list) : NULL, *save = NULL;
	size_t n = 0;
	int r = 0;

	if (!names || !gauge || (list && !copy))
		r = -ENOMEM;
	for (size_t i = 0; r == 0 && !list && i < in->nr_metrics; i++, n++) {
		names[n] = in->metrics[i];
		gauge[n] = in->gauge[i];
	}
	for (char *w = list && r == 0 ? strtok_r(copy, ",", &save) : NULL; w;
	     w = strtok_r(NULL, ",", &save)) {
		size_t i = 0;

		while (i < in->nr_metrics && strcmp(in->metrics[i], w))
			i++;
		if (i == in->nr_metrics) {
			fprintf(stderr, "cgperf plot: -m: no column '%s' in the files (they have:",
				log_name(w));
			for (size_t k = 0; k < in->nr_metrics; k++)
				fprintf(stderr, " %s", log_name(in->metrics[k]));
			fputs(")\n", stderr);
			r = -EINVAL;
			break;
		}
		if (n < in->nr_metrics) {
			names[n] = in->metrics[i];
			gauge[n++] = in->gauge[i];
		}
	}
	free(copy);
	if (r == 0 && n == 0)
		r = -ENODATA;
	if (r < 0) {
		free(names);
		free(gauge);
		return r;
	}
	*ret_names = names;
	*ret_gauge = gauge;
	*ret_n = n;
	return 0;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The range drawn: the files' unless --since/--until say otherwise. */
static int pick_range(const struct plot_input *in, const struct plot_opts *o, int64_t *start,
		      int64_t *end)
{
	int64_t now = now_ms();

	if (plot_input_range(in, start, end) < 0)
		return -ENODATA;
	if (o->since && plot_parse_time(o->since, o->view.utc, now, start) < 0)
		return cli_usage_error("plot",
				       "--since '%s': not a time (2026-12-04 13:05, @EPOCH, -2h)",
				       o->since);
	if (o->until && plot_parse_time(o->until, o->view.utc, now, end) < 0)
		return cli_usage_error("plot",
				       "--until '%s': not a time (2026-12-04 13:05, @EPOCH, -2h)",
				       o->until);
	if (*end < *start)
		return cli_usage_error("plot", "--until is before --since (or the files' range)",
				       NULL);
	return 0;
}

static int draw(const struct plot_model *m, const struct plot_input *in, const struct plot_opts *o,
		size_t rows)
{
	struct plot_report rep = { .files = in->nr_files, .skipped = in->skipped, .rows = rows };
	int r = plot_output_kind(o->out) == PLOT_OUT_HTML
			? plot_render_html(m, &o->view, &rep, o->out)
			: plot_render_file(m, &o->view, o->out);

	if (r == -ELIBACC || r == -ELIBBAD) {
		fprintf(stderr, "cgperf plot: cannot draw: %s cannot be loaded: %s\n",
			CGPERF_CAIRO_SONAME, dl_lib_error());
		return EXIT_RUNTIME;
	}
	if (r < 0) {
		fprintf(stderr, "cgperf plot: cannot write %s: %s\n", log_name(o->out),
			strerror(-r));
		return EXIT_RUNTIME;
	}
	return EXIT_OK;
}

/* Model, feed, draw: the inputs are read. */
static int plot_inputs(const struct plot_input *in, const struct plot_opts *o)
{
	struct plot_model *m = NULL;
	const char **names = NULL;
	bool *gauge = NULL;
	size_t n, rows = 0;
	int64_t start, end;
	int r = pick_range(in, o, &start, &end), ret = EXIT_RUNTIME;

	if (r > 0)
		return r;
	if (r == 0)
		r = pick_metrics(in, o->metrics, &names, &gauge, &n);
	if (r == -EINVAL)
		return EXIT_USAGE;
	if (r == 0)
		r = plot_model_new(names, gauge, n, &m);
	if (r == 0)
		r = plot_model_set_range(m, start, end, PLOT_AREA_W);
	if (r == 0)
		r = plot_input_feed(in, m, o->glob, &rows);
	if (r == 0 && rows == 0)
		r = -ENODATA;
	if (r == -ENODATA)
		fprintf(stderr, "cgperf plot: nothing to plot: no row%s%s in the range\n",
			o->glob ? " of a cgroup matching " : "", o->glob ? log_name(o->glob) : "");
	else if (r < 0)
		fprintf(stderr, "cgperf plot: %s\n", strerror(-r));
	else
		ret = draw(m, in, o, rows);
	plot_model_free(m);
	free(names);
	free(gauge);
	return ret;
}

int do_plot(int argc, char **argv)
{
	struct plot_opts o = { .view = { .top = 20 } };
	struct plot_input in = { 0 };
	int first = 0, ret = parse_opts(argc, argv, &o, &first), r = 0;

	if (ret >= 0)
		return ret;
	for (int i = first; r == 0 && i < argc; i++)
		r = plot_input_add(&in, argv[i]);
	if (r < 0) {
		fprintf(stderr, "cgperf plot: reading the inputs: %s\n", strerror(-r));
		ret = EXIT_RUNTIME;
	} else if (!in.nr_files) {
		fprintf(stderr, "cgperf plot: nothing to plot: no readable CSV log of the agent "
				"among the inputs\n");
		ret = EXIT_RUNTIME;
	} else {
		ret = plot_inputs(&in, &o);
	}
	plot_input_free(&in);
	return ret;
}
