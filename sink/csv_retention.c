// SPDX-License-Identifier: GPL-2.0-only
#include "sink/csv_retention.h"
#include "util/log.h"
#include "util/text.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Longer names are not the sink's (its stems are at most 200 bytes). */
#define NAME_MAX_OURS 223
#define REPORT_INTERVAL_S 3600

struct candidate {
	char name[NAME_MAX_OURS + 1];
	ino_t ino;
	uint64_t size;
	struct timespec mtime;
	bool expired; /* past keep_removed (else: for max_total_size) */
};

/* The CSV_RETENTION_CANDIDATES oldest files of one kind seen in a pass: a
 * max-heap on mtime, so the newest of them is the one to drop. */
struct heap {
	struct candidate items[CSV_RETENTION_CANDIDATES];
	size_t nr;
	bool dropped; /* more were seen than fit */
};

struct csv_retention {
	char *dir;
	uint64_t keep_ms, max_total;
	int dir_fd; /* during a pass and while deletions are queued */
	DIR *scan; /* during a pass */
	long long pass_started; /* monotonic s; 0: never */
	uint64_t total; /* bytes of our files seen so far in this pass */
	struct heap removed, rotated;
	struct candidate expired[CSV_RETENTION_CANDIDATES];
	size_t nr_expired;
	bool again; /* the last pass saw more than it could take: next one at once */
	/* Decided at the end of a pass, carried out a few per step. */
	struct candidate *queue;
	size_t nr_queue, queue_pos;
	struct csv_retention_stats stats;
	long long reported; /* monotonic s of the last "cannot meet" line */
};

static bool stem_char(unsigned char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       c == '.' || c == '_' || c == '-';
}

bool csv_retention_parse_name(const char *name, size_t *ret_stem_len, unsigned *ret_rotation)
{
	size_t len = strnlen(name, NAME_MAX_OURS + 1), end = len, stem_len;
	unsigned long rot = 0;

	if (len > NAME_MAX_OURS)
		return false;
	/* A ".N" rotation suffix. */
	while (end > 0 && name[end - 1] >= '0' && name[end - 1] <= '9')
		end--;
	if (end < len) {
		if (end == 0 || name[end - 1] != '.' || name[end] == '0' || len - end > 4)
			return false;
		rot = strtoul(name + end, NULL, 10);
		end--;
	}
	if (end < 5 || memcmp(name + end - 4, ".csv", 4) != 0)
		return false;
	stem_len = end - 4;
	for (size_t i = 0; i < stem_len; i++)
		if (!stem_char(name[i]))
			return false;
	*ret_stem_len = stem_len;
	*ret_rotation = (unsigned)rot;
	return true;
}

static int ts_cmp(const struct timespec *a, const struct timespec *b)
{
	if (a->tv_sec != b->tv_sec)
		return a->tv_sec < b->tv_sec ? -1 : 1;
	return a->tv_nsec < b->tv_nsec ? -1 : a->tv_nsec > b->tv_nsec;
}

static void heap_swap(struct heap *h, size_t a, size_t b)
{
	struct candidate t = h->items[a];

	h->items[a] = h->items[b];
	h->items[b] = t;
}

static void heap_down(struct heap *h, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;

		if (l < h->nr && ts_cmp(&h->items[l].mtime, &h->items[m].mtime) > 0)
			m = l;
		if (r < h->nr && ts_cmp(&h->items[r].mtime, &h->items[m].mtime) > 0)
			m = r;
		if (m == i)
			return;
		heap_swap(h, i, m);
		i = m;
	}
}

/* Keep c if it is among the oldest CSV_RETENTION_CANDIDATES seen. */
static void heap_offer(struct heap *h, const struct candidate *c)
{
	size_t i;

	if (h->nr == CSV_RETENTION_CANDIDATES) {
		h->dropped = true;
		if (ts_cmp(&c->mtime, &h->items[0].mtime) >= 0)
			return;
		h->items[0] = *c;
		heap_down(h, 0);
		return;
	}
	i = h->nr++;
	h->items[i] = *c;
	while (i > 0 && ts_cmp(&h->items[(i - 1) / 2].mtime, &h->items[i].mtime) < 0) {
		heap_swap(h, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
}

static int by_age(const void *a, const void *b)
{
	return ts_cmp(&((const struct candidate *)a)->mtime, &((const struct candidate *)b)->mtime);
}

int csv_retention_new(const char *dir, uint64_t keep_removed_ms, uint64_t max_total_size,
		      struct csv_retention **ret)
{
	struct csv_retention *r;

	if (!keep_removed_ms && !max_total_size) {
		*ret = NULL;
		return 0;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->queue = calloc(3 * CSV_RETENTION_CANDIDATES, sizeof(*r->queue));
	r->dir = strdup(dir);
	if (!r->queue || !r->dir) {
		csv_retention_free(r);
		return -ENOMEM;
	}
	r->keep_ms = keep_removed_ms;
	r->max_total = max_total_size;
	r->dir_fd = -1;
	*ret = r;
	return 0;
}

void csv_retention_free(struct csv_retention *r)
{
	if (!r)
		return;
	if (r->scan)
		closedir(r->scan);
	if (r->dir_fd >= 0)
		close(r->dir_fd);
	free(r->queue);
	free(r->dir);
	free(r);
}

static bool past_keep(const struct csv_retention *r, const struct timespec *mtime,
		      const struct timespec *now)
{
	int64_t age_ms = ((int64_t)now->tv_sec - mtime->tv_sec) * 1000 +
			 (now->tv_nsec - mtime->tv_nsec) / 1000000;

	return r->keep_ms && age_ms >= 0 && (uint64_t)age_ms >= r->keep_ms;
}

static bool pass_begin(struct csv_retention *r, long long mono_s)
{
	int fd, fd2;

	if (r->pass_started && !r->again && mono_s - r->pass_started < CSV_RETENTION_PASS_S)
		return false;
	r->pass_started = mono_s ? mono_s : 1;
	fd = open(r->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return false; /* the sink reports a missing directory itself */
	fd2 = dup(fd);
	r->scan = fd2 >= 0 ? fdopendir(fd2) : NULL;
	if (!r->scan) {
		if (fd2 >= 0)
			close(fd2);
		close(fd);
		return false;
	}
	if (r->dir_fd >= 0)
		close(r->dir_fd);
	r->dir_fd = fd;
	r->total = 0;
	r->removed.nr = r->rotated.nr = 0;
	r->removed.dropped = r->rotated.dropped = false;
	r->nr_expired = 0;
	r->again = false;
	return true;
}

/* One directory entry of a pass. */
static void pass_entry(struct csv_retention *r, const char *name, csv_stem_live_fn live, void *ctx,
		       const struct timespec *now)
{
	struct candidate c = { 0 };
	size_t stem_len;
	unsigned rotation;
	int64_t known = -1;
	struct stat st;
	bool is_live;

	if (!csv_retention_parse_name(name, &stem_len, &rotation))
		return;
	is_live = live(ctx, name, stem_len, rotation == 0 ? &known : NULL);
	if (is_live && rotation == 0 && known >= 0) {
		/* Its size from the writer: no stat (its mtime does not matter). */
		r->total += (uint64_t)known;
		r->stats.sizes_known++;
		return;
	}
	if (fstatat(r->dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
		return;
	r->total += (uint64_t)st.st_size;
	if (is_live && rotation == 0)
		return; /* a live cgroup's current file: never a candidate */
	memcpy(c.name, name, strlen(name) + 1);
	c.ino = st.st_ino;
	c.size = (uint64_t)st.st_size;
	c.mtime = st.st_mtim;
	if (!is_live && past_keep(r, &c.mtime, now)) {
		c.expired = true;
		if (r->nr_expired < CSV_RETENTION_CANDIDATES)
			r->expired[r->nr_expired++] = c;
		else
			r->again = true; /* the next pass takes the rest */
		return;
	}
	heap_offer(is_live ? &r->rotated : &r->removed, &c);
}

/* End of a pass: what to delete. Expired files first, then as many of the
 * oldest removed, then rotated files, as bring the total under the limit. */
static void pass_decide(struct csv_retention *r, long long mono_s)
{
	uint64_t total = r->total;
	struct heap *kinds[] = { &r->removed, &r->rotated };
	bool incomplete = false;

	r->nr_queue = r->queue_pos = 0;
	for (size_t i = 0; i < r->nr_expired; i++) {
		r->queue[r->nr_queue++] = r->expired[i];
		total -= r->expired[i].size < total ? r->expired[i].size : total;
	}
	for (int k = 0; k < 2 && r->max_total && total > r->max_total; k++) {
		struct heap *h = kinds[k];

		qsort(h->items, h->nr, sizeof(h->items[0]), by_age);
		for (size_t i = 0; i < h->nr && total > r->max_total; i++) {
			r->queue[r->nr_queue++] = h->items[i];
			total -= h->items[i].size < total ? h->items[i].size : total;
		}
		incomplete |= h->dropped;
	}
	r->again |= incomplete && total > r->max_total;
	r->stats.passes++;
	r->stats.last_total = r->total;
	if (r->max_total && total > r->max_total && !incomplete &&
	    (!r->reported || mono_s - r->reported >= REPORT_INTERVAL_S)) {
		char shown[600];

		text_escape_control(r->dir, shown, sizeof(shown));
		log_warn("csv: the files in %s take %" PRIu64
			 " bytes, over max_total_size (%" PRIu64
			 "), in the current files of live cgroups, which are never deleted; raise "
			 "max_total_size or lower max_size",
			 shown, total, r->max_total);
		r->reported = mono_s ? mono_s : 1;
	}
}

static void pass_scan(struct csv_retention *r, csv_stem_live_fn live, void *ctx,
		      const struct timespec *now, long long mono_s)
{
	for (int n = 0; n < CSV_RETENTION_SCAN; n++) {
		struct dirent *de;

		errno = 0;
		de = readdir(r->scan);
		if (!de) {
			closedir(r->scan);
			r->scan = NULL;
			pass_decide(r, mono_s);
			return;
		}
		if (de->d_type == DT_REG || de->d_type == DT_UNKNOWN)
			pass_entry(r, de->d_name, live, ctx, now);
	}
}

/* Delete a few queued files, each checked again first: it may belong to a
 * cgroup that came back, or have been replaced since the pass saw it. */
static void delete_some(struct csv_retention *r, csv_stem_live_fn live, void *ctx)
{
	for (int n = 0; n < CSV_RETENTION_DELETE && r->queue_pos < r->nr_queue; n++) {
		const struct candidate *c = &r->queue[r->queue_pos++];
		size_t stem_len;
		unsigned rotation;
		struct stat st;

		if (!csv_retention_parse_name(c->name, &stem_len, &rotation))
			continue;
		if (live(ctx, c->name, stem_len, NULL) && (rotation == 0 || c->expired))
			continue;
		if (fstatat(r->dir_fd, c->name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    st.st_ino != c->ino || !S_ISREG(st.st_mode))
			continue;
		if (unlinkat(r->dir_fd, c->name, 0) < 0)
			continue;
		if (c->expired)
			r->stats.deleted_removed++;
		else
			r->stats.deleted_for_size++;
		r->stats.bytes_deleted += (uint64_t)st.st_size;
	}
	if (r->queue_pos == r->nr_queue) {
		r->nr_queue = r->queue_pos = 0;
		if (!r->scan && r->dir_fd >= 0) {
			close(r->dir_fd);
			r->dir_fd = -1;
		}
	}
}

void csv_retention_step(struct csv_retention *r, csv_stem_live_fn live, void *ctx,
			const struct timespec *now, long long mono_s)
{
	if (!r)
		return;
	if (!r->scan && r->queue_pos == r->nr_queue && !pass_begin(r, mono_s))
		return;
	if (r->scan)
		pass_scan(r, live, ctx, now, mono_s);
	delete_some(r, live, ctx);
}

void csv_retention_get_stats(const struct csv_retention *r, struct csv_retention_stats *ret)
{
	*ret = r ? r->stats : (struct csv_retention_stats){ 0 };
}
