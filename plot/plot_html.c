// SPDX-License-Identifier: GPL-2.0-only
#include "plot/plot_html.h"
#include "plot/plot_doc.h"
#include "util/log.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static const char style[] =
	"body{font-family:sans-serif;margin:1em 2em;color:#222}"
	"table{border-collapse:collapse;margin:.5em 0 2em}"
	"td,th{padding:2px 10px;text-align:left;border-bottom:1px solid #ddd}"
	"td.n{text-align:right;font-variant-numeric:tabular-nums}"
	".sw{display:inline-block;width:12px;height:10px}svg{max-width:100%;height:auto}";

static void heading(struct buf *b, const struct plot_model *m, const struct plot_view *v,
		    const struct plot_report *rep)
{
	char host[256] = "", from[64], to[64];

	gethostname(host, sizeof(host) - 1);
	plot_format_time(m->start_ms, v->utc, from, sizeof(from));
	plot_format_time(m->end_ms, v->utc, to, sizeof(to));
	buf_puts(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		    "<title>cgperf report: ");
	plot_xml(b, host);
	buf_printf(b, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>cgperf report: ", style);
	plot_xml(b, host);
	buf_printf(b,
		   "</h1>\n<p id=\"range\" data-start-ms=\"%lld\" data-end-ms=\"%lld\">"
		   "From <time>%s</time> to <time>%s</time></p>\n"
		   "<p id=\"inputs\">%zu rows from %zu files (%zu skipped), %zu cgroups</p>\n",
		   (long long)m->start_ms, (long long)m->end_ms, from, to, rep->rows, rep->files,
		   rep->skipped, m->nr_series);
}

/* The busiest containers of one metric: rank, name, path, mean, peak. */
static void top_table(struct buf *b, const struct plot_model *m, const struct plot_view *v,
		      size_t metric, const size_t *idx, size_t n)
{
	char mean[32], peak[32], path[LOG_NAME_MAX];

	buf_puts(b, "<table class=\"top\">\n<tr><th>#</th><th>name</th><th>cgroup</th>"
		    "<th>mean</th><th>peak</th></tr>\n");
	for (size_t i = 0; i < n; i++) {
		const struct plot_series *s = m->series[idx[i]];
		const struct plot_track *t = &s->tracks[metric];

		plot_format_value(plot_track_mean(t), mean, sizeof(mean));
		plot_format_value(t->peak, peak, sizeof(peak));
		text_escape_control(s->path, path, sizeof(path));
		buf_printf(b, "<tr><td class=\"n\">%zu</td><td>", i + 1);
		if (!v->top || i < v->top) /* drawn, in the chart's colour */
			buf_printf(b, "<span class=\"sw\" style=\"background:#%06x\"></span> ",
				   plot_color(i));
		plot_xml(b, s->name);
		buf_puts(b, "</td><td>");
		plot_xml(b, path);
		buf_printf(b,
			   "</td><td class=\"n\" data-value=\"%.6g\">%s</td>"
			   "<td class=\"n\" data-value=\"%.6g\">%s</td></tr>\n",
			   plot_track_mean(t), mean, t->peak, peak);
	}
	buf_puts(b, "</table>\n");
}

static int section(struct buf *b, const struct plot_model *m, const struct plot_view *v,
		   size_t metric, size_t *idx)
{
	char prefix[32];
	size_t n = plot_rank(m, metric, PLOT_HTML_TOP, idx);
	int r;

	snprintf(prefix, sizeof(prefix), "c%zu-", metric);
	buf_puts(b, "<section class=\"metric\" data-metric=\"");
	plot_xml(b, m->metrics[metric].name);
	buf_puts(b, "\">\n<h2>");
	plot_xml(b, m->metrics[metric].label);
	buf_puts(b, "</h2>\n");
	r = plot_render_svg(m, v, metric, 1, prefix, b);
	if (r < 0)
		return r;
	buf_printf(b, "<h3>Top %zu by mean</h3>\n", n);
	top_table(b, m, v, metric, idx, n);
	buf_puts(b, "</section>\n");
	return b->error;
}

int plot_render_html(const struct plot_model *m, const struct plot_view *v,
		     const struct plot_report *rep, const char *path)
{
	size_t *idx = malloc((m->nr_series ? m->nr_series : 1) * sizeof(*idx));
	struct buf b = { 0 };
	int r = idx ? 0 : -ENOMEM;

	if (r == 0)
		heading(&b, m, v, rep);
	for (size_t i = 0; r == 0 && i < m->nr_metrics; i++)
		r = section(&b, m, v, i, idx);
	buf_puts(&b, "</body>\n</html>\n");
	if (r == 0)
		r = plot_write_file(&b, path);
	buf_free(&b);
	free(idx);
	return r;
}
