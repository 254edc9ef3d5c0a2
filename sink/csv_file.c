// SPDX-License-Identifier: GPL-2.0-only
/* One cgroup's CSV file: opened (never through a symlink or FIFO), checked
 * (header, an unfinished line left by a killed writer, where it ends after
 * a truncation), appended to, rotated past max_size, repaired after a
 * truncation by path; and the sink's failure reports, rate-limited. */
#include "sink/csv_sink_int.h"
#include "sink/csv_dir.h"
#include "util/log.h"
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* cg->period_ms: the start of the period of CSV_SIZE_CHECK_MS of collection
 * time the current collection is in, for cg. Periods start at the file's
 * own phase (whole seconds of its id), so that the files' looks spread over
 * the period and stay spread after all of them were looked at together (a
 * SIGHUP, a clock step). */
void csv_note_look_period(const struct csv_sink *s, struct csv_cgroup *cg)
{
	int64_t phase = (int64_t)(cg->id % (CSV_SIZE_CHECK_MS / 1000)) * 1000;

	cg->period_ms =
		phase + csv_period_of(s->batch_ms, phase, CSV_SIZE_CHECK_MS) * CSV_SIZE_CHECK_MS;
}

long long csv_monotonic_s(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec;
}

static enum csv_failure failure_of_errno(int err)
{
	switch (err) {
	case -ENOSPC:
	case -EDQUOT:
	case -EFBIG:
		return FAIL_NO_SPACE;
	case -EIO:
		return FAIL_IO;
	default:
		return FAIL_WRITE;
	}
}

/* One failure of `kind`; prints a line unless one was printed less than
 * CSV_REPORT_INTERVAL_S ago, in which case the next line counts this one. */
void csv_fail(struct csv_sink *s, enum csv_failure kind, const char *fmt, ...)
{
	struct csv_report *rep = &s->reports[kind];
	long long now = csv_monotonic_s();
	char what[768];
	va_list ap;

	rep->unreported++;
	if (rep->last && now - rep->last < CSV_REPORT_INTERVAL_S)
		return;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (kind == FAIL_RECORD || kind == FAIL_ROTATE)
		log_warn("csv: %s (%" PRIu64 " times since the last report)", log_name(what),
			 rep->unreported);
	else
		log_warn("csv: %s (%" PRIu64
			 " rows not written since the last report; the next row "
			 "written for each cgroup holds the counts of the rows missed)",
			 log_name(what), rep->unreported);
	rep->last = now ? now : 1;
	rep->unreported = 0;
}

/* Close a kept descriptor, still remembering the file as we left it: the
 * next row opens it by name and sees whether it is that file (else: an
 * external rotation, counted there). */
void csv_file_drop(struct csv_sink *s, struct csv_cgroup *cg)
{
	if (cg->fd >= 0) {
		close(cg->fd);
		cg->fd = -1;
		s->nr_fds--;
	}
}

/* Close and forget: the next row checks the file from scratch. */
void csv_file_close(struct csv_sink *s, struct csv_cgroup *cg)
{
	csv_file_drop(s, cg);
	cg->known = false;
}

void csv_files_drop_all(struct csv_sink *s, bool forget_files)
{
	void *cg;

	for (int prog = 0; prog < 2; prog++)
		for (size_t pos = 0; id_map_next(&s->by_id[prog], &pos, NULL, &cg);)
			if (forget_files)
				csv_file_close(s, cg);
			else
				csv_file_drop(s, cg);
}

/* Open the file for appending, creating it FILE_MODE (whatever the umask).
 * O_NOFOLLOW and O_NONBLOCK: a symlink or FIFO planted in the directory makes
 * the open fail instead of sending rows elsewhere or hanging the agent. */
static int open_file(struct csv_sink *s, struct csv_cgroup *cg)
{
	const int flags = O_RDWR | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC;

	for (int attempt = 0; attempt < 3; attempt++) {
		int fd = open(cg->file, flags);

		if (fd >= 0 || errno != ENOENT)
			return fd >= 0 ? fd : -errno;
		/* O_EXCL: we know we created it, so the mode is ours to set. */
		fd = open(cg->file, flags | O_CREAT | O_EXCL, FILE_MODE);
		if (fd >= 0) {
			if (fchmod(fd, FILE_MODE) < 0) {
				int r = -errno;
				close(fd);
				return r;
			}
			return fd;
		}
		if (errno == ENOENT) {
			/* The directory itself was removed: make it again. */
			int r = csv_dir_prepare(s->cfg.directory);
			if (r < 0)
				return r;
		} else if (errno != EEXIST)
			return -errno;
		/* else: created by someone between the two opens; again. */
	}
	return -EAGAIN;
}

static int pread_all(int fd, void *buf, size_t len, off_t off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(fd, (char *)buf + done, len - done, off + done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -ENODATA;
		done += n;
	}
	return 0;
}

static int file_has_header(int fd, const struct csv_row *header, bool *ret)
{
	char *buf = malloc(header->buf.len);
	int r;

	if (!buf)
		return -ENOMEM;
	r = pread_all(fd, buf, header->buf.len, 0);
	if (r == -ENODATA) {
		*ret = false;
		r = 0;
	} else if (r == 0)
		*ret = memcmp(buf, header->buf.data, header->buf.len) == 0;
	free(buf);
	return r;
}

/* The file ends in an unfinished line (a row cut short by a crash or a full
 * disk that could not be cut off then): cut it off at the end of the last
 * complete row. Line ends inside quoted fields do not count, so this reads
 * the file from the start; it only happens after such a failure. If the cut
 * fails, the next row starts with what closes the unfinished one. */
static int cut_unfinished_line(struct csv_sink *s, struct csv_cgroup *cg, int fd, off_t size)
{
	char buf[65536];
	off_t off = 0, row_end = 0;
	bool inside = false;

	while (off < size) {
		ssize_t n = pread(fd, buf, sizeof(buf), off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		for (ssize_t i = 0; i < n; i++)
			if (buf[i] == '"')
				inside = !inside;
			else if (buf[i] == '\n' && !inside)
				row_end = off + i + 1;
		off += n;
	}
	s->stats.partial_rows++;
	if (ftruncate(fd, row_end) == 0) {
		log_warn("csv: %s ended in an unfinished row; cut it off", log_name(cg->file));
		return 0;
	}
	log_warn("csv: %s ends in an unfinished row that cannot be cut off (%m); the next row "
		 "starts on a new line",
		 log_name(cg->file));
	snprintf(cg->repair, sizeof(cg->repair), "%s\n", inside ? "\"" : "");
	return 0;
}

/* fd's file, size bytes (> 0), found shorter or reopened: when its last
 * byte does not end a line, cut_unfinished_line(). Returns 1 when it did, 0
 * when the file ends on a line, or -errno. */
static int end_on_a_line(struct csv_sink *s, struct csv_cgroup *cg, int fd, off_t size)
{
	char last;
	int r = pread_all(fd, &last, 1, size - 1);

	if (r < 0 || last == '\n')
		return r;
	r = cut_unfinished_line(s, cg, fd, size);
	return r < 0 ? r : 1;
}

/* Move name.csv out of the way: name.csv.N-1 -> .N, ..., name.csv -> .1;
 * the oldest beyond max_files is deleted (max_files 0: the file itself). */
static int rotate_files(struct csv_sink *s, struct csv_cgroup *cg)
{
	unsigned keep = s->cfg.max_files, n = 0;
	size_t len = strlen(cg->file) + 16;
	char *from = malloc(len), *to = malloc(len);
	int r = 0;

	/* A kept descriptor would follow the file to name.csv.1. */
	csv_file_close(s, cg);
	if (!from || !to) {
		r = -ENOMEM;
		goto out;
	}
	if (keep == 0) {
		if (unlink(cg->file) < 0 && errno != ENOENT)
			r = -errno;
		goto out;
	}
	/* Only the run .1, .2, ... that exists is shifted: a large max_files
	 * costs nothing until there are that many files. */
	while (n < keep) {
		snprintf(from, len, "%s.%u", cg->file, n + 1);
		if (access(from, F_OK) < 0)
			break;
		n++;
	}
	if (n == keep) {
		if (unlink(from) < 0 && errno != ENOENT) {
			r = -errno;
			goto out;
		}
		n--;
	}
	for (unsigned i = n; i >= 1; i--) {
		snprintf(from, len, "%s.%u", cg->file, i);
		snprintf(to, len, "%s.%u", cg->file, i + 1);
		if (rename(from, to) < 0 && errno != ENOENT) {
			r = -errno;
			goto out;
		}
	}
	snprintf(to, len, "%s.1", cg->file);
	if (rename(cg->file, to) < 0 && errno != ENOENT)
		r = -errno;
out:
	if (r < 0)
		csv_fail(s, FAIL_ROTATE, "cannot rotate %s: %s", cg->file, strerror(-r));
	else
		s->stats.rotations++;
	free(from);
	free(to);
	return r;
}

/* write() until done or an error; returns bytes written and sets *ret_err. */
size_t csv_file_write_some(int fd, const char *buf, size_t len, int *ret_err)
{
	size_t done = 0;

	*ret_err = 0;
	while (done < len) {
		ssize_t n = write(fd, buf + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			*ret_err = -errno;
			break;
		}
		if (n == 0) {
			*ret_err = -ENOSPC;
			break;
		}
		done += n;
	}
	return done;
}

/* Open cg's file ready for the next row. *ret_need_header: the file is
 * empty. A file with another header is rotated away first (never mix
 * headers); an unfinished last line is cut off. */
static int open_for_append(struct csv_sink *s, struct csv_cgroup *cg, struct stat *ret_st,
			   bool *ret_need_header)
{
	for (int attempt = 0; attempt < 3; attempt++) {
		struct stat st;
		bool same, header_ok = false;
		int fd, r;

		fd = open_file(s, cg);
		if ((fd == -EMFILE || fd == -ENFILE) && s->nr_fds > 0) {
			/* The process's descriptors ran out (other parts of the
			 * agent need them too): keep fewer open from now on. */
			csv_fail(s, FAIL_OPEN,
				 "out of file descriptors with %zu CSV files open; "
				 "keeping at most %zu open from now on",
				 s->nr_fds, s->nr_fds / 2);
			s->max_fds = s->nr_fds / 2;
			csv_files_drop_all(s, false);
			continue;
		}
		if (fd == -ELOOP) {
			csv_fail(s, FAIL_OPEN, "refusing %s: it is a symbolic link", cg->file);
			return fd;
		}
		if (fd < 0) {
			csv_fail(s, FAIL_OPEN, "cannot open %s: %s", cg->file, strerror(-fd));
			return fd;
		}
		if (fstat(fd, &st) < 0) {
			r = -errno;
			csv_fail(s, FAIL_OPEN, "cannot stat %s: %s", cg->file, strerror(-r));
			close(fd);
			return r;
		}
		if (!S_ISREG(st.st_mode)) {
			csv_fail(s, FAIL_OPEN, "cannot use %s: not a regular file", cg->file);
			close(fd);
			return -EINVAL;
		}
		same = cg->known && st.st_dev == cg->dev && st.st_ino == cg->ino;
		if (same && st.st_size >= cg->size) {
			*ret_st = st;
			*ret_need_header = st.st_size == 0;
			return fd;
		}
		if (cg->known) {
			/* logrotate: renamed or removed (another inode now, or a new
			 * file), or copytruncate (the same inode, shorter). */
			s->stats.external_rotations++;
			log_info("csv: %s was %s; continuing in the file now there",
				 log_name(cg->file), same ? "truncated" : "moved or removed");
		}
		if (!same)
			cg->repair[0] = '\0';
		cg->known = false;
		if (st.st_size == 0) {
			*ret_st = st;
			*ret_need_header = true;
			return fd;
		}
		r = file_has_header(fd, &cg->header, &header_ok);
		if (r < 0) {
			csv_fail(s, FAIL_OPEN, "cannot read %s: %s", cg->file, strerror(-r));
			close(fd);
			return r;
		}
		if (!header_ok) {
			close(fd);
			log_info("csv: %s has other columns (event set changed?); rotating it",
				 log_name(cg->file));
			r = rotate_files(s, cg);
			if (r < 0)
				return r;
			continue;
		}
		r = end_on_a_line(s, cg, fd, st.st_size);
		if (r >= 0 && fstat(fd, &st) < 0)
			r = -errno;
		if (r < 0) {
			csv_fail(s, FAIL_OPEN, "cannot read %s: %s", cg->file, strerror(-r));
			close(fd);
			return r;
		}
		*ret_st = st;
		*ret_need_header = false;
		return fd;
	}
	csv_fail(s, FAIL_OPEN, "cannot open %s: keeps changing under us", cg->file);
	return -EAGAIN;
}

/* cg's file holds size bytes of our rows and no header (emptied by path,
 * rows written since). Header and rows go into a new file renamed over it:
 * a failure or a crash leaves the file as it was. Its descriptor becomes
 * the kept one. Returns 0 or -errno (-EFBIG: more than CSV_PREPEND_MAX). */
static int rewrite_with_header(struct csv_cgroup *cg, off_t size)
{
	const int flags = O_RDWR | O_APPEND | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
	size_t len = cg->header.buf.len + (size_t)size;
	char *tmp = NULL, *buf = NULL;
	struct stat st;
	int fd = -1, r;

	if (size > CSV_PREPEND_MAX)
		return -EFBIG;
	buf = malloc(len);
	if (!buf || asprintf(&tmp, "%s.tmp", cg->file) < 0) {
		free(buf);
		return -ENOMEM;
	}
	memcpy(buf, cg->header.buf.data, cg->header.buf.len);
	r = pread_all(cg->fd, buf + cg->header.buf.len, (size_t)size, 0);
	if (r == 0) {
		(void)unlink(tmp); /* left by a crash: the directory is ours alone */
		fd = open(tmp, flags, FILE_MODE);
		r = fd < 0 ? -errno : 0;
	}
	if (r == 0 && fchmod(fd, FILE_MODE) < 0)
		r = -errno;
	if (r == 0 && csv_file_write_some(fd, buf, len, &r) != len && r == 0)
		r = -EIO;
	if (r == 0 && (fstat(fd, &st) < 0 || rename(tmp, cg->file) < 0))
		r = -errno;
	if (r < 0 && fd >= 0) {
		close(fd);
		unlink(tmp);
	} else if (r == 0) {
		close(cg->fd);
		cg->fd = fd;
		cg->dev = st.st_dev;
		cg->ino = st.st_ino;
		cg->size = (off_t)len;
	}
	free(buf);
	free(tmp);
	return r;
}

/* A kept file's end is looked at before its first row of a new period
 * (csv_note_look_period; also after a clock step, back or forward), after
 * CSV_SIZE_CHECK_ROWS rows, and after the directory watch saw a writer close
 * the file (a truncation through a descriptor, copytruncate's, is followed
 * by its close), not before every row: one syscall per row was a fifth of
 * the agent's time. */
static bool end_due(const struct csv_sink *s, const struct csv_cgroup *cg)
{
	int64_t in_period = s->batch_ms - cg->period_ms;

	return cg->check_size || cg->unchecked >= CSV_SIZE_CHECK_ROWS || in_period < 0 ||
	       in_period >= CSV_SIZE_CHECK_MS;
}

/* Before a row on cg's kept descriptor: where does the file end? Where our
 * rows ended: nothing happened. At 0: emptied (copytruncate), the row starts
 * with the header (*ret_need_header). Short but still starting with our
 * header: cut by someone (truncate -s N); an unfinished last line is cut
 * off. Short without it: emptied by path (truncate(2), seen by the periodic
 * look only) and our rows written since: they get the header back. Longer:
 * someone appended; taken as it is. (SEEK_END, not the offset: a batched
 * append, like pwrite, leaves the offset alone.) Returns 0 or -errno. */
static int check_end(struct csv_sink *s, struct csv_cgroup *cg, bool *ret_need_header)
{
	off_t end = lseek(cg->fd, 0, SEEK_END);
	bool header_ok = false;
	int r;

	csv_note_look_period(s, cg);
	cg->unchecked = 0;
	cg->check_size = false;
	if (end < 0)
		return -errno;
	if (end >= cg->size) {
		cg->size = end;
		return 0;
	}
	s->stats.external_rotations++;
	log_info("csv: %s was truncated; continuing in it", log_name(cg->file));
	cg->size = end;
	if (end == 0) {
		*ret_need_header = true;
		return 0;
	}
	r = file_has_header(cg->fd, &cg->header, &header_ok);
	if (r < 0 || !header_ok)
		return r < 0 ? r : rewrite_with_header(cg, end);
	r = end_on_a_line(s, cg, cg->fd, end);
	if (r <= 0)
		return r;
	cg->size = lseek(cg->fd, 0, SEEK_END);
	return cg->size < 0 ? -errno : 0;
}

/* A descriptor for cg's file: the kept one, or one opened now.
 * *ret_start: the file size before the row, when known from an fstat. */
static int get_fd(struct csv_sink *s, struct csv_cgroup *cg, off_t *ret_start,
		  bool *ret_need_header)
{
	struct stat st = { 0 };
	int fd;

	if (cg->fd >= 0) {
		*ret_start = -1;
		*ret_need_header = false;
		return cg->fd;
	}
	fd = open_for_append(s, cg, &st, ret_need_header);
	if (fd < 0)
		return fd;
	cg->dev = st.st_dev;
	cg->ino = st.st_ino;
	cg->size = st.st_size;
	*ret_start = st.st_size;
	return fd;
}

/* Done with fd for this row. After a complete row (so the file has its
 * header) a newly opened one is kept, if the watch runs and the bound
 * allows; otherwise closed. */
static void put_fd(struct csv_sink *s, struct csv_cgroup *cg, int fd, bool row_written)
{
	if (fd == cg->fd)
		return;
	if (row_written && cg->known && s->watch_fd >= 0 && s->nr_fds < s->max_fds) {
		cg->fd = fd;
		s->nr_fds++;
		return;
	}
	close(fd);
}

/* The bytes of a row in s->out: the header first into an empty file, else
 * what closes an unfinished line; then the rows cg holds, then the row.
 * Returns 0 or -errno. */
int csv_file_frame(struct csv_sink *s, struct csv_cgroup *cg, bool need_header, const char *data,
		   size_t len)
{
	csv_row_clear(&s->out);
	if (need_header)
		csv_row_append(&s->out, cg->header.buf.data, cg->header.buf.len);
	else
		csv_row_append(&s->out, cg->repair, strlen(cg->repair));
	if (cg->held_rows)
		csv_row_append(&s->out, cg->held.buf.data, cg->held.buf.len);
	csv_row_append(&s->out, data, len);
	return s->out.buf.error;
}

/* A row of len bytes went to fd: done of them, r the error if not all.
 * start: the file's size before it when known from an fstat (else -1: the
 * kept descriptor). On failure the file is left as it was: a partial row is
 * cut off again. Returns 0 or -errno. */
int csv_file_appended(struct csv_sink *s, struct csv_cgroup *cg, int fd, off_t start, size_t len,
		      size_t done, int r)
{
	if (done == len) {
		cg->known = true;
		cg->repair[0] = '\0';
		if (start >= 0) {
			cg->size = start + done;
			put_fd(s, cg, fd, true);
		} else {
			cg->size += (off_t)done;
			cg->unchecked++;
		}
		if (s->cfg.max_size && (uint64_t)cg->size > s->cfg.max_size)
			(void)rotate_files(s, cg); /* reported inside; the row is written */
		return 0;
	}
	/* What reached the file is not known for sure (a batched append said
	 * failed may be in it): its end is looked at before the next row. */
	cg->check_size = true;
	if (done > 0) {
		/* Nobody else appends to our files, so the row began where the
		 * file ends now, less what was written: cut it off there. */
		off_t end = lseek(fd, 0, SEEK_END);

		s->stats.partial_rows++;
		if (end < (off_t)done || ftruncate(fd, end - done) < 0) {
			put_fd(s, cg, fd, false);
			csv_file_close(s, cg); /* the next open finds the unfinished line */
		} else
			put_fd(s, cg, fd, false);
		csv_fail(s, FAIL_PARTIAL, "only %zu of %zu bytes of a row reached %s: %s", done,
			 len, cg->file, strerror(-r));
		return r;
	}
	csv_fail(s, failure_of_errno(r), "cannot write to %s: %s", cg->file, strerror(-r));
	put_fd(s, cg, fd, false);
	return r;
}

/* Before a row on cg's kept descriptor: its end looked at if due
 * (check_end). Returns 0 or -errno (reported; the file is closed, the next
 * row opens it and looks at it from scratch). */
int csv_file_look(struct csv_sink *s, struct csv_cgroup *cg, bool *ret_need_header)
{
	int r = end_due(s, cg) ? check_end(s, cg, ret_need_header) : 0;

	if (r < 0) {
		csv_fail(s, FAIL_TRUNCATED, "cannot look at %s after a truncation: %s", cg->file,
			 strerror(-r));
		csv_file_close(s, cg);
	}
	return r;
}

/* Append one row (data, complete lines) to cg's file with one write() (a
 * second only to finish after a short write). */
int csv_file_append(struct csv_sink *s, struct csv_cgroup *cg, const char *data, size_t len)
{
	bool need_header = false;
	off_t start;
	size_t done;
	int fd, r;

	fd = get_fd(s, cg, &start, &need_header);
	if (fd < 0)
		return fd;
	if (start < 0) {
		r = csv_file_look(s, cg, &need_header);
		if (r < 0)
			return r;
		fd = cg->fd; /* a rewrite replaced it */
	}
	r = csv_file_frame(s, cg, need_header, data, len);
	if (r < 0) {
		csv_fail(s, FAIL_RECORD, "cannot build a row for %s: %s", cg->file, strerror(-r));
		put_fd(s, cg, fd, false);
		return r;
	}
	done = csv_file_write_some(fd, s->out.buf.data, s->out.buf.len, &r);
	return csv_file_appended(s, cg, fd, start, s->out.buf.len, done, r);
}
