// SPDX-License-Identifier: GPL-2.0-only
/* The Prometheus text 0.0.4 / OpenMetrics 1.0 exposition. Built with
 * memcpy and integer printing only: at 1000 cgroups x 4 events it is about
 * 2 MB per interval, built on the agent's loop, so it has to be cheap. */
#include "sink/prom_format.h"
#include "util/hash.h"
#include "util/text.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int put_u64(struct buf *b, uint64_t v)
{
	char tmp[20];
	int n = 0;

	do {
		tmp[sizeof(tmp) - 1 - n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return buf_append(b, tmp + sizeof(tmp) - n, (size_t)n);
}

/* A non-negative fraction with up to `digits` decimals, trailing zeros cut:
 * "1", "0.5", "0.123456". */
static int put_fixed(struct buf *b, double v, int digits)
{
	uint64_t scale = 1, whole, frac;
	char tmp[24];
	int n = digits;

	for (int i = 0; i < digits; i++)
		scale *= 10;
	if (!(v >= 0)) /* NaN or negative: not produced by the callers */
		v = 0;
	if (v > 1e12)
		v = 1e12;
	whole = (uint64_t)llround(v * (double)scale);
	frac = whole % scale;
	whole /= scale;
	put_u64(b, whole);
	if (frac == 0)
		return b->error;
	while (frac % 10 == 0) {
		frac /= 10;
		n--;
	}
	tmp[0] = '.';
	for (int i = n; i >= 1; i--) {
		tmp[i] = (char)('0' + frac % 10);
		frac /= 10;
	}
	return buf_append(b, tmp, (size_t)n + 1);
}

/* Seconds since the epoch with milliseconds, for _created. */
static int put_time(struct buf *b, const struct timespec *t)
{
	char tmp[4] = { '.' };
	long ms = t->tv_nsec / 1000000;

	put_u64(b, t->tv_sec > 0 ? (uint64_t)t->tv_sec : 0);
	for (int i = 3; i >= 1; i--, ms /= 10)
		tmp[i] = (char)('0' + ms % 10);
	return buf_append(b, tmp, 4);
}

int prom_escape_label_value(struct buf *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		const unsigned char *run = p;
		size_t n;

		/* Copy the longest stretch that needs nothing done in one go. */
		while (*p && *p != '\\' && *p != '"' && *p != '\n' &&
		       (*p < 0x80 || utf8_valid_len(p) > 1)) {
			p += *p < 0x80 ? 1 : utf8_valid_len(p);
		}
		buf_append(b, (const char *)run, (size_t)(p - run));
		if (!*p)
			break;
		if (*p == '\\' || *p == '"') {
			const char esc[2] = { '\\', (char)*p };
			buf_append(b, esc, 2);
			n = 1;
		} else if (*p == '\n') {
			buf_append(b, "\\n", 2);
			n = 1;
		} else {
			buf_append(b, "\xef\xbf\xbd", 3); /* U+FFFD */
			n = 1;
		}
		p += n;
	}
	return b->error;
}

static int put_label(struct buf *b, const char *name, const char *value, bool comma)
{
	if (comma)
		buf_append(b, ",", 1);
	buf_puts(b, name);
	buf_append(b, "=\"", 2);
	prom_escape_label_value(b, value ? value : "");
	return buf_append(b, "\"", 1);
}

int prom_cgroup_labels(struct buf *b, const struct sink_cgroup *cg)
{
	put_label(b, "cgroup", cg->path, false);
	put_label(b, "kind", cg->kind, true);
	put_label(b, "runtime", cg->runtime, true);
	put_label(b, "container_id", cg->container_id, true);
	put_label(b, "container_name", cg->container_name, true);
	put_label(b, "pod", cg->pod, true);
	return put_label(b, "namespace", cg->pod_namespace, true);
}

int prom_cadvisor_labels(struct buf *b, const struct sink_cgroup *cg,
			 const char *const *label_names, const int *order, int nr,
			 size_t *ret_split)
{
	bool container = cg->kind && !strcmp(cg->kind, "container");

	for (int i = 0; i < nr; i++) {
		const char *v = cg->labels[order[i]];

		put_label(b, label_names[i], v ? v : "", false);
		buf_append(b, ",", 1);
	}
	put_label(b, "cpu", "", false);
	buf_append(b, ",", 1);
	*ret_split = b->len;
	put_label(b, "id", cg->path, false);
	put_label(b, "image", cg->image, true);
	/* cAdvisor names containers only (services and pods have no alias). */
	return put_label(b, "name", container ? cg->container_name : "", true);
}

/* ---- families ---- */

struct family {
	const char *name; /* without _total */
	const char *type; /* "counter" or "gauge" */
	const char *help;
};

static const struct family fam_events = {
	"cgperf_events", "counter",
	"Events counted in the cgroup (and its descendants) since it was first counted, scaled "
	"for multiplexing; clock events (cpu-clock, task-clock) in nanoseconds."
};
static const struct family fam_ratio = {
	"cgperf_events_running_ratio", "gauge",
	"Fraction of the last interval the event was counting (running/enabled; below 1 when "
	"hardware counters were multiplexed)."
};

/* cAdvisor's perf collector, its HELP texts as they are. */
static const struct family fam_cadvisor_events = { "container_perf_events", "counter",
						   "Perf event metric." };
static const struct family fam_cadvisor_ratio = { "container_perf_events_scaling_ratio", "gauge",
						  "Perf event metric scaling ratio." };

/* # HELP / # TYPE. In text 0.0.4 a counter's family is named with its
 * _total; in OpenMetrics without it (the samples add _total, _created). */
static void put_family(struct buf *b, const struct family *f, enum prom_format fmt)
{
	bool counter = !strcmp(f->type, "counter");
	const char *suffix = counter && fmt == PROM_FORMAT_TEXT ? "_total" : "";

	buf_puts(b, "# HELP ");
	buf_puts(b, f->name);
	buf_puts(b, suffix);
	buf_append(b, " ", 1);
	buf_puts(b, f->help);
	buf_puts(b, "\n# TYPE ");
	buf_puts(b, f->name);
	buf_puts(b, suffix);
	buf_append(b, " ", 1);
	buf_puts(b, f->type);
	buf_append(b, "\n", 1);
}

static const char *labels_of(const struct prom_series *s, bool cadvisor, size_t *ret_len)
{
	*ret_len = cadvisor ? s->cadvisor_len : s->labels_len;
	return cadvisor ? s->cadvisor : s->labels;
}

/* name{<before>event="E",<after>}: cgperf's labels all after event,
 * cAdvisor's sorted around it. */
static void put_series_name(struct buf *b, const char *name, const char *suffix,
			    const struct buf *event, const struct prom_series *s, bool cadvisor)
{
	size_t split = cadvisor ? s->cadvisor_split : 0, len;
	const char *l = labels_of(s, cadvisor, &len);

	buf_puts(b, name);
	buf_puts(b, suffix);
	buf_append(b, "{", 1);
	buf_append(b, l, split);
	buf_append(b, "event=\"", 7);
	buf_append(b, event->data, event->len);
	buf_append(b, "\",", 2);
	buf_append(b, l + split, len - split);
	buf_append(b, "} ", 2);
}

/* ---- duplicate labels ---- */

/* keep[i]: series i is the first with its labels (cgperf's or cAdvisor's).
 * Returns the number left out, or -ENOMEM. */
static long mark_unique(const struct prom_input *in, bool cadvisor, bool *keep)
{
	size_t size = 16, dropped = 0;
	size_t *table;

	while (size < in->nr_series * 2)
		size *= 2;
	table = calloc(size, sizeof(*table)); /* series index + 1; 0 = empty */
	if (!table)
		return -ENOMEM;
	for (size_t i = 0; i < in->nr_series; i++) {
		size_t len, olen;
		const char *l = labels_of(&in->series[i], cadvisor, &len);
		size_t h = (size_t)hash_bytes(l, len) & (size - 1);

		keep[i] = true;
		for (; table[h]; h = (h + 1) & (size - 1)) {
			const char *o = labels_of(&in->series[table[h] - 1], cadvisor, &olen);

			if (olen == len && !memcmp(o, l, len)) {
				keep[i] = false;
				dropped++;
				break;
			}
		}
		if (keep[i])
			table[h] = i + 1;
	}
	free(table);
	return (long)dropped;
}

/* ---- the body ---- */

/* The per-cgroup families under one naming: the totals, and the running
 * ratio (cgperf's: no sample until known; cAdvisor's: 1 until then, its
 * value for a counter that has not run). */
static void put_events(struct buf *b, const struct prom_input *in, const bool *keep,
		       const struct buf *ev, enum prom_format fmt, bool cadvisor)
{
	const struct family *f = cadvisor ? &fam_cadvisor_events : &fam_events;
	const struct family *g = cadvisor ? &fam_cadvisor_ratio : &fam_ratio;

	put_family(b, f, fmt);
	for (int e = 0; e < in->nr_events; e++) {
		for (size_t i = 0; i < in->nr_series; i++) {
			const struct prom_series *s = &in->series[i];

			if (!keep[i])
				continue;
			put_series_name(b, f->name, "_total", &ev[e], s, cadvisor);
			put_u64(b, s->totals[e]);
			buf_append(b, "\n", 1);
			if (fmt != PROM_FORMAT_OPENMETRICS)
				continue;
			put_series_name(b, f->name, "_created", &ev[e], s, cadvisor);
			put_time(b, &s->created);
			buf_append(b, "\n", 1);
		}
	}
	put_family(b, g, fmt);
	for (int e = 0; e < in->nr_events; e++) {
		for (size_t i = 0; i < in->nr_series; i++) {
			const struct prom_series *s = &in->series[i];
			double ratio =
				s->running_ratio[e] < 0 && cadvisor ? 1 : s->running_ratio[e];

			if (!keep[i] || ratio < 0)
				continue;
			put_series_name(b, g->name, "", &ev[e], s, cadvisor);
			put_fixed(b, ratio, 6);
			buf_append(b, "\n", 1);
		}
	}
}

static void put_gauge(struct buf *b, enum prom_format fmt, const char *name, const char *help,
		      double v)
{
	const struct family f = { name, "gauge", help };

	put_family(b, &f, fmt);
	buf_puts(b, name);
	buf_append(b, " ", 1);
	put_fixed(b, v, 6);
	buf_append(b, "\n", 1);
}

/* A counter's family and sample name up to its value (name is without
 * _total), and after the value its end (OpenMetrics: its _created line). */
static void counter_begin(struct buf *b, enum prom_format fmt, const char *name, const char *help)
{
	const struct family f = { name, "counter", help };

	put_family(b, &f, fmt);
	buf_puts(b, name);
	buf_puts(b, "_total ");
}

static void counter_end(struct buf *b, enum prom_format fmt, const struct prom_health *h,
			const char *name)
{
	buf_append(b, "\n", 1);
	if (fmt == PROM_FORMAT_OPENMETRICS) {
		buf_puts(b, name);
		buf_puts(b, "_created ");
		put_time(b, &h->since);
		buf_append(b, "\n", 1);
	}
}

static void put_counter(struct buf *b, enum prom_format fmt, const struct prom_health *h,
			const char *name, const char *help, uint64_t v)
{
	counter_begin(b, fmt, name, help);
	put_u64(b, v);
	counter_end(b, fmt, h, name);
}

/* A counter of seconds. */
static void put_counter_s(struct buf *b, enum prom_format fmt, const struct prom_health *h,
			  const char *name, const char *help, double v)
{
	counter_begin(b, fmt, name, help);
	put_fixed(b, v, 9);
	counter_end(b, fmt, h, name);
}

/* docs/ARCHITECTURE.md, "Switches the tracepoint does not show". */
static void put_unseen(struct buf *b, const struct prom_health *h, enum prom_format fmt)
{
	if (!h->have_unseen)
		return;
	put_counter(b, fmt, h, "cgperf_unseen_switches",
		    "Tasks switched out that sched_switch never showed switching in (a kernel "
		    "hiding some tasks' switches).",
		    h->unseen_switches);
	put_counter_s(
		b, fmt, h, "cgperf_unseen_switch_seconds",
		"Time hidden tasks ran before those switches, not charged to the next task (the cgroup hub charges it to the hidden task's own cgroup).",
		h->unseen_ns / 1e9);
	put_counter(
		b, fmt, h, "cgperf_unseen_switch_page_faults",
		"Page faults hidden tasks made before those switches, not charged to the next task (the cgroup hub charges them to the hidden task's own cgroup).",
		h->unseen_faults);
}

/* docs/ARCHITECTURE.md, "Syncs leave idle CPUs alone". */
static void put_syncs(struct buf *b, const struct prom_health *h, enum prom_format fmt)
{
	put_counter(b, fmt, h, "cgperf_cpu_syncs",
		    "CPUs the follower's sync program was run on, before reads of the counters and "
		    "around changes of what is counted (on any CPU but the agent's, an interrupt "
		    "the agent waits for).",
		    h->cpu_syncs);
	put_counter(b, fmt, h, "cgperf_cpu_syncs_skipped",
		    "CPUs a sync left out: idle, holding nothing any session counts.",
		    h->cpu_syncs_skipped);
}

static void put_health(struct buf *b, const struct prom_health *h, enum prom_format fmt)
{
	static const struct family build = {
		"cgperf_build_info", "gauge", "cgperf's version and follower mechanism (always 1)."
	};

	put_gauge(b, fmt, "cgperf_cgroups_monitored", "Cgroups being counted now.",
		  (double)h->cgroups_monitored);
	put_counter(b, fmt, h, "cgperf_cgroups_over_cap",
		    "Cgroups not counted because cgroups.max was reached.", h->cgroups_over_cap);
	put_gauge(
		b, fmt, "cgperf_collection_duration_seconds",
		"Time the last collection took (read every counter, hand the rows to the outputs).",
		h->collection_duration_s);
	if (h->have_csv) {
		put_counter(b, fmt, h, "cgperf_csv_rows_written", "CSV rows written.",
			    h->csv_rows_written);
		put_counter(
			b, fmt, h, "cgperf_csv_rows_failed",
			"CSV rows that could not be written (their counts went into a later row).",
			h->csv_rows_failed);
		put_gauge(b, fmt, "cgperf_csv_rows_held",
			  "CSV rows held in memory now, to be appended with a later row of their "
			  "cgroup (outputs.csv.flush_interval).",
			  (double)h->csv_rows_held);
	}
	if (h->have_syslog) {
		put_counter(b, fmt, h, "cgperf_syslog_messages_sent",
			    "Syslog messages handed to the kernel.", h->syslog_sent);
		put_counter(b, fmt, h, "cgperf_syslog_messages_dropped",
			    "Syslog messages dropped (queue full or too large).",
			    h->syslog_dropped);
	}
	put_gauge(
		b, fmt, "cgperf_watch_limit_reached",
		"1 when inotify limits left cgroup directories unwatched (new cgroups there are found "
		"by the periodic rescan only).",
		h->watch_limit_reached ? 1 : 0);
	put_unseen(b, h, fmt);
	put_syncs(b, h, fmt);
	put_family(b, &build, fmt);
	buf_puts(b, "cgperf_build_info{version=\"");
	prom_escape_label_value(b, h->version ? h->version : "");
	buf_puts(b, "\",follower_mode=\"");
	prom_escape_label_value(b, h->follower_mode ? h->follower_mode : "");
	buf_puts(b, "\"} 1\n");
}

int prom_build(const struct prom_input *in, enum prom_format fmt, struct buf *b,
	       size_t *ret_dropped)
{
	unsigned names = in->names ? in->names : PROM_NAMES_CGPERF_BIT;
	struct buf ev[READINGS_MAX_EVENTS] = { 0 };
	size_t n = in->nr_series ? in->nr_series : 1;
	bool *keep = calloc(2 * n, sizeof(*keep)), *keep_cadvisor = keep ? keep + n : NULL;
	long dropped = 0, d;
	int r = 0;

	if (!keep || in->nr_events > READINGS_MAX_EVENTS) {
		r = keep ? -EINVAL : -ENOMEM;
		goto out;
	}
	for (int pass = 0; pass < 2; pass++) {
		bool cadvisor = pass == 1;

		if (!(names & (cadvisor ? PROM_NAMES_CADVISOR_BIT : PROM_NAMES_CGPERF_BIT)))
			continue;
		d = mark_unique(in, cadvisor, cadvisor ? keep_cadvisor : keep);
		if (d < 0) {
			r = (int)d;
			goto out;
		}
		dropped = d > dropped ? d : dropped;
	}
	for (int e = 0; e < in->nr_events; e++)
		if ((r = prom_escape_label_value(&ev[e], in->event_names[e])) < 0)
			goto out;
	/* Reserve about what the body takes (each naming's families), so it
	 * grows once at most. */
	buf_reserve(b, in->nr_series * (size_t)in->nr_events * 2 *
				       ((names & PROM_NAMES_CGPERF_BIT) && in->nr_series
						? in->series[0].labels_len + 64
						: 0) +
			       in->nr_series * (size_t)in->nr_events * 2 *
				       ((names & PROM_NAMES_CADVISOR_BIT) && in->nr_series
						? in->series[0].cadvisor_len + 96
						: 0) +
			       4096);
	if (names & PROM_NAMES_CGPERF_BIT)
		put_events(b, in, keep, ev, fmt, false);
	if (names & PROM_NAMES_CADVISOR_BIT)
		put_events(b, in, keep_cadvisor, ev, fmt, true);
	if (in->health)
		put_health(b, in->health, fmt);
	if (fmt == PROM_FORMAT_OPENMETRICS)
		buf_puts(b, "# EOF\n");
	r = b->error;
	if (r == 0 && ret_dropped)
		*ret_dropped = (size_t)dropped;
out:
	for (int e = 0; e < READINGS_MAX_EVENTS; e++)
		buf_free(&ev[e]);
	free(keep);
	return r;
}
