// SPDX-License-Identifier: GPL-2.0-only
/* The Prometheus sink: per-cgroup state in an array (the exposition's order:
 * insertion order) indexed by cgroup id, exposition built in
 * prom_sink_publish(). What it keeps is what the exposition shows; the
 * change of each interval is the agent's row delta. */
#include "sink/prom_sink.h"
#include "sink/textfile.h"
#include "util/escape.h"
#include "util/id_map.h"
#include "util/log.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct entry {
	uint64_t id;
	struct buf labels;
	struct buf cadvisor; /* cAdvisor's labels, when its names are exposed */
	size_t cadvisor_split;
	uint32_t gen; /* the sink_cgroup generation the labels were made of */
	struct timespec created;
	uint64_t totals[READINGS_MAX_EVENTS]; /* scaled, since created */
	double ratio[READINGS_MAX_EVENTS]; /* last interval; < 0: not known */
	bool removed;
	struct timespec removed_at; /* CLOCK_MONOTONIC */
};

struct prom_sink {
	struct sink base;
	struct prom_http *http;
	char *textfile;
	uint64_t keep_removed_ms;
	int nr_events;
	const char *const *event_names; /* prom_sink_opts' */
	unsigned names;
	/* container_label_<key> names, sorted (cAdvisor's label order), and
	 * which of sink_cgroup.labels each shows. */
	char *label_names[SINK_MAX_LABELS];
	int label_order[SINK_MAX_LABELS];
	int nr_labels;
	struct entry **items;
	size_t nr, cap;
	struct id_map by_id;
	struct prom_series *series; /* scratch for publish, cap entries */
	struct buf text; /* textfile only: kept and reused */
	struct prom_sink_stats stats;
	struct log_ratelimit mem_rl, dup_rl, file_rl;
};

static const struct sink_ops prom_ops;

static struct prom_sink *to_prom(const struct sink *s)
{
	return s && s->ops == &prom_ops ? (struct prom_sink *)s : NULL;
}

static void entry_free(struct entry *e)
{
	if (!e)
		return;
	buf_free(&e->labels);
	buf_free(&e->cadvisor);
	free(e);
}

/* The cgroup's labels, both namings: escaped once, and again only when its
 * names change. */
static int make_labels(const struct prom_sink *s, struct entry *e, const struct sink_cgroup *cg)
{
	struct buf labels = BUF_INIT, cadvisor = BUF_INIT;
	size_t split = 0;
	int r = prom_cgroup_labels(&labels, cg);

	if (r == 0 && (s->names & PROM_NAMES_CADVISOR_BIT))
		r = prom_cadvisor_labels(&cadvisor, cg, (const char *const *)s->label_names,
					 s->label_order, s->nr_labels, &split);
	if (r < 0) {
		buf_free(&labels);
		buf_free(&cadvisor);
		return r;
	}
	buf_free(&e->labels);
	buf_free(&e->cadvisor);
	e->labels = labels;
	e->cadvisor = cadvisor;
	e->cadvisor_split = split;
	e->gen = cg->gen;
	return 0;
}

static struct entry *add(struct prom_sink *s, const struct sink_record *r)
{
	struct entry *e;

	if (s->nr == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		struct entry **items = realloc(s->items, cap * sizeof(*items));
		struct prom_series *series =
			items ? realloc(s->series, cap * sizeof(*series)) : NULL;

		if (items)
			s->items = items;
		if (!series)
			return NULL;
		s->series = series;
		s->cap = cap;
	}
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	if (make_labels(s, e, r->cgroup) < 0) {
		entry_free(e);
		return NULL;
	}
	e->id = r->cgroup->id;
	/* When the (persistent) session first counted the cgroup. */
	e->created = r->created;
	for (int i = 0; i < READINGS_MAX_EVENTS; i++)
		e->ratio[i] = -1;
	if (id_map_insert(&s->by_id, e->id, e) < 0) {
		entry_free(e);
		return NULL;
	}
	s->items[s->nr++] = e;
	return e;
}

/* ---- records ---- */

/* Adds one interval's change d, scaled, so the counter never goes down. */
static void update(struct entry *e, const struct reading *d, int n)
{
	for (int i = 0; i < n; i++) {
		uint64_t add;

		reading_scale(&d[i], &add, NULL);
		e->totals[i] = e->totals[i] > UINT64_MAX - add ? UINT64_MAX : e->totals[i] + add;
		if (d[i].enabled)
			e->ratio[i] = (double)d[i].running / (double)d[i].enabled;
	}
}

static bool same_buf(const struct buf *a, const struct buf *b)
{
	return a->len == b->len && (!a->len || !memcmp(a->data, b->data, a->len));
}

/* A removed cgroup whose labels come back (a service restarted under the
 * same path) leaves at once: two series with the same labels would make the
 * whole scrape invalid, and the new one's reset counter is what is true now.
 * cAdvisor's labels say less than cgperf's (no kind, no pod): either
 * naming's match retires it. */
static void retire_same_labels(struct prom_sink *s, const struct entry *live)
{
	bool cadvisor = s->names & PROM_NAMES_CADVISOR_BIT;

	for (size_t i = 0; i < s->nr; i++) {
		struct entry *e = s->items[i];

		if (e->removed && (same_buf(&e->labels, &live->labels) ||
				   (cadvisor && same_buf(&e->cadvisor, &live->cadvisor))))
			e->removed_at = (struct timespec){ 0 };
	}
}

/* d (in r's event order) into ret (in the sink's), by event name. */
static void by_name(const struct prom_sink *s, const struct sink_record *r, const struct reading *d,
		    struct reading ret[READINGS_MAX_EVENTS])
{
	memset(ret, 0, READINGS_MAX_EVENTS * sizeof(*ret));
	for (int i = 0; i < s->nr_events; i++)
		for (int j = 0; j < r->nr_events; j++)
			if (!strcmp(s->event_names[i], r->event_names[j])) {
				ret[i] = d[j];
				break;
			}
}

/* The cgroup's names changed since its labels were made (a name lookup
 * that ended after its first row: the short id was its container_name):
 * the series goes on under the new labels, the old ones go stale. Out of
 * memory: the old labels stay, and the next row tries again. */
static void relabel(struct prom_sink *s, struct entry *e, const struct sink_record *r)
{
	if (make_labels(s, e, r->cgroup) == 0)
		retire_same_labels(s, e);
}

static int prom_write(struct sink *base, const struct sink_record *r)
{
	struct prom_sink *s = to_prom(base);
	struct entry *e = id_map_find(&s->by_id, r->cgroup->id);
	struct reading totals[READINGS_MAX_EVENTS], delta[READINGS_MAX_EVENTS];
	const struct reading *r_totals = r->totals, *r_delta = r->delta;
	bool first = !e;
	int n;

	if (r->event_names != s->event_names) {
		/* Another session's events (the last rows of one drained):
		 * by name into ours; what we do not count is left out. */
		by_name(s, r, r->totals, totals);
		by_name(s, r, r->delta, delta);
		r_totals = totals;
		r_delta = delta;
		n = s->nr_events;
	} else {
		n = r->nr_events < s->nr_events ? r->nr_events : s->nr_events;
	}
	if (!e && (e = add(s, r)))
		retire_same_labels(s, e);
	else if (e && e->gen != r->cgroup->gen)
		relabel(s, e, r);
	if (!e) {
		log_ratelimited(&s->mem_rl, 60, LOG_LVL_ERROR,
				"prometheus: out of memory: cgroup %" PRIu64
				" left out of the metrics",
				r->cgroup->id);
		return -ENOMEM;
	}
	/* A series new here starts from the totals since `created` (an adopted
	 * session's: the counter continues across agent restarts). After that
	 * the agent's delta is the change since this series' previous row:
	 * every row of a series kept here is answered written. */
	update(e, first ? r_totals : r_delta, n);
	e->removed = r->final;
	if (r->final)
		clock_gettime(CLOCK_MONOTONIC, &e->removed_at);
	return 0;
}

/* ---- publishing ---- */

static uint64_t ms_since(const struct timespec *t, const struct timespec *now)
{
	int64_t ms = (now->tv_sec - t->tv_sec) * 1000 + (now->tv_nsec - t->tv_nsec) / 1000000;

	return ms < 0 ? 0 : (uint64_t)ms;
}

/* Removed cgroups past keep_removed go. */
static void expire(struct prom_sink *s)
{
	struct timespec now;
	size_t kept = 0;

	clock_gettime(CLOCK_MONOTONIC, &now);
	for (size_t i = 0; i < s->nr; i++) {
		struct entry *e = s->items[i];

		if (e->removed && (!e->removed_at.tv_sec ||
				   ms_since(&e->removed_at, &now) >= s->keep_removed_ms)) {
			id_map_remove(&s->by_id, e->id);
			entry_free(e);
		} else {
			s->items[kept++] = e;
		}
	}
	s->nr = kept;
}

static void series_of(const struct entry *e, struct prom_series *ret)
{
	*ret = (struct prom_series){
		.labels = e->labels.data,
		.labels_len = e->labels.len,
		.cadvisor = e->cadvisor.data,
		.cadvisor_len = e->cadvisor.len,
		.cadvisor_split = e->cadvisor_split,
		.totals = e->totals,
		.running_ratio = e->ratio,
		.created = e->created,
	};
}

/* Live cgroups first, so that if labels still collide the live one is kept. */
static size_t fill_series(struct prom_sink *s)
{
	size_t n = 0;

	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < s->nr; i++)
			if (s->items[i]->removed == (pass == 1))
				series_of(s->items[i], &s->series[n++]);
	return n;
}

static int build(struct prom_sink *s, const struct prom_health *h, enum prom_format fmt,
		 struct buf *out)
{
	struct prom_input in = {
		.names = s->names,
		.nr_events = s->nr_events,
		.event_names = s->event_names,
		.series = s->series,
		.nr_series = s->stats.series,
		.health = h,
	};
	size_t dropped = 0;
	int r = prom_build(&in, fmt, out, &dropped);

	if (r < 0) {
		log_ratelimited(&s->mem_rl, 60, LOG_LVL_ERROR,
				"prometheus: cannot build the metrics: %s", strerror(-r));
		return r;
	}
	s->stats.duplicates = dropped;
	if (dropped)
		log_ratelimited(
			&s->dup_rl, 60, LOG_LVL_WARN,
			"prometheus: %zu cgroups left out of the metrics: their names differ only in "
			"bytes that are not UTF-8, so their labels are the same as another's",
			dropped);
	return 0;
}

static void write_textfile(struct prom_sink *s, const struct buf *text)
{
	int r = textfile_write(s->textfile, text->data, text->len);

	if (r == 0) {
		s->stats.textfile_writes++;
		return;
	}
	s->stats.textfile_failures++;
	log_ratelimited(&s->file_rl, 60, LOG_LVL_ERROR,
			"cannot write the metrics textfile %s: %s (the previous one stays)",
			s->textfile, strerror(-r));
}

int prom_sink_publish(struct sink *base, const struct prom_health *h)
{
	struct prom_sink *s = to_prom(base);
	struct buf om = BUF_INIT;
	/* Text always (the textfile, and any client may ask for it: a scrape
	 * never gets a format it did not accept), OpenMetrics once a scraper
	 * preferred it (Prometheus does: ~1.5 ms more per collection at 1000
	 * cgroups from then on). */
	bool want_om = s && s->http && prom_http_wants_openmetrics(s->http);
	int r;

	if (!s)
		return -EINVAL;
	expire(s);
	s->stats.series = fill_series(s);
	/* Reused buffers: see prom_http_take_buffer(). */
	if (s->http)
		prom_http_take_buffer(s->http, &s->text);
	if (want_om)
		prom_http_take_buffer(s->http, &om);
	buf_reset(&s->text);
	r = build(s, h, PROM_FORMAT_TEXT, &s->text);
	if (r == 0 && want_om)
		r = build(s, h, PROM_FORMAT_OPENMETRICS, &om);
	if (r == 0) {
		s->stats.publishes++;
		s->stats.text_bytes = s->text.len;
		if (s->textfile)
			write_textfile(s, &s->text);
		if (s->http)
			r = prom_http_publish(s->http, &s->text, &om);
	}
	if (s->http)
		buf_free(&s->text);
	buf_free(&om);
	return r;
}

int prom_sink_get_stats(const struct sink *base, struct prom_sink_stats *ret)
{
	const struct prom_sink *s = to_prom(base);

	if (!s)
		return -EINVAL;
	*ret = s->stats;
	return 0;
}

/* ---- life ---- */

static void prom_free(struct sink *base)
{
	struct prom_sink *s = to_prom(base);

	if (!s)
		return;
	for (size_t i = 0; i < s->nr; i++)
		entry_free(s->items[i]);
	free(s->items);
	free(s->series);
	id_map_free(&s->by_id);
	free(s->textfile);
	buf_free(&s->text);
	for (int i = 0; i < s->nr_labels; i++)
		free(s->label_names[i]);
	free(s);
}

/* container_label_<key> for each key, in sorted order (insertion sort of
 * at most SINK_MAX_LABELS). */
static int add_label_names(struct prom_sink *s, const struct prom_sink_opts *o)
{
	for (int i = 0; i < o->nr_label_keys; i++) {
		size_t n = strlen("container_label_") + strlen(o->label_keys[i]) + 1;
		char *name = malloc(n);
		int at;

		if (!name)
			return -ENOMEM;
		text_label_name("container_label_", o->label_keys[i], name, n);
		for (int j = 0; j < s->nr_labels; j++)
			if (!strcmp(s->label_names[j], name)) {
				free(name);
				return -EINVAL; /* one label name twice: config's check */
			}
		for (at = s->nr_labels; at > 0 && strcmp(s->label_names[at - 1], name) > 0; at--) {
			s->label_names[at] = s->label_names[at - 1];
			s->label_order[at] = s->label_order[at - 1];
		}
		s->label_names[at] = name;
		s->label_order[at] = i;
		s->nr_labels++;
	}
	return 0;
}

static const struct sink_ops prom_ops = {
	.name = "prometheus",
	.write = prom_write,
	.free = prom_free,
};

int prom_sink_new(const struct prom_sink_opts *o, struct sink **ret)
{
	struct prom_sink *s;
	int r;

	if (!o || (!o->http && !o->textfile) || o->nr_events < 0 ||
	    o->nr_events > READINGS_MAX_EVENTS || (o->nr_events && !o->event_names) ||
	    o->nr_label_keys < 0 || o->nr_label_keys > SINK_MAX_LABELS ||
	    (o->nr_label_keys && !o->label_keys))
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->base.ops = &prom_ops;
	s->names = o->names ? o->names : PROM_NAMES_CGPERF_BIT;
	r = add_label_names(s, o);
	if (r < 0) {
		prom_free(&s->base);
		return r;
	}
	s->http = o->http;
	s->keep_removed_ms = o->keep_removed_ms;
	s->nr_events = o->nr_events;
	s->event_names = o->event_names;
	if (o->textfile && !(s->textfile = strdup(o->textfile))) {
		free(s);
		return -ENOMEM;
	}
	*ret = &s->base;
	return 0;
}
