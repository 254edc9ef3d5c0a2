// SPDX-License-Identifier: GPL-2.0-only
#include "sink/syslog_format.h"
#include "sink/csv_format.h"
#include "util/hash.h"
#include "util/text.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Values cut to fit a message keep at least this many bytes. */
#define ID_VALUE_MIN_KEEP 16
#define HOSTNAME_MAX 255
#define APP_NAME_MAX 48
#define MSGID_MAX 32
#define SUFFIX_MAX 20
#define HASH_DIGITS 6

static const char replacement_char[] = "\xEF\xBF\xBD"; /* U+FFFD */

const char *const syslog_reserved_names[] = {
	"cgroup",
	"cgroup_id",
	"kind",
	"runtime",
	"container_id",
	"container",
	"pod",
	"namespace",
	"interval_ms",
	"seq",
	"part",
	"truncated",
	/* BPF programs' messages */
	"prog_id",
	"prog_name",
	"prog_tag",
	"prog_type",
	"runs",
	"run_ns",
	"counted_runs",
	/* derived metrics (events/derived.h) */
	"ipc",
	"cpi",
	"cpu_cores",
	"cache_miss_pct",
	"branch_miss_pct",
	NULL,
};

int syslog_escape_value(struct buf *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");

	while (*p) {
		size_t n = utf8_valid_len(p);

		if (n == 0 || *p < 0x20 || *p == 0x7f) {
			/* RFC 5424 PARAM-VALUE is UTF-8; control characters would
			 * be rewritten by receivers (rsyslog's #012) or split
			 * line-based outputs. One replacement per byte. */
			buf_append(out, replacement_char, 3);
			p++;
			continue;
		}
		if (*p == '"' || *p == '\\' || *p == ']')
			buf_append(out, "\\", 1);
		buf_append(out, (const char *)p, n);
		p += n;
	}
	return out->error;
}

static bool sd_name_char(unsigned char c)
{
	return c >= 33 && c <= 126 && c != '=' && c != ']' && c != '"';
}

static bool is_reserved(const char *name)
{
	for (size_t i = 0; syslog_reserved_names[i]; i++)
		if (!strcmp(name, syslog_reserved_names[i]))
			return true;
	return false;
}

/* FNV-1a, 32 bits, xor-folded to 24 (6 hex digits). */
static uint32_t name_hash24(const char *s)
{
	uint32_t h = hash_bytes32(s, strlen(s));

	return (h >> 24) ^ (h & 0xffffff);
}

int syslog_param_name(const char *name, const char *suffix, char *ret)
{
	size_t name_len, suffix_len, keep;
	bool valid = true;

	if (!name || !suffix || !ret)
		return -EINVAL;
	suffix_len = strlen(suffix);
	if (suffix_len > SUFFIX_MAX)
		return -EINVAL;
	for (size_t i = 0; i < suffix_len; i++)
		if (!sd_name_char((unsigned char)suffix[i]))
			return -EINVAL;
	name_len = strlen(name);
	for (size_t i = 0; i < name_len && valid; i++)
		valid = sd_name_char((unsigned char)name[i]);
	/* Reserved is decided on the name alone, so an event's value and
	 * percent names are mapped alike. */
	if (valid && name_len > 0 && name_len + suffix_len <= SYSLOG_SD_NAME_MAX &&
	    !is_reserved(name)) {
		memcpy(ret, name, name_len);
		memcpy(ret + name_len, suffix, suffix_len + 1);
		return 0;
	}
	keep = SYSLOG_SD_NAME_MAX - suffix_len - 1 - HASH_DIGITS;
	if (keep > name_len)
		keep = name_len;
	for (size_t i = 0; i < keep; i++)
		ret[i] = sd_name_char((unsigned char)name[i]) ? name[i] : '_';
	snprintf(ret + keep, SYSLOG_SD_NAME_MAX + 1 - keep, "~%06x%s", (unsigned)name_hash24(name),
		 suffix);
	return 0;
}

/* Write a header token: printable US-ASCII (minus `forbidden`), at most max
 * characters, "-" when empty. */
static void append_token(struct buf *b, const char *s, size_t max, const char *forbidden)
{
	size_t n = 0;

	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p && n < max;
	     p++, n++) {
		char c = (*p >= 33 && *p <= 126 && !strchr(forbidden, *p)) ? (char)*p : '_';
		buf_append(b, &c, 1);
	}
	if (n == 0)
		buf_append(b, "-", 1);
}

static int append_header_5424(struct buf *b, const struct syslog_header *h)
{
	char num[48], ts[CSV_TIMESTAMP_MAX];

	snprintf(num, sizeof(num), "<%d>1 ", h->facility * 8 + h->severity);
	buf_puts(b, num);
	/* NILVALUE rather than no message when the clock is unrepresentable. */
	buf_puts(b, csv_format_timestamp(&h->time, ts, sizeof(ts)) == 0 ? ts : "-");
	buf_append(b, " ", 1);
	append_token(b, h->hostname, HOSTNAME_MAX, "");
	buf_append(b, " ", 1);
	append_token(b, h->app_name, APP_NAME_MAX, "");
	snprintf(num, sizeof(num), " %lu ", h->procid);
	buf_puts(b, num);
	append_token(b, h->msgid, MSGID_MAX, "");
	snprintf(num, sizeof(num), " [cgperf@%u", (unsigned)h->enterprise_id);
	return buf_puts(b, num);
}

static int append_header_3164(struct buf *b, const struct syslog_header *h)
{
	static const char months[12][4] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
					    "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
	char line[64];
	struct tm tm;

	/* Local time without year or zone, as syslog(3) writes it. */
	if (!localtime_r(&h->time.tv_sec, &tm) || tm.tm_mon < 0 || tm.tm_mon > 11)
		return -ERANGE;
	snprintf(line, sizeof(line), "<%d>%s %2d %02d:%02d:%02d ", h->facility * 8 + h->severity,
		 months[tm.tm_mon], tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
	buf_puts(b, line);
	if (h->hostname) {
		append_token(b, h->hostname, HOSTNAME_MAX, "");
		buf_append(b, " ", 1);
	}
	/* A TAG ends at '[' or ':' for every parser: keep those out of it. */
	append_token(b, h->app_name, APP_NAME_MAX, ":[]");
	snprintf(line, sizeof(line), "[%lu]:", h->procid);
	return buf_puts(b, line);
}

static int append_header(struct buf *b, const struct syslog_header *h)
{
	return h->format == SYSLOG_RFC5424 ? append_header_5424(b, h) : append_header_3164(b, h);
}

/* An escaped value and how much of it is used. */
struct escaped {
	struct buf buf;
	size_t len;
	bool truncated;
};

static size_t param_cost(const char *name, size_t value_len)
{
	return strlen(name) + value_len + 4; /* ' ' name '=' '"' value '"' */
}

static void append_param(struct buf *b, const char *name, const char *value, size_t len)
{
	buf_append(b, " ", 1);
	buf_puts(b, name);
	buf_append(b, "=\"", 2);
	buf_append(b, value, len);
	buf_append(b, "\"", 1);
}

/* Largest cut <= target that splits neither a backslash escape nor a UTF-8
 * sequence (the escaped text is valid UTF-8). */
static size_t cut_boundary(const char *s, size_t len, size_t target)
{
	size_t pos = 0;

	while (pos < len) {
		size_t n = s[pos] == '\\' ? 2 : utf8_valid_len((const unsigned char *)s + pos);

		if (n == 0)
			n = 1;
		if (pos + n > target)
			break;
		pos += n;
	}
	return pos;
}

struct layout {
	const struct syslog_header *h;
	const struct syslog_content *c;
	struct escaped *ids, *counters;
	struct buf truncated; /* "name,name" of the cut ids */
	size_t header_len; /* through the SD-ID or "TAG[PID]:" */
	size_t trailer_len; /* "]" or nothing */
	size_t nr_groups;
};

static size_t group_cost(const struct layout *l, size_t g)
{
	size_t cost = 0;

	for (size_t i = g * l->c->group; i < (g + 1) * l->c->group && i < l->c->nr_counters; i++)
		cost += param_cost(l->c->counters[i].name, l->counters[i].len);
	return cost;
}

static size_t ids_cost(const struct layout *l)
{
	size_t cost = 0;

	for (size_t i = 0; i < l->c->nr_ids; i++)
		cost += param_cost(l->c->ids[i].name, l->ids[i].len);
	if (l->truncated.len)
		cost += param_cost("truncated", l->truncated.len);
	return cost;
}

static size_t part_cost(size_t n)
{
	char v[48];

	return param_cost("part", (size_t)snprintf(v, sizeof(v), "%zu/%zu", n, n));
}

static void note_truncated(struct layout *l)
{
	l->truncated.len = 0;
	for (size_t i = 0; i < l->c->nr_ids; i++) {
		if (!l->ids[i].truncated)
			continue;
		if (l->truncated.len)
			buf_append(&l->truncated, ",", 1);
		buf_puts(&l->truncated, l->c->ids[i].name);
	}
}

/* Cut the longest identifying values until the identifying params, the part
 * param and the largest counter group fit in max_len. */
static int fit_ids(struct layout *l, size_t max_len)
{
	size_t largest_group = 0;

	for (size_t g = 0; g < l->nr_groups; g++) {
		size_t cost = group_cost(l, g);
		if (cost > largest_group)
			largest_group = cost;
	}
	for (;;) {
		size_t need = l->header_len + l->trailer_len + ids_cost(l) + largest_group +
			      (l->nr_groups > 1 ? part_cost(l->nr_groups) : 0);
		struct escaped *longest = NULL;
		size_t target;

		if (l->truncated.error)
			return l->truncated.error;
		if (need <= max_len)
			return 0;
		for (size_t i = 0; i < l->c->nr_ids; i++)
			if (l->ids[i].len > ID_VALUE_MIN_KEEP &&
			    (!longest || l->ids[i].len > longest->len))
				longest = &l->ids[i];
		if (!longest)
			return -EMSGSIZE;
		target = longest->len - ID_VALUE_MIN_KEEP > need - max_len
				 ? longest->len - (need - max_len)
				 : ID_VALUE_MIN_KEEP;
		longest->len = cut_boundary(longest->buf.data, longest->len, target);
		longest->truncated = true;
		note_truncated(l);
	}
}

static int render(const struct layout *l, struct buf *b, size_t first_group, size_t end_group,
		  size_t part, size_t nr_parts)
{
	int r;

	b->len = 0;
	r = append_header(b, l->h);
	if (r < 0)
		return r;
	for (size_t i = 0; i < l->c->nr_ids; i++)
		append_param(b, l->c->ids[i].name, l->ids[i].buf.data, l->ids[i].len);
	if (l->truncated.len)
		append_param(b, "truncated", l->truncated.data, l->truncated.len);
	if (nr_parts > 1) {
		char v[48];
		append_param(b, "part", v,
			     (size_t)snprintf(v, sizeof(v), "%zu/%zu", part, nr_parts));
	}
	for (size_t i = first_group * l->c->group;
	     i < end_group * l->c->group && i < l->c->nr_counters; i++)
		append_param(b, l->c->counters[i].name, l->counters[i].buf.data,
			     l->counters[i].len);
	if (l->h->format == SYSLOG_RFC5424)
		buf_append(b, "]", 1);
	return b->error;
}

static int escape_all(const struct syslog_param *params, size_t n, struct escaped **ret)
{
	struct escaped *e = calloc(n ? n : 1, sizeof(*e));

	if (!e)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		/* NUL-terminated: cutting a value reads UTF-8 sequences. */
		if (syslog_escape_value(&e[i].buf, params[i].value) < 0) {
			for (size_t j = 0; j <= i; j++)
				buf_free(&e[j].buf);
			free(e);
			return -ENOMEM;
		}
		buf_cstr(&e[i].buf);
		e[i].len = e[i].buf.len;
	}
	*ret = e;
	return 0;
}

static void free_escaped(struct escaped *e, size_t n)
{
	if (!e)
		return;
	for (size_t i = 0; i < n; i++)
		buf_free(&e[i].buf);
	free(e);
}

int syslog_format_record(const struct syslog_header *h, const struct syslog_content *c,
			 size_t max_len, syslog_emit_fn emit, void *userdata)
{
	struct layout l = { .h = h, .c = c, .truncated = BUF_INIT };
	struct buf msg = BUF_INIT;
	size_t all_groups = 0, nr_parts = 0, first, total;
	int r;

	if (!h || !c || !emit || h->facility < 0 || h->facility > 23 || h->severity < 0 ||
	    h->severity > 7 || c->group == 0 || (c->nr_ids && !c->ids) ||
	    (c->nr_counters && !c->counters) ||
	    (h->format != SYSLOG_RFC5424 && h->format != SYSLOG_RFC3164))
		return -EINVAL;
	l.nr_groups = (c->nr_counters + c->group - 1) / c->group;

	/* The header's length, measured by rendering it alone. */
	r = append_header(&msg, h);
	if (r < 0)
		goto finish;
	l.header_len = msg.len;
	l.trailer_len = h->format == SYSLOG_RFC5424 ? 1 : 0;

	r = escape_all(c->ids, c->nr_ids, &l.ids);
	if (r < 0)
		goto finish;
	r = escape_all(c->counters, c->nr_counters, &l.counters);
	if (r < 0)
		goto finish;

	for (size_t g = 0; g < l.nr_groups; g++)
		all_groups += group_cost(&l, g);
	if (l.header_len + l.trailer_len + ids_cost(&l) + all_groups > max_len) {
		r = fit_ids(&l, max_len);
		if (r < 0)
			goto finish;
	}

	/* Greedy packing, in event order: count the parts first (the part
	 * param says "i/n"), then render them. */
	total = l.header_len + l.trailer_len + ids_cost(&l);
	if (total + all_groups > max_len) {
		size_t used = 0;

		total += part_cost(l.nr_groups);
		for (size_t g = 0; g < l.nr_groups; g++) {
			size_t cost = group_cost(&l, g);
			if (used == 0 || total + used + cost > max_len) {
				nr_parts++;
				used = 0;
			}
			used += cost;
		}
	} else {
		nr_parts = 1;
	}

	first = 0;
	for (size_t part = 1; part <= nr_parts; part++) {
		size_t end = first, used = 0;

		while (end < l.nr_groups) {
			size_t cost = group_cost(&l, end);
			if (end > first && total + used + cost > max_len)
				break;
			used += cost;
			end++;
		}
		if (nr_parts == 1)
			end = l.nr_groups;
		r = render(&l, &msg, first, end, part, nr_parts);
		if (r < 0)
			goto finish;
		if (msg.len > max_len) {
			r = -EMSGSIZE; /* not reached: the sizes above are exact */
			goto finish;
		}
		r = emit(msg.data, msg.len, userdata);
		if (r < 0)
			goto finish;
		first = end;
	}
	r = (int)nr_parts;
finish:
	free_escaped(l.ids, c ? c->nr_ids : 0);
	free_escaped(l.counters, c ? c->nr_counters : 0);
	buf_free(&l.truncated);
	buf_free(&msg);
	return r;
}
