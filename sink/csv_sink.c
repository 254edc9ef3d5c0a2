// SPDX-License-Identifier: GPL-2.0-only
/* The CSV sink. Each row is built in memory and appended with one write() on
 * an O_APPEND descriptor. Descriptors are kept open between rows (a bounded
 * number, from RLIMIT_NOFILE): reopening every file for every row was most of
 * the agent's CPU time. Renames and removals by logrotate are seen through an
 * inotify watch on the directory, read once per batch of rows (one collection
 * time); a truncation (copytruncate) shows in where the file ends, looked
 * at before a row when the watch saw a writer close the file, and once
 * per CSV_SIZE_CHECK_MS of collection time or CSV_SIZE_CHECK_ROWS rows
 * (csv_file.c, check_end). Without a watch (no inotify instance left) files
 * are opened per row and checked with fstat, as before. At intervals
 * shorter than flush_interval a file's rows are held and appended
 * together (hold_due). Each file's own handling: csv_file.c. */
#include "sink/csv_sink_int.h"
#include "sink/csv_batch.h"
#include "sink/csv_dir.h"
#include "sink/csv_format.h"
#include "sink/csv_retention.h"
#include "sink/file_name.h"
#include "util/hash.h"
#include "util/log.h"
#include "util/prefetch.h"
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static const struct sink_ops csv_sink_ops;

static void run_batch(struct csv_sink *s);

static struct csv_sink *to_csv(struct sink *s)
{
	return (struct csv_sink *)s;
}

static bool timespec_eq(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

static long long monotonic_ns(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec * 1000000000LL + now.tv_nsec;
}

/* ---- the cgroup table ---------------------------------------------------- */

static struct csv_cgroup *cgroup_find(struct csv_sink *s, uint64_t id, bool prog)
{
	return id_map_find(&s->by_id[prog], id);
}

/* The agent writes a collection's rows in the order of the last one: the
 * entry of the row at the cursor is the one found there last time, looked
 * up by id only when it is not. The next one is fetched into the cache
 * ahead (a collection's 1000 entries are cold after a second, and their
 * misses were a tenth of the agent's time). */
static struct csv_cgroup *cgroup_lookup(struct csv_sink *s, uint64_t id)
{
	struct csv_cgroup *cg = s->cursor < s->nr_order ? s->order[s->cursor] : NULL;

	if (!cg || cg->id != id || cg->prog)
		cg = cgroup_find(s, id, false);
	return cg;
}

/* The next row's entry was fetched ahead at the row before: now its
 * identity cells; and the entry of the row after it. */
static void prefetch_next(const struct csv_sink *s)
{
	const struct csv_cgroup *next = s->cursor < s->nr_order ? s->order[s->cursor] : NULL;
	const struct csv_cgroup *after =
		s->cursor + 1 < s->nr_order ? s->order[s->cursor + 1] : NULL;

	if (next)
		__builtin_prefetch(next->ident.buf.data);
	if (after) /* the fields a row reads first: up to the identity cells */
		prefetch_range(after, &after->ident + 1);
}

/* cg leaves its place in the order, if it still has it (another entry may
 * have taken it since). */
static void order_drop(struct csv_sink *s, const struct csv_cgroup *cg)
{
	if (cg->order_pos >= 0 && cg->order_pos < s->nr_order && s->order[cg->order_pos] == cg)
		s->order[cg->order_pos] = NULL;
}

/* cg had the row at the cursor. Without room to remember it, the next
 * collection looks it up by id. */
static void order_note(struct csv_sink *s, struct csv_cgroup *cg)
{
	if (s->cursor == s->cap_order) {
		int cap = s->cap_order ? 2 * s->cap_order : 256;
		struct csv_cgroup **n = realloc(s->order, sizeof(*n) * cap);

		if (!n)
			return;
		s->order = n;
		s->cap_order = cap;
	}
	if (s->cursor >= s->nr_order)
		s->order[s->nr_order++] = NULL;
	if (s->order[s->cursor] != cg) {
		order_drop(s, cg);
		s->order[s->cursor] = cg;
		cg->order_pos = s->cursor;
	}
	s->cursor++;
	prefetch_next(s);
}

static struct csv_cgroup **stem_bucket(struct csv_sink *s, const char *stem, size_t len)
{
	return &s->stem_buckets[hash_bytes(stem, len) % CSV_STEM_BUCKETS];
}

/* A cgroup writing stem.csv (stem: len bytes, not NUL-terminated), or NULL. */
static struct csv_cgroup *stem_find(struct csv_sink *s, const char *stem, size_t len)
{
	for (struct csv_cgroup *cg = *stem_bucket(s, stem, len); cg; cg = cg->next_stem)
		if (strncmp(cg->stem, stem, len) == 0 && cg->stem[len] == '\0')
			return cg;
	return NULL;
}

/* cg's file size is known without a stat: the file is held open (the
 * directory watch, read before every retention step, drops the descriptor
 * when the name is moved or removed), no writer closed it since the last
 * look at its end (a truncation or append by someone else is followed by a
 * close), no row of it waits in the batch and none failed since (a failed
 * append may or may not be in the file). What stays unseen until the next
 * look at the end: truncate(2) by path, appends through a descriptor kept
 * open elsewhere (docs/CSV.md "Retention"). */
static bool size_known(const struct csv_cgroup *cg)
{
	return cg->fd >= 0 && cg->known && !cg->check_size && !cg->queued;
}

/* The retention's question: whether stem.csv is live, and its size when
 * known. A stem written by two entries (a path back with a new id while the
 * old one waits for its final row) has neither's size: each sees only its
 * own rows. */
static bool stem_live(void *ctx, const char *stem, size_t len, int64_t *ret_size)
{
	struct csv_sink *s = ctx;
	struct csv_cgroup *found = NULL;
	int writers = 0;

	for (struct csv_cgroup *cg = *stem_bucket(s, stem, len); cg; cg = cg->next_stem)
		if (strncmp(cg->stem, stem, len) == 0 && cg->stem[len] == '\0') {
			found = cg;
			writers++;
		}
	if (ret_size)
		*ret_size = writers == 1 && size_known(found) ? (int64_t)found->size : -1;
	return found != NULL;
}

static void cgroup_free(struct csv_cgroup *cg)
{
	if (!cg)
		return;
	free(cg->file);
	free(cg->stem);
	free(cg->path);
	for (int i = 0; i < cg->nr_events; i++)
		free(cg->event_names[i]);
	csv_row_free(&cg->header);
	csv_row_free(&cg->ident);
	csv_row_free(&cg->held);
	free(cg);
}

static void cgroup_unlink(struct csv_sink *s, struct csv_cgroup *cg)
{
	csv_file_close(s, cg);
	order_drop(s, cg);
	id_map_remove(&s->by_id[cg->prog], cg->id);
	for (struct csv_cgroup **p = stem_bucket(s, cg->stem, strlen(cg->stem)); *p;
	     p = &(*p)->next_stem)
		if (*p == cg) {
			*p = cg->next_stem;
			break;
		}
}

/* Set the event columns (and header) of cg to names. */
static int cgroup_set_events(struct csv_sink *s, struct csv_cgroup *cg, int nr,
			     const char *const *names)
{
	char *new_names[READINGS_MAX_EVENTS] = { 0 };
	struct csv_row header = CSV_ROW_INIT;
	int r = 0;

	cg->events_gen = 0; /* compared by name again at the next row */
	if (cg->queued)
		run_batch(s); /* the file is closed below: its queued row first */
	for (int i = 0; i < nr; i++) {
		new_names[i] = strdup(names[i]);
		if (!new_names[i]) {
			r = -ENOMEM;
			goto out;
		}
	}
	r = cg->prog ? csv_format_prog_header(&header, nr, names)
		     : csv_format_header(&header, nr, names, &s->cfg.derived);
	if (r < 0)
		goto out;
	for (int i = 0; i < cg->nr_events; i++)
		free(cg->event_names[i]);
	memcpy(cg->event_names, new_names, sizeof(new_names));
	cg->nr_events = nr;
	csv_row_free(&cg->header);
	cg->header = header;
	/* The file on disk has the old header: look at it again (and move it
	 * away) before the next row. */
	csv_file_close(s, cg);
	return 0;
out:
	for (int i = 0; i < nr; i++)
		free(new_names[i]);
	csv_row_free(&header);
	return r;
}

static bool same_events(const struct csv_cgroup *cg, int nr, const char *const *names)
{
	if (cg->nr_events != nr)
		return false;
	for (int i = 0; i < nr; i++)
		if (strcmp(cg->event_names[i], names[i]) != 0)
			return false;
	return true;
}

/* Whether cg's columns are rec's events, comparing the names only when the
 * record's events generation is not the one cg's columns were last found
 * to match (every row would compare every name: a cache miss each). */
static bool columns_match(struct csv_cgroup *cg, const struct sink_record *rec)
{
	if (rec->events_gen && rec->events_gen == cg->events_gen && cg->nr_events == rec->nr_events)
		return true;
	if (!same_events(cg, rec->nr_events, rec->event_names))
		return false;
	cg->events_gen = rec->events_gen;
	return true;
}

/* A file's state: stem (and the path it was made from), no header yet. */
static int entry_new(struct csv_sink *s, uint64_t id, bool prog, const char *stem, const char *path,
		     struct csv_cgroup **ret)
{
	struct csv_cgroup *cg, *other;

	/* The same path may come back with a new id while the old one still
	 * waits for its final row: one file, as documented. Another path with
	 * this stem takes a SHA-256 collision; never share a file even then. */
	other = stem_find(s, stem, strlen(stem));
	if (other && strcmp(other->path, path) != 0)
		return -EEXIST;
	cg = calloc(1, sizeof(*cg));
	if (!cg)
		return -ENOMEM;
	cg->fd = -1;
	cg->order_pos = -1;
	cg->id = id;
	cg->prog = prog;
	cg->unchecked = id % CSV_SIZE_CHECK_ROWS; /* spread over the batches */
	csv_note_look_period(s, cg);
	cg->stem = strdup(stem);
	cg->path = strdup(path);
	if (asprintf(&cg->file, "%s/%s.csv", s->cfg.directory, stem) < 0)
		cg->file = NULL;
	if (!cg->stem || !cg->path || !cg->file) {
		cgroup_free(cg);
		return -ENOMEM;
	}
	*ret = cg;
	return 0;
}

static int entry_link(struct csv_sink *s, struct csv_cgroup *cg)
{
	int r = id_map_insert(&s->by_id[cg->prog], cg->id, cg);

	if (r < 0)
		return r;
	cg->next_stem = *stem_bucket(s, cg->stem, strlen(cg->stem));
	*stem_bucket(s, cg->stem, strlen(cg->stem)) = cg;
	return 0;
}

static int cgroup_new(struct csv_sink *s, const struct sink_record *rec, struct csv_cgroup **ret)
{
	char stem[CSV_STEM_MAX + 1];
	struct csv_cgroup *cg;
	int r;

	r = csv_file_stem(rec->cgroup, stem, sizeof(stem));
	if (r == 0)
		r = entry_new(s, rec->cgroup->id, false, stem, rec->cgroup->path, &cg);
	if (r < 0)
		return r;
	r = cgroup_set_events(s, cg, rec->nr_events, rec->event_names);
	if (r == 0)
		r = entry_link(s, cg);
	if (r < 0) {
		cgroup_free(cg);
		return r;
	}
	*ret = cg;
	return 0;
}

/* A program's file: its stem is unique (it holds the id); its header has
 * the agent's event columns when it counts events inside programs. */
static int prog_new(struct csv_sink *s, const struct sink_prog_record *rec, struct csv_cgroup **ret)
{
	char stem[CSV_STEM_MAX + 1];
	struct csv_cgroup *cg;
	int r;

	r = csv_prog_file_stem(rec->prog, stem, sizeof(stem));
	if (r == 0)
		r = entry_new(s, rec->prog->id, true, stem, stem, &cg);
	if (r < 0)
		return r;
	r = cgroup_set_events(s, cg, rec->nr_events, rec->event_names);
	if (r == 0)
		r = entry_link(s, cg);
	if (r < 0) {
		cgroup_free(cg);
		return r;
	}
	*ret = cg;
	return 0;
}

/* ---- the directory watch ---------------------------------------------------- */

static void on_dir_changed(void *ctx, const char *name, enum csv_dir_change change)
{
	struct csv_sink *s = ctx;
	size_t stem_len;
	unsigned rotation;

	if (!name) {
		csv_files_drop_all(s, false);
		return;
	}
	/* Only a current file matters (moves of name.csv.N are rotations). */
	if (!csv_retention_parse_name(name, &stem_len, &rotation) || rotation != 0)
		return;
	for (struct csv_cgroup *cg = *stem_bucket(s, name, stem_len); cg; cg = cg->next_stem) {
		if (strncmp(cg->stem, name, stem_len) != 0 || cg->stem[stem_len] != '\0')
			continue;
		if (change == CSV_DIR_CLOSED)
			cg->check_size = true;
		else
			csv_file_drop(s, cg);
	}
}

/* Follow renames and removals since the last look; (re)start the watch if
 * there is none (the directory was removed, or no inotify instance was
 * left). Without a watch no descriptor is kept. */
static void watch_read(struct csv_sink *s)
{
	run_batch(s); /* events may close descriptors queued rows use */
	if (s->watch_fd < 0) {
		int fd = csv_dir_watch_open(s->cfg.directory);

		if (fd < 0) {
			if (!s->watch_reported)
				log_info(
					"csv: cannot watch %s (%s): files are opened for every row",
					s->cfg.directory, strerror(-fd));
			s->watch_reported = true;
			return;
		}
		s->watch_fd = fd;
		csv_files_drop_all(s, false); /* what happened before the watch is unknown */
		return;
	}
	if (csv_dir_watch_read(s->watch_fd, on_dir_changed, s) < 0) {
		close(s->watch_fd);
		s->watch_fd = -1;
	}
}

/* Once per batch of rows (one collection time), not per row. */
static void watch_check(struct csv_sink *s, const struct timespec *batch)
{
	if (timespec_eq(batch, &s->checked))
		return;
	s->checked = *batch;
	s->batch_ms = (int64_t)batch->tv_sec * 1000 + batch->tv_nsec / 1000000;
	s->first_open_ns = 0;
	watch_read(s);
}

/* ---- rows ------------------------------------------------------------------ */

/* The timestamp cell: every row of one collection has the same. */
static int timestamp_cell(struct csv_sink *s, const struct timespec *t, const char **ret)
{
	if (!s->ts_text[0] || !timespec_eq(t, &s->ts_time)) {
		int r = csv_format_timestamp(t, s->ts_text, sizeof(s->ts_text));

		if (r < 0) {
			s->ts_text[0] = '\0';
			return r;
		}
		s->ts_time = *t;
	}
	*ret = s->ts_text;
	return 0;
}

/* The derived columns: undefined (inputs not counted, interval unknown for
 * cpu_cores) is the empty cell. */
static void add_derived(struct csv_row *row, const struct derived_list *l,
			const struct sink_record *rec)
{
	uint64_t ns = rec->interval_known ? rec->interval_ms * 1000000 : 0;
	char cell[DERIVED_CELL_MAX];

	for (int i = 0; i < l->nr; i++) {
		derived_cell(l->m[i], rec->derived, rec->delta, ns, cell);
		csv_row_add_plain(row, cell);
	}
}

#define CSV_IDENTITY_CELLS 8

/* The cells from path to namespace. They change only when the writer
 * refreshes the cgroup's names (sink_cgroup.gen): made once per change and
 * copied into each row (quoting checks and the names' cache misses were a
 * tenth of the agent's time at 1000 cgroups). */
static void add_identity(struct csv_sink *s, struct csv_cgroup *cg, const struct sink_cgroup *c,
			 struct csv_row *row)
{
	struct csv_row *id = &cg->ident;
	bool safe = s->cfg.safe_cells;

	if (!c->gen || c->gen != cg->ident_gen) {
		csv_row_clear(id);
		id->nr_fields = 1; /* after the timestamp: every cell starts with a comma */
		csv_row_add_field(id, c->path); /* a path starts with '/': never a formula */
		csv_row_add_u64(id, c->id);
		csv_row_add_name(id, c->kind, safe);
		csv_row_add_name(id, c->runtime, safe);
		csv_row_add_name(id, c->container_id, safe);
		csv_row_add_name(id, c->container_name, safe);
		csv_row_add_name(id, c->pod, safe);
		csv_row_add_name(id, c->pod_namespace, safe);
		cg->ident_gen = id->buf.error ? 0 : c->gen;
		if (id->buf.error && !row->buf.error)
			row->buf.error = id->buf.error;
	}
	csv_row_append(row, id->buf.data, id->buf.len);
	row->nr_fields += CSV_IDENTITY_CELLS;
}

static int build_row(struct csv_sink *s, struct csv_cgroup *cg, const struct sink_record *rec)
{
	const struct sink_cgroup *c = rec->cgroup;
	struct csv_row *row = &s->row;
	const char *ts;
	int r;

	csv_row_clear(row);
	r = timestamp_cell(s, &rec->time, &ts);
	if (r < 0)
		return r;
	csv_row_add_plain(row, ts);
	add_identity(s, cg, c, row);
	if (rec->interval_known)
		csv_row_add_u64(row, rec->interval_ms);
	else
		csv_row_add_plain(row, ""); /* the start of the counts is unknown */
	csv_row_add_events(row, rec->nr_events, rec->delta);
	add_derived(row, &s->cfg.derived, rec);
	return csv_row_end(row);
}

/* Rows cg held are out of its hands: written with the row now, or dropped
 * with it (a failure answer: the agent puts their counts into a later row).
 * Returns how many (the rows the answer is for, less the row itself). */
static unsigned held_take(struct csv_sink *s, struct csv_cgroup *cg)
{
	unsigned n = cg ? cg->held_rows : 0;

	if (n) {
		csv_row_clear(&cg->held);
		cg->held_rows = 0;
		s->stats.held_now -= n;
	}
	return n;
}

/* rows were written. */
static void commit(struct csv_sink *s, unsigned rows)
{
	s->stats.rows_written += rows;
	if (s->recovered.unreported) {
		long long now = csv_monotonic_s();

		if (s->recovered.last && now - s->recovered.last < CSV_REPORT_INTERVAL_S)
			return;
		log_warn("csv: rows are written again after %" PRIu64 " failed; the next row "
			 "written for each cgroup holds the counts it missed",
			 s->recovered.unreported);
		s->recovered.last = now ? now : 1;
		s->recovered.unreported = 0;
	}
}

static void forget(struct csv_sink *s, struct csv_cgroup *cg)
{
	cgroup_unlink(s, cg);
	cgroup_free(cg);
}

/* The path's bytes are looked at only for a new file (cgroup_for): a
 * string per row is a cache miss per row. */
static int check_record(const struct sink_record *rec)
{
	if (!rec || !rec->cgroup || !rec->cgroup->path)
		return -EINVAL;
	if (rec->nr_events < 0 || rec->nr_events > READINGS_MAX_EVENTS)
		return -EINVAL;
	if (rec->nr_events > 0 && (!rec->event_names || !rec->delta))
		return -EINVAL;
	for (int i = 0; i < rec->nr_events; i++)
		if (!rec->event_names[i])
			return -EINVAL;
	return 0;
}

/* The cgroup's file state, created at its first row; its columns follow the
 * record's events. */
static int cgroup_for(struct csv_sink *s, const struct sink_record *rec, struct csv_cgroup **ret)
{
	struct csv_cgroup *cg = cgroup_lookup(s, rec->cgroup->id);
	int r;

	if (!cg && !rec->cgroup->path[0]) {
		csv_fail(s, FAIL_RECORD, "ignored a record without cgroup, path or events");
		return -EINVAL;
	}
	if (!cg) {
		r = cgroup_new(s, rec, &cg);
		if (r == -EEXIST) {
			csv_fail(s, FAIL_RECORD,
				 "no CSV file for cgroup id %" PRIu64 ": its file name "
				 "collides with another cgroup's (never shared)",
				 rec->cgroup->id);
			return r;
		}
		if (r < 0) {
			csv_fail(s, FAIL_RECORD, "cannot track cgroup id %" PRIu64 ": %s",
				 rec->cgroup->id, strerror(-r));
			return r;
		}
	}
	if (!columns_match(cg, rec) && cg->held_rows) {
		/* Held rows have the old columns: dropped, and this row
		 * with them; the next row, in the new columns, counts them.
		 * (The agent makes new outputs when its events change: a
		 * live file's columns change only through this interface.) */
		s->stats.rows_deferred += 1 + held_take(s, cg);
		return -EAGAIN;
	}
	if (!columns_match(cg, rec)) {
		r = cgroup_set_events(s, cg, rec->nr_events, rec->event_names);
		if (r < 0) {
			csv_fail(s, FAIL_RECORD, "cannot change the columns of %s: %s", cg->file,
				 strerror(-r));
			return r;
		}
	}
	order_note(s, cg);
	*ret = cg;
	return 0;
}

/* Not written: the agent keeps the counts (and a final row) for the next
 * try; cg's held rows (cg may be NULL) go with it. */
static int row_failed(struct csv_sink *s, struct csv_cgroup *cg, int r)
{
	unsigned rows = 1 + held_take(s, cg);

	s->stats.rows_failed += rows;
	s->recovered.unreported += rows;
	return r;
}

/* ---- batched rows (csv_batch.h) ------------------------------------------- */

/* A queued row's write came back. */
static void queued_done(void *ctx, unsigned idx, const char *data, size_t len, ssize_t res)
{
	struct csv_sink *s = ctx;
	struct csv_cgroup *cg = s->queued[idx].cg;
	size_t done = res > 0 ? (size_t)res : 0;
	int r = res < 0 ? (int)res : 0;

	cg->queued = false;
	if (res >= 0 && done < len) /* short: the rest as csv_file_write_some() would */
		done += csv_file_write_some(cg->fd, data + done, len - done, &r);
	r = csv_file_appended(s, cg, cg->fd, -1, len, done, r);
	if (r < 0) {
		s->stats.rows_failed += s->queued[idx].rows;
		s->recovered.unreported += s->queued[idx].rows;
	} else
		commit(s, s->queued[idx].rows);
	if (s->base.done)
		s->base.done(s->base.done_ctx, s->queued[idx].cookie, r);
}

/* Every queued row written and answered. Called before anything that may
 * close or open files: a queued row holds its file's descriptor number. */
static void run_batch(struct csv_sink *s)
{
	int r;

	if (csv_batch_count(s->batch) == 0)
		return;
	r = csv_batch_run(s->batch, queued_done, s);
	if (r < 0) {
		log_warn("csv: batched appends failed (%s); writing row by row from now on",
			 strerror(-r));
		csv_batch_free(s->batch);
		s->batch = NULL;
	}
}

/* Queue the row in s->row for cg's kept file. Returns 0, -EAGAIN when it
 * is to be written now instead, or another -errno: not written (reported). */
static int queue_row(struct csv_sink *s, struct csv_cgroup *cg, const void *cookie)
{
	bool need_header = false;
	int idx, r;

	/* BPF program rows are answered at once (agent_progs.c). */
	if (!s->batch || !s->base.done || !cookie || cg->fd < 0 || cg->queued || cg->prog)
		return -EAGAIN;
	/* No queued row names cg's descriptor, which a look may replace. */
	r = csv_file_look(s, cg, &need_header);
	if (r < 0)
		return r;
	if (csv_file_frame(s, cg, need_header, s->row.buf.data, s->row.buf.len) < 0)
		return -EAGAIN; /* the row by row path reports it */
	idx = csv_batch_add(s->batch, cg->fd, s->out.buf.data, s->out.buf.len);
	if (idx == -ENOSPC) {
		run_batch(s);
		if (!s->batch || cg->fd < 0)
			return -EAGAIN;
		idx = csv_batch_add(s->batch, cg->fd, s->out.buf.data, s->out.buf.len);
	}
	if (idx < 0)
		return idx;
	s->queued[idx] = (struct csv_queued){ cg, cookie, 1 + held_take(s, cg) };
	cg->queued = true;
	return 0;
}

/* Append the row in s->row to cg's file, or queue it (a kept file, not a
 * final row, a writer that takes late answers); after a final row cg is
 * forgotten. */
static int write_built(struct csv_sink *s, struct csv_cgroup *cg, bool final, const void *cookie)
{
	int r;

	if (cg->started && !final) {
		r = queue_row(s, cg, cookie);
		if (r == 0)
			return SINK_QUEUED;
		if (r != -EAGAIN)
			return row_failed(s, cg, r);
	}
	/* Opening a file may close kept ones (EMFILE), and cg's own queued row
	 * goes first. */
	if (cg->fd < 0 || cg->queued)
		run_batch(s);
	if (!cg->started) {
		/* A file's first row creates (or checks) it, which can cost a
		 * millisecond on a busy file system: a first interval with
		 * thousands of new cgroups must not overrun the interval.
		 * Past the budget, first rows wait for the next batch; their
		 * counts go into the row written then. Final rows never wait. */
		long long t0 = monotonic_ns();

		if (s->first_open_ns >= CSV_FIRST_ROWS_BUDGET_MS * 1000000LL && !final) {
			s->stats.rows_deferred++;
			return -EAGAIN;
		}
		cg->started = true;
		r = csv_file_append(s, cg, s->row.buf.data, s->row.buf.len);
		s->first_open_ns += monotonic_ns() - t0;
	} else
		r = csv_file_append(s, cg, s->row.buf.data, s->row.buf.len);
	if (r < 0)
		return row_failed(s, cg, r);
	commit(s, 1 + held_take(s, cg));
	if (final)
		forget(s, cg);
	return 0;
}

/* Whether the row just built for cg is held (csv.flush_interval): a file's
 * rows are written together once per flush period of collection time
 * (periods shifted by a hash of its id, so that the files' appends spread
 * over the period), with the last row of a period: the one whose next row,
 * an interval later, falls into the next period. Never a row the writer
 * cannot take SINK_HELD for, a final row, a BPF program's, one of a file
 * not as we left it (its first row makes it; after a reopen, SIGHUP, the
 * next row goes out at once), past CSV_HOLD_MAX bytes held, nor one that
 * takes the file past max_size (rotated right after, as always).
 * A clock step into another period writes what is held with the next row. */
static bool hold_due(const struct csv_sink *s, struct csv_cgroup *cg, const struct sink_record *rec)
{
	int64_t f = (int64_t)s->cfg.flush_interval_ms, phase, period;
	size_t bytes = cg->held.buf.len + s->row.buf.len;

	if (!s->base.may_hold || !rec->may_hold || rec->final || !cg->started || !cg->known ||
	    cg->prog || !rec->interval_known || rec->interval_ms >= (uint64_t)f ||
	    bytes > CSV_HOLD_MAX ||
	    (s->cfg.max_size && (uint64_t)cg->size + bytes > s->cfg.max_size))
		return false;
	phase = (int64_t)(hash_u64(cg->id) % (uint64_t)f);
	period = csv_period_of(s->batch_ms, phase, f);
	if (period != csv_period_of(s->batch_ms + (int64_t)rec->interval_ms, phase, f))
		return false;
	if (cg->held_rows && cg->hold_period != period)
		return false;
	cg->hold_period = period;
	return true;
}

/* Keep the row built in s->row with those cg holds. Returns 0 or -ENOMEM
 * (the row is then written at once, with them). */
static int hold_row(struct csv_sink *s, struct csv_cgroup *cg)
{
	size_t len = cg->held.buf.len;

	if (csv_row_append(&cg->held, s->row.buf.data, s->row.buf.len) < 0) {
		cg->held.buf.len = len;
		cg->held.buf.error = 0;
		return -ENOMEM;
	}
	cg->held_rows++;
	/* Rows, not appends, bound the next look (CSV_PREPEND_MAX). */
	cg->unchecked++;
	s->stats.rows_held++;
	s->stats.held_now++;
	return 0;
}

static int csv_sink_write(struct sink *base, const struct sink_record *rec)
{
	struct csv_sink *s = to_csv(base);
	struct csv_cgroup *cg;
	int r;

	r = check_record(rec);
	if (r < 0) {
		csv_fail(s, FAIL_RECORD, "ignored a record without cgroup, path or events");
		/* A failure answer: what the cgroup holds goes too (sink.h). */
		if (rec && rec->cgroup)
			return row_failed(s, cgroup_find(s, rec->cgroup->id, false), r);
		return r;
	}
	watch_check(s, &rec->time);
	r = cgroup_for(s, rec, &cg);
	if (r < 0)
		return r;
	r = build_row(s, cg, rec);
	if (r < 0) {
		csv_fail(s, FAIL_RECORD, "cannot format a row for %s: %s", cg->file,
			 r == -ERANGE ? "time out of range" : strerror(-r));
		return row_failed(s, cg, r);
	}
	if (hold_due(s, cg, rec) && hold_row(s, cg) == 0)
		return SINK_HELD;
	return write_built(s, cg, rec->final, rec->cookie);
}

static int build_prog_row(struct csv_sink *s, const struct sink_prog_record *rec)
{
	const struct sink_prog *p = rec->prog;
	struct csv_row *row = &s->row;
	const char *ts;
	int r;

	csv_row_clear(row);
	r = timestamp_cell(s, &rec->time, &ts);
	if (r < 0)
		return r;
	csv_row_add_plain(row, ts);
	csv_row_add_u64(row, p->id);
	/* The kernel allows only [A-Za-z0-9_.] in names: never a formula. */
	csv_row_add_field(row, p->name);
	csv_row_add_plain(row, p->tag);
	csv_row_add_field(row, p->type);
	csv_row_add_u64(row, rec->interval_ms);
	csv_row_add_u64(row, rec->runs);
	csv_row_add_u64(row, rec->run_ns);
	if (rec->nr_events > 0 && rec->counted) {
		csv_row_add_u64(row, rec->counted_runs);
		csv_row_add_events(row, rec->nr_events, rec->delta);
	} else if (rec->nr_events > 0) {
		/* No event counts for this program: empty cells, same columns. */
		for (int i = 0; i < 2 * rec->nr_events + 1; i++)
			csv_row_add_plain(row, "");
	}
	return csv_row_end(row);
}

static int csv_sink_write_prog(struct sink *base, const struct sink_prog_record *rec)
{
	struct csv_sink *s = to_csv(base);
	struct csv_cgroup *cg;
	int r;

	if (!sink_prog_record_valid(rec)) {
		csv_fail(s, FAIL_RECORD, "ignored a BPF program record without its names");
		return -EINVAL;
	}
	watch_check(s, &rec->time);
	cg = cgroup_find(s, rec->prog->id, true);
	r = cg ? 0 : prog_new(s, rec, &cg);
	if (r == 0 && !same_events(cg, rec->nr_events, rec->event_names))
		r = cgroup_set_events(s, cg, rec->nr_events, rec->event_names);
	if (r < 0) {
		csv_fail(s, FAIL_RECORD, "cannot track BPF program id %" PRIu32 ": %s",
			 rec->prog->id, strerror(-r));
		return r;
	}
	r = build_prog_row(s, rec);
	if (r < 0) {
		csv_fail(s, FAIL_RECORD, "cannot format a row for %s: %s", cg->file,
			 r == -ERANGE ? "time out of range" : strerror(-r));
		return row_failed(s, cg, r);
	}
	return write_built(s, cg, rec->final, NULL);
}

/* After a collection's rows: their answers. */
static int csv_sink_flush(struct sink *base)
{
	struct csv_sink *s = to_csv(base);

	run_batch(s);
	s->cursor = 0; /* the next collection's rows start again */
	return 0;
}

/* Once per collection: a bounded step of retention. */
static int csv_sink_tick(struct sink *base)
{
	struct csv_sink *s = to_csv(base);
	struct timespec now;

	watch_read(s);
	clock_gettime(CLOCK_REALTIME, &now);
	csv_retention_step(s->retention, stem_live, s, &now, csv_monotonic_s());
	return 0;
}

static int csv_sink_reopen(struct sink *base)
{
	struct csv_sink *s = to_csv(base);

	/* Trust nothing remembered about the files: close them, look again at
	 * the next row. */
	run_batch(s);
	csv_files_drop_all(s, true);
	if (s->watch_fd >= 0)
		close(s->watch_fd);
	s->watch_fd = -1;
	s->watch_reported = false;
	watch_read(s);
	return csv_dir_prepare(s->cfg.directory);
}

static void csv_sink_free(struct sink *base)
{
	struct csv_sink *s = to_csv(base);

	if (!s)
		return;
	run_batch(s);
	csv_batch_free(s->batch);
	for (int prog = 0; prog < 2; prog++) {
		void *cg;

		for (size_t pos = 0; id_map_next(&s->by_id[prog], &pos, NULL, &cg);) {
			csv_file_drop(s, cg);
			cgroup_free(cg);
		}
		id_map_free(&s->by_id[prog]);
	}
	if (s->watch_fd >= 0)
		close(s->watch_fd);
	csv_retention_free(s->retention);
	free(s->order);
	csv_row_free(&s->row);
	csv_row_free(&s->out);
	free(s);
}

static const struct sink_ops csv_sink_ops = {
	.name = "csv",
	.write = csv_sink_write,
	.write_prog = csv_sink_write_prog,
	.flush = csv_sink_flush,
	.tick = csv_sink_tick,
	.reopen = csv_sink_reopen,
	.free = csv_sink_free,
};

/* Half of the soft RLIMIT_NOFILE: the rest is the agent's (BPF, inotify,
 * sockets). The agent raises its soft limit to the hard one at start. */
static size_t fd_bound(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return 0;
	if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur / 2 > CSV_MAX_OPEN_FILES)
		return CSV_MAX_OPEN_FILES;
	return rl.rlim_cur / 2;
}

int csv_sink_new(const struct csv_config *cfg, struct sink **ret)
{
	struct csv_sink *s;
	int r;

	if (!cfg || !ret || !cfg->directory[0] ||
	    strnlen(cfg->directory, sizeof(cfg->directory)) == sizeof(cfg->directory))
		return -EINVAL;
	r = csv_dir_prepare(cfg->directory);
	if (r < 0)
		return r;
	if (access(cfg->directory, W_OK | X_OK) < 0)
		return -errno;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->base.ops = &csv_sink_ops;
	s->base.may_hold = cfg->flush_interval_ms > 0;
	s->cfg = *cfg;
	/* "dir/" and "dir" name the same files; keep log lines tidy. */
	for (size_t n = strlen(s->cfg.directory); n > 1 && s->cfg.directory[n - 1] == '/'; n--)
		s->cfg.directory[n - 1] = '\0';
	r = csv_retention_new(s->cfg.directory, cfg->keep_removed_ms, cfg->max_total_size,
			      &s->retention);
	if (r < 0) {
		free(s);
		return r;
	}
	s->max_fds = fd_bound();
	s->watch_fd = -1;
	r = csv_batch_new(CSV_BATCH_ROWS, &s->batch);
	if (r < 0)
		log_warn("csv: no batched appends (Linux AIO: %s): one write() per row, about "
			 "twice the CPU time per row",
			 strerror(-r));
	watch_read(s);
	*ret = &s->base;
	return 0;
}

int csv_sink_get_stats(const struct sink *s, struct csv_sink_stats *ret)
{
	const struct csv_sink *c = (const struct csv_sink *)s;
	struct csv_retention_stats rs;

	if (!s || s->ops != &csv_sink_ops || !ret)
		return -EINVAL;
	csv_retention_get_stats(c->retention, &rs);
	*ret = c->stats;
	ret->files_deleted_removed = rs.deleted_removed;
	ret->files_deleted_for_size = rs.deleted_for_size;
	ret->bytes_deleted = rs.bytes_deleted;
	ret->retention_passes = rs.passes;
	ret->retention_total = rs.last_total;
	ret->retention_sizes_known = rs.sizes_known;
	ret->files_open = c->nr_fds;
	return 0;
}
