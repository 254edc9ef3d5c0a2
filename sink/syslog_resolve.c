// SPDX-License-Identifier: GPL-2.0-only
#include "sink/syslog_resolve.h"
#include "util/timer.h"
#include <ares.h>
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

struct syslog_resolver {
	char host[256], port[16];
	int socktype;
	bool literal; /* an address: never looked up */
	syslog_resolved_fn done;
	void *ctx;

	struct syslog_addr addrs[SYSLOG_DNS_MAX_ADDRS];
	size_t nr_addrs;

	/* The lookup in progress: a channel of its own, so every lookup reads
	 * /etc/resolv.conf as it is now (as glibc does when it changes). */
	ares_channel channel;
	struct timespec deadline; /* CLOCK_MONOTONIC: given up then */
	bool finished; /* its callback ran */
	int status; /* ARES_* of the finished lookup */
	struct syslog_addr found[SYSLOG_DNS_MAX_ADDRS];
	size_t nr_found;
	int ttl_s;

	unsigned retry_s; /* after a failed refresh; doubles */
	uint64_t lookups, failures;
	int epoll_fd, timeout_fd, refresh_fd;
};

static int64_t ms_until(const struct timespec *t)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (int64_t)(t->tv_sec - now.tv_sec) * 1000 + (t->tv_nsec - now.tv_nsec) / 1000000;
}

static int clamp_ttl(int ttl)
{
	return ttl < SYSLOG_DNS_TTL_MIN_S   ? SYSLOG_DNS_TTL_MIN_S
	       : ttl > SYSLOG_DNS_TTL_MAX_S ? SYSLOG_DNS_TTL_MAX_S
					    : ttl;
}

/* c-ares opens, closes and changes interest in its sockets through this. */
static void sock_state(void *data, ares_socket_t fd, int readable, int writable)
{
	struct syslog_resolver *r = data;
	struct epoll_event ev = { .events = (readable ? EPOLLIN : 0) | (writable ? EPOLLOUT : 0),
				  .data.fd = fd };

	if (!readable && !writable) {
		epoll_ctl(r->epoll_fd, EPOLL_CTL_DEL, fd, NULL);
		return;
	}
	if (epoll_ctl(r->epoll_fd, EPOLL_CTL_MOD, fd, &ev) < 0 && errno == ENOENT)
		epoll_ctl(r->epoll_fd, EPOLL_CTL_ADD, fd, &ev);
}

/* The answer's lifetime: its shortest TTL, CNAMEs included. */
static void on_answer(void *arg, int status, int timeouts, struct ares_addrinfo *res)
{
	struct syslog_resolver *r = arg;
	int ttl = SYSLOG_DNS_TTL_MAX_S;

	r->finished = true;
	r->status = status;
	r->nr_found = 0;
	if (status == ARES_SUCCESS && res) {
		for (struct ares_addrinfo_cname *c = res->cnames; c; c = c->next)
			ttl = c->ttl < ttl ? c->ttl : ttl;
		for (struct ares_addrinfo_node *n = res->nodes;
		     n && r->nr_found < SYSLOG_DNS_MAX_ADDRS; n = n->ai_next) {
			struct syslog_addr *a = &r->found[r->nr_found];

			if (n->ai_addrlen > sizeof(a->sa))
				continue;
			memset(a, 0, sizeof(*a));
			memcpy(&a->sa, n->ai_addr, n->ai_addrlen);
			a->len = n->ai_addrlen;
			ttl = n->ai_ttl < ttl ? n->ai_ttl : ttl;
			r->nr_found++;
		}
		if (r->nr_found == 0)
			r->status = ARES_ENODATA;
	}
	r->ttl_s = clamp_ttl(ttl);
	if (res)
		ares_freeaddrinfo(res);
}

/* The c-ares timer or the lookup's deadline, whichever comes first. */
static void arm_timeout(struct syslog_resolver *r)
{
	struct timeval tv, *next = r->channel ? ares_timeout(r->channel, NULL, &tv) : NULL;
	int64_t ms = ms_until(&r->deadline);

	if (next && (int64_t)next->tv_sec * 1000 + next->tv_usec / 1000 < ms)
		ms = (int64_t)next->tv_sec * 1000 + (next->tv_usec + 999) / 1000;
	timer_arm_ms(r->timeout_fd, ms);
}

int syslog_resolver_start(struct syslog_resolver *r)
{
	struct ares_options o = { .sock_state_cb = sock_state, .sock_state_cb_data = r };
	struct ares_addrinfo_hints hints = { .ai_family = AF_UNSPEC, .ai_socktype = r->socktype };
	int st;

	if (!r || r->literal)
		return -EINVAL;
	if (r->channel)
		return 0;
	timer_disarm(r->refresh_fd);
	st = ares_init_options(&r->channel, &o, ARES_OPT_SOCK_STATE_CB);
	if (st != ARES_SUCCESS) {
		r->channel = NULL;
		return st == ARES_ENOMEM ? -ENOMEM : -EIO;
	}
	r->finished = false;
	r->lookups++;
	clock_gettime(CLOCK_MONOTONIC, &r->deadline);
	r->deadline.tv_sec += SYSLOG_DNS_TIMEOUT_MS / 1000;
	ares_getaddrinfo(r->channel, r->host, r->port, &hints, on_answer, r);
	/* An answer from /etc/hosts comes at once: report it from process(),
	 * never from inside the caller's start(). */
	if (r->finished)
		timer_arm_ms(r->timeout_fd, 0);
	else
		arm_timeout(r);
	return 0;
}

static bool same_addrs(const struct syslog_resolver *r)
{
	if (r->nr_found != r->nr_addrs)
		return false;
	for (size_t i = 0; i < r->nr_found; i++)
		if (!syslog_resolver_has(r, &r->found[i]))
			return false;
	return true;
}

/* The lookup ended: keep its answer (or the old one), plan the next lookup,
 * tell the owner. */
static void finish(struct syslog_resolver *r, bool timed_out)
{
	char why[400];
	bool changed = false;
	int err = 0;

	ares_destroy(r->channel); /* closes its sockets through sock_state */
	r->channel = NULL;
	timer_disarm(r->timeout_fd);
	if (!timed_out && r->status == ARES_SUCCESS) {
		changed = !same_addrs(r);
		memcpy(r->addrs, r->found, sizeof(r->found));
		r->nr_addrs = r->nr_found;
		r->retry_s = 0;
		timer_arm_ms(r->refresh_fd, (int64_t)r->ttl_s * 1000);
		why[0] = '\0';
	} else {
		r->failures++;
		err = timed_out ? -ETIMEDOUT : -EHOSTUNREACH;
		if (timed_out)
			snprintf(why, sizeof(why),
				 "cannot resolve %s: no answer from the DNS servers within %d s",
				 r->host, SYSLOG_DNS_TIMEOUT_MS / 1000);
		else
			snprintf(why, sizeof(why), "cannot resolve %s: %s", r->host,
				 ares_strerror(r->status));
		/* With addresses to go on, refresh again later; without, the
		 * owner retries on its own schedule. */
		r->retry_s = r->retry_s ? r->retry_s * 2 : 1;
		if (r->retry_s > SYSLOG_DNS_RETRY_MAX_S)
			r->retry_s = SYSLOG_DNS_RETRY_MAX_S;
		if (r->nr_addrs)
			timer_arm_ms(r->refresh_fd, (int64_t)r->retry_s * 1000);
	}
	r->done(r->ctx, err, why, changed);
}

static void drain_timer(int fd)
{
	uint64_t expirations;

	while (read(fd, &expirations, sizeof(expirations)) > 0)
		;
}

int syslog_resolver_process(struct syslog_resolver *r)
{
	struct epoll_event ev[8];
	bool timeout = false, refresh = false;
	int n;

	if (!r)
		return -EINVAL;
	n = epoll_wait(r->epoll_fd, ev, 8, 0);
	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	for (int i = 0; i < n; i++) {
		int fd = ev[i].data.fd;

		if (fd == r->timeout_fd)
			timeout = true;
		else if (fd == r->refresh_fd)
			refresh = true;
		else if (r->channel)
			ares_process_fd(r->channel,
					ev[i].events & (EPOLLIN | EPOLLERR | EPOLLHUP)
						? fd
						: ARES_SOCKET_BAD,
					ev[i].events & EPOLLOUT ? fd : ARES_SOCKET_BAD);
	}
	if (timeout) {
		drain_timer(r->timeout_fd);
		if (r->channel && !r->finished)
			ares_process_fd(r->channel, ARES_SOCKET_BAD,
					ARES_SOCKET_BAD); /* c-ares' retries */
	}
	if (r->channel) {
		if (r->finished)
			finish(r, false);
		else if (ms_until(&r->deadline) <= 0)
			finish(r, true);
		else
			arm_timeout(r);
	}
	if (refresh) {
		drain_timer(r->refresh_fd);
		return syslog_resolver_start(r);
	}
	return 0;
}

int syslog_resolver_fd(const struct syslog_resolver *r)
{
	return r ? r->epoll_fd : -EINVAL;
}

size_t syslog_resolver_addrs(const struct syslog_resolver *r, const struct syslog_addr **ret)
{
	*ret = r->addrs;
	return r->nr_addrs;
}

bool syslog_resolver_has(const struct syslog_resolver *r, const struct syslog_addr *a)
{
	for (size_t i = 0; i < r->nr_addrs; i++)
		if (r->addrs[i].len == a->len && memcmp(&r->addrs[i].sa, &a->sa, a->len) == 0)
			return true;
	return false;
}

void syslog_resolver_counts(const struct syslog_resolver *r, uint64_t *ret_lookups,
			    uint64_t *ret_failures)
{
	*ret_lookups = r->lookups;
	*ret_failures = r->failures;
}

void syslog_resolver_free(struct syslog_resolver *r)
{
	if (!r)
		return;
	if (r->channel) {
		r->done = NULL;
		ares_destroy(r->channel); /* its callback runs with ARES_EDESTRUCTION */
	}
	if (r->timeout_fd >= 0)
		close(r->timeout_fd);
	if (r->refresh_fd >= 0)
		close(r->refresh_fd);
	if (r->epoll_fd >= 0)
		close(r->epoll_fd);
	ares_library_cleanup();
	free(r);
}

/* An address literal (no DNS): its one address, for good. */
static void take_literal(struct syslog_resolver *r)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC,
				  .ai_socktype = r->socktype,
				  .ai_flags = AI_NUMERICHOST };
	struct addrinfo *ai;

	if (getaddrinfo(r->host, r->port, &hints, &ai) != 0)
		return;
	for (struct addrinfo *p = ai; p && r->nr_addrs < SYSLOG_DNS_MAX_ADDRS; p = p->ai_next) {
		if (p->ai_addrlen > sizeof(r->addrs[0].sa))
			continue;
		memcpy(&r->addrs[r->nr_addrs].sa, p->ai_addr, p->ai_addrlen);
		r->addrs[r->nr_addrs++].len = p->ai_addrlen;
	}
	freeaddrinfo(ai);
	r->literal = r->nr_addrs > 0;
}

int syslog_resolver_new(const char *host, const char *port, int socktype, syslog_resolved_fn done,
			void *ctx, struct syslog_resolver **ret)
{
	struct syslog_resolver *r;
	struct epoll_event ev = { .events = EPOLLIN };
	int err;

	if (!host || !port || !done || !ret || !host[0] || strlen(host) >= sizeof(r->host) ||
	    strlen(port) >= sizeof(r->port))
		return -EINVAL;
	if (ares_library_init(ARES_LIB_INIT_ALL) != ARES_SUCCESS)
		return -ENOMEM;
	r = calloc(1, sizeof(*r));
	if (!r) {
		ares_library_cleanup();
		return -ENOMEM;
	}
	strcpy(r->host, host);
	strcpy(r->port, port);
	r->socktype = socktype;
	r->done = done;
	r->ctx = ctx;
	r->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	r->timeout_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	r->refresh_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (r->epoll_fd < 0 || r->timeout_fd < 0 || r->refresh_fd < 0)
		goto fail;
	ev.data.fd = r->timeout_fd;
	if (epoll_ctl(r->epoll_fd, EPOLL_CTL_ADD, r->timeout_fd, &ev) < 0)
		goto fail;
	ev.data.fd = r->refresh_fd;
	if (epoll_ctl(r->epoll_fd, EPOLL_CTL_ADD, r->refresh_fd, &ev) < 0)
		goto fail;
	take_literal(r);
	*ret = r;
	return 0;
fail:
	err = -errno;
	syslog_resolver_free(r);
	return err;
}
