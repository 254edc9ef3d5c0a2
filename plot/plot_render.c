// SPDX-License-Identifier: GPL-2.0-only
#include "plot/plot_render.h"
#include "plot/cairo_dl.h"
#include "plot/plot_doc.h"
#include "util/log.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define LEGEND_X (PLOT_AREA_X + PLOT_AREA_W + 16)
#define LEGEND_LINE 16
#define Y_TICKS 5

/* matplotlib's "tab10", then hues spread by the golden angle. */
static const unsigned palette[] = { 0x1f77b4, 0xff7f0e, 0x2ca02c, 0xd62728, 0x9467bd,
				    0x8c564b, 0xe377c2, 0x7f7f7f, 0xbcbd22, 0x17becf };
#define NR_PALETTE (sizeof(palette) / sizeof(palette[0]))

unsigned plot_color(size_t i)
{
	double h, r, g, b, x;

	if (i < NR_PALETTE)
		return palette[i];
	h = fmod((double)i * 137.508, 360.0) / 60.0;
	x = 1 - fabs(fmod(h, 2) - 1);
	r = h < 1 || h >= 5 ? 1 : h < 2 || h >= 4 ? x : 0;
	g = h < 1 || (h >= 3 && h < 4) ? x : h < 3 ? 1 : 0;
	b = h < 2 ? 0 : h < 3 || h >= 5 ? x : 1;
	return (unsigned)(r * 180) << 16 | (unsigned)(g * 180) << 8 | (unsigned)(b * 180);
}

static void set_color(cairo_t *cr, unsigned rgb)
{
	cairo_set_source_rgb(cr, (rgb >> 16) / 255.0, ((rgb >> 8) & 0xff) / 255.0,
			     (rgb & 0xff) / 255.0);
}

struct ranked {
	size_t idx;
	double mean;
};

static int by_mean(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (x->mean != y->mean)
		return x->mean > y->mean ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

size_t plot_rank(const struct plot_model *m, size_t metric, size_t top, size_t *ret_idx)
{
	struct ranked *r = malloc((m->nr_series ? m->nr_series : 1) * sizeof(*r));
	size_t n = 0;

	if (!r)
		return 0;
	for (size_t i = 0; i < m->nr_series; i++) {
		double mean = plot_track_mean(&m->series[i]->tracks[metric]);

		if (!isnan(mean))
			r[n++] = (struct ranked){ i, mean };
	}
	qsort(r, n, sizeof(*r), by_mean);
	if (top && n > top)
		n = top;
	for (size_t i = 0; i < n; i++)
		ret_idx[i] = r[i].idx;
	free(r);
	return n;
}

void plot_format_value(double v, char *buf, size_t len)
{
	static const char *const sfx[] = { "", "k", "M", "G", "T", "P" };
	size_t k = 0;

	while (fabs(v) >= 1000 && k + 1 < sizeof(sfx) / sizeof(sfx[0])) {
		v /= 1000;
		k++;
	}
	snprintf(buf, len, "%.3g%s", v, sfx[k]);
}

static void civil(int64_t t_s, bool utc, struct tm *tm)
{
	time_t t = (time_t)t_s;

	if (utc)
		gmtime_r(&t, tm);
	else
		localtime_r(&t, tm);
}

void plot_format_time(int64_t t_ms, bool utc, char *buf, size_t len)
{
	struct tm tm;
	int64_t s = t_ms >= 0 ? t_ms / 1000 : -((-t_ms + 999) / 1000);
	size_t n;

	civil(s, utc, &tm);
	n = strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm);
	snprintf(buf + n, len - n, "%s", utc ? " UTC" : "");
}

/* 1, 2 or 5 times a power of ten, at least v. */
static double nice_ceil(double v)
{
	double p, f;

	if (!(v > 0))
		return 1;
	p = pow(10, floor(log10(v)));
	f = v / p;
	return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p;
}

struct chart {
	cairo_t *cr;
	const struct plot_model *m;
	const struct plot_view *v;
	size_t metric;
	double top; /* y of the chart on the surface */
	double ymax;
	size_t *ranked, nr_ranked;
	struct buf *meta; /* SVG: the chart's data (docs/PLOT.md), else NULL */
	struct buf d; /* the points of the track being drawn */
	double last_x, last_y; /* its last vertex */
};

static double y_of(const struct chart *c, double v)
{
	return c->top + PLOT_AREA_Y + PLOT_AREA_H * (1 - v / c->ymax);
}

static void text_at(cairo_t *cr, double x, double y, const char *s, double align)
{
	cairo_text_extents_t e;

	cairo_text_extents(cr, s, &e);
	cairo_move_to(cr, x - e.x_advance * align, y);
	cairo_show_text(cr, s);
}

static void draw_y_axis(const struct chart *c)
{
	char buf[32];

	cairo_set_line_width(c->cr, 0.5);
	for (int i = 0; i <= Y_TICKS; i++) {
		double v = c->ymax * i / Y_TICKS, y = y_of(c, v);

		set_color(c->cr, 0xdddddd);
		cairo_move_to(c->cr, PLOT_AREA_X, y);
		cairo_line_to(c->cr, PLOT_AREA_X + PLOT_AREA_W, y);
		cairo_stroke(c->cr);
		plot_format_value(v, buf, sizeof(buf));
		set_color(c->cr, 0x333333);
		text_at(c->cr, PLOT_AREA_X - 6, y + 4, buf, 1);
	}
}

/* A tick step (s) giving at most 8 ticks across span_s. */
static int64_t tick_step(int64_t span_s)
{
	static const int64_t steps[] = { 1,	 2,	 5,	  10,	   15,	  30,
					 60,	 120,	 300,	  600,	   900,	  1800,
					 3600,	 7200,	 10800,	  21600,   43200, 86400,
					 172800, 604800, 2592000, 31536000 };
	size_t i = 0;

	while (i + 1 < sizeof(steps) / sizeof(steps[0]) && span_s / steps[i] > 8)
		i++;
	return steps[i];
}

static void draw_x_axis(const struct chart *c)
{
	const struct plot_model *m = c->m;
	int64_t span = m->end_ms - m->start_ms, step = tick_step(span / 1000), t, off;
	double base = c->top + PLOT_AREA_Y + PLOT_AREA_H;
	char buf[64];
	struct tm tm;

	civil(m->start_ms / 1000, c->v->utc, &tm);
	off = c->v->utc ? 0 : tm.tm_gmtoff; /* ticks on local round times */
	t = ((m->start_ms / 1000 + off + step - 1) / step) * step - off;
	for (; span > 0 && t * 1000 <= m->end_ms; t += step) {
		double x = PLOT_AREA_X + (double)(t * 1000 - m->start_ms) * PLOT_AREA_W / span;

		set_color(c->cr, 0xdddddd);
		cairo_set_line_width(c->cr, 0.5);
		cairo_move_to(c->cr, x, c->top + PLOT_AREA_Y);
		cairo_line_to(c->cr, x, base);
		cairo_stroke(c->cr);
		civil(t, c->v->utc, &tm);
		strftime(buf, sizeof(buf),
			 step < 60	? "%H:%M:%S"
			 : step < 86400 ? "%H:%M"
					: "%m-%d",
			 &tm);
		set_color(c->cr, 0x333333);
		text_at(c->cr, x, base + 16, buf, 0.5);
	}
	plot_format_time(m->start_ms, c->v->utc, buf, sizeof(buf));
	text_at(c->cr, PLOT_AREA_X, base + 34, buf, 0);
	plot_format_time(m->end_ms, c->v->utc, buf, sizeof(buf));
	text_at(c->cr, PLOT_AREA_X + PLOT_AREA_W, base + 34, buf, 1);
}

/* The next vertex of a track, unless it is the one before (a column of one
 * value). A new line starts with a dot (a degenerate segment: round caps
 * draw it), so a lone value between two gaps shows. */
static void vertex(struct chart *c, double x, double v, bool start)
{
	double y = y_of(c, v);

	if (!start && x == c->last_x && y == c->last_y)
		return;
	if (start) {
		cairo_move_to(c->cr, x, y);
		cairo_line_to(c->cr, x, y);
	} else {
		cairo_line_to(c->cr, x, y);
	}
	c->last_x = x;
	c->last_y = y;
	if (c->meta)
		buf_printf(&c->d, "%s%s%.3f,%.3f", c->d.len ? " " : "", start ? "M" : "", x, y);
}

/* One series: per pixel column its first value (joined to the column
 * before unless a gap broke the line), its min and max, its last. */
static void draw_track(struct chart *c, const struct plot_track *t, unsigned rgb)
{
	cairo_t *cr = c->cr;
	bool start = true;

	cairo_new_path(cr);
	c->d.len = 0; /* this track's points (an error of the last stays) */
	for (int i = 0; t->cols && i < c->m->columns; i++) {
		const struct plot_column *col = &t->cols[i];
		double x = PLOT_AREA_X + i + 0.5;

		if (!(col->flags & PLOT_COL_DATA))
			continue;
		vertex(c, x, col->first, start || (col->flags & PLOT_COL_BREAK));
		vertex(c, x, col->min, false);
		vertex(c, x, col->max, false);
		vertex(c, x, col->last, false);
		start = false;
	}
	set_color(cr, rgb);
	cairo_set_line_width(cr, PLOT_LINE_WIDTH);
	cairo_stroke(cr);
}

/* The chart's series in the SVG's metadata: what a script needs to check
 * the drawing (the exact vertices of each line, in surface coordinates). */
static void meta_series(struct chart *c, size_t rank, const struct plot_series *s)
{
	const struct plot_track *t = &s->tracks[c->metric];
	char path[LOG_NAME_MAX];
	struct buf *b = c->meta;

	text_escape_control(s->path, path, sizeof(path));
	buf_printf(b, "<cgperf:series rank=\"%zu\" color=\"#%06x\" name=\"", rank,
		   plot_color(rank));
	plot_xml(b, s->name);
	buf_puts(b, "\" path=\"");
	plot_xml(b, path);
	buf_printf(b, "\" mean=\"%.6g\" peak=\"%.6g\" points=\"%s\"/>\n", plot_track_mean(t),
		   t->peak, buf_cstr(&c->d));
}

static void draw_legend(const struct chart *c)
{
	size_t fits = (PLOT_AREA_H + PLOT_AREA_Y) / LEGEND_LINE - 1, n = c->nr_ranked;
	char buf[32], line[256];

	if (n > fits)
		n = fits - 1;
	for (size_t i = 0; i < n; i++) {
		const struct plot_series *s = c->m->series[c->ranked[i]];
		double y = c->top + PLOT_AREA_Y + i * LEGEND_LINE;

		set_color(c->cr, plot_color(i));
		cairo_rectangle(c->cr, LEGEND_X, y, 12, 10);
		cairo_fill(c->cr);
		plot_format_value(plot_track_mean(&s->tracks[c->metric]), buf, sizeof(buf));
		snprintf(line, sizeof(line), "%s  %s", s->name, buf);
		set_color(c->cr, 0x222222);
		text_at(c->cr, LEGEND_X + 18, y + 10, line, 0);
	}
	if (n < c->nr_ranked) {
		snprintf(line, sizeof(line), "... and %zu more", c->nr_ranked - n);
		text_at(c->cr, LEGEND_X + 18, c->top + PLOT_AREA_Y + n * LEGEND_LINE + 10, line, 0);
	}
}

static void meta_chart(struct chart *c)
{
	const struct plot_metric *mt = &c->m->metrics[c->metric];
	struct buf *b = c->meta;

	buf_puts(b, "<cgperf:chart metric=\"");
	plot_xml(b, mt->name);
	buf_puts(b, "\" label=\"");
	plot_xml(b, mt->label);
	buf_printf(b,
		   "\" top=\"%.0f\" area=\"%d %d %d %d\" ymax=\"%.6g\" start_ms=\"%lld\" "
		   "end_ms=\"%lld\" series=\"%zu\">\n",
		   c->top, PLOT_AREA_X, PLOT_AREA_Y, PLOT_AREA_W, PLOT_AREA_H, c->ymax,
		   (long long)c->m->start_ms, (long long)c->m->end_ms, c->nr_ranked);
}

static void draw_chart(struct chart *c)
{
	cairo_t *cr = c->cr;
	double peak = 0;

	for (size_t i = 0; i < c->nr_ranked; i++) {
		double p = c->m->series[c->ranked[i]]->tracks[c->metric].peak;

		peak = p > peak ? p : peak;
	}
	c->ymax = nice_ceil(peak);
	cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
	cairo_set_font_size(cr, 14);
	set_color(cr, 0x111111);
	text_at(cr, PLOT_AREA_X, c->top + 22, c->m->metrics[c->metric].label, 0);
	cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_font_size(cr, 11);
	draw_y_axis(c);
	draw_x_axis(c);
	/* The frame under the lines: a value at 0 or at the top stays visible. */
	set_color(cr, 0x888888);
	cairo_set_line_width(cr, 1);
	cairo_rectangle(cr, PLOT_AREA_X, c->top + PLOT_AREA_Y, PLOT_AREA_W, PLOT_AREA_H);
	cairo_stroke(cr);
	cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
	cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND);
	/* The busiest last, on top of the others. */
	if (c->meta)
		meta_chart(c);
	for (size_t i = c->nr_ranked; i-- > 0;) {
		const struct plot_series *s = c->m->series[c->ranked[i]];

		draw_track(c, &s->tracks[c->metric], plot_color(i));
		if (c->meta)
			meta_series(c, i, s);
	}
	if (c->meta)
		buf_puts(c->meta, "</cgperf:chart>\n");
	draw_legend(c);
}

/* Without a font, cairo draws no text at all: say so once. */
static void check_font(cairo_t *cr)
{
	static bool told;
	cairo_text_extents_t e;

	cairo_text_extents(cr, "0", &e);
	if (e.x_advance > 0 || told)
		return;
	told = true;
	log_warn("plot: no font found (fontconfig): the charts have no text; "
		 "install a font, e.g. fonts-dejavu-core");
}

/* Draw metrics [first, first + n) stacked on cr; their data into meta. */
static int draw_charts(cairo_t *cr, const struct plot_model *m, const struct plot_view *v,
		       size_t first, size_t n, struct buf *meta)
{
	size_t *ranked = malloc((m->nr_series ? m->nr_series : 1) * sizeof(*ranked));
	struct chart c = { .cr = cr, .m = m, .v = v, .ranked = ranked, .meta = meta };
	int r;

	if (!ranked)
		return -ENOMEM;
	set_color(cr, 0xffffff);
	cairo_paint(cr);
	cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
	check_font(cr);
	for (size_t i = 0; i < n; i++) {
		c.metric = first + i;
		c.top = (double)i * PLOT_CHART_HEIGHT;
		c.nr_ranked = plot_rank(m, c.metric, v->top, ranked);
		draw_chart(&c);
	}
	free(ranked);
	r = c.d.error; /* read before the free, which forgets it */
	buf_free(&c.d);
	if (r < 0)
		return r;
	return cairo_status(cr) == CAIRO_STATUS_SUCCESS ? 0 : -EIO;
}

static bool ends_with(const char *s, const char *sfx)
{
	size_t n = strlen(s), k = strlen(sfx);

	return n >= k && !strcmp(s + n - k, sfx);
}

enum plot_output plot_output_kind(const char *path)
{
	return ends_with(path, ".png")	  ? PLOT_OUT_PNG
	       : ends_with(path, ".svg")  ? PLOT_OUT_SVG
	       : ends_with(path, ".html") ? PLOT_OUT_HTML
					  : 0;
}

static int render_png(const struct plot_model *m, const struct plot_view *v, const char *path)
{
	int h = (int)m->nr_metrics * PLOT_CHART_HEIGHT, r = cairo_dl_load();
	cairo_surface_t *sf;
	cairo_t *cr;

	if (r < 0)
		return r;
	sf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, PLOT_WIDTH, h);
	cr = cairo_create(sf);
	r = draw_charts(cr, m, v, 0, m->nr_metrics, NULL);
	cairo_destroy(cr);
	if (r == 0 && cairo_surface_write_to_png(sf, path) != CAIRO_STATUS_SUCCESS)
		r = -EIO;
	cairo_surface_destroy(sf);
	return r;
}

static cairo_status_t buf_write(void *closure, const unsigned char *data, unsigned int len)
{
	struct buf *b = closure;

	buf_append(b, (const char *)data, len);
	return b->error ? CAIRO_STATUS_WRITE_ERROR : CAIRO_STATUS_SUCCESS;
}

/* cairo's SVG of metrics [first, first + n) into raw, their data into meta. */
static int cairo_svg(const struct plot_model *m, const struct plot_view *v, size_t first, size_t n,
		     struct buf *raw, struct buf *meta)
{
	int r = cairo_dl_load();
	cairo_surface_t *sf;
	cairo_t *cr;

	if (r < 0)
		return r;
	sf = cairo_svg_surface_create_for_stream(buf_write, raw, PLOT_WIDTH,
						 (double)n * PLOT_CHART_HEIGHT);
	cr = cairo_create(sf);
	r = draw_charts(cr, m, v, first, n, meta);

	cairo_destroy(cr);
	cairo_surface_finish(sf);
	if (r == 0 && (raw->error || meta->error))
		r = -ENOMEM;
	if (r == 0 && cairo_surface_status(sf) != CAIRO_STATUS_SUCCESS)
		r = -EIO;
	cairo_surface_destroy(sf);
	return r;
}

/* Copy cairo's SVG, every id and reference to one given prefix + id, so
 * that several charts can live in one page (cairo names glyphs and clips
 * glyph0-1, clip1, ... in every document). */
static void copy_prefixed(struct buf *out, const char *p, const char *end, const char *prefix)
{
	static const char *const refs[] = { " id=\"", "href=\"#", "url(#" };
	const char *next[sizeof(refs) / sizeof(refs[0])] = { 0 };

	while (p < end) {
		const char *hit = end;
		size_t k = 0;

		/* Each reference's next place, searched again only once passed:
		 * one pass over the document, not one per reference found. */
		for (size_t i = 0; i < sizeof(refs) / sizeof(refs[0]); i++) {
			if (!next[i] || (next[i] != end && next[i] < p))
				next[i] = memmem(p, (size_t)(end - p), refs[i], strlen(refs[i]));
			if (!next[i])
				next[i] = end;
			if (next[i] < hit) {
				hit = next[i];
				k = strlen(refs[i]);
			}
		}
		hit += k;
		buf_append(out, p, (size_t)(hit - p));
		if (hit < end)
			buf_puts(out, prefix);
		p = hit;
	}
}

/* cairo's document with a title, the charts' data before its end, without
 * the XML declaration when inline; ids prefixed. */
static int assemble_svg(struct buf *raw, const struct buf *meta, const char *title,
			const char *prefix, bool inline_svg, struct buf *out)
{
	const char *doc = buf_cstr(raw), *svg = strstr(doc, "<svg"), *open_end, *close;

	if (!svg || !(open_end = strchr(svg, '>')) || !(close = strstr(svg, "</svg>")))
		return -EIO;
	if (!inline_svg)
		buf_append(out, doc, (size_t)(svg - doc));
	buf_append(out, svg, (size_t)(open_end + 1 - svg));
	buf_puts(out, "\n<title>");
	plot_xml(out, title);
	buf_puts(out, "</title>\n<metadata>\n<cgperf:plot xmlns:cgperf=\"" PLOT_SVG_NS "\">\n");
	buf_append(out, meta->data, meta->len);
	buf_puts(out, "</cgperf:plot>\n</metadata>");
	copy_prefixed(out, open_end + 1, close, prefix);
	buf_puts(out, "</svg>\n");
	return out->error;
}

int plot_render_svg(const struct plot_model *m, const struct plot_view *v, size_t first, size_t n,
		    const char *prefix, struct buf *out)
{
	struct buf raw = { 0 }, meta = { 0 };
	char title[256];
	int r;

	snprintf(title, sizeof(title), "cgperf plot: %s%s", n == 1 ? m->metrics[first].label : "",
		 n == 1 ? "" : "every metric");
	r = cairo_svg(m, v, first, n, &raw, &meta);
	if (r == 0)
		r = assemble_svg(&raw, &meta, title, prefix, *prefix != '\0', out);
	buf_free(&raw);
	buf_free(&meta);
	return r;
}

int plot_render_file(const struct plot_model *m, const struct plot_view *v, const char *path)
{
	struct buf out = { 0 };
	int r;

	if (plot_output_kind(path) == PLOT_OUT_PNG)
		return render_png(m, v, path);
	if (plot_output_kind(path) != PLOT_OUT_SVG)
		return -EINVAL;
	r = plot_render_svg(m, v, 0, m->nr_metrics, "", &out);
	if (r == 0)
		r = plot_write_file(&out, path);
	buf_free(&out);
	return r;
}
