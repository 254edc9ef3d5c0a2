// SPDX-License-Identifier: GPL-2.0-only
#include "cmd/stat/stat_output.h"
#include "sink/csv_format.h"
#include "util/text.h"
#include <inttypes.h>
#include <json-c/json.h>
#include <string.h>

bool stat_scaled(const struct reading *r, double *ret_value, double *ret_pct)
{
	/* perf prints "<not counted>" both when nothing of the target ran and
	 * when the event never got a counter. */
	if (reading_scale_f(r, ret_value, ret_pct) == READING_COUNTED)
		return true;
	*ret_value = 0;
	*ret_pct = 0;
	return false;
}

/* One -x field, by the CSV quoting rule (sink/csv_format.h) with stat's
 * separator. */
static void write_field(FILE *out, const char *s, const char *sep)
{
	struct csv_row field = CSV_ROW_INIT;
	size_t len = strlen(s);

	if (!csv_needs_quotes(s, len, sep)) {
		fputs(s, out);
		return;
	}
	if (csv_row_add_quoted(&field, s, len, sep) == 0)
		fwrite(field.buf.data, 1, field.buf.len, out);
	csv_row_free(&field);
}

/* 1234567 -> "1,234,567" (perf's table style; CSV stays plain). */
static void group_thousands(uint64_t v, char *buf, size_t len)
{
	char digits[32];
	int n = snprintf(digits, sizeof(digits), "%" PRIu64, v), o = 0;

	for (int i = 0; i < n && (size_t)o + 2 < len; i++) {
		if (i && (n - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = digits[i];
	}
	buf[o] = '\0';
}

static void print_csv(FILE *out, const struct stat_format *f, const struct stat_row *row)
{
	double value, pct;
	bool counted = stat_scaled(&row->reading, &value, &pct);

	if (f->interval)
		fprintf(out, "%.9f%s", f->timestamp, f->sep);
	if (!counted)
		fputs("<not counted>", out);
	else if (row->event->is_time)
		fprintf(out, "%.2f", value / 1e6);
	else
		fprintf(out, "%.0f", value);
	fprintf(out, "%s%s%s", f->sep, row->event->is_time ? "msec" : "", f->sep);
	write_field(out, row->event->name, f->sep);
	/* perf has the cgroup field only when counting cgroups. */
	if (row->cgroup) {
		fputs(f->sep, out);
		write_field(out, row->cgroup, f->sep);
	}
	fprintf(out, "%s%llu%s%.2f%s", f->sep, (unsigned long long)row->reading.running, f->sep,
		pct, f->sep);
	/* The metric's value and unit, both empty without one (as perf). */
	if (row->has_metric)
		fprintf(out, "%.3f", row->metric);
	fputs(f->sep, out);
	write_field(out, row->has_metric ? row->metric_unit : "", f->sep);
	fputc('\n', out);
}

static void print_table(FILE *out, const struct stat_format *f, const struct stat_row *row)
{
	char num[64];
	double value, pct;
	bool counted = stat_scaled(&row->reading, &value, &pct);

	if (f->interval)
		fprintf(out, "%14.9f ", f->timestamp);
	if (!counted)
		snprintf(num, sizeof(num), "<not counted>");
	else if (row->event->is_time)
		snprintf(num, sizeof(num), "%.2f", value / 1e6);
	else
		group_thousands((uint64_t)(value + 0.5), num, sizeof(num));
	fprintf(out, "%20s %-5s %-24s", num, row->event->is_time ? "msec" : "", row->event->name);
	if (row->cgroup)
		fprintf(out, " %-24s", row->cgroup);
	if (counted)
		fprintf(out, " (%.2f%%)", pct);
	if (row->has_metric)
		fprintf(out, "  # %8.2f %s", row->metric, row->metric_unit);
	fputc('\n', out);
}

/* A number printed as text ("%.2f"): the form perf stat --json gives it. */
static json_object *json_fixed(double v, const char *fmt)
{
	char s[64];

	snprintf(s, sizeof(s), fmt, v);
	return json_object_new_double_s(v, s);
}

/* perf stat --json: one object per count, perf's keys in perf's order and
 * types (the counter value a string, "<not counted>" when nothing ran).
 * Names become valid UTF-8 JSON strings (a cgroup's name is its owner's
 * choice: bytes that are not UTF-8 read as U+FFFD). */
static void print_json(FILE *out, const struct stat_format *f, const struct stat_row *row)
{
	json_object *o = json_object_new_object();
	double value, pct;
	bool counted = stat_scaled(&row->reading, &value, &pct);
	char num[64];

	if (!o)
		return;
	if (f->interval)
		json_object_object_add(o, "interval", json_fixed(f->timestamp, "%.9f"));
	if (counted)
		snprintf(num, sizeof(num), "%f", row->event->is_time ? value / 1e6 : value);
	json_object_object_add(o, "counter-value",
			       json_object_new_string(counted ? num : "<not counted>"));
	json_object_object_add(o, "unit", json_object_new_string(row->event->is_time ? "msec" : ""));
	json_object_object_add(o, "event", json_string_utf8(row->event->name));
	if (row->cgroup_path)
		json_object_object_add(o, "cgroup", json_string_utf8(row->cgroup_path));
	json_object_object_add(o, "event-runtime", json_object_new_uint64(row->reading.running));
	json_object_object_add(o, "pcnt-running", json_fixed(pct, "%.2f"));
	json_object_object_add(o, "metric-value",
			       json_fixed(row->has_metric ? row->metric : 0, "%f"));
	json_object_object_add(o, "metric-unit",
			       json_object_new_string(row->has_metric ? row->metric_unit : ""));
	fprintf(out, "%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
									JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
}

void stat_print_row(FILE *out, const struct stat_format *f, const struct stat_row *row)
{
	if (f->json)
		print_json(out, f, row);
	else if (f->sep)
		print_csv(out, f, row);
	else
		print_table(out, f, row);
}

void stat_print_header(FILE *out, const struct stat_format *f, const char *target_desc)
{
	if (f->sep || f->json)
		return;
	fprintf(out, "\n Performance counter stats for %s:\n\n", target_desc);
}

void stat_print_footer(FILE *out, const struct stat_format *f, double elapsed_s)
{
	if (f->sep || f->json)
		return;
	fprintf(out, "\n %20.9f seconds time elapsed\n\n", elapsed_s);
}
