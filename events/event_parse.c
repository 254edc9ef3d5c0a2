// SPDX-License-Identifier: GPL-2.0-only
/* Event names -> perf_event_attr, the way `perf stat -e` spells them.
 *
 * Three syntaxes are understood:
 *   - symbolic hardware / hardware-cache / software names and their aliases,
 *   - raw "rNNNN" (hex config for PERF_TYPE_RAW),
 *   - "pmu/term=value,term,alias/" resolved through sysfs (format/ and events/).
 *
 * The produced attr is used byte-for-byte as a key shared between processes,
 * so everything not explicitly set here stays zero (memset, not initializers,
 * so padding is zero too). */
/* For scandirat(). */

#include "events/event_parse.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEFAULT_SYSFS_ROOT "/sys/bus/event_source/devices"

/* The one piece of mutable global state: a test override for the PMU root.
 * A fixed buffer rather than strdup() so setting it can never fail. */
static char sysfs_root_override[PATH_MAX];

void event_set_sysfs_root(const char *root)
{
	if (!root || !*root) {
		sysfs_root_override[0] = '\0';
		return;
	}
	snprintf(sysfs_root_override, sizeof(sysfs_root_override), "%s", root);
}

static const char *sysfs_root(void)
{
	return sysfs_root_override[0] ? sysfs_root_override : DEFAULT_SYSFS_ROOT;
}

static void set_err(char *err_buf, size_t err_len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_err(char *err_buf, size_t err_len, const char *fmt, ...)
{
	va_list ap;

	if (!err_buf || err_len == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err_buf, err_len, fmt, ap);
	va_end(ap);
}

/* ------------------------------------------------------------------------- */
/* Symbolic names                                                            */

struct known_event {
	const char *name;
	uint32_t type;
	uint64_t config;
};

/* Same spellings as perf; aliases are separate rows so lookup is a plain scan. */
static const struct known_event hardware_events[] = {
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES },
	{ "stalled-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "idle-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "stalled-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "idle-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },
};

static const struct known_event software_events[] = {
	{ "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "alignment-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "emulation-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS },
	{ "cgroup-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CGROUP_SWITCHES },
};

/* Hardware cache events are a cross product (cache x op x result), so they
 * are generated rather than tabled. The op masks mirror perf's
 * evsel__hw_cache_stat[]: only combinations perf lists are accepted. */
#define OP_MASK(op) (1u << PERF_COUNT_HW_CACHE_OP_##op)
static const struct {
	const char *name;
	unsigned ops;
} cache_ids[PERF_COUNT_HW_CACHE_MAX] = {
	[PERF_COUNT_HW_CACHE_L1D] = { "L1-dcache",
				      OP_MASK(READ) | OP_MASK(WRITE) | OP_MASK(PREFETCH) },
	[PERF_COUNT_HW_CACHE_L1I] = { "L1-icache", OP_MASK(READ) | OP_MASK(PREFETCH) },
	[PERF_COUNT_HW_CACHE_LL] = { "LLC", OP_MASK(READ) | OP_MASK(WRITE) | OP_MASK(PREFETCH) },
	[PERF_COUNT_HW_CACHE_DTLB] = { "dTLB", OP_MASK(READ) | OP_MASK(WRITE) | OP_MASK(PREFETCH) },
	[PERF_COUNT_HW_CACHE_ITLB] = { "iTLB", OP_MASK(READ) },
	[PERF_COUNT_HW_CACHE_BPU] = { "branch", OP_MASK(READ) },
	[PERF_COUNT_HW_CACHE_NODE] = { "node", OP_MASK(READ) | OP_MASK(WRITE) | OP_MASK(PREFETCH) },
};
#undef OP_MASK

/* [op] = { plural used for accesses, singular used before "-misses" } */
static const char *const cache_ops[PERF_COUNT_HW_CACHE_OP_MAX][2] = {
	[PERF_COUNT_HW_CACHE_OP_READ] = { "loads", "load" },
	[PERF_COUNT_HW_CACHE_OP_WRITE] = { "stores", "store" },
	[PERF_COUNT_HW_CACHE_OP_PREFETCH] = { "prefetches", "prefetch" },
};

static const char *kind_of_type(uint32_t type)
{
	switch (type) {
	case PERF_TYPE_HARDWARE:
		return "hardware";
	case PERF_TYPE_SOFTWARE:
		return "software";
	case PERF_TYPE_HW_CACHE:
		return "hardware-cache";
	default:
		return "pmu";
	}
}

/* Internal iterator over every symbolic event; everything else (lookup,
 * suggestions, the public listing) is built on it. A non-zero return from
 * cb stops the walk and is passed through. */
typedef int (*symbolic_cb)(const struct known_event *ev, void *data);

static int walk_table(const struct known_event *table, size_t n, symbolic_cb cb, void *data)
{
	for (size_t i = 0; i < n; i++) {
		int r = cb(&table[i], data);
		if (r != 0)
			return r;
	}
	return 0;
}

static int walk_cache_events(symbolic_cb cb, void *data)
{
	for (unsigned id = 0; id < PERF_COUNT_HW_CACHE_MAX; id++) {
		for (unsigned op = 0; op < PERF_COUNT_HW_CACHE_OP_MAX; op++) {
			if (!(cache_ids[id].ops & (1u << op)))
				continue;
			for (unsigned res = 0; res < PERF_COUNT_HW_CACHE_RESULT_MAX; res++) {
				char name[64];
				struct known_event ev = {
					.name = name,
					.type = PERF_TYPE_HW_CACHE,
					.config = id | (op << 8) | ((uint64_t)res << 16),
				};
				int r;

				if (res == PERF_COUNT_HW_CACHE_RESULT_ACCESS)
					snprintf(name, sizeof(name), "%s-%s", cache_ids[id].name,
						 cache_ops[op][0]);
				else
					snprintf(name, sizeof(name), "%s-%s-misses",
						 cache_ids[id].name, cache_ops[op][1]);
				r = cb(&ev, data);
				if (r != 0)
					return r;
			}
		}
	}
	return 0;
}

static int walk_symbolic(symbolic_cb cb, void *data)
{
	int r;

	r = walk_table(hardware_events, sizeof(hardware_events) / sizeof(hardware_events[0]), cb,
		       data);
	if (r != 0)
		return r;
	r = walk_cache_events(cb, data);
	if (r != 0)
		return r;
	return walk_table(software_events, sizeof(software_events) / sizeof(software_events[0]), cb,
			  data);
}

struct lookup_ctx {
	const char *name;
	uint32_t type;
	uint64_t config;
};

static int lookup_cb(const struct known_event *ev, void *data)
{
	struct lookup_ctx *ctx = data;

	/* Case-sensitive on purpose: perf treats "Cycles" as unknown too. */
	if (strcmp(ev->name, ctx->name) != 0)
		return 0;
	ctx->type = ev->type;
	ctx->config = ev->config;
	return 1;
}

static int parse_symbolic(const char *name, struct perf_event_attr *attr)
{
	struct lookup_ctx ctx = { .name = name };

	if (walk_symbolic(lookup_cb, &ctx) != 1)
		return -ENOENT;
	attr->type = ctx.type;
	attr->config = ctx.config;
	return 0;
}

struct known_ctx {
	event_name_cb cb;
	void *data;
};

static int known_cb(const struct known_event *ev, void *data)
{
	struct known_ctx *ctx = data;

	return ctx->cb(ev->name, kind_of_type(ev->type), ctx->data);
}

int event_for_each_known(event_name_cb cb, void *data)
{
	struct known_ctx ctx = { .cb = cb, .data = data };

	if (!cb)
		return -EINVAL;
	return walk_symbolic(known_cb, &ctx);
}

/* ------------------------------------------------------------------------- */
/* Suggestions                                                               */

/* Case-insensitive Levenshtein distance; both strings are < EVENT_NAME_MAX. */
static unsigned edit_distance(const char *a, const char *b)
{
	unsigned prev[EVENT_NAME_MAX + 1], cur[EVENT_NAME_MAX + 1];
	size_t la = strlen(a), lb = strlen(b);

	for (size_t j = 0; j <= lb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= la; i++) {
		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			unsigned cost = tolower((unsigned char)a[i - 1]) !=
					tolower((unsigned char)b[j - 1]);
			unsigned best = prev[j - 1] + cost;

			if (prev[j] + 1 < best)
				best = prev[j] + 1;
			if (cur[j - 1] + 1 < best)
				best = cur[j - 1] + 1;
			cur[j] = best;
		}
		memcpy(prev, cur, (lb + 1) * sizeof(prev[0]));
	}
	return prev[lb];
}

struct suggest_ctx {
	const char *name;
	unsigned distance; /* emit only names at exactly this distance */
	char *out;
	size_t out_len;
	size_t used;
	int count;
	int max;
};

static int suggest_cb(const struct known_event *ev, void *data)
{
	struct suggest_ctx *ctx = data;
	const char *sep = ctx->count > 0 ? ", " : "";
	size_t need = strlen(sep) + strlen(ev->name);

	if (edit_distance(ctx->name, ev->name) != ctx->distance)
		return 0;
	/* A suggestion that does not fit whole is dropped rather than cut. */
	if (ctx->used + need >= ctx->out_len)
		return 1;
	ctx->used +=
		snprintf(ctx->out + ctx->used, ctx->out_len - ctx->used, "%s%s", sep, ev->name);
	ctx->count++;
	return ctx->count >= ctx->max;
}

int event_suggest(const char *name, char *out, size_t out_len, int max)
{
	struct suggest_ctx ctx = { .name = name, .out = out, .out_len = out_len, .max = max };
	size_t len;
	unsigned threshold;

	if (!name || !out || out_len == 0 || max <= 0)
		return 0;
	out[0] = '\0';
	len = strlen(name);
	if (len == 0 || len >= EVENT_NAME_MAX)
		return 0;
	/* Short names get a tight bound, or "xy" would "match" half the table. */
	threshold = len <= 3 ? 1 : (len / 3 > 2 ? len / 3 : 2);
	/* One pass per distance keeps the closest names first without sorting. */
	for (ctx.distance = 0; ctx.distance <= threshold; ctx.distance++)
		if (walk_symbolic(suggest_cb, &ctx) != 0)
			break;
	return ctx.count;
}

/* ------------------------------------------------------------------------- */
/* Raw events                                                                */

/* "r" followed only by letters/digits is taken as an attempt at raw syntax,
 * so "rzz" is a malformed raw event, while "ref-cylces" stays an unknown
 * symbolic name (and gets suggestions). */
static bool looks_raw(const char *name)
{
	if (name[0] != 'r')
		return false;
	for (const char *p = name + 1; *p; p++)
		if (!isalnum((unsigned char)*p))
			return false;
	return true;
}

static int parse_raw(const char *name, struct perf_event_attr *attr, char *err_buf, size_t err_len)
{
	const char *hex = name + 1;
	size_t n = strlen(hex);
	uint64_t config = 0;

	if (n == 0 || n > 16 || strspn(hex, "0123456789abcdefABCDEF") != n) {
		set_err(err_buf, err_len,
			"invalid raw event '%s' (expected 'r' followed by up to 16 hex digits, e.g. r1a8)",
			name);
		return -EINVAL;
	}
	for (const char *p = hex; *p; p++) {
		int c = tolower((unsigned char)*p);
		config = (config << 4) | (uint64_t)(isdigit(c) ? c - '0' : c - 'a' + 10);
	}
	attr->type = PERF_TYPE_RAW;
	attr->config = config;
	return 0;
}

/* ------------------------------------------------------------------------- */
/* sysfs PMU events: pmu/term=value,.../                                     */

#define FORMAT_MAX_BITS 192 /* config, config1, config2: 64 bits each */

enum config_field {
	FIELD_CONFIG,
	FIELD_CONFIG1,
	FIELD_CONFIG2
};

struct term_format {
	unsigned n_bits;
	struct {
		uint8_t field;
		uint8_t bit;
	} bits[FORMAT_MAX_BITS]; /* value bit i lands in bits[i] */
};

/* Names we are willing to turn into paths: no '/', no leading '.', so no
 * escape out of the PMU directory. */
static bool valid_sysfs_name(const char *s, size_t len)
{
	if (len == 0 || s[0] == '.')
		return false;
	for (size_t i = 0; i < len; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("_-.", s[i]))
			return false;
	return true;
}

static void strip_trailing_space(char *s)
{
	size_t n = strlen(s);

	while (n > 0 && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
}

/* Read a small sysfs file relative to dirfd into buf, NUL-terminated and
 * with the trailing newline stripped. */
static int read_small_file_at(int dirfd, const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd, r = 0;

	fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0) {
		r = -errno;
		goto out;
	}
	if ((size_t)n == len - 1) {
		/* Silently truncating a format or alias would produce a wrong attr. */
		r = -EFBIG;
		goto out;
	}
	buf[n] = '\0';
	strip_trailing_space(buf);
out:
	close(fd);
	return r;
}

/* Plain decimal or 0x-hex; octal is deliberately not accepted ("010" is 10). */
static int parse_number(const char *s, uint64_t *ret)
{
	int base = 10;
	char *end;
	unsigned long long v;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	/* strtoull alone would also take blanks, a sign, or a second "0x". */
	if (!*s || strspn(s, base == 16 ? "0123456789abcdefABCDEF" : "0123456789") != strlen(s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, base);
	if (errno != 0 || *end != '\0')
		return -EINVAL;
	*ret = v;
	return 0;
}

static int parse_field_name(const char *s, size_t len, enum config_field *ret)
{
	static const char *const names[] = { "config", "config1", "config2" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (strlen(names[i]) == len && memcmp(s, names[i], len) == 0) {
			*ret = (enum config_field)i;
			return 0;
		}
	}
	return -EINVAL;
}

/* "A-B" or "A", 0 <= A <= B <= 63. */
static int parse_bit_range(const char *s, unsigned *ret_lo, unsigned *ret_hi)
{
	unsigned lo, hi;
	int consumed = 0;

	if (sscanf(s, "%u-%u%n", &lo, &hi, &consumed) == 2 && s[consumed] == '\0')
		;
	else if (sscanf(s, "%u%n", &lo, &consumed) == 1 && s[consumed] == '\0')
		hi = lo;
	else
		return -EINVAL;
	if (!isdigit((unsigned char)s[0]) || lo > hi || hi > 63)
		return -EINVAL;
	*ret_lo = lo;
	*ret_hi = hi;
	return 0;
}

/* Format file syntax: comma-separated "field:range" items; an item without
 * "field:" continues the previous field ("config:0-7,32-35"). Ranges are
 * filled in the order written, which is how split fields get their value
 * bits (low value bits go to the first range). */
static int parse_format(char *text, struct term_format *ret_fmt)
{
	struct term_format fmt = { 0 };
	enum config_field field = FIELD_CONFIG;
	bool have_field = false;
	char *save = NULL;

	for (char *item = strtok_r(text, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(item, ':');
		const char *range = item;
		unsigned lo, hi;

		if (colon) {
			if (parse_field_name(item, colon - item, &field) < 0)
				return -EINVAL;
			have_field = true;
			range = colon + 1;
		}
		if (!have_field || parse_bit_range(range, &lo, &hi) < 0)
			return -EINVAL;
		for (unsigned b = lo; b <= hi; b++) {
			if (fmt.n_bits >= FORMAT_MAX_BITS)
				return -EINVAL;
			fmt.bits[fmt.n_bits].field = field;
			fmt.bits[fmt.n_bits].bit = b;
			fmt.n_bits++;
		}
	}
	if (fmt.n_bits == 0)
		return -EINVAL;
	*ret_fmt = fmt;
	return 0;
}

static __u64 *config_field_ptr(struct perf_event_attr *attr, enum config_field field)
{
	switch (field) {
	case FIELD_CONFIG1:
		return &attr->config1;
	case FIELD_CONFIG2:
		return &attr->config2;
	default:
		return &attr->config;
	}
}

/* Clear-then-set, so a later term overrides an earlier one (e.g. an explicit
 * umask after an alias that already set it), as in perf. */
static void apply_format(const struct term_format *fmt, uint64_t value,
			 struct perf_event_attr *attr)
{
	for (unsigned i = 0; i < fmt->n_bits; i++) {
		__u64 *f = config_field_ptr(attr, fmt->bits[i].field);
		uint64_t mask = UINT64_C(1) << fmt->bits[i].bit;

		*f &= ~mask;
		if ((value >> i) & 1)
			*f |= mask;
	}
}

/* Comma-separated list of format/ entries, sorted, for "valid terms: ...". */
static void list_format_terms(int pmu_fd, char *buf, size_t len)
{
	struct dirent **entries = NULL;
	size_t used = 0;
	int n, fd;

	buf[0] = '\0';
	fd = openat(pmu_fd, "format", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = scandirat(fd, ".", &entries, NULL, alphasort);
	close(fd);
	for (int i = 0; i < n; i++) {
		const char *name = entries[i]->d_name;

		if (name[0] != '.' && used + strlen(name) + 3 < len)
			used += snprintf(buf + used, len - used, "%s%s", used ? ", " : "", name);
		free(entries[i]);
	}
	free(entries);
}

struct pmu_ctx {
	int fd; /* the PMU's sysfs directory */
	const char *pmu;
	const char *event; /* whole event text, for messages */
	char *err_buf;
	size_t err_len;
};

static int apply_terms(const struct pmu_ctx *ctx, char *terms, bool allow_alias,
		       struct perf_event_attr *attr);

static int apply_format_term(const struct pmu_ctx *ctx, const char *term, const char *value,
			     char *format_text, struct perf_event_attr *attr)
{
	struct term_format fmt;
	uint64_t v = 1; /* a bare term ("edge") means 1, as in perf */

	if (parse_format(format_text, &fmt) < 0) {
		set_err(ctx->err_buf, ctx->err_len,
			"PMU '%s': cannot parse sysfs format of term '%s'", ctx->pmu, term);
		return -EINVAL;
	}
	if (value && parse_number(value, &v) < 0) {
		set_err(ctx->err_buf, ctx->err_len,
			"event '%s': invalid value '%s' for term '%s' (expected decimal or 0x-hex)",
			ctx->event, value, term);
		return -EINVAL;
	}
	if (fmt.n_bits < 64 && (v >> fmt.n_bits) != 0) {
		set_err(ctx->err_buf, ctx->err_len,
			"event '%s': value 0x%" PRIx64 " too big for term '%s' (%u bit%s)",
			ctx->event, v, term, fmt.n_bits, fmt.n_bits == 1 ? "" : "s");
		return -EINVAL;
	}
	apply_format(&fmt, v, attr);
	return 0;
}

/* An events/<alias> file holds a term list ("event=0x3c,umask=0x00") that is
 * expanded in place. Aliases may not refer to aliases: one level only. */
static int apply_alias_term(const struct pmu_ctx *ctx, const char *term,
			    struct perf_event_attr *attr)
{
	char path[NAME_MAX + 8], text[1024];
	int r;

	snprintf(path, sizeof(path), "events/%s", term);
	r = read_small_file_at(ctx->fd, path, text, sizeof(text));
	if (r < 0)
		return r;
	return apply_terms(ctx, text, false, attr);
}

/* config=, config1=, config2= set a whole attr field, like perf. */
static int apply_builtin_term(const struct pmu_ctx *ctx, const char *term, const char *value,
			      struct perf_event_attr *attr)
{
	enum config_field field;
	uint64_t v;

	if (parse_field_name(term, strlen(term), &field) < 0)
		return -ENOENT;
	if (!value || parse_number(value, &v) < 0) {
		set_err(ctx->err_buf, ctx->err_len,
			"event '%s': term '%s' needs a decimal or 0x-hex value", ctx->event, term);
		return -EINVAL;
	}
	*config_field_ptr(attr, field) = v;
	return 0;
}

static int apply_term(const struct pmu_ctx *ctx, const char *term, const char *value,
		      bool allow_alias, struct perf_event_attr *attr)
{
	char path[NAME_MAX + 8], text[512], valid[512];
	int r;

	if (!valid_sysfs_name(term, strlen(term)) || strlen(term) > NAME_MAX) {
		set_err(ctx->err_buf, ctx->err_len, "event '%s': invalid term '%s'", ctx->event,
			term);
		return -EINVAL;
	}

	snprintf(path, sizeof(path), "format/%s", term);
	r = read_small_file_at(ctx->fd, path, text, sizeof(text));
	if (r == 0)
		return apply_format_term(ctx, term, value, text, attr);
	if (r != -ENOENT) {
		set_err(ctx->err_buf, ctx->err_len, "PMU '%s': cannot read format of term '%s': %s",
			ctx->pmu, term, strerror(-r));
		return r;
	}

	if (!value && allow_alias) {
		r = apply_alias_term(ctx, term, attr);
		if (r != -ENOENT)
			return r;
	}

	r = apply_builtin_term(ctx, term, value, attr);
	if (r != -ENOENT)
		return r;

	list_format_terms(ctx->fd, valid, sizeof(valid));
	set_err(ctx->err_buf, ctx->err_len,
		"event '%s': unknown term '%s' for PMU '%s' (valid terms: %s)", ctx->event, term,
		ctx->pmu, valid[0] ? valid : "none");
	return -EINVAL;
}

/* terms is modified in place (split on ',' and '='). */
static int apply_terms(const struct pmu_ctx *ctx, char *terms, bool allow_alias,
		       struct perf_event_attr *attr)
{
	char *save = NULL;

	if (terms[0] == ',' || (terms[0] && terms[strlen(terms) - 1] == ',') ||
	    strstr(terms, ",,")) {
		set_err(ctx->err_buf, ctx->err_len, "event '%s': empty term", ctx->event);
		return -EINVAL;
	}
	for (char *term = strtok_r(terms, ",", &save); term; term = strtok_r(NULL, ",", &save)) {
		char *value = strchr(term, '=');
		int r;

		if (value) {
			*value++ = '\0';
			if (!*value) {
				set_err(ctx->err_buf, ctx->err_len,
					"event '%s': term '%s' has an empty value", ctx->event,
					term);
				return -EINVAL;
			}
		}
		r = apply_term(ctx, term, value, allow_alias, attr);
		if (r < 0)
			return r;
	}
	return 0;
}

static int read_pmu_type(int pmu_fd, uint32_t *ret_type)
{
	char buf[32];
	uint64_t v;
	int r;

	r = read_small_file_at(pmu_fd, "type", buf, sizeof(buf));
	if (r < 0)
		return r;
	if (parse_number(buf, &v) < 0 || v > UINT32_MAX)
		return -EINVAL;
	*ret_type = (uint32_t)v;
	return 0;
}

/* Split "pmu/terms/" into its parts; pmu and terms point into buf. */
static int split_pmu_event(const char *name, char *buf, size_t len, char **ret_pmu,
			   char **ret_terms, char *err_buf, size_t err_len)
{
	char *open, *close;

	snprintf(buf, len, "%s", name);
	open = strchr(buf, '/');
	close = strrchr(buf, '/');
	if (close == open || close[1] != '\0') {
		if (close != open && close[1] == ':')
			set_err(err_buf, err_len, "event '%s': event modifiers are not supported",
				name);
		else
			set_err(err_buf, err_len,
				"event '%s': missing trailing '/' (expected pmu/term=value,.../)",
				name);
		return -EINVAL;
	}
	*open = '\0';
	*close = '\0';
	if (!valid_sysfs_name(buf, strlen(buf)) || strchr(open + 1, '/')) {
		set_err(err_buf, err_len,
			"event '%s': malformed PMU event (expected pmu/term=value,.../)", name);
		return -EINVAL;
	}
	*ret_pmu = buf;
	*ret_terms = open + 1;
	return 0;
}

static int parse_pmu_event(const char *name, struct perf_event_attr *attr, char *err_buf,
			   size_t err_len)
{
	char buf[EVENT_NAME_MAX], *pmu, *terms;
	struct pmu_ctx ctx = { .fd = -1, .event = name, .err_buf = err_buf, .err_len = err_len };
	struct perf_event_attr a = *attr;
	int root_fd, r;

	r = split_pmu_event(name, buf, sizeof(buf), &pmu, &terms, err_buf, err_len);
	if (r < 0)
		return r;
	ctx.pmu = pmu;

	root_fd = open(sysfs_root(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (root_fd < 0) {
		r = -errno;
		set_err(err_buf, err_len, "event '%s': cannot open %s: %s", name, sysfs_root(),
			strerror(-r));
		return r;
	}
	ctx.fd = openat(root_fd, pmu, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	close(root_fd);
	if (ctx.fd < 0 || read_pmu_type(ctx.fd, &a.type) < 0) {
		set_err(err_buf, err_len, "event '%s': unknown PMU '%s' (no %s/%s/type)", name, pmu,
			sysfs_root(), pmu);
		r = -ENOENT;
		goto out;
	}
	r = apply_terms(&ctx, terms, true, &a);
	if (r < 0)
		goto out;
	*attr = a;
out:
	if (ctx.fd >= 0)
		close(ctx.fd);
	return r;
}

int event_for_each_pmu(event_pmu_cb cb, void *data)
{
	struct dirent **entries = NULL;
	int root_fd, n, r = 0;

	if (!cb)
		return -EINVAL;
	root_fd = open(sysfs_root(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (root_fd < 0)
		return -errno;
	n = scandirat(root_fd, ".", &entries, NULL, alphasort);
	if (n < 0) {
		r = -errno;
		goto out;
	}
	for (int i = 0; i < n; i++) {
		const char *name = entries[i]->d_name;
		uint32_t type;
		int fd;

		if (r != 0 || name[0] == '.')
			continue;
		/* Entries are symlinks into /sys/devices; openat follows them. */
		fd = openat(root_fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (read_pmu_type(fd, &type) == 0)
			r = cb(name, type, data);
		close(fd);
	}
	for (int i = 0; i < n; i++)
		free(entries[i]);
	free(entries);
out:
	close(root_fd);
	return r;
}

struct pmu_events_walk {
	event_name_cb cb;
	void *data;
};

/* One PMU's events/ directory, sorted: every alias as "pmu/alias/". Files
 * with a dot are an alias's attributes (tsc.unit, energy-pkg.scale), as
 * perf list skips them. A PMU without aliases has no events/ directory. */
static int walk_pmu_events(const char *pmu, uint32_t type, void *data)
{
	const struct pmu_events_walk *w = data;
	char path[PATH_MAX], name[EVENT_NAME_MAX];
	struct dirent **entries = NULL;
	int n, r = 0;

	(void)type;
	if ((size_t)snprintf(path, sizeof(path), "%s/%s/events", sysfs_root(), pmu) >= sizeof(path))
		return 0;
	n = scandir(path, &entries, NULL, alphasort);
	if (n < 0)
		return 0;
	for (int i = 0; i < n; i++) {
		const char *ev = entries[i]->d_name;

		if (r == 0 && ev[0] != '.' && !strchr(ev, '.') &&
		    (size_t)snprintf(name, sizeof(name), "%s/%s/", pmu, ev) < sizeof(name))
			r = w->cb(name, "pmu-event", w->data);
		free(entries[i]);
	}
	free(entries);
	return r;
}

int event_for_each_pmu_event(event_name_cb cb, void *data)
{
	struct pmu_events_walk w = { cb, data };

	if (!cb)
		return -EINVAL;
	return event_for_each_pmu(walk_pmu_events, &w);
}

/* ------------------------------------------------------------------------- */
/* Entry points                                                              */

static void trim(const char *s, const char **ret_start, size_t *ret_len)
{
	size_t len;

	while (isspace((unsigned char)*s))
		s++;
	len = strlen(s);
	while (len > 0 && isspace((unsigned char)s[len - 1]))
		len--;
	*ret_start = s;
	*ret_len = len;
}

static int parse_name(const char *name, struct perf_event_attr *attr, char *err_buf, size_t err_len)
{
	int r;

	if (strchr(name, '/'))
		return parse_pmu_event(name, attr, err_buf, err_len);

	r = parse_symbolic(name, attr);
	if (r != -ENOENT)
		return r;
	if (looks_raw(name))
		return parse_raw(name, attr, err_buf, err_len);
	if (strchr(name, ':')) {
		set_err(err_buf, err_len,
			"event '%s': event modifiers and tracepoints are not supported", name);
		return -EINVAL;
	}
	set_err(err_buf, err_len, "unknown event '%s'", name);
	return -ENOENT;
}

int event_parse(const char *name, struct event_spec *ret_spec, char *err_buf, size_t err_len)
{
	struct event_spec spec;
	const char *start;
	size_t len;
	int r;

	if (!name || !ret_spec) {
		set_err(err_buf, err_len, "no event name");
		return -EINVAL;
	}
	trim(name, &start, &len);
	if (len == 0) {
		set_err(err_buf, err_len, "empty event name");
		return -EINVAL;
	}
	if (len >= EVENT_NAME_MAX) {
		set_err(err_buf, err_len, "event name too long (max %d characters)",
			EVENT_NAME_MAX - 1);
		return -EINVAL;
	}

	/* memset, not "= {0}": padding bytes must be zero too, for the
	 * byte-exact key. */
	memset(&spec, 0, sizeof(spec));
	memcpy(spec.name, start, len);
	spec.attr.size = sizeof(struct perf_event_attr);
	spec.attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;

	r = parse_name(spec.name, &spec.attr, err_buf, err_len);
	if (r < 0)
		return r;

	spec.is_time = spec.attr.type == PERF_TYPE_SOFTWARE &&
		       (spec.attr.config == PERF_COUNT_SW_CPU_CLOCK ||
			spec.attr.config == PERF_COUNT_SW_TASK_CLOCK);
	memcpy(ret_spec, &spec, sizeof(spec));
	return 0;
}

/* Length of the next list item: up to a ',' that is not inside pmu/.../. */
static size_t list_item_len(const char *s)
{
	bool in_pmu = false;
	size_t i;

	for (i = 0; s[i]; i++) {
		if (s[i] == '/')
			in_pmu = !in_pmu;
		else if (s[i] == ',' && !in_pmu)
			break;
	}
	return i;
}

static int count_list_items(const char *list)
{
	int n = 1;

	for (const char *p = list;; n++) {
		p += list_item_len(p);
		if (*p == '\0')
			return n;
		p++;
	}
}

/* specs has room for every item (counted beforehand). */
/* For a list from the command line, say what the user probably meant. */
static void append_suggestions(const char *name, char *err_buf, size_t err_len)
{
	char sugg[256];
	size_t used = strlen(err_buf);

	if (event_suggest(name, sugg, sizeof(sugg), 3) > 0)
		snprintf(err_buf + used, err_len - used, " (did you mean: %s?)", sugg);
	else
		snprintf(err_buf + used, err_len - used, " (see 'cgperf events')");
}

static int parse_list_into(const char *list, struct event_spec *specs, char *err_buf,
			   size_t err_len)
{
	const char *p = list;
	int n = 0;

	for (;;) {
		size_t len = list_item_len(p);
		char *item;
		int r;

		item = strndup(p, len);
		if (!item)
			return -ENOMEM;
		r = event_parse(item, &specs[n], err_buf, err_len);
		if (r == -ENOENT && err_buf)
			append_suggestions(item, err_buf, err_len);
		free(item);
		if (r < 0)
			return r;
		n++;
		if (p[len] == '\0')
			return n;
		p += len + 1;
	}
}

int event_parse_list(const char *list, struct event_spec *ret_specs, int max_specs, char *err_buf,
		     size_t err_len)
{
	struct event_spec *tmp;
	int n;

	if (!list || !ret_specs || max_specs <= 0) {
		set_err(err_buf, err_len, "no event list");
		return -EINVAL;
	}
	n = count_list_items(list);
	if (n > max_specs) {
		set_err(err_buf, err_len, "too many events: %d (max %d)", n, max_specs);
		return -E2BIG;
	}
	/* Parse into scratch space so ret_specs stays untouched on failure. */
	tmp = calloc(n, sizeof(*tmp));
	if (!tmp)
		return -ENOMEM;
	n = parse_list_into(list, tmp, err_buf, err_len);
	if (n > 0)
		memcpy(ret_specs, tmp, n * sizeof(*tmp));
	free(tmp);
	return n;
}
