// SPDX-License-Identifier: GPL-2.0-only
#include "plot/plot_input.h"
#include "sink/csv_format.h"
#include "sink/csv_retention.h"
#include "util/escape.h"
#include "util/log.h"
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Field indexes of the fixed columns (docs/CSV.md). */
enum {
	COL_TIME = 0,
	COL_CGROUP = 1,
	COL_KIND = 3,
	COL_NAME = 6,
	COL_POD = 7,
	COL_NAMESPACE = 8,
	COL_INTERVAL = 9,
};

#define DISPLAY_NAME_MAX 40

static void file_free(struct plot_file *f)
{
	csv_reader_close(&f->rd);
	free(f->path);
	free(f->columns);
	free(f->cgroup);
	free(f->name);
}

void plot_input_free(struct plot_input *in)
{
	if (!in)
		return;
	for (size_t i = 0; i < in->nr_files; i++)
		file_free(&in->files[i]);
	for (size_t i = 0; i < in->nr_metrics; i++)
		free(in->metrics[i]);
	free(in->files);
	free(in->metrics);
	free(in->gauge);
	*in = (struct plot_input){ 0 };
}

static bool header_ok(const struct csv_reader *rd)
{
	if (rd->nr_fields < CSV_NR_FIXED_COLUMNS)
		return false;
	for (int i = 0; i < CSV_NR_FIXED_COLUMNS; i++)
		if (!csv_field_is(&rd->fields[i], csv_fixed_columns[i]))
			return false;
	return true;
}

/* Whether column k of the header is k-1's "<event>_running_pct". */
static bool is_pct_of(const struct csv_field *cols, size_t nr, size_t k, size_t base)
{
	static const char sfx[] = "_running_pct";
	const struct csv_field *c = &cols[k], *b = &cols[base];

	return k < nr && c->len == b->len + sizeof(sfx) - 1 && !memcmp(c->p, b->p, b->len) &&
	       !memcmp(c->p + b->len, sfx, sizeof(sfx) - 1);
}

static int metric_note(struct plot_input *in, const struct csv_field *f, bool gauge)
{
	char **names;
	bool *g;

	for (size_t i = 0; i < in->nr_metrics; i++)
		if (csv_field_is(f, in->metrics[i]))
			return 0;
	names = realloc(in->metrics, (in->nr_metrics + 1) * sizeof(*names));
	if (!names)
		return -ENOMEM;
	in->metrics = names;
	g = realloc(in->gauge, (in->nr_metrics + 1) * sizeof(*g));
	if (!g)
		return -ENOMEM;
	in->gauge = g;
	names[in->nr_metrics] = csv_field_dup(f);
	if (!names[in->nr_metrics])
		return -ENOMEM;
	g[in->nr_metrics++] = gauge;
	return 0;
}

/* The metric columns of a header: events (a count with its _running_pct
 * companion) and derived columns (gauges). */
static int note_metrics(struct plot_input *in, const struct plot_file *f)
{
	int r = 0;

	for (size_t k = CSV_NR_FIXED_COLUMNS; r == 0 && k < f->nr_fields; k++) {
		bool counted = is_pct_of(f->columns, f->nr_fields, k + 1, k);

		r = metric_note(in, &f->columns[k], !counted);
		if (counted)
			k++;
	}
	return r;
}

/* A name cell without the safe-cells "'" (docs/CSV.md) as a C string. */
static char *name_cell(const struct csv_field *f)
{
	char *s = csv_field_dup(f);

	if (s && s[0] == '\'' && csv_cell_unsafe(s + 1))
		memmove(s, s + 1, strlen(s));
	return s;
}

/* "name", "namespace/pod/name", a unit's name, or the path; escaped (valid
 * UTF-8, no control characters) and cut for a legend. */
static char *display_name(const struct csv_reader *rd, const char *path)
{
	char *name = name_cell(&rd->fields[COL_NAME]), *pod = name_cell(&rd->fields[COL_POD]);
	char *ns = name_cell(&rd->fields[COL_NAMESPACE]), raw[3 * 4096], *out = NULL;
	const char *slash = strrchr(path, '/');

	if (name && pod && ns) {
		if (*name && *pod)
			snprintf(raw, sizeof(raw), "%s%s%s/%s", ns, *ns ? "/" : "", pod, name);
		else if (*name)
			snprintf(raw, sizeof(raw), "%s", name);
		else if (csv_field_is(&rd->fields[COL_KIND], "service") && slash)
			snprintf(raw, sizeof(raw), "%s", slash + 1);
		else
			snprintf(raw, sizeof(raw), "%s", path);
		out = malloc(4 * DISPLAY_NAME_MAX + 8);
		if (out)
			text_escape(raw, strlen(raw), DISPLAY_NAME_MAX, out,
				    4 * DISPLAY_NAME_MAX + 8);
	}
	free(name);
	free(pod);
	free(ns);
	return out;
}

/* The first complete row with the header's number of fields: the file's
 * cgroup, its name and its first time. */
static int first_row(struct plot_file *f)
{
	int r;

	while ((r = csv_reader_next(&f->rd)) != 0) {
		if (r != 1 || f->rd.nr_fields != f->nr_fields ||
		    csv_field_time_ms(&f->rd.fields[COL_TIME], &f->first_t) < 0)
			continue;
		f->key = f->rd.fields[COL_CGROUP];
		f->cgroup = csv_field_dup(&f->key);
		if (!f->cgroup)
			return -ENOMEM;
		f->name = display_name(&f->rd, f->cgroup);
		return f->name ? 0 : -ENOMEM;
	}
	return -ENODATA;
}

static int last_time(struct plot_file *f)
{
	size_t off;
	int r = csv_reader_last_start(&f->rd, f->data_start, f->nr_fields, &off);

	if (r < 0)
		return r;
	csv_reader_seek(&f->rd, off);
	if (csv_reader_next(&f->rd) != 1 ||
	    csv_field_time_ms(&f->rd.fields[COL_TIME], &f->last_t) < 0)
		return -ENODATA;
	if (f->last_t < f->first_t)
		f->last_t = f->first_t;
	return 0;
}

/* Map, check the header, find the first and last rows. -ENOMEM, or 1 when
 * the file was reported and is to be skipped. */
static int file_open(struct plot_file *f)
{
	const char *why = NULL;
	int r = csv_reader_open(f->path, &f->rd);

	if (r < 0)
		why = strerror(-r);
	else if (csv_reader_next(&f->rd) != 1)
		why = f->rd.size ? "no header line" : "empty file";
	else if (!header_ok(&f->rd))
		why = "not a cgperf CSV log (its header differs)";
	if (!why) {
		f->nr_fields = f->rd.nr_fields;
		f->data_start = f->rd.pos;
		f->columns = malloc(f->nr_fields * sizeof(*f->columns));
		if (!f->columns)
			return -ENOMEM;
		memcpy(f->columns, f->rd.fields, f->nr_fields * sizeof(*f->columns));
		r = first_row(f);
		if (r == -ENOMEM)
			return r;
		if (r == 0)
			r = last_time(f);
		if (r < 0)
			why = "no complete row";
	}
	if (!why) {
		csv_reader_release(&f->rd); /* 1000s of files: one in memory at a time */
		return 0;
	}
	log_warn("%s: %s, skipped", log_name(f->path), why);
	return 1;
}

static int add_file(struct plot_input *in, const char *path)
{
	struct plot_file *files, *f;
	int r;

	files = realloc(in->files, (in->nr_files + 1) * sizeof(*files));
	if (!files)
		return -ENOMEM;
	in->files = files;
	f = &files[in->nr_files];
	*f = (struct plot_file){ 0 };
	f->path = strdup(path);
	if (!f->path)
		return -ENOMEM;
	r = file_open(f);
	if (r == 0)
		r = note_metrics(in, f);
	if (r != 0) {
		file_free(f);
		in->skipped += r > 0;
		return r < 0 ? r : 0;
	}
	in->nr_files++;
	return 0;
}

static int add_dir(struct plot_input *in, const char *dir)
{
	struct dirent **names;
	size_t before = in->nr_files, stem;
	unsigned rot;
	int n = scandir(dir, &names, NULL, alphasort), r = 0;
	char path[4096];

	if (n < 0) {
		log_warn("%s: %s, skipped", log_name(dir), strerror(errno));
		in->skipped++;
		return 0;
	}
	for (int i = 0; i < n; i++) {
		const char *name = names[i]->d_name;

		if (r == 0 && strcmp(name, ".") && strcmp(name, "..")) {
			snprintf(path, sizeof(path), "%s/%s", dir, name);
			if (csv_retention_parse_name(name, &stem, &rot)) {
				r = add_file(in, path);
			} else {
				log_warn("%s: not a CSV log of the agent, skipped", log_name(path));
				in->skipped++;
			}
		}
		free(names[i]);
	}
	free(names);
	if (r == 0 && in->nr_files == before)
		log_warn("%s: no CSV logs", log_name(dir));
	return r;
}

int plot_input_add(struct plot_input *in, const char *arg)
{
	struct stat st;

	if (stat(arg, &st) == 0 && S_ISDIR(st.st_mode))
		return add_dir(in, arg);
	return add_file(in, arg);
}

int plot_input_range(const struct plot_input *in, int64_t *ret_start, int64_t *ret_end)
{
	int64_t start = INT64_MAX, end = INT64_MIN;

	if (!in->nr_files)
		return -ENODATA;
	for (size_t i = 0; i < in->nr_files; i++) {
		if (in->files[i].first_t < start)
			start = in->files[i].first_t;
		if (in->files[i].last_t > end)
			end = in->files[i].last_t;
	}
	*ret_start = start;
	*ret_end = end;
	return 0;
}

static int by_first_time(const void *a, const void *b)
{
	const struct plot_file *x = *(const struct plot_file *const *)a;
	const struct plot_file *y = *(const struct plot_file *const *)b;

	return x->first_t < y->first_t ? -1 : x->first_t > y->first_t;
}

/* A metric cell: a count (integer) or a derived value; NAN when empty. */
static double cell_value(const struct csv_field *f, bool gauge)
{
	uint64_t v;
	double d;

	if (!gauge)
		return csv_field_u64(f, &v) == 0 ? (double)v : NAN;
	return csv_field_double(f, &d) == 0 ? d : NAN;
}

struct feed_stats {
	size_t rows, bad, foreign;
	bool truncated;
};

/* The model's metrics -> this file's field indexes (-1: not in it). */
static void map_columns(const struct plot_file *f, const struct plot_model *m, int *cols)
{
	for (size_t i = 0; i < m->nr_metrics; i++) {
		cols[i] = -1;
		for (size_t k = CSV_NR_FIXED_COLUMNS; k < f->nr_fields; k++)
			if (csv_field_is(&f->columns[k], m->metrics[i].name))
				cols[i] = (int)k;
	}
}

static int feed_row(const struct plot_file *f, struct plot_model *m, struct plot_series *s,
		    const int *cols, struct feed_stats *st)
{
	const struct csv_reader *rd = &f->rd;
	double values[CSV_READER_MAX_FIELDS];
	uint64_t interval;
	int64_t t;
	int r;

	if (rd->nr_fields != f->nr_fields || csv_field_time_ms(&rd->fields[COL_TIME], &t) < 0 ||
	    csv_field_u64(&rd->fields[COL_INTERVAL], &interval) < 0 || interval == 0 ||
	    interval > UINT32_MAX) {
		st->bad++;
		return 0;
	}
	if (rd->fields[COL_CGROUP].len != f->key.len ||
	    memcmp(rd->fields[COL_CGROUP].p, f->key.p, f->key.len)) {
		st->foreign++;
		return 0;
	}
	for (size_t i = 0; i < m->nr_metrics; i++)
		values[i] =
			cols[i] < 0 ? NAN : cell_value(&rd->fields[cols[i]], m->metrics[i].gauge);
	r = plot_series_add_row(m, s, t, (uint32_t)interval, values);
	st->rows += r == 0 && plot_model_column(m, t) >= 0;
	return r == -ENOMEM ? r : 0;
}

static void report_file(const struct plot_file *f, const struct feed_stats *st)
{
	if (st->truncated)
		log_warn("%s: last line incomplete (truncated), skipped", log_name(f->path));
	if (st->bad)
		log_warn("%s: %zu malformed rows skipped", log_name(f->path), st->bad);
	if (st->foreign)
		log_warn("%s: %zu rows of another cgroup skipped", log_name(f->path), st->foreign);
}

static int feed_file(struct plot_file *f, struct plot_model *m, struct plot_series *s, size_t *rows)
{
	struct feed_stats st = { 0 };
	int cols[CSV_READER_MAX_FIELDS], r, err = 0;

	map_columns(f, m, cols);
	csv_reader_prefetch(&f->rd);
	csv_reader_seek(&f->rd, f->data_start);
	while (err == 0 && (r = csv_reader_next(&f->rd)) != 0) {
		if (r == 1)
			err = feed_row(f, m, s, cols, &st);
		else if (r == -EBADMSG)
			st.truncated = true;
		else
			st.bad++;
	}
	csv_reader_release(&f->rd);
	report_file(f, &st);
	*rows += st.rows;
	return err;
}

static bool selected(const struct plot_file *f, const char *glob)
{
	return !glob || fnmatch(glob, f->cgroup, 0) == 0 || fnmatch(glob, f->name, 0) == 0;
}

static int series_of(struct plot_model *m, const struct plot_file *f, struct plot_series **ret)
{
	struct plot_series *s = plot_model_find(m, f->key.p, f->key.len);

	if (s) {
		*ret = s;
		return 0;
	}
	return plot_model_add_series(m, f->key.p, f->key.len, f->cgroup, f->name, ret);
}

int plot_input_feed(const struct plot_input *in, struct plot_model *m, const char *glob,
		    size_t *ret_rows)
{
	struct plot_file **order = malloc((in->nr_files ? in->nr_files : 1) * sizeof(*order));
	struct plot_series *s;
	size_t rows = 0;
	int r = 0;

	if (!order)
		return -ENOMEM;
	for (size_t i = 0; i < in->nr_files; i++)
		order[i] = &in->files[i];
	/* Rotated files (.N) and files of earlier runs hold older rows. */
	qsort(order, in->nr_files, sizeof(*order), by_first_time);
	for (size_t i = 0; r == 0 && i < in->nr_files; i++) {
		if (!selected(order[i], glob))
			continue;
		r = series_of(m, order[i], &s);
		if (r == 0)
			r = feed_file(order[i], m, s, &rows);
	}
	free(order);
	if (r == 0)
		*ret_rows = rows;
	return r;
}
