// SPDX-License-Identifier: GPL-2.0-only
/* One worker thread, two lists under one mutex: requests in, results out;
 * an eventfd tells the loop that results wait. The worker owns the
 * metadata cache (not thread-safe, and only it reads files). */
#include "agent/name_lookup.h"
#include "util/log.h"
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

/* How long a stop waits for the lookup in progress. One takes milliseconds;
 * one still going after seconds is stuck in a read no signal ends (a FUSE
 * mount a tenant made over its own storage, a hung network mount): the
 * worker is left behind then, so the agent can still stop or reload. */
#define STOP_WAIT_S 5

struct job {
	struct job *next;
	uint64_t id;
	char *path;
	struct cg_identity ident;
	struct cg_metadata meta;
};

struct job_list {
	struct job *head, *tail;
};

struct name_lookup {
	struct metadata_roots roots; /* its strings are copies of our own */
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	struct job_list todo, done;
	bool stop;
	bool finished; /* the worker is past its last use of the lock */
	bool left_behind; /* the worker frees everything when it finishes */
	int event_fd;
	unsigned long long nr_done;
	struct metadata_cache_stats cache_stats; /* copied by the worker */
};

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

/* Field i of r's root strings, NULL past the last. */
static const char **root_field(struct metadata_roots *r, size_t i)
{
	const char **f[] = { &r->docker,	  &r->containerd,      &r->crio,
			     &r->podman,	  &r->pod_logs,	       &r->rootless_docker,
			     &r->rootless_podman, &r->rootless_containerd };

	/* A root added to the struct is a string to copy here too. */
	_Static_assert(sizeof(*r) == sizeof(f) + sizeof(r->cache), "a root missing from root_field");
	return i < sizeof(f) / sizeof(f[0]) ? f[i] : NULL;
}

static void destroy(struct name_lookup *nl)
{
	const char **f;

	free_jobs(take_all(&nl->todo));
	free_jobs(take_all(&nl->done));
	close(nl->event_fd);
	pthread_cond_destroy(&nl->wake);
	pthread_mutex_destroy(&nl->lock);
	for (size_t i = 0; (f = root_field(&nl->roots, i)); i++)
		free((char *)*f);
	free(nl);
}

static void *worker(void *arg)
{
	struct name_lookup *nl = arg;
	struct metadata_roots roots = nl->roots;
	struct metadata_cache *cache = NULL;

	/* Without a cache every lookup parses again: slower, still correct. */
	(void)metadata_cache_new(&cache);
	roots.cache = cache;
	pthread_mutex_lock(&nl->lock);
	for (;;) {
		struct job *j;

		while (!nl->stop && !nl->todo.head)
			pthread_cond_wait(&nl->wake, &nl->lock);
		if (nl->stop)
			break;
		j = nl->todo.head;
		nl->todo.head = j->next;
		if (!nl->todo.head)
			nl->todo.tail = NULL;
		pthread_mutex_unlock(&nl->lock);

		cg_metadata_lookup(&roots, &j->ident, &j->meta);

		pthread_mutex_lock(&nl->lock);
		push(&nl->done, j);
		nl->nr_done++;
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

int name_lookup_new(const struct metadata_roots *roots, struct name_lookup **ret)
{
	struct name_lookup *nl = calloc(1, sizeof(*nl));
	int r;

	const char **f;

	if (!nl)
		return -ENOMEM;
	pthread_mutex_init(&nl->lock, NULL);
	pthread_cond_init(&nl->wake, NULL);
	nl->event_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	r = nl->event_fd < 0 ? -errno : 0;
	for (size_t i = 0; (f = root_field(&nl->roots, i)); i++) {
		const char *from = *root_field((struct metadata_roots *)roots, i);

		if (from && !(*f = strdup(from)) && r == 0)
			r = -ENOMEM;
	}
	if (r == 0)
		r = -pthread_create(&nl->thread, NULL, worker, nl);
	if (r < 0) {
		destroy(nl); /* close(-1) and free(NULL) are no-ops */
		return r;
	}
	/* A name in `top -H` and for tests that hold this thread alone. */
	(void)pthread_setname_np(nl->thread, "cgperf-names");
	*ret = nl;
	return 0;
}

void name_lookup_free(struct name_lookup *nl)
{
	struct timespec until;

	if (!nl)
		return;
	pthread_mutex_lock(&nl->lock);
	nl->stop = true;
	pthread_cond_signal(&nl->wake);
	pthread_mutex_unlock(&nl->lock);
	clock_gettime(CLOCK_MONOTONIC, &until); /* a clock step moves no deadline */
	until.tv_sec += STOP_WAIT_S;
	if (pthread_clockjoin_np(nl->thread, NULL, CLOCK_MONOTONIC, &until) == 0) {
		destroy(nl);
		return;
	}
	/* Whichever of the two comes last frees it all. */
	pthread_mutex_lock(&nl->lock);
	if (nl->finished) {
		pthread_mutex_unlock(&nl->lock);
		pthread_join(nl->thread, NULL);
		destroy(nl);
		return;
	}
	nl->left_behind = true;
	/* Before the unlock: once unlocked, the worker may free nl. */
	pthread_detach(nl->thread);
	pthread_mutex_unlock(&nl->lock);
	log_warn("container names: a lookup has been reading a file for over %d s (a FUSE or "
		 "network mount under a runtime's storage?); its thread is left behind",
		 STOP_WAIT_S);
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
	pthread_mutex_unlock(&nl->lock);
	return 0;
}

int name_lookup_fd(const struct name_lookup *nl)
{
	return nl->event_fd;
}

void name_lookup_collect(struct name_lookup *nl,
			 void (*cb)(void *ctx, uint64_t id, const char *path,
				    const struct cg_identity *ident,
				    const struct cg_metadata *meta),
			 void *ctx)
{
	eventfd_t ignored;
	struct job *jobs;

	(void)eventfd_read(nl->event_fd, &ignored);
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
	*ret = (struct name_lookup_stats){ .done = nl->nr_done, .cache = nl->cache_stats };
	pthread_mutex_unlock(&nl->lock);
}
