// SPDX-License-Identifier: GPL-2.0-only
/* One worker thread, two lists under one mutex: requests in, results out;
 * an eventfd tells the loop that results wait. The worker owns the
 * metadata cache (not thread-safe, and only it reads files).
 *
 * A lookup can hang in a read no signal ends (a stalled network mount; a
 * FUSE mount, which cgroup/metadata.c refuses to enter under a tenant's
 * storage but not under the host's). Such a worker is left behind after
 * STUCK_S and a new one takes the queue; a storage that was stuck or slow
 * is skipped (answered without names, without reading) while a thread is
 * stuck in it and for a cool-down after, doubled each time (1 min to 1 h),
 * so one storage can neither hold the others' names nor pile up threads
 * reload after reload. A lookup answered without reading is asked again
 * once its storage is not skipped any more (looked at every RETRY_S): a
 * container that came during a cool-down gets its names when it ends. */
#include "agent/name_lookup.h"
#include "util/log.h"
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

/* One lookup takes milliseconds; one still going after seconds is stuck. */
#define STUCK_S 5
/* A lookup this slow puts its storage in the cool-down too. */
#define SLOW_S 2
#define COOL_MIN_S 60
#define COOL_MAX_S 3600
/* Threads left behind in the whole process at most: past it no new worker
 * starts and lookups are answered without names until one returns. */
#define MAX_LEFT_BEHIND 8
/* Storages remembered as stuck or slow (more than there can be threads). */
#define MAX_STUCK_KEYS 32
/* Lookups answered without reading, kept to be asked again: at most this
 * many (more are answered once, without names; counted). */
#define MAX_RETRY 4096
#define RETRY_S 30

struct job {
	struct job *next;
	bool retried; /* from the retry list: answered (without names) once already */
	uint64_t id;
	char *path;
	struct cg_identity ident;
	struct cg_metadata meta;
};

struct job_list {
	struct job *head, *tail;
};

/* The storage a lookup reads: a rootless user's (every runtime's storage
 * there is the tenant's, often one home), else the host's runtime's (its
 * lookups share index files and directories). */
struct storage_key {
	char s[sizeof(((struct cg_identity *)0)->runtime) + 16]; /* "user UID", "host RUNTIME" */
};

struct worker {
	struct name_lookup *nl; /* not touched once abandoned */
	pthread_t thread;
	struct metadata_roots roots; /* copies, the worker's own */
	struct job *current; /* under nl->lock */
	double since; /* when current began (now_s()); written by the worker,
	               * read by others under nl->lock */
	bool abandoned; /* under stuck_lock: frees itself, never touches nl */
	struct storage_key key; /* of current, once abandoned */
};

struct name_lookup {
	struct metadata_roots roots; /* copies, for each new worker */
	struct worker *w; /* NULL: none (a stuck one left behind at the cap) */
	pthread_mutex_t lock;
	pthread_cond_t wake;
	struct job_list todo, done;
	struct job_list retry; /* answered without reading: asked again later */
	int nr_retry;
	bool stop;
	bool finished; /* the worker is past its last use of the lock */
	bool left_behind; /* the worker frees everything when it finishes */
	bool said_cap; /* this episode at the cap is said */
	int event_fd; /* results wait */
	int timer_fd; /* a lookup may be stuck: look */
	int retry_fd; /* timer: unread lookups may be asked again */
	int poll_fd; /* epoll of all three, what the loop polls */
	unsigned long long nr_done, nr_left_behind, nr_skipped, nr_retried, nr_not_retried;
	bool said_retry_full;
	struct metadata_cache_stats cache_stats; /* copied by the worker */
};

/* Storage that was stuck or slow, process-wide: a reload's new name_lookup
 * must not walk into the same hang. Lock order: stuck_lock, then a
 * name_lookup's lock. */
static pthread_mutex_t stuck_lock = PTHREAD_MUTEX_INITIALIZER;
static struct stuck_entry {
	bool used;
	struct storage_key key;
	int threads; /* stuck in it now */
	double until; /* CLOCK_MONOTONIC s: skipped before this */
	int cool_s; /* the next cool-down */
} stuck[MAX_STUCK_KEYS];
static int nr_left_threads;
static int max_left_threads = MAX_LEFT_BEHIND;
static double retry_s = RETRY_S;

void name_lookup_test_reset(int max_left_behind, double retry_every_s)
{
	pthread_mutex_lock(&stuck_lock);
	max_left_threads = max_left_behind;
	retry_s = retry_every_s > 0 ? retry_every_s : RETRY_S;
	for (int i = 0; i < MAX_STUCK_KEYS; i++)
		if (stuck[i].threads == 0)
			stuck[i].used = false;
	pthread_mutex_unlock(&stuck_lock);
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

static void storage_key(const struct cg_identity *id, struct storage_key *ret)
{
	if (id->rootless)
		snprintf(ret->s, sizeof(ret->s), "user %u", id->uid);
	else
		snprintf(ret->s, sizeof(ret->s), "host %s", id->runtime[0] ? id->runtime : "pods");
}

/* Under stuck_lock: k's entry, NULL if none. */
static struct stuck_entry *stuck_find(const struct storage_key *k)
{
	for (int i = 0; i < MAX_STUCK_KEYS; i++)
		if (stuck[i].used && strcmp(stuck[i].key.s, k->s) == 0)
			return &stuck[i];
	return NULL;
}

/* Under stuck_lock: skipped now? */
static bool is_skipped(const struct storage_key *k)
{
	const struct stuck_entry *e = stuck_find(k);

	return e && (e->threads > 0 || now_s() < e->until);
}

/* Under stuck_lock: k was stuck or slow; the cool-down starts now (and
 * again when a stuck thread returns). With every entry in use, the one
 * without threads that cools down first makes room. */
static struct stuck_entry *stuck_mark(const struct storage_key *k)
{
	struct stuck_entry *e = stuck_find(k);

	for (int i = 0; !e && i < MAX_STUCK_KEYS; i++)
		if (!stuck[i].used)
			e = &stuck[i];
	if (!e) {
		for (int i = 0; i < MAX_STUCK_KEYS; i++)
			if (stuck[i].threads == 0 && (!e || stuck[i].until < e->until))
				e = &stuck[i];
		if (!e)
			return NULL; /* cannot be: threads are fewer than entries */
		e->used = false;
	}
	if (!e->used)
		*e = (struct stuck_entry){ .used = true, .key = *k, .cool_s = COOL_MIN_S };
	e->until = now_s() + e->cool_s;
	e->cool_s = e->cool_s * 2 > COOL_MAX_S ? COOL_MAX_S : e->cool_s * 2;
	return e;
}

/* Under stuck_lock: a lookup of k took secs. */
static void lookup_took(const struct storage_key *k, double secs)
{
	struct stuck_entry *e;

	if (secs >= SLOW_S) {
		(void)stuck_mark(k);
	} else if ((e = stuck_find(k)) && e->threads == 0 && now_s() >= e->until) {
		e->used = false; /* fast again after its cool-down: forgotten */
	}
}

static void push(struct job_list *l, struct job *j)
{
	j->next = NULL;
	if (l->tail)
		l->tail->next = j;
	else
		l->head = j;
	l->tail = j;
}

static struct job *take_all(struct job_list *l)
{
	struct job *head = l->head;

	*l = (struct job_list){ 0 };
	return head;
}

static void free_jobs(struct job *j)
{
	while (j) {
		struct job *next = j->next;

		free(j->path);
		free(j);
		j = next;
	}
}

static void roots_free(struct metadata_roots *r)
{
#define F(field, ...)                  \
	free((char *)r->field); \
	r->field = NULL;
	METADATA_ROOT_FIELDS(F)
#undef F
}

/* dst's strings become copies of src's (the label keys are in the struct);
 * on failure dst holds what was copied (roots_free() frees it). */
static int roots_copy(struct metadata_roots *dst, const struct metadata_roots *src)
{
	memcpy(dst->label_keys, src->label_keys, sizeof(dst->label_keys));
	dst->nr_label_keys = src->nr_label_keys;
#define F(field, ...)                                            \
	if (src->field && !(dst->field = strdup(src->field))) \
		return -ENOMEM;
	METADATA_ROOT_FIELDS(F)
#undef F
	return 0;
}

static void worker_free(struct worker *w)
{
	if (!w)
		return;
	roots_free(&w->roots);
	free(w);
}

static void destroy(struct name_lookup *nl)
{
	free_jobs(take_all(&nl->todo));
	free_jobs(take_all(&nl->done));
	free_jobs(take_all(&nl->retry));
	worker_free(nl->w);
	if (nl->poll_fd >= 0)
		close(nl->poll_fd);
	if (nl->retry_fd >= 0)
		close(nl->retry_fd);
	if (nl->timer_fd >= 0)
		close(nl->timer_fd);
	if (nl->event_fd >= 0)
		close(nl->event_fd);
	pthread_cond_destroy(&nl->wake);
	pthread_mutex_destroy(&nl->lock);
	roots_free(&nl->roots);
	free(nl);
}

static void arm(int timer_fd, int secs)
{
	struct itimerspec its = { .it_value = { .tv_sec = secs } };

	(void)timerfd_settime(timer_fd, 0, &its, NULL);
}

/* Under nl->lock: the kept lookups of id dropped (it was read, or its
 * cgroup is gone). */
static void drop_kept(struct name_lookup *nl, uint64_t id)
{
	struct job *j = take_all(&nl->retry), *next;

	nl->nr_retry = 0;
	for (; j; j = next) {
		next = j->next;
		if (j->id == id) {
			j->next = NULL;
			free_jobs(j);
		} else {
			push(&nl->retry, j);
			nl->nr_retry++;
		}
	}
	if (!nl->nr_retry)
		(void)timerfd_settime(nl->retry_fd, 0, &(struct itimerspec){ 0 }, NULL);
}

/* Under nl->lock: j (answered without reading) to be asked again, once per
 * id; the retry timer runs while any waits. */
static void keep_for_retry(struct name_lookup *nl, const struct job *j)
{
	struct job *copy = NULL;

	for (const struct job *k = nl->retry.head; k; k = k->next)
		if (k->id == j->id)
			return;
	if (nl->nr_retry >= MAX_RETRY || !(copy = calloc(1, sizeof(*copy))) ||
	    !(copy->path = strdup(j->path))) {
		free(copy);
		nl->nr_not_retried++;
		if (!nl->said_retry_full)
			log_warn("container names: %d lookups already wait to be asked again; "
				 "later ones keep no names",
				 MAX_RETRY);
		nl->said_retry_full = true;
		return;
	}
	copy->id = j->id;
	copy->ident = j->ident;
	if (!nl->nr_retry++) {
		double p = retry_s > 0.001 ? retry_s : 0.001;
		struct itimerspec its = { .it_interval = { .tv_sec = (time_t)p,
							   .tv_nsec = (long)((p - (time_t)p) * 1e9) } };

		its.it_value = its.it_interval;
		(void)timerfd_settime(nl->retry_fd, 0, &its, NULL);
	}
	push(&nl->retry, copy);
}

/* The retry timer fired: every kept lookup whose storage is not skipped any
 * more goes back to the queue (the others wait for the next look). */
static void retry_unread(struct name_lookup *nl)
{
	struct job *j, *next;
	bool queued = false;

	pthread_mutex_lock(&stuck_lock);
	pthread_mutex_lock(&nl->lock);
	j = take_all(&nl->retry);
	nl->nr_retry = 0;
	for (; j; j = next) {
		struct storage_key key;

		next = j->next;
		storage_key(&j->ident, &key);
		if (nl->w && !is_skipped(&key)) {
			j->retried = true;
			push(&nl->todo, j);
			nl->nr_retried++;
			queued = true;
		} else {
			push(&nl->retry, j);
			nl->nr_retry++;
		}
	}
	if (!nl->nr_retry)
		(void)timerfd_settime(nl->retry_fd, 0, &(struct itimerspec){ 0 }, NULL);
	if (queued)
		pthread_cond_signal(&nl->wake);
	pthread_mutex_unlock(&nl->lock);
	pthread_mutex_unlock(&stuck_lock);
}

/* After a lookup of key that took secs: false when the worker was abandoned
 * meanwhile (it has freed everything of its own then); true with nl->lock
 * held. */
static bool lookup_done(struct worker *w, struct job *j, const struct storage_key *key,
			double secs)
{
	pthread_mutex_lock(&stuck_lock);
	if (w->abandoned) {
		struct stuck_entry *e = stuck_find(&w->key);

		if (e && e->threads > 0)
			e->threads--;
		(void)stuck_mark(&w->key); /* the cool-down runs from its return */
		nr_left_threads--;
		pthread_mutex_unlock(&stuck_lock);
		free_jobs(j);
		worker_free(w);
		return false;
	}
	lookup_took(key, secs);
	pthread_mutex_lock(&w->nl->lock);
	pthread_mutex_unlock(&stuck_lock);
	return true;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct name_lookup *nl = w->nl;
	struct metadata_roots roots = w->roots;
	struct metadata_cache *cache = NULL;

	/* Without a cache every lookup parses again: slower, still correct. */
	(void)metadata_cache_new(&cache);
	roots.cache = cache;
	pthread_mutex_lock(&nl->lock);
	for (;;) {
		struct storage_key key;
		struct job *j;
		bool skip;

		while (!nl->stop && !nl->todo.head)
			pthread_cond_wait(&nl->wake, &nl->lock);
		if (nl->stop)
			break;
		j = nl->todo.head;
		nl->todo.head = j->next;
		if (!nl->todo.head)
			nl->todo.tail = NULL;
		j->next = NULL; /* the worker's alone now (freed alone if abandoned) */
		w->current = j;
		w->since = now_s();
		arm(nl->timer_fd, STUCK_S);
		pthread_mutex_unlock(&nl->lock);

		storage_key(&j->ident, &key);
		pthread_mutex_lock(&stuck_lock);
		skip = is_skipped(&key);
		pthread_mutex_unlock(&stuck_lock);
		if (!skip)
			cg_metadata_lookup(&roots, &j->ident, &j->meta);
		if (!lookup_done(w, j, &key, skip ? 0 : now_s() - w->since)) {
			metadata_cache_free(cache);
			return NULL;
		}
		w->current = NULL;
		arm(nl->timer_fd, 0);
		if (skip)
			keep_for_retry(nl, j);
		else
			drop_kept(nl, j->id);
		if (skip && j->retried) {
			free_jobs(j); /* answered without names already */
		} else {
			push(&nl->done, j);
			nl->nr_done++;
			nl->nr_skipped += skip;
		}
		metadata_cache_get_stats(cache, &nl->cache_stats);
		(void)eventfd_write(nl->event_fd, 1);
	}
	metadata_cache_free(cache);
	nl->finished = true;
	if (nl->left_behind) {
		pthread_mutex_unlock(&nl->lock);
		destroy(nl);
		return NULL;
	}
	pthread_mutex_unlock(&nl->lock);
	return NULL;
}

/* Under nl->lock: a new worker for nl's queue. */
static int worker_start(struct name_lookup *nl)
{
	struct worker *w = calloc(1, sizeof(*w));
	int r;

	if (!w)
		return -ENOMEM;
	w->nl = nl;
	r = roots_copy(&w->roots, &nl->roots);
	if (r == 0)
		r = -pthread_create(&w->thread, NULL, worker_main, w);
	if (r < 0) {
		worker_free(w);
		return r;
	}
	/* A name in `top -H` and for tests that hold this thread alone. */
	(void)pthread_setname_np(w->thread, "cgperf-names");
	nl->w = w;
	return 0;
}

static int poll_fd_new(int event_fd, int timer_fd, int retry_fd)
{
	int fd = epoll_create1(EPOLL_CLOEXEC);
	struct epoll_event ev = { .events = EPOLLIN };

	if (fd < 0)
		return -errno;
	if (epoll_ctl(fd, EPOLL_CTL_ADD, event_fd, &ev) < 0 ||
	    epoll_ctl(fd, EPOLL_CTL_ADD, timer_fd, &ev) < 0 ||
	    epoll_ctl(fd, EPOLL_CTL_ADD, retry_fd, &ev) < 0) {
		int r = -errno;

		close(fd);
		return r;
	}
	return fd;
}

int name_lookup_new(const struct metadata_roots *roots, struct name_lookup **ret)
{
	struct name_lookup *nl = calloc(1, sizeof(*nl));
	int r = 0;

	if (!nl)
		return -ENOMEM;
	pthread_mutex_init(&nl->lock, NULL);
	pthread_cond_init(&nl->wake, NULL);
	nl->event_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	nl->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	nl->retry_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	nl->poll_fd = -1;
	if (nl->event_fd < 0 || nl->timer_fd < 0 || nl->retry_fd < 0)
		r = -errno;
	if (r == 0 &&
	    (nl->poll_fd = poll_fd_new(nl->event_fd, nl->timer_fd, nl->retry_fd)) < 0)
		r = nl->poll_fd;
	if (r == 0)
		r = roots_copy(&nl->roots, roots);
	if (r == 0)
		r = worker_start(nl); /* no other thread yet: the lock is not needed */
	if (r < 0) {
		destroy(nl);
		return r;
	}
	*ret = nl;
	return 0;
}

/* Under stuck_lock and nl->lock, w in a lookup: w goes on alone and frees
 * itself when its read returns; its storage is skipped meanwhile. */
static void abandon(struct name_lookup *nl, struct worker *w)
{
	struct stuck_entry *e;

	storage_key(&w->current->ident, &w->key);
	if ((e = stuck_mark(&w->key)))
		e->threads++;
	nr_left_threads++;
	w->abandoned = true;
	pthread_detach(w->thread);
	nl->w = NULL;
	nl->nr_left_behind++;
	log_warn("container names: a lookup (%s's storage) has been reading a file for over %d s "
		 "(a stalled network or FUSE mount?); its thread is left behind, and lookups there "
		 "get no names until it returns and a cool-down passes",
		 w->key.s, STUCK_S);
}

void name_lookup_free(struct name_lookup *nl)
{
	struct timespec until;
	struct worker *w;

	if (!nl)
		return;
	pthread_mutex_lock(&nl->lock);
	nl->stop = true;
	pthread_cond_broadcast(&nl->wake);
	w = nl->w;
	pthread_mutex_unlock(&nl->lock);
	if (!w) {
		destroy(nl);
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &until); /* a clock step moves no deadline */
	until.tv_sec += STUCK_S;
	if (pthread_clockjoin_np(w->thread, NULL, CLOCK_MONOTONIC, &until) == 0) {
		destroy(nl);
		return;
	}
	pthread_mutex_lock(&stuck_lock);
	pthread_mutex_lock(&nl->lock);
	if (nl->finished) {
		pthread_mutex_unlock(&nl->lock);
		pthread_mutex_unlock(&stuck_lock);
		pthread_join(w->thread, NULL);
		destroy(nl);
		return;
	}
	if (w->current) {
		abandon(nl, w);
		/* It never touches nl again: nl is ours to free. */
		pthread_mutex_unlock(&nl->lock);
		pthread_mutex_unlock(&stuck_lock);
		destroy(nl);
		return;
	}
	/* Not in a lookup (held before it could see the stop): whichever of the
	 * two comes last frees it all. */
	nl->left_behind = true;
	/* Before the unlock: once unlocked, the worker may free nl. */
	pthread_detach(w->thread);
	pthread_mutex_unlock(&nl->lock);
	pthread_mutex_unlock(&stuck_lock);
	log_warn("container names: the lookup thread has not stopped in %d s; it is left behind",
		 STUCK_S);
}

/* A job answered without names, from the loop's thread (a retried one
 * was: kept again only). */
static void answer_empty(struct name_lookup *nl, const struct job *of)
{
	struct job *j;

	keep_for_retry(nl, of);
	if (of->retried)
		return;
	j = calloc(1, sizeof(*j));
	if (!j || !(j->path = strdup(of->path))) {
		free(j);
		return;
	}
	j->id = of->id;
	j->ident = of->ident;
	push(&nl->done, j);
	nl->nr_done++;
}

/* Under nl->lock: every queued lookup answered without names. */
static void answer_all_empty(struct name_lookup *nl)
{
	struct job *j = take_all(&nl->todo);

	for (struct job *next; j; j = next) {
		next = j->next;
		keep_for_retry(nl, j);
		if (j->retried) {
			j->next = NULL;
			free_jobs(j);
			continue;
		}
		push(&nl->done, j);
		nl->nr_done++;
	}
}

/* The timer fired: a worker in one lookup for STUCK_S is left behind, its
 * own lookup answered without names, and a new worker takes the queue.
 * With MAX_LEFT_BEHIND threads left in the process, no new one starts: the
 * queue is answered without names, and the timer looks again every STUCK_S
 * until a left thread has returned. */
static void check_stuck(struct name_lookup *nl)
{
	struct worker *w;

	pthread_mutex_lock(&stuck_lock);
	pthread_mutex_lock(&nl->lock);
	w = nl->w;
	if (w && w->current && now_s() - w->since >= STUCK_S) {
		answer_empty(nl, w->current);
		abandon(nl, w);
	}
	if (!nl->w && !nl->stop) {
		if (nr_left_threads < max_left_threads && worker_start(nl) == 0) {
			nl->said_cap = false;
		} else {
			answer_all_empty(nl);
			if (!nl->said_cap)
				log_warn("container names: %d lookup threads are stuck; names are "
					 "not looked up until one returns",
					 nr_left_threads);
			nl->said_cap = true;
		}
	}
	/* Again later: a worker now in a lookup arms it itself. */
	if (!nl->w || nl->w->current)
		arm(nl->timer_fd, STUCK_S);
	pthread_mutex_unlock(&nl->lock);
	pthread_mutex_unlock(&stuck_lock);
}

int name_lookup_submit(struct name_lookup *nl, uint64_t id, const char *path,
		       const struct cg_identity *ident)
{
	struct job *j = calloc(1, sizeof(*j));

	if (!j || !(j->path = strdup(path))) {
		free(j);
		return -ENOMEM;
	}
	j->id = id;
	j->ident = *ident;
	pthread_mutex_lock(&nl->lock);
	push(&nl->todo, j);
	pthread_cond_signal(&nl->wake);
	if (!nl->w) { /* none until a left thread returns: no names now */
		answer_all_empty(nl);
		(void)eventfd_write(nl->event_fd, 1);
	}
	pthread_mutex_unlock(&nl->lock);
	return 0;
}

void name_lookup_forget(struct name_lookup *nl, uint64_t id)
{
	pthread_mutex_lock(&nl->lock);
	drop_kept(nl, id);
	pthread_mutex_unlock(&nl->lock);
}

int name_lookup_fd(const struct name_lookup *nl)
{
	return nl->poll_fd;
}

void name_lookup_collect(struct name_lookup *nl,
			 void (*cb)(void *ctx, uint64_t id, const char *path,
				    const struct cg_identity *ident,
				    const struct cg_metadata *meta),
			 void *ctx)
{
	eventfd_t ignored;
	uint64_t expired;
	struct job *jobs;

	(void)eventfd_read(nl->event_fd, &ignored);
	if (read(nl->timer_fd, &expired, sizeof(expired)) == sizeof(expired))
		check_stuck(nl);
	if (read(nl->retry_fd, &expired, sizeof(expired)) == sizeof(expired))
		retry_unread(nl);
	pthread_mutex_lock(&nl->lock);
	jobs = take_all(&nl->done);
	pthread_mutex_unlock(&nl->lock);
	for (struct job *j = jobs; j; j = j->next)
		cb(ctx, j->id, j->path, &j->ident, &j->meta);
	free_jobs(jobs);
}

void name_lookup_get_stats(struct name_lookup *nl, struct name_lookup_stats *ret)
{
	pthread_mutex_lock(&nl->lock);
	*ret = (struct name_lookup_stats){ .done = nl->nr_done,
					   .left_behind = nl->nr_left_behind,
					   .skipped = nl->nr_skipped,
					   .retried = nl->nr_retried,
					   .not_retried = nl->nr_not_retried,
					   .cache = nl->cache_stats };
	pthread_mutex_unlock(&nl->lock);
}
