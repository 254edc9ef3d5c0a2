// SPDX-License-Identifier: GPL-2.0-only
#include "plot/plot_model.h"
#include "util/hash.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* cpu-clock and task-clock count nanoseconds: per second, that is cores. */
static bool is_time_event(const char *name)
{
	return !strcmp(name, "cpu-clock") || !strcmp(name, "task-clock");
}

static int metric_init(struct plot_metric *mt, const char *name, bool gauge)
{
	bool cpu = !gauge && is_time_event(name);
	size_t n = strlen(name) + sizeof(" (cores)/s");

	mt->name = strdup(name);
	mt->label = malloc(n);
	if (!mt->name || !mt->label)
		return -ENOMEM;
	mt->gauge = gauge;
	mt->scale = cpu ? 1e-9 : 1.0;
	if (cpu)
		snprintf(mt->label, n, "%s (cores)", name);
	else
		snprintf(mt->label, n, gauge ? "%s" : "%s/s", name);
	return 0;
}

int plot_model_new(const char *const *names, const bool *gauge, size_t nr_metrics,
		   struct plot_model **ret)
{
	struct plot_model *m = calloc(1, sizeof(*m));
	int r = 0;

	if (!m)
		return -ENOMEM;
	m->metrics = calloc(nr_metrics ? nr_metrics : 1, sizeof(*m->metrics));
	m->nr_metrics = nr_metrics;
	if (!m->metrics)
		r = -ENOMEM;
	for (size_t i = 0; r == 0 && i < nr_metrics; i++)
		r = metric_init(&m->metrics[i], names[i], gauge && gauge[i]);
	if (r < 0) {
		plot_model_free(m);
		return r;
	}
	*ret = m;
	return 0;
}

void plot_model_free(struct plot_model *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->nr_series; i++) {
		struct plot_series *s = m->series[i];

		for (size_t k = 0; k < m->nr_metrics; k++)
			free(s->tracks[k].cols);
		free(s->key);
		free(s->path);
		free(s->name);
		free(s);
	}
	for (size_t i = 0; m->metrics && i < m->nr_metrics; i++) {
		free(m->metrics[i].name);
		free(m->metrics[i].label);
	}
	free(m->metrics);
	free(m->series);
	free(m->index);
	free(m);
}

int plot_model_set_range(struct plot_model *m, int64_t start_ms, int64_t end_ms, int columns)
{
	if (end_ms < start_ms || columns < 1)
		return -EINVAL;
	m->start_ms = start_ms;
	m->end_ms = end_ms;
	m->columns = columns;
	return 0;
}

int plot_model_column(const struct plot_model *m, int64_t t_ms)
{
	int64_t span = m->end_ms - m->start_ms, c;

	if (t_ms < m->start_ms || t_ms > m->end_ms)
		return -1;
	if (span == 0)
		return 0;
	c = (t_ms - m->start_ms) * m->columns / span;
	return c >= m->columns ? m->columns - 1 : (int)c;
}

static size_t *slot_of(size_t *index, size_t cap, const char *key, size_t len,
		       struct plot_series *const *series)
{
	size_t i = hash_bytes(key, len) & (cap - 1);

	while (index[i]) {
		const struct plot_series *s = series[index[i] - 1];

		if (s->key_len == len && !memcmp(s->key, key, len))
			break;
		i = (i + 1) & (cap - 1);
	}
	return &index[i];
}

struct plot_series *plot_model_find(const struct plot_model *m, const char *key, size_t len)
{
	size_t *slot;

	if (!m->index_cap)
		return NULL;
	slot = slot_of(m->index, m->index_cap, key, len, m->series);
	return *slot ? m->series[*slot - 1] : NULL;
}

/* Keep the index at most half full and the series array big enough. */
static int grow(struct plot_model *m)
{
	size_t cap, *index;
	struct plot_series **series;

	if (m->nr_series < m->cap_series && 2 * (m->nr_series + 1) <= m->index_cap)
		return 0;
	cap = m->cap_series ? 2 * m->cap_series : 64;
	series = realloc(m->series, cap * sizeof(*series));
	if (!series)
		return -ENOMEM;
	m->series = series;
	m->cap_series = cap;
	index = calloc(2 * cap, sizeof(*index));
	if (!index)
		return -ENOMEM;
	for (size_t i = 0; i < m->nr_series; i++)
		*slot_of(index, 2 * cap, m->series[i]->key, m->series[i]->key_len, series) = i + 1;
	free(m->index);
	m->index = index;
	m->index_cap = 2 * cap;
	return 0;
}

int plot_model_add_series(struct plot_model *m, const char *key, size_t len, const char *path,
			  const char *name, struct plot_series **ret)
{
	struct plot_series *s;
	int r = grow(m);

	if (r < 0)
		return r;
	s = calloc(1, sizeof(*s) + m->nr_metrics * sizeof(s->tracks[0]));
	if (!s)
		return -ENOMEM;
	s->key = malloc(len ? len : 1);
	s->path = strdup(path);
	s->name = strdup(name);
	if (!s->key || !s->path || !s->name) {
		free(s->key);
		free(s->path);
		free(s->name);
		free(s);
		return -ENOMEM;
	}
	memcpy(s->key, key, len);
	s->key_len = len;
	s->last_t = INT64_MIN;
	m->series[m->nr_series++] = s;
	*slot_of(m->index, m->index_cap, key, len, m->series) = m->nr_series;
	*ret = s;
	return 0;
}

/* Whether the row at t starts a new line: no row before, or further from the
 * previous one than the gap factor allows (PLOT_GAP_FACTOR). */
static bool row_breaks(struct plot_series *s, int64_t t, uint32_t interval)
{
	size_t n = s->nr_recent < PLOT_RECENT ? s->nr_recent : PLOT_RECENT;
	uint32_t ref = n < 2 ? interval : 0;
	bool brk;

	for (size_t i = 0; i < n; i++)
		ref = s->recent[i] > ref ? s->recent[i] : ref;
	brk = s->last_t == INT64_MIN || (double)(t - s->last_t) > PLOT_GAP_FACTOR * ref;
	s->recent[s->nr_recent++ % PLOT_RECENT] = interval;
	return brk;
}

static void column_add(struct plot_column *c, float v, bool brk)
{
	if (!(c->flags & PLOT_COL_DATA)) {
		c->min = c->max = c->first = c->last = v;
		c->flags = PLOT_COL_DATA | (brk ? PLOT_COL_BREAK : 0);
		return;
	}
	if (v < c->min)
		c->min = v;
	if (v > c->max)
		c->max = v;
	c->last = v;
}

static int track_add(const struct plot_model *m, const struct plot_metric *mt, struct plot_track *t,
		     int col, bool brk, double count, uint32_t interval)
{
	double v;

	if (isnan(count) || col < 0) {
		t->joined = false;
		return 0;
	}
	if (!t->cols) {
		t->cols = calloc((size_t)m->columns, sizeof(*t->cols));
		if (!t->cols)
			return -ENOMEM;
	}
	v = mt->gauge ? count : count * mt->scale * 1000.0 / interval;
	column_add(&t->cols[col], (float)v, brk || !t->joined);
	t->joined = true;
	t->sum += v * interval;
	t->sum_ms += interval;
	if (v > t->peak)
		t->peak = v;
	return 0;
}

int plot_series_add_row(const struct plot_model *m, struct plot_series *s, int64_t t_ms,
			uint32_t interval_ms, const double *values)
{
	int col, r = 0;
	bool brk;

	if (interval_ms == 0)
		return -EINVAL;
	if (s->last_t != INT64_MIN && t_ms <= s->last_t) {
		s->dropped++;
		return -EALREADY;
	}
	brk = row_breaks(s, t_ms, interval_ms);
	s->last_t = t_ms;
	s->rows++;
	col = plot_model_column(m, t_ms);
	for (size_t i = 0; r == 0 && i < m->nr_metrics; i++)
		r = track_add(m, &m->metrics[i], &s->tracks[i], col, brk, values[i], interval_ms);
	return r;
}

double plot_track_mean(const struct plot_track *t)
{
	return t->sum_ms > 0 ? t->sum / t->sum_ms : NAN;
}
