// SPDX-License-Identifier: GPL-2.0-only
#include "cmd/top/top_model.h"
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void add_col(struct top_model *m, enum top_col_kind kind, int event, const char *title,
		    const char *json_key, char key, int width, int decimals)
{
	struct top_column *c = &m->cols[m->nr_cols++];

	*c = (struct top_column){
		.kind = kind, .event = event, .key = key, .width = width, .decimals = decimals
	};
	snprintf(c->title, sizeof(c->title), "%s", title);
	snprintf(c->json_key, sizeof(c->json_key), "%s", json_key);
}

static bool is_hardware(const struct event_spec *ev)
{
	return ev->attr.type != PERF_TYPE_SOFTWARE;
}

/* Events a metric column already shows (its inputs) get no rate column. */
static bool consumed(const struct derived_map *d, const struct event_spec *ev, int i)
{
	if (ev->is_time)
		return true; /* CPU% and CORES, from the clock the map prefers */
	if (derived_counted(DERIVED_IPC, d) && (i == d->cycles || i == d->instructions))
		return true;
	if (derived_counted(DERIVED_CACHE_MISS_PCT, d) &&
	    (i == d->cache_refs || i == d->cache_misses))
		return true;
	return derived_counted(DERIVED_BRANCH_MISS_PCT, d) &&
	       (i == d->branches || i == d->branch_misses);
}

static void add_rate_col(struct top_model *m, int i)
{
	const struct event_spec *ev = &m->events[i];
	char title[16], key[48];
	const char *name = ev->name;
	int len = (int)strlen(name);
	char c = 0;

	/* "pmu/event/": its event's name (msr/tsc/ -> tsc/s, not msr/tsc//s). */
	if (len > 1 && name[len - 1] == '/') {
		const char *p = name + len - 1;

		while (p > name && p[-1] != '/')
			p--;
		len = (int)(name + len - 1 - p);
		name = p;
	}
	snprintf(title, sizeof(title), "%.*s/s", len < 10 ? len : 10, name);
	if (ev->attr.type == PERF_TYPE_SOFTWARE &&
	    ev->attr.config == PERF_COUNT_SW_CONTEXT_SWITCHES) {
		snprintf(title, sizeof(title), "CS/s");
		c = 'S';
	} else if (ev->attr.type == PERF_TYPE_SOFTWARE &&
		   ev->attr.config == PERF_COUNT_SW_PAGE_FAULTS) {
		snprintf(title, sizeof(title), "FAULTS/s");
		c = 'F';
	} else if (ev->attr.type == PERF_TYPE_SOFTWARE &&
		   ev->attr.config == PERF_COUNT_SW_CPU_MIGRATIONS) {
		snprintf(title, sizeof(title), "MIGR/s");
		c = 'G';
	}
	snprintf(key, sizeof(key), "%.40s_per_s", ev->name);
	add_col(m, TOP_COL_RATE, i, title, key, c, 12, 0);
}

void top_model_note(struct top_model *m, const char *col, const char *reason)
{
	size_t used = strlen(m->missing);

	snprintf(m->missing + used, sizeof(m->missing) - used, "%sno %s: %s", used ? "\n" : "", col,
		 reason);
}

/* A metric with inputs a and b (indexes in the counted map d and in the
 * skipped map s): a column when both are counted, else the reason. */
static bool pair(struct top_model *m, int a, int b, int sa, int sb,
		 const struct cli_skipped_event *skipped, const char *col)
{
	if (a >= 0 && b >= 0)
		return true;
	if (sa >= 0 || sb >= 0)
		top_model_note(m, col, skipped[sa >= 0 ? sa : sb].reason);
	return false;
}

static void metric_cols(struct top_model *m, const struct cli_skipped_event *sk, int nr_sk)
{
	struct derived_map s;
	const struct derived_map *d = &m->map;
	struct event_spec specs[READINGS_MAX_EVENTS * 8];
	int n = nr_sk < (int)(sizeof(specs) / sizeof(specs[0])) ? nr_sk : 0;

	for (int i = 0; i < n; i++)
		specs[i] = sk[i].spec;
	derived_map_events(specs, n, &s);
	if (d->clock >= 0) {
		add_col(m, TOP_COL_CPU_PCT, -1, "CPU%", "cpu_pct", 'C', 7, 1);
		add_col(m, TOP_COL_CPU_CORES, -1, "CORES", "cpu_cores", 'O', 6, 2);
	} else if (s.clock >= 0) {
		top_model_note(m, "CPU%", sk[s.clock].reason);
	}
	if (pair(m, d->cycles, d->instructions, s.cycles, s.instructions, sk, "IPC"))
		add_col(m, TOP_COL_IPC, -1, "IPC", derived_name(DERIVED_IPC), 'I', 5, 2);
	if (pair(m, d->cache_refs, d->cache_misses, s.cache_refs, s.cache_misses, sk, "MISS%"))
		add_col(m, TOP_COL_CACHE_MISS, -1, "MISS%", derived_name(DERIVED_CACHE_MISS_PCT),
			'M', 6, 1);
	if (pair(m, d->branches, d->branch_misses, s.branches, s.branch_misses, sk, "BMISS%"))
		add_col(m, TOP_COL_BRANCH_MISS, -1, "BMISS%", derived_name(DERIVED_BRANCH_MISS_PCT),
			'B', 6, 1);
}

static void running_col(struct top_model *m, const struct cli_skipped_event *sk, int nr_sk)
{
	for (int i = 0; i < m->nr_events; i++)
		if (is_hardware(&m->events[i])) {
			add_col(m, TOP_COL_RUNNING, -1, "%RUN", "running_pct", 'R', 5, 0);
			return;
		}
	for (int i = 0; i < nr_sk; i++)
		if (is_hardware(&sk[i].spec)) {
			top_model_note(m, "%RUN",
				       "no hardware event is counted (software events never "
				       "multiplex)");
			return;
		}
}

int top_model_init(struct top_model *m, const struct event_spec *ev, int nr,
		   const struct cli_skipped_event *skipped, int nr_skipped)
{
	if (nr < 1 || nr > READINGS_MAX_EVENTS)
		return -EINVAL;
	*m = (struct top_model){ .events = ev, .nr_events = nr };
	derived_map_events(ev, nr, &m->map);
	metric_cols(m, skipped, nr_skipped);
	for (int i = 0; i < nr; i++)
		if (!consumed(&m->map, &ev[i], i))
			add_rate_col(m, i);
	running_col(m, skipped, nr_skipped);
	m->sort_col = m->nr_cols ? 0 : TOP_SORT_NAME;
	return 0;
}

static void row_free(struct top_row *r)
{
	if (!r)
		return;
	free(r->path);
	free(r->name);
	free(r);
}

void top_model_free(struct top_model *m)
{
	if (!m)
		return;
	for (int i = 0; i < m->nr_rows; i++)
		row_free(m->rows[i]);
	free(m->rows);
	free(m->order);
	m->rows = NULL;
	m->order = NULL;
	m->nr_rows = m->nr_order = m->cap_rows = 0;
}

static int find_index(const struct top_model *m, uint64_t id)
{
	for (int i = 0; i < m->nr_rows; i++)
		if (m->rows[i]->id == id)
			return i;
	return -1;
}

struct top_row *top_model_find(const struct top_model *m, uint64_t id)
{
	int i = find_index(m, id);

	return i < 0 ? NULL : m->rows[i];
}

static int grow(struct top_model *m)
{
	int cap = m->cap_rows ? 2 * m->cap_rows : 64;
	struct top_row **rows;
	int *order;

	if (m->nr_rows < m->cap_rows)
		return 0;
	rows = realloc(m->rows, cap * sizeof(*rows));
	if (!rows)
		return -ENOMEM;
	m->rows = rows;
	order = realloc(m->order, cap * sizeof(*order));
	if (!order)
		return -ENOMEM;
	m->order = order;
	m->cap_rows = cap;
	return 0;
}

int top_model_add(struct top_model *m, uint64_t id, const char *path, const char *name,
		  const char *kind, int slot)
{
	struct top_row *r;

	if (find_index(m, id) >= 0)
		return -EEXIST;
	if (grow(m) < 0)
		return -ENOMEM;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->path = strdup(path);
	r->name = strdup(name);
	if (!r->path || !r->name) {
		row_free(r);
		return -ENOMEM;
	}
	r->id = id;
	r->kind = kind;
	r->slot = slot;
	m->rows[m->nr_rows++] = r;
	return 0;
}

int top_model_set_name(struct top_model *m, uint64_t id, const char *name)
{
	struct top_row *r = top_model_find(m, id);
	char *copy;

	if (!r)
		return -ENOENT;
	copy = strdup(name);
	if (!copy)
		return -ENOMEM;
	free(r->name);
	r->name = copy;
	return 0;
}

int top_model_remove(struct top_model *m, uint64_t id)
{
	int i = find_index(m, id);

	if (i < 0)
		return -ENOENT;
	row_free(m->rows[i]);
	m->rows[i] = m->rows[--m->nr_rows];
	m->nr_order = 0; /* indexes moved: the next view orders again */
	return 0;
}

/* Per second of the interval; an event nothing ran for is an exact 0. */
static bool rate(const struct reading *d, double secs, double *ret)
{
	double v;

	if (reading_scale_f(d, &v, NULL) == READING_NOT_COUNTED)
		return false;
	*ret = v / secs;
	return true;
}

/* The lowest % running of the hardware events that were enabled. */
static bool running(const struct top_model *m, const struct reading *d, double *ret)
{
	bool any = false;
	double pct;

	for (int i = 0; i < m->nr_events; i++) {
		enum reading_state st;

		if (!is_hardware(&m->events[i]))
			continue;
		st = reading_scale_f(&d[i], NULL, &pct);
		if (st == READING_IDLE)
			continue;
		if (st == READING_NOT_COUNTED)
			pct = 0;
		if (!any || pct < *ret)
			*ret = pct;
		any = true;
	}
	return any;
}

static bool col_value(const struct top_model *m, const struct top_column *c,
		      const struct reading *d, uint64_t ns, double *ret)
{
	bool ok;

	switch (c->kind) {
	case TOP_COL_CPU_PCT:
		ok = derived_compute(DERIVED_CPU_CORES, &m->map, d, ns, ret);
		if (ok)
			*ret *= 100;
		return ok;
	case TOP_COL_CPU_CORES:
		return derived_compute(DERIVED_CPU_CORES, &m->map, d, ns, ret);
	case TOP_COL_IPC:
		return derived_compute(DERIVED_IPC, &m->map, d, ns, ret);
	case TOP_COL_CACHE_MISS:
		return derived_compute(DERIVED_CACHE_MISS_PCT, &m->map, d, ns, ret);
	case TOP_COL_BRANCH_MISS:
		return derived_compute(DERIVED_BRANCH_MISS_PCT, &m->map, d, ns, ret);
	case TOP_COL_RATE:
		return rate(&d[c->event], (double)ns / 1e9, ret);
	case TOP_COL_RUNNING:
		return running(m, d, ret);
	}
	return false;
}

void top_model_sample(struct top_model *m, struct top_row *r, const struct reading *totals,
		      uint64_t now_ns)
{
	struct reading d[READINGS_MAX_EVENTS];
	uint64_t ns = r->sampled && now_ns > r->last_ns ? now_ns - r->last_ns : 0;

	for (int i = 0; i < m->nr_events; i++)
		reading_delta(&totals[i], &r->last[i], &d[i]);
	for (int c = 0; c < m->nr_cols; c++)
		r->has[c] = ns > 0 && col_value(m, &m->cols[c], d, ns, &r->val[c]);
	memcpy(r->last, totals, m->nr_events * sizeof(*totals));
	r->last_ns = now_ns;
	r->sampled = true;
}

void top_model_sort_by(struct top_model *m, int col)
{
	if (col < TOP_SORT_NAME || col >= m->nr_cols)
		return;
	if (col == m->sort_col)
		m->reverse = !m->reverse;
	else
		m->reverse = false;
	m->sort_col = col;
}

int top_model_col_by_key(const struct top_model *m, char c)
{
	if (c == 'N')
		return TOP_SORT_NAME;
	for (int i = 0; i < m->nr_cols; i++)
		if (m->cols[i].key && m->cols[i].key == c)
			return i;
	return -2;
}

static int cmp_names(const struct top_row *a, const struct top_row *b)
{
	int r = strcmp(a->name, b->name);

	return r ? r : strcmp(a->path, b->path);
}

static int cmp_rows(const void *pa, const void *pb, void *ctx)
{
	const struct top_model *m = ctx;
	const struct top_row *a = m->rows[*(const int *)pa], *b = m->rows[*(const int *)pb];
	int c = m->sort_col, r;

	if (c == TOP_SORT_NAME) {
		r = cmp_names(a, b);
		return m->reverse ? -r : r;
	}
	if (a->has[c] != b->has[c])
		return a->has[c] ? -1 : 1; /* no value: last either way */
	r = !a->has[c] || a->val[c] == b->val[c] ? 0 : a->val[c] > b->val[c] ? -1 : 1;
	if (m->reverse)
		r = -r;
	return r ? r : cmp_names(a, b);
}

static int cmp_paths(const void *pa, const void *pb)
{
	return strcmp((*(struct top_row *const *)pa)->path, (*(struct top_row *const *)pb)->path);
}

/* Each row's nearest ancestor that has a row (by path), through a copy of
 * the rows sorted by path. */
static int link_parents(struct top_model *m)
{
	struct top_row **by_path = malloc((m->nr_rows + 1) * sizeof(*by_path));
	char *buf;

	if (!by_path)
		return -ENOMEM;
	for (int i = 0; i < m->nr_rows; i++)
		m->rows[i]->pos = i;
	memcpy(by_path, m->rows, m->nr_rows * sizeof(*by_path));
	qsort(by_path, m->nr_rows, sizeof(*by_path), cmp_paths);
	for (int i = 0; i < m->nr_rows; i++) {
		struct top_row *r = m->rows[i], key = { 0 }, *kp = &key, **hit = NULL;
		char *slash;

		r->parent = -1;
		buf = strdup(r->path);
		if (!buf) {
			free(by_path);
			return -ENOMEM;
		}
		key.path = buf;
		while (!hit && (slash = strrchr(buf, '/')) && slash != buf) {
			*slash = '\0';
			hit = bsearch(&kp, by_path, m->nr_rows, sizeof(*by_path), cmp_paths);
		}
		free(buf);
		if (hit)
			r->parent = (*hit)->pos;
	}
	free(by_path);
	return 0;
}

static bool matches(const struct top_model *m, const struct top_row *r)
{
	return !m->filter[0] || strcasestr(r->name, m->filter) || strcasestr(r->path, m->filter);
}

/* Filtered rows; in a tree, the ancestors of a shown row are shown too. */
static void mark_shown(struct top_model *m)
{
	for (int i = 0; i < m->nr_rows; i++)
		m->rows[i]->shown = false;
	for (int i = 0; i < m->nr_rows; i++) {
		if (!matches(m, m->rows[i]))
			continue;
		for (int j = i; j >= 0 && !m->rows[j]->shown; j = m->tree ? m->rows[j]->parent : -1)
			m->rows[j]->shown = true;
	}
}

/* Depth-first from the rows sorted: each parent, then its children in order. */
static void emit_tree(struct top_model *m, const int *sorted, int parent, int depth)
{
	for (int k = 0; k < m->nr_rows; k++) {
		struct top_row *r = m->rows[sorted[k]];

		if (r->parent != parent || !r->shown)
			continue;
		r->depth = depth;
		m->order[m->nr_order++] = sorted[k];
		emit_tree(m, sorted, sorted[k], depth + 1);
	}
}

int top_model_view(struct top_model *m)
{
	int *sorted, r = link_parents(m);

	if (r < 0)
		return r;
	sorted = malloc((m->nr_rows + 1) * sizeof(*sorted));
	if (!sorted)
		return -ENOMEM;
	for (int i = 0; i < m->nr_rows; i++)
		sorted[i] = i;
	qsort_r(sorted, m->nr_rows, sizeof(*sorted), cmp_rows, m);
	mark_shown(m);
	m->nr_order = 0;
	if (m->tree) {
		emit_tree(m, sorted, -1, 0);
	} else {
		for (int k = 0; k < m->nr_rows; k++)
			if (m->rows[sorted[k]]->shown) {
				m->rows[sorted[k]]->depth = 0;
				m->order[m->nr_order++] = sorted[k];
			}
	}
	free(sorted);
	return 0;
}
