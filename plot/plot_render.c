#include "plot/plot_render.h"
#include <cairo.h>
#include <cairo-svg.h>
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

/* One series: per pixel column its first value (joined to the column
 * before unless a gap broke the line), its min and max, its last. */
static void draw_track(const struct chart *c, const struct plot_track *t, unsigned rgb)
{
	cairo_t *cr = c->cr;

	cairo_new_path(cr);
	for (int i = 0; i < c->m->columns; i++) {
		const struct plot_column *col = &t->cols[i];
		double x = PLOT_AREA_X + i + 0.5;

		if (!(col->flags & PLOT_COL_DATA))
			continue;
		if (col->flags & PLOT_COL_BREAK || !cairo_has_current_point(cr))
			cairo_move_to(cr, x, y_of(c, col->first));
		cairo_line_to(cr, x, y_of(c, col->first));
		if (col->min != col->max) {
			cairo_line_to(cr, x, y_of(c, col->min));
			cairo_line_to(cr, x, y_of(c, col->max));
		}
		cairo_line_to(cr, x, y_of(c, col->last));
	}
	set_color(cr, rgb);
	cairo_set_line_width(cr, PLOT_LINE_WIDTH);
	cairo_stroke(cr);
}

static void draw_legend(const struct chart *c)
{
	size_t fits = (PLOT_AREA_H + PLOT_AREA_Y) / LEGEND_LINE - 1, n = c->nr_ranked;
	char buf[32], line[128];

	if (n > fits)
		n = fits - 1;
	for (size_t i = 0; i < n; i++) {
		const struct plot_series *s = c->m->series[c->ranked[i]];
		double y = c->top + PLOT_AREA_Y + i * LEGEND_LINE;

		set_color(c->cr, plot_color(i));
		cairo_rectangle(c->cr, LEGEND_X, y, 12, 10);
		cairo_fill(c->cr);
		plot_format_value(plot_track_mean(&s->tracks[c->metric]), buf, sizeof(buf));
		snprintf(line, sizeof(line), "%.40s  %s", s->name, buf);
		set_color(c->cr, 0x222222);
		text_at(c->cr, LEGEND_X + 18, y + 10, line, 0);
	}
	if (n < c->nr_ranked) {
		snprintf(line, sizeof(line), "... and %zu more", c->nr_ranked - n);
		text_at(c->cr, LEGEND_X + 18, c->top + PLOT_AREA_Y + n * LEGEND_LINE + 10, line, 0);
	}
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
	cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
	cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND);
	/* The busiest last, on top of the others. */
	for (size_t i = c->nr_ranked; i-- > 0;)
		draw_track(c, &c->m->series[c->ranked[i]]->tracks[c->metric], plot_color(i));
	set_color(cr, 0x888888);
	cairo_set_line_width(cr, 1);
	cairo_rectangle(cr, PLOT_AREA_X, c->top + PLOT_AREA_Y, PLOT_AREA_W, PLOT_AREA_H);
	cairo_stroke(cr);
	draw_legend(c);
}

/* Draw metrics [first, first + n) stacked on cr. */
static int draw_charts(cairo_t *cr, const struct plot_model *m, const struct plot_view *v,
		       size_t first, size_t n)
{
	size_t *ranked = malloc((m->nr_series ? m->nr_series : 1) * sizeof(*ranked));
	struct chart c = { .cr = cr, .m = m, .v = v, .ranked = ranked };

	if (!ranked)
		return -ENOMEM;
	set_color(cr, 0xffffff);
	cairo_paint(cr);
	for (size_t i = 0; i < n; i++) {
		c.metric = first + i;
		c.top = (double)i * PLOT_CHART_HEIGHT;
		c.nr_ranked = plot_rank(m, c.metric, v->top, ranked);
		draw_chart(&c);
	}
	free(ranked);
	return cairo_status(cr) == CAIRO_STATUS_SUCCESS ? 0 : -EIO;
}

static bool ends_with(const char *s, const char *sfx)
{
	size_t n = strlen(s), k = strlen(sfx);

	return n >= k && !strcmp(s + n - k, sfx);
}

int plot_render_file(const struct plot_model *m, const struct plot_view *v, const char *path)
{
	int h = (int)m->nr_metrics * PLOT_CHART_HEIGHT, r;
	bool png = ends_with(path, ".png");
	cairo_surface_t *sf;
	cairo_t *cr;

	if (!png && !ends_with(path, ".svg"))
		return -EINVAL;
	sf = png ? cairo_image_surface_create(CAIRO_FORMAT_RGB24, PLOT_WIDTH, h)
		 : cairo_svg_surface_create(path, PLOT_WIDTH, h);
	cr = cairo_create(sf);
	r = draw_charts(cr, m, v, 0, m->nr_metrics);
	cairo_destroy(cr);
	if (r == 0 && png && cairo_surface_write_to_png(sf, path) != CAIRO_STATUS_SUCCESS)
		r = -EIO;
	cairo_surface_finish(sf);
	if (r == 0 && cairo_surface_status(sf) != CAIRO_STATUS_SUCCESS)
		r = -EIO;
	cairo_surface_destroy(sf);
	return r;
}

struct membuf {
	char *data;
	size_t len, cap;
	bool failed;
};

static cairo_status_t mem_write(void *closure, const unsigned char *data, unsigned int len)
{
	struct membuf *b = closure;
	size_t cap = b->cap ? b->cap : 65536;
	char *p;

	while (cap < b->len + len)
		cap *= 2;
	if (cap != b->cap) {
		p = realloc(b->data, cap);
		if (!p) {
			b->failed = true;
			return CAIRO_STATUS_WRITE_ERROR;
		}
		b->data = p;
		b->cap = cap;
	}
	memcpy(b->data + b->len, data, len);
	b->len += len;
	return CAIRO_STATUS_SUCCESS;
}

int plot_render_svg(const struct plot_model *m, size_t metric, const struct plot_view *v,
		    char **ret, size_t *ret_len)
{
	struct membuf b = { 0 };
	cairo_surface_t *sf;
	cairo_t *cr;
	int r;

	sf = cairo_svg_surface_create_for_stream(mem_write, &b, PLOT_WIDTH, PLOT_CHART_HEIGHT);
	cr = cairo_create(sf);
	r = draw_charts(cr, m, v, metric, 1);
	cairo_destroy(cr);
	cairo_surface_finish(sf);
	if (r == 0 && (b.failed || cairo_surface_status(sf) != CAIRO_STATUS_SUCCESS))
		r = b.failed ? -ENOMEM : -EIO;
	cairo_surface_destroy(sf);
	if (r < 0) {
		free(b.data);
		return r;
	}
	*ret = b.data;
	*ret_len = b.len;
	return 0;
}
