// SPDX-License-Identifier: GPL-2.0-only
#include "cmd/top/top_view.h"
#include "util/text.h"
#include <errno.h>
#include <json-c/json.h>
#include <string.h>

#define NAME_WIDTH 32

void top_view_cell(const struct top_column *c, const struct top_row *r, int col, char *buf,
		   size_t size)
{
	if (r->has[col])
		snprintf(buf, size, "%*.*f", c->width, c->decimals, r->val[col]);
	else
		snprintf(buf, size, "%*s", c->width, "-");
}

static const char *sort_title(const struct top_model *m)
{
	return m->sort_col == TOP_SORT_NAME ? "NAME" : m->cols[m->sort_col].title;
}

static bool largest_first(const struct top_model *m)
{
	return (m->sort_col != TOP_SORT_NAME) != m->reverse;
}

void top_view_title(const struct top_model *m, const struct top_status *st, char *buf, size_t size)
{
	char when[16], filter[300] = "";
	struct tm tm;

	localtime_r(&st->now.tv_sec, &tm);
	strftime(when, sizeof(when), "%H:%M:%S", &tm);
	if (m->filter[0])
		snprintf(filter, sizeof(filter), ", filter '%s'",
			 text_escape_control(m->filter, (char[256]){ 0 }, 256));
	snprintf(buf, size,
		 "cgperf top - %s, %d cgroups (%d shown), every %g s, sort %s (%s)%s%s%s", when,
		 m->nr_rows, m->nr_order, st->interval_s, sort_title(m),
		 m->sort_col == TOP_SORT_NAME ? (largest_first(m) ? "Z-A" : "A-Z")
		 : largest_first(m)	      ? "largest first"
					      : "smallest first",
		 m->tree ? ", tree" : "", filter, st->paused ? ", PAUSED" : "");
}

static size_t append(char *buf, size_t size, size_t used, const char *fmt, const char *s, int w)
{
	int n;

	if (used >= size)
		return used;
	n = snprintf(buf + used, size - used, fmt, w, s);
	return n < 0 ? used : used + (size_t)n;
}

void top_view_header(const struct top_model *m, char *buf, size_t size)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int c = 0; c < m->nr_cols; c++)
		used = append(buf, size, used, "%*s ", m->cols[c].title, m->cols[c].width);
	used = append(buf, size, used, "%-*s ", "KIND", 9);
	used = append(buf, size, used, "%-*s ", "NAME", NAME_WIDTH);
	append(buf, size, used, "%.*s", "PATH", 4);
}

void top_view_row(const struct top_model *m, const struct top_row *r, char *buf, size_t size)
{
	char cell[64], name[4 * 256 + 8], indented[sizeof(name) + 64], path[4 * 4096 + 8];
	size_t used = 0;

	buf[0] = '\0';
	for (int c = 0; c < m->nr_cols; c++) {
		top_view_cell(&m->cols[c], r, c, cell, sizeof(cell));
		used = append(buf, size, used, "%.*s ", cell, (int)sizeof(cell));
	}
	text_escape_control(r->name, name, sizeof(name));
	snprintf(indented, sizeof(indented), "%*s%s", 2 * r->depth, "", name);
	text_escape_control(r->path, path, sizeof(path));
	used = append(buf, size, used, "%-*s ", r->kind, 9);
	used = append(buf, size, used, "%-*s ", indented, NAME_WIDTH);
	append(buf, size, used, "%.*s", path, (int)sizeof(path));
}

int top_print_table(FILE *out, const struct top_model *m, const struct top_status *st)
{
	char line[8192];

	top_view_title(m, st, line, sizeof(line));
	fprintf(out, "%s\n", line);
	if (m->missing[0])
		fprintf(out, "%s\n", m->missing);
	top_view_header(m, line, sizeof(line));
	fprintf(out, "%s\n", line);
	for (int i = 0; i < m->nr_order; i++) {
		top_view_row(m, m->rows[m->order[i]], line, sizeof(line));
		fprintf(out, "%s\n", line);
	}
	fputc('\n', out);
	return fflush(out) == 0 ? 0 : -EIO;
}

static json_object *row_json(const struct top_model *m, const struct top_row *r)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "id", json_object_new_uint64(r->id));
	json_object_object_add(o, "path", json_string_utf8(r->path));
	json_object_object_add(o, "name", json_string_utf8(r->name));
	json_object_object_add(o, "kind", json_object_new_string(r->kind));
	if (m->tree)
		json_object_object_add(o, "depth", json_object_new_int(r->depth));
	/* Undefined (no cycles, not counted, first interval): null. */
	for (int c = 0; c < m->nr_cols; c++)
		json_object_object_add(o, m->cols[c].json_key,
				       r->has[c] ? json_object_new_double(r->val[c]) : NULL);
	return o;
}

static json_object *missing_json(const struct top_model *m)
{
	json_object *a = json_object_new_array();
	char copy[sizeof(m->missing)], *save = NULL;

	snprintf(copy, sizeof(copy), "%s", m->missing);
	for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		json_object_array_add(a, json_object_new_string(l));
	return a;
}

int top_print_json(FILE *out, const struct top_model *m, const struct top_status *st)
{
	json_object *o = json_object_new_object(), *rows = json_object_new_array();
	char when[40];
	struct tm tm;
	int r;

	gmtime_r(&st->now.tv_sec, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(when + strlen(when), sizeof(when) - strlen(when), ".%03ldZ",
		 st->now.tv_nsec / 1000000);
	json_object_object_add(o, "time", json_object_new_string(when));
	json_object_object_add(o, "interval_s", json_object_new_double(st->interval_s));
	json_object_object_add(o, "missing", missing_json(m));
	for (int i = 0; i < m->nr_order; i++)
		json_object_array_add(rows, row_json(m, m->rows[m->order[i]]));
	json_object_object_add(o, "cgroups", rows);
	r = fprintf(out, "%s\n",
		    json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
							      JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	return r < 0 || fflush(out) != 0 ? -EIO : 0;
}
