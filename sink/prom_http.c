// SPDX-License-Identifier: GPL-2.0-only
/* The metrics endpoint on libmicrohttpd. Threads: libmicrohttpd's pool
 * (PROM_HTTP_THREADS, epoll) and the agent's, which only publishes. The one
 * shared thing is the pointer to the current snapshot, swapped under a mutex
 * held for a pointer copy; a snapshot is immutable (apart from its gzip
 * bodies, filled once) and reference-counted, so a slow client keeps the
 * snapshot it started with while the agent publishes newer ones. */
#include "sink/prom_http.h"
#include "sink/http_accept.h"
#include "sink/mhd_dl.h"
#include "util/dl_lib.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <zlib.h>

struct body {
	char *data; /* NULL: this format was not built (nobody asked for it) */
	size_t len, cap;
	pthread_mutex_t gz_lock;
	bool gz_done; /* compressed (or tried: gz.error set) */
	struct buf gz;
};

struct snapshot {
	atomic_int refs;
	struct prom_http *owner;
	struct body body[2]; /* by enum prom_format */
};

struct prom_http {
	struct MHD_Daemon *daemon;
	pthread_mutex_t lock; /* snap, path */
	struct snapshot *snap;
	char path[sizeof(((struct prometheus_config *)NULL)->path)];
	struct prometheus_config listen; /* the listen fields of the config it was made from */
	dev_t sock_dev; /* the unix socket it created, removed by free */
	ino_t sock_ino;
	atomic_bool wants_openmetrics; /* a scrape preferred it (text is always built) */
	/* Bodies of released snapshots, reused: a fresh 3 MB buffer costs a
	 * page fault per 4 KiB, more than building the exposition into it. */
	struct buf pool[4];
	int nr_pool; /* under lock */
};

/* ---- snapshots ---- */

static void recycle(struct prom_http *h, char *data, size_t cap)
{
	if (!data)
		return;
	pthread_mutex_lock(&h->lock);
	if (h->nr_pool < (int)(sizeof(h->pool) / sizeof(h->pool[0]))) {
		h->pool[h->nr_pool++] = (struct buf){ .data = data, .cap = cap };
		data = NULL;
	}
	pthread_mutex_unlock(&h->lock);
	free(data);
}

void prom_http_take_buffer(struct prom_http *h, struct buf *ret)
{
	*ret = BUF_INIT;
	pthread_mutex_lock(&h->lock);
	if (h->nr_pool > 0)
		*ret = h->pool[--h->nr_pool];
	pthread_mutex_unlock(&h->lock);
}

bool prom_http_wants_openmetrics(struct prom_http *h)
{
	return atomic_load(&h->wants_openmetrics);
}

static void snapshot_unref(void *cls)
{
	struct snapshot *s = cls;

	if (!s || atomic_fetch_sub(&s->refs, 1) != 1)
		return;
	for (int i = 0; i < 2; i++) {
		recycle(s->owner, s->body[i].data, s->body[i].cap);
		buf_free(&s->body[i].gz);
		pthread_mutex_destroy(&s->body[i].gz_lock);
	}
	free(s);
}

static void take_body(struct body *b, struct buf *from)
{
	b->data = from->len ? from->data : NULL;
	b->len = from->len;
	b->cap = from->cap;
	if (!b->data)
		free(from->data);
	*from = BUF_INIT;
	pthread_mutex_init(&b->gz_lock, NULL);
}

int prom_http_publish(struct prom_http *h, struct buf *text, struct buf *openmetrics)
{
	struct snapshot *s = calloc(1, sizeof(*s)), *old;

	if (!s) {
		buf_free(text);
		buf_free(openmetrics);
		return -ENOMEM;
	}
	atomic_init(&s->refs, 1);
	s->owner = h;
	take_body(&s->body[PROM_FORMAT_TEXT], text);
	take_body(&s->body[PROM_FORMAT_OPENMETRICS], openmetrics);
	pthread_mutex_lock(&h->lock);
	old = h->snap;
	h->snap = s;
	pthread_mutex_unlock(&h->lock);
	snapshot_unref(old);
	return 0;
}

static struct snapshot *snapshot_get(struct prom_http *h)
{
	struct snapshot *s;

	pthread_mutex_lock(&h->lock);
	s = h->snap;
	if (s)
		atomic_fetch_add(&s->refs, 1);
	pthread_mutex_unlock(&h->lock);
	return s;
}

int prom_gzip(const char *data, size_t len, struct buf *out)
{
	z_stream z = { 0 };
	size_t bound;
	int r;

	/* Level 1: metric text compresses well even so, and this runs on a
	 * serving thread once per snapshot. windowBits 15 + 16: gzip framing. */
	if (deflateInit2(&z, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return out->error = -ENOMEM;
	bound = deflateBound(&z, len);
	r = buf_reserve(out, bound);
	if (r == 0) {
		z.next_in = (Bytef *)data;
		z.avail_in = (uInt)len;
		z.next_out = (Bytef *)out->data + out->len;
		z.avail_out = (uInt)bound;
		if (deflate(&z, Z_FINISH) == Z_STREAM_END)
			out->len += bound - z.avail_out;
		else
			r = out->error = -ENOMEM;
	}
	deflateEnd(&z);
	return r;
}

/* The gzip body, compressed by the first scrape that wants it; NULL when
 * compression failed (then the plain body is sent). */
static const struct buf *gzip_body(struct body *b)
{
	const struct buf *gz;

	pthread_mutex_lock(&b->gz_lock);
	if (!b->gz_done) {
		prom_gzip(b->data, b->len, &b->gz);
		b->gz_done = true;
	}
	gz = b->gz.error ? NULL : &b->gz;
	pthread_mutex_unlock(&b->gz_lock);
	return gz;
}

/* ---- requests ---- */

static enum MHD_Result reply_text(struct prom_http *h, struct MHD_Connection *c, unsigned status,
				  const char *text)
{
	struct MHD_Response *resp =
		MHD_create_response_from_buffer(strlen(text), (void *)text, MHD_RESPMEM_MUST_COPY);
	enum MHD_Result r;

	if (!resp)
		return MHD_NO;
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
	/* A 406 or 503 depends on Accept as much as a 200 does. */
	MHD_add_response_header(resp, MHD_HTTP_HEADER_VARY, "Accept, Accept-Encoding");
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	if (status == MHD_HTTP_SERVICE_UNAVAILABLE)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_RETRY_AFTER, "1");
	r = MHD_queue_response(c, status, resp);
	MHD_destroy_response(resp);
	return r;
}

static bool path_is(struct prom_http *h, const char *url, char *ret_path, size_t size)
{
	bool same;

	pthread_mutex_lock(&h->lock);
	same = !strcmp(url, h->path);
	snprintf(ret_path, size, "%s", h->path);
	pthread_mutex_unlock(&h->lock);
	return same;
}

/* A GET for metrics carries no body; one announced is refused rather than
 * read. */
static bool has_body(struct MHD_Connection *c)
{
	const char *len =
		MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);

	return MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_TRANSFER_ENCODING) ||
	       (len && strspn(len, "0") != strlen(len));
}

static enum MHD_Result serve(struct prom_http *h, struct MHD_Connection *c, struct snapshot *s)
{
	bool gz = http_accepts_gzip(
		MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT_ENCODING));
	struct http_accept a;
	enum prom_format fmt;
	struct body *b;
	const struct buf *z;

	http_negotiate(MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT), &a);
	if (!a.ok[PROM_FORMAT_TEXT] && !a.ok[PROM_FORMAT_OPENMETRICS]) {
		snapshot_unref(s);
		return reply_text(h, c, MHD_HTTP_NOT_ACCEPTABLE,
				  "Not acceptable. cgperf serves " PROM_CONTENT_TYPE_TEXT
				  " and " PROM_CONTENT_TYPE_OPENMETRICS ".\n");
	}
	/* Text is in every snapshot; OpenMetrics from the collection after a
	 * scrape first preferred it. Until then a client that takes text gets
	 * text, one that takes only OpenMetrics is asked to come back. */
	fmt = a.best;
	if (fmt == PROM_FORMAT_OPENMETRICS)
		atomic_store(&h->wants_openmetrics, true);
	if (!s->body[fmt].data) {
		fmt = fmt == PROM_FORMAT_TEXT ? PROM_FORMAT_OPENMETRICS : PROM_FORMAT_TEXT;
		if (!a.ok[fmt] || !s->body[fmt].data) {
			snapshot_unref(s);
			return reply_text(h, c, MHD_HTTP_SERVICE_UNAVAILABLE,
					  "The format asked for comes with the next collection.\n");
		}
	}
	b = &s->body[fmt];
	z = gz ? gzip_body(b) : NULL;
	struct MHD_Response *resp;
	enum MHD_Result r;

	/* The response points into the snapshot and drops its reference when
	 * libmicrohttpd is done with it: no copy. */
	resp = MHD_create_response_from_buffer_with_free_callback_cls(
		z ? z->len : b->len, z ? z->data : b->data, snapshot_unref, s);
	if (!resp) {
		snapshot_unref(s);
		return MHD_NO;
	}
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE,
				fmt == PROM_FORMAT_OPENMETRICS ? PROM_CONTENT_TYPE_OPENMETRICS
							       : PROM_CONTENT_TYPE_TEXT);
	MHD_add_response_header(resp, MHD_HTTP_HEADER_VARY, "Accept, Accept-Encoding");
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	if (z)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_ENCODING, "gzip");
	r = MHD_queue_response(c, MHD_HTTP_OK, resp);
	MHD_destroy_response(resp);
	return r;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version, const char *upload_data,
				  size_t *upload_data_size, void **req_cls)
{
	struct prom_http *h = cls;
	char path[sizeof(h->path)], msg[sizeof(h->path) + 64];
	struct snapshot *s;

	if (!path_is(h, url, path, sizeof(path))) {
		snprintf(msg, sizeof(msg), "Not found. cgperf serves its metrics at %s\n", path);
		return reply_text(h, c, MHD_HTTP_NOT_FOUND, msg);
	}
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return reply_text(h, c, MHD_HTTP_METHOD_NOT_ALLOWED,
				  "Only GET and HEAD are allowed.\n");
	if (has_body(c))
		return reply_text(h, c, MHD_HTTP_CONTENT_TOO_LARGE,
				  "A metrics request has no body.\n");
	/* Answer at the second call, when libmicrohttpd has read the whole
	 * request: a response queued at the first one closes the connection,
	 * and scrapers keep theirs open between scrapes. */
	if (!*req_cls) {
		*req_cls = h;
		return MHD_YES;
	}
	s = snapshot_get(h);
	if (!s)
		return reply_text(
			h, c, MHD_HTTP_SERVICE_UNAVAILABLE,
			"No collection yet: the first one ends at the agent's first interval.\n");
	return serve(h, c, s);
}

/* ---- the listening socket ---- */

static int fail(char *err, size_t err_len, const struct prometheus_config *cfg, int r)
{
	snprintf(err, err_len, "cannot listen on %s: %s", cfg->listen, strerror(-r));
	return r;
}

/* A socket file left by an agent that died: nobody accepts on it. */
static int clear_stale_socket(const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	struct stat st;
	int fd, r;

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISSOCK(st.st_mode))
		return -EEXIST;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
	r = connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0 ? -EADDRINUSE : -errno;
	close(fd);
	if (r == -ECONNREFUSED)
		return unlink(path) < 0 ? -errno : 0;
	return r == -EADDRINUSE ? r : 0;
}

static int listen_unix(struct prom_http *h, const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	struct stat st;
	int fd, r = clear_stale_socket(path);

	if (r < 0)
		return r;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
	/* Owner and group only: the group decides who may scrape. */
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 || chmod(path, 0660) < 0 ||
	    stat(path, &st) < 0 || listen(fd, 128) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	h->sock_dev = st.st_dev;
	h->sock_ino = st.st_ino;
	return fd;
}

static int bind_listen(const struct addrinfo *ai, bool dual_stack)
{
	int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
	int one = 1, zero = 0, r;

	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (dual_stack)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
	if (bind(fd, ai->ai_addr, ai->ai_addrlen) < 0 || listen(fd, 128) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	return fd;
}

/* HOST:PORT binds the first address HOST resolves to; ":PORT" every address
 * (IPv6 socket taking IPv4 too, or IPv4 only on hosts without IPv6). */
static int listen_tcp(const struct prometheus_config *cfg)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_PASSIVE | AI_NUMERICSERV };
	struct addrinfo *res;
	bool any = !cfg->host[0];
	int r;

	hints.ai_family = any ? AF_INET6 : AF_UNSPEC;
	r = getaddrinfo(any ? NULL : cfg->host, cfg->port, &hints, &res);
	if (r != 0 && any) {
		hints.ai_family = AF_INET;
		r = getaddrinfo(NULL, cfg->port, &hints, &res);
	}
	if (r != 0)
		return r == EAI_SYSTEM ? -errno : -EADDRNOTAVAIL;
	r = bind_listen(res, any && res->ai_family == AF_INET6);
	freeaddrinfo(res);
	return r;
}

int prom_http_new(const struct prometheus_config *cfg, struct prom_http **ret, char *err,
		  size_t err_len)
{
	struct prom_http *h;
	int fd = mhd_dl_load();

	if (fd < 0) {
		snprintf(err, err_len, "cannot serve %s: %s cannot be loaded: %s", cfg->listen,
			 CGPERF_MHD_SONAME, dl_lib_error());
		return fd;
	}
	h = calloc(1, sizeof(*h));
	if (!h)
		return fail(err, err_len, cfg, -ENOMEM);
	pthread_mutex_init(&h->lock, NULL);
	h->listen = *cfg;
	snprintf(h->path, sizeof(h->path), "%s", cfg->path);
	fd = cfg->kind == LISTEN_UNIX ? listen_unix(h, cfg->socket_path) : listen_tcp(cfg);
	if (fd < 0) {
		if (fd == -EADDRNOTAVAIL && cfg->kind == LISTEN_TCP)
			snprintf(err, err_len,
				 "cannot listen on %s: '%s' is not an address of this host",
				 cfg->listen, cfg->host);
		else
			fail(err, err_len, cfg, fd);
		pthread_mutex_destroy(&h->lock);
		free(h);
		return fd;
	}
	h->daemon = MHD_start_daemon(
		MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL, 0, NULL, NULL, on_request, h,
		MHD_OPTION_LISTEN_SOCKET, (MHD_socket)fd, MHD_OPTION_THREAD_POOL_SIZE,
		(unsigned)PROM_HTTP_THREADS, MHD_OPTION_CONNECTION_LIMIT,
		(unsigned)cfg->max_connections, MHD_OPTION_CONNECTION_TIMEOUT,
		(unsigned)PROM_HTTP_IDLE_TIMEOUT_S, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
		(size_t)PROM_HTTP_REQUEST_MAX, MHD_OPTION_END);
	if (!h->daemon) {
		close(fd);
		prom_http_free(h);
		return fail(err, err_len, cfg, -ENOMEM);
	}
	*ret = h;
	return 0;
}

void prom_http_free(struct prom_http *h)
{
	struct stat st;

	if (!h)
		return;
	if (h->daemon)
		MHD_stop_daemon(h->daemon); /* closes the listening socket */
	/* Remove the socket file only if it is still the one this server made. */
	if (h->listen.kind == LISTEN_UNIX && h->sock_ino && stat(h->listen.socket_path, &st) == 0 &&
	    st.st_dev == h->sock_dev && st.st_ino == h->sock_ino)
		unlink(h->listen.socket_path);
	snapshot_unref(h->snap);
	for (int i = 0; i < h->nr_pool; i++)
		buf_free(&h->pool[i]);
	pthread_mutex_destroy(&h->lock);
	free(h);
}

bool prom_http_same_listen(const struct prom_http *h, const struct prometheus_config *cfg)
{
	return h && !strcmp(h->listen.listen, cfg->listen);
}

void prom_http_set_path(struct prom_http *h, const char *path)
{
	pthread_mutex_lock(&h->lock);
	snprintf(h->path, sizeof(h->path), "%s", path);
	pthread_mutex_unlock(&h->lock);
}
