// SPDX-License-Identifier: GPL-2.0-only
#include "sink/syslog_transport.h"
#include "sink/syslog_resolve.h"
#include "util/log.h"
#include "util/timer.h"
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/* Unacknowledged data older than this aborts a TCP connection, so a receiver
 * host that vanished is noticed in seconds rather than after the kernel's
 * ~15 minutes of retransmissions. */
#define TCP_USER_TIMEOUT_MS 30000
/* Bytes a receiver might send us (none expected) read per check. */
#define DISCARD_MAX 4096

/* RESOLVING: no address known yet, the lookup runs (messages queue). */
enum conn_state {
	CONN_DOWN,
	CONN_RESOLVING,
	CONN_CONNECTING,
	CONN_UP
};
enum {
	TAG_TIMER = 1,
	TAG_SOCKET = 2,
	TAG_RESOLVER = 3
};

struct queued_msg {
	char *data; /* TCP: with the "LEN " frame prefix */
	size_t len;
};

struct syslog_conn {
	enum syslog_transport kind;
	char label[sizeof(((struct syslog_config *)NULL)->target) + 32]; /* host + port fit */
	char host[sizeof(((struct syslog_config *)NULL)->host)];
	char port[sizeof(((struct syslog_config *)NULL)->port)];
	struct sockaddr_un unix_addr;
	struct syslog_resolver *resolver; /* udp, tcp */
	size_t next_addr; /* index of the address the next attempt takes */
	struct syslog_addr cur_addr; /* the one of the current socket */

	int epoll_fd, timer_fd, sock_fd;
	enum conn_state state;
	uint32_t sock_events; /* registered in epoll_fd */
	bool blocked; /* the last write would have blocked: wait for EPOLLOUT */
	uint64_t sends_on_socket; /* messages completed on the current socket */

	struct queued_msg *ring;
	size_t cap, head, count, head_written;
	/* The messages of the record being formatted, not queued yet. */
	struct queued_msg *staged;
	size_t nr_staged, staged_cap;

	unsigned backoff_ms; /* delay before the next attempt after a failure */
	bool ever_connected;

	bool down; /* an outage is in progress (and has been reported) */
	struct timespec down_since;
	uint64_t dropped_at_down;

	struct syslog_conn_stats stats;
	struct log_ratelimit rl_down, rl_up, rl_drop, rl_dns;
};

static double seconds_since(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t0->tv_sec) + (double)(now.tv_nsec - t0->tv_nsec) / 1e9;
}

static void update_events(struct syslog_conn *t)
{
	uint32_t want = 0;
	struct epoll_event ev = { .data.u32 = TAG_SOCKET };

	if (t->sock_fd < 0)
		return;
	if (t->state == CONN_CONNECTING)
		want = EPOLLOUT;
	else if (t->state == CONN_UP) {
		/* A syslog receiver never writes to us: readable means it
		 * closed (or misbehaves; what it sends is discarded). */
		if (t->kind == SYSLOG_TCP)
			want |= EPOLLIN | EPOLLRDHUP;
		/* Only while something waits, or level-triggered epoll would
		 * report a writable socket forever. */
		if (t->count > 0 && t->blocked)
			want |= EPOLLOUT;
	}
	if (want == t->sock_events)
		return;
	ev.events = want;
	if (epoll_ctl(t->epoll_fd, EPOLL_CTL_MOD, t->sock_fd, &ev) == 0)
		t->sock_events = want;
}

static void close_socket(struct syslog_conn *t)
{
	if (t->sock_fd >= 0)
		close(t->sock_fd); /* also leaves epoll_fd */
	t->sock_fd = -1;
	t->sock_events = 0;
	t->state = CONN_DOWN;
	t->blocked = false;
	t->sends_on_socket = 0;
	/* The receiver drops an incomplete frame with the connection: the
	 * message is sent again whole on the next one. */
	t->head_written = 0;
}

static void note_down(struct syslog_conn *t)
{
	if (t->down)
		return;
	t->down = true;
	clock_gettime(CLOCK_MONOTONIC, &t->down_since);
	t->dropped_at_down = t->stats.dropped;
}

static void report_down(struct syslog_conn *t, const char *why, const char *next)
{
	log_ratelimited(&t->rl_down, SYSLOG_REPORT_INTERVAL_S, LOG_LVL_WARN,
			"syslog %s: %s; queued: %zu of at most %zu (oldest dropped first), "
			"dropped so far: %" PRIu64 "; %s",
			t->label, why, t->count, t->cap, t->stats.dropped, next);
}

/* A failed attempt: retry after the backoff, which doubles up to its maximum. */
static void attempt_failed(struct syslog_conn *t, const char *why)
{
	char next[64];

	close_socket(t);
	t->stats.connect_failures++;
	note_down(t);
	snprintf(next, sizeof(next), "next attempt in %.1f s", t->backoff_ms / 1000.0);
	report_down(t, why, next);
	timer_arm_ms(t->timer_fd, t->backoff_ms);
	t->backoff_ms = syslog_backoff_next(t->backoff_ms);
}

unsigned syslog_backoff_next(unsigned ms)
{
	return ms >= SYSLOG_BACKOFF_MAX_MS / 2 ? SYSLOG_BACKOFF_MAX_MS
	       : ms < SYSLOG_BACKOFF_MIN_MS    ? SYSLOG_BACKOFF_MIN_MS
					       : ms * 2;
}

/* The receiver is known to be there: say so if it was not. */
static void receiver_ok(struct syslog_conn *t)
{
	if (!t->down)
		return;
	t->down = false;
	log_ratelimited(
		&t->rl_up, SYSLOG_REPORT_INTERVAL_S, LOG_LVL_WARN,
		"syslog %s: connected after %.1f s unreachable; %zu queued messages to deliver, "
		"%" PRIu64 " dropped meanwhile (%" PRIu64 " in total)",
		t->label, seconds_since(&t->down_since), t->count,
		t->stats.dropped - t->dropped_at_down, t->stats.dropped);
}

static void established(struct syslog_conn *t)
{
	t->state = CONN_UP;
	timer_disarm(t->timer_fd);
	if (t->ever_connected)
		t->stats.reconnects++;
	t->ever_connected = true;
	/* A UDP "connection" proves nothing; see send_queue(). */
	if (t->kind != SYSLOG_UDP)
		receiver_ok(t);
	update_events(t);
}

static void try_connect(struct syslog_conn *t)
{
	const struct sockaddr *addr;
	socklen_t addr_len;
	int family, type, r;
	struct epoll_event ev = { .events = 0, .data.u32 = TAG_SOCKET };
	char why[512];

	close_socket(t);
	timer_disarm(t->timer_fd);
	if (t->kind == SYSLOG_UNIX) {
		family = AF_UNIX;
		type = SOCK_DGRAM;
		addr = (const struct sockaddr *)&t->unix_addr;
		addr_len = sizeof(t->unix_addr);
	} else {
		const struct syslog_addr *addrs;
		size_t n = syslog_resolver_addrs(t->resolver, &addrs);

		if (n == 0) {
			/* Messages queue meanwhile; on_resolved() goes on from here. */
			r = syslog_resolver_start(t->resolver);
			if (r < 0) {
				snprintf(why, sizeof(why), "cannot resolve %s: %s", t->host,
					 strerror(-r));
				attempt_failed(t, why);
				return;
			}
			t->state = CONN_RESOLVING;
			return;
		}
		/* Each attempt takes the next address of the name. */
		t->cur_addr = addrs[t->next_addr++ % n];
		family = t->cur_addr.sa.ss_family;
		type = t->kind == SYSLOG_TCP ? SOCK_STREAM : SOCK_DGRAM;
		addr = (const struct sockaddr *)&t->cur_addr.sa;
		addr_len = t->cur_addr.len;
	}

	t->sock_fd = socket(family, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (t->sock_fd < 0) {
		snprintf(why, sizeof(why), "socket: %s", strerror(errno));
		attempt_failed(t, why);
		return;
	}
	if (t->kind == SYSLOG_TCP) {
		unsigned timeout = TCP_USER_TIMEOUT_MS;
		setsockopt(t->sock_fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &timeout, sizeof(timeout));
	}
	if (epoll_ctl(t->epoll_fd, EPOLL_CTL_ADD, t->sock_fd, &ev) < 0) {
		snprintf(why, sizeof(why), "epoll: %s", strerror(errno));
		attempt_failed(t, why);
		return;
	}
	r = connect(t->sock_fd, addr, addr_len);
	if (r == 0) {
		established(t);
		return;
	}
	if (errno == EINPROGRESS && t->kind == SYSLOG_TCP) {
		t->state = CONN_CONNECTING;
		update_events(t);
		timer_arm_ms(t->timer_fd, SYSLOG_CONNECT_TIMEOUT_MS);
		return;
	}
	snprintf(why, sizeof(why), "connect: %s", strerror(errno));
	attempt_failed(t, why);
}

/* A lookup ended. The first one lets the waiting attempt go on; a
 * background refresh that moved the name elsewhere moves the connection. */
static void on_resolved(void *ctx, int err, const char *why, bool changed)
{
	struct syslog_conn *t = ctx;

	if (t->state == CONN_RESOLVING) {
		if (err < 0)
			attempt_failed(t, why);
		else
			try_connect(t);
		return;
	}
	if (err < 0) {
		log_ratelimited(&t->rl_dns, SYSLOG_REPORT_INTERVAL_S, LOG_LVL_WARN,
				"syslog %s: %s; still using the addresses it had before", t->label,
				why);
		return;
	}
	if (!changed)
		return;
	t->next_addr = 0;
	if ((t->state == CONN_UP || t->state == CONN_CONNECTING) &&
	    !syslog_resolver_has(t->resolver, &t->cur_addr)) {
		log_info("syslog %s: %s resolves to other addresses now; reconnecting", t->label,
			 t->host);
		try_connect(t);
	}
}

/* A working connection broke. If it delivered something, the receiver was
 * there a moment ago (a restart, most likely): try again at once. Otherwise
 * this counts as a failed attempt and waits for the backoff. */
static void connection_lost(struct syslog_conn *t, const char *what, int err, bool retry_now)
{
	char why[256];

	if (err)
		snprintf(why, sizeof(why), "%s: %s", what, strerror(err));
	else
		snprintf(why, sizeof(why), "%s", what);
	if (!retry_now || t->sends_on_socket == 0) {
		attempt_failed(t, why);
		return;
	}
	close_socket(t);
	t->stats.connect_failures++;
	note_down(t);
	report_down(t, why, "reconnecting now");
	try_connect(t);
}

static void pop_head(struct syslog_conn *t)
{
	free(t->ring[t->head].data);
	t->ring[t->head] = (struct queued_msg){ 0 };
	t->head = (t->head + 1) % t->cap;
	t->count--;
	t->head_written = 0;
}

/* 0: still open; 1: the receiver closed it; negative errno: failed. Reads
 * and discards what the receiver sent. */
static int check_peer_open(struct syslog_conn *t)
{
	char buf[512];

	for (size_t total = 0; total < DISCARD_MAX;) {
		ssize_t n = recv(t->sock_fd, buf, sizeof(buf), MSG_DONTWAIT);

		if (n > 0) {
			total += (size_t)n;
			continue;
		}
		if (n == 0)
			return 1;
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return 0;
		return -errno;
	}
	return 0;
}

static void send_queue(struct syslog_conn *t)
{
	if (t->state == CONN_UP && t->kind == SYSLOG_TCP && t->count > 0) {
		/* A receiver that closed still takes one write (answered with a
		 * reset, and the message lost): look for its FIN first. */
		int r = check_peer_open(t);
		if (r != 0)
			connection_lost(t,
					r > 0 ? "the receiver closed the connection" : "connection",
					r > 0 ? 0 : -r, true);
	}
	while (t->count > 0 && t->state == CONN_UP) {
		struct queued_msg *m = &t->ring[t->head];
		size_t off = t->kind == SYSLOG_TCP ? t->head_written : 0;
		ssize_t n =
			send(t->sock_fd, m->data + off, m->len - off, MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n < 0) {
			int err = errno;

			if (err == EINTR)
				continue;
			if (err == EAGAIN || err == EWOULDBLOCK) {
				t->blocked = true;
				break;
			}
			if (err == EMSGSIZE && t->kind != SYSLOG_TCP) {
				/* This socket will never take it: waiting would
				 * block everything behind it. */
				pop_head(t);
				t->stats.dropped++;
				log_ratelimited(
					&t->rl_drop, SYSLOG_REPORT_INTERVAL_S, LOG_LVL_WARN,
					"syslog %s: a %zu-byte message is too large for the socket; dropped "
					"(%" PRIu64 " dropped so far)",
					t->label, m->len, t->stats.dropped);
				continue;
			}
			if (t->kind == SYSLOG_UDP && err == ECONNREFUSED) {
				/* An ICMP port unreachable answered an earlier datagram. */
				t->stats.refused++;
				connection_lost(t, "send", err, false);
				break;
			}
			connection_lost(t, "send", err, true);
			continue;
		}
		t->blocked = false;
		if (t->kind == SYSLOG_TCP && off + (size_t)n < m->len) {
			t->head_written = off + (size_t)n;
			t->stats.partial_writes++;
			continue;
		}
		pop_head(t);
		t->stats.sent++;
		t->sends_on_socket++;
		/* A message got through: the next failure starts the backoff
		 * over. Not at connect: a receiver that accepts and closes at
		 * once (a balancer without backends) would be tried every 0.5 s.
		 * UDP: a second datagram sent without a refusal in between means
		 * the port answers again. */
		if (t->kind != SYSLOG_UDP || t->sends_on_socket >= 2)
			t->backoff_ms = SYSLOG_BACKOFF_MIN_MS;
		if (t->kind == SYSLOG_UDP && t->sends_on_socket >= 2)
			receiver_ok(t);
	}
	update_events(t);
}

static int sock_error(int fd)
{
	int err = 0;
	socklen_t len = sizeof(err);

	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
		return errno;
	return err;
}

static void handle_socket_events(struct syslog_conn *t, uint32_t events)
{
	int err;

	if (t->state == CONN_CONNECTING) {
		char why[256];

		err = sock_error(t->sock_fd);
		if (err == 0 && !(events & (EPOLLERR | EPOLLHUP))) {
			established(t);
			return;
		}
		snprintf(why, sizeof(why), "connect: %s", strerror(err ? err : ECONNREFUSED));
		attempt_failed(t, why);
		return;
	}
	if (t->state != CONN_UP)
		return;
	if (events & EPOLLERR) {
		err = sock_error(t->sock_fd);
		if (t->kind == SYSLOG_UDP && err == ECONNREFUSED) {
			t->stats.refused++;
			connection_lost(t, "receiver port", err, false);
			return;
		}
		if (err) {
			connection_lost(t, "connection", err, true);
			return;
		}
	}
	if (t->kind == SYSLOG_TCP && (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP))) {
		err = check_peer_open(t);
		if (err < 0)
			connection_lost(t, "connection", -err, true);
		else if (err > 0 || (events & EPOLLHUP))
			connection_lost(t, "the receiver closed the connection", 0, true);
		return;
	}
	if (t->kind != SYSLOG_TCP && (events & EPOLLHUP))
		connection_lost(t, "socket", ECONNRESET, true);
}

int syslog_conn_process(struct syslog_conn *t)
{
	struct epoll_event ev[4];
	uint32_t sock_events = 0;
	bool timer = false, resolver = false;
	int n;

	if (!t)
		return -EINVAL;
	n = epoll_wait(t->epoll_fd, ev, 4, 0);
	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	for (int i = 0; i < n; i++) {
		if (ev[i].data.u32 == TAG_TIMER)
			timer = true;
		else if (ev[i].data.u32 == TAG_RESOLVER)
			resolver = true;
		else
			sock_events |= ev[i].events;
	}
	if (resolver)
		syslog_resolver_process(t->resolver);
	if (sock_events && t->sock_fd >= 0)
		handle_socket_events(t, sock_events);
	if (timer) {
		uint64_t expirations;

		if (read(t->timer_fd, &expirations, sizeof(expirations)) == sizeof(expirations)) {
			if (t->state == CONN_DOWN)
				try_connect(t);
			else if (t->state == CONN_CONNECTING)
				attempt_failed(t, "connect: timed out");
		}
	}
	if (t->state == CONN_UP)
		send_queue(t);
	return 0;
}

int syslog_conn_fd(const struct syslog_conn *t)
{
	return t ? t->epoll_fd : -EINVAL;
}

size_t syslog_conn_message_max(const struct syslog_conn *t)
{
	return t && t->kind == SYSLOG_UDP ? SYSLOG_UDP_MESSAGE_MAX : SYSLOG_STREAM_MESSAGE_MAX;
}

/* Make room for one more message: drop the oldest that has not started. */
static bool make_room(struct syslog_conn *t)
{
	size_t victim;

	if (t->count < t->cap)
		return true;
	t->stats.dropped++;
	log_ratelimited(&t->rl_drop, SYSLOG_REPORT_INTERVAL_S, LOG_LVL_WARN,
			"syslog %s: queue full (%zu messages): dropping the oldest; %" PRIu64
			" dropped so far",
			t->label, t->cap, t->stats.dropped);
	if (t->head_written == 0) {
		pop_head(t);
		return true;
	}
	/* The head is partly written and must be finished first (the framing
	 * depends on it); drop the one after it. */
	if (t->cap == 1)
		return false; /* nothing else to drop: the new one goes */
	victim = (t->head + 1) % t->cap;
	free(t->ring[victim].data);
	t->ring[victim] = t->ring[t->head];
	t->ring[t->head] = (struct queued_msg){ 0 };
	t->head = victim;
	t->count--;
	return true;
}

int syslog_conn_stage(struct syslog_conn *t, const char *msg, size_t len)
{
	struct queued_msg m = { 0 };
	char prefix[24];
	size_t prefix_len = 0;

	if (!t || (!msg && len))
		return -EINVAL;
	if (len > syslog_conn_message_max(t))
		return -EMSGSIZE;
	if (t->nr_staged == t->staged_cap) {
		size_t cap = t->staged_cap ? 2 * t->staged_cap : 4;
		struct queued_msg *staged = realloc(t->staged, cap * sizeof(*staged));

		if (!staged)
			return -ENOMEM;
		t->staged = staged;
		t->staged_cap = cap;
	}
	if (t->kind == SYSLOG_TCP)
		prefix_len = (size_t)snprintf(prefix, sizeof(prefix), "%zu ", len);
	m.data = malloc(prefix_len + len ? prefix_len + len : 1);
	if (!m.data)
		return -ENOMEM;
	memcpy(m.data, prefix, prefix_len);
	if (len)
		memcpy(m.data + prefix_len, msg, len);
	m.len = prefix_len + len;
	t->staged[t->nr_staged++] = m;
	return 0;
}

void syslog_conn_discard(struct syslog_conn *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nr_staged; i++)
		free(t->staged[i].data);
	t->nr_staged = 0;
}

void syslog_conn_commit(struct syslog_conn *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nr_staged; i++) {
		if (!make_room(t)) {
			free(t->staged[i].data);
			continue;
		}
		t->ring[(t->head + t->count) % t->cap] = t->staged[i];
		t->count++;
	}
	t->nr_staged = 0;
	if (t->state == CONN_UP)
		send_queue(t);
}

int syslog_conn_reconnect(struct syslog_conn *t)
{
	if (!t)
		return -EINVAL;
	/* The addresses are kept: they are refreshed when their TTL ends. */
	t->backoff_ms = SYSLOG_BACKOFF_MIN_MS;
	try_connect(t);
	if (t->state == CONN_UP)
		send_queue(t);
	return 0;
}

int syslog_conn_drain(struct syslog_conn *t, int timeout_ms)
{
	struct timespec start;

	if (!t)
		return -EINVAL;
	clock_gettime(CLOCK_MONOTONIC, &start);
	if (t->count > 0 && t->state == CONN_DOWN) {
		try_connect(t);
		if (t->state == CONN_UP)
			send_queue(t);
	}
	while (t->count > 0) {
		int left = timeout_ms - (int)(seconds_since(&start) * 1000);
		struct pollfd pfd = { .fd = t->epoll_fd, .events = POLLIN };

		if (left <= 0)
			return -ETIMEDOUT;
		if (poll(&pfd, 1, left) < 0 && errno != EINTR)
			return -errno;
		syslog_conn_process(t);
	}
	return 0;
}

void syslog_conn_get_stats(const struct syslog_conn *t, struct syslog_conn_stats *ret)
{
	*ret = t->stats;
	if (t->resolver)
		syslog_resolver_counts(t->resolver, &ret->dns_lookups, &ret->dns_failures);
	ret->queued = t->count;
	ret->head_written = t->head_written;
	ret->connected = t->state == CONN_UP;
}

void syslog_conn_free(struct syslog_conn *t)
{
	if (!t)
		return;
	if (t->count > 0)
		log_warn("syslog %s: %zu queued messages were not delivered (%" PRIu64
			 " dropped before)",
			 log_name(t->label), t->count, t->stats.dropped);
	close_socket(t);
	while (t->count > 0)
		pop_head(t);
	free(t->ring);
	syslog_conn_discard(t);
	free(t->staged);
	syslog_resolver_free(t->resolver);
	if (t->timer_fd >= 0)
		close(t->timer_fd);
	if (t->epoll_fd >= 0)
		close(t->epoll_fd);
	free(t);
}

int syslog_conn_new(const struct syslog_config *cfg, struct syslog_conn **ret)
{
	struct syslog_conn *t;
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = TAG_TIMER };
	int r;

	if (!cfg || !ret || cfg->queue_max == 0 ||
	    cfg->queue_max > SIZE_MAX / sizeof(struct queued_msg))
		return -EINVAL;
	if (cfg->transport != SYSLOG_UNIX && cfg->transport != SYSLOG_UDP &&
	    cfg->transport != SYSLOG_TCP)
		return -EINVAL;
	if (cfg->transport == SYSLOG_UNIX &&
	    (cfg->socket_path[0] == '\0' ||
	     strnlen(cfg->socket_path, sizeof(cfg->socket_path)) >= sizeof(t->unix_addr.sun_path)))
		return -EINVAL;
	if (cfg->transport != SYSLOG_UNIX && (cfg->host[0] == '\0' || cfg->port[0] == '\0'))
		return -EINVAL;

	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->epoll_fd = t->timer_fd = t->sock_fd = -1;
	t->kind = cfg->transport;
	t->cap = cfg->queue_max;
	t->backoff_ms = SYSLOG_BACKOFF_MIN_MS;
	snprintf(t->host, sizeof(t->host), "%.*s", (int)sizeof(cfg->host) - 1, cfg->host);
	snprintf(t->port, sizeof(t->port), "%.*s", (int)sizeof(cfg->port) - 1, cfg->port);
	if (cfg->target[0])
		snprintf(t->label, sizeof(t->label), "%.*s", (int)sizeof(cfg->target) - 1,
			 cfg->target);
	else if (t->kind == SYSLOG_UNIX)
		snprintf(t->label, sizeof(t->label), "unix:%s", cfg->socket_path);
	else
		snprintf(t->label, sizeof(t->label), "%s://%s:%s",
			 t->kind == SYSLOG_UDP ? "udp" : "tcp", t->host, t->port);
	t->unix_addr.sun_family = AF_UNIX;
	memcpy(t->unix_addr.sun_path, cfg->socket_path,
	       strnlen(cfg->socket_path, sizeof(t->unix_addr.sun_path) - 1));

	t->ring = calloc(t->cap, sizeof(*t->ring));
	if (!t->ring) {
		r = -ENOMEM;
		goto fail;
	}
	t->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	t->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (t->epoll_fd < 0 || t->timer_fd < 0 ||
	    epoll_ctl(t->epoll_fd, EPOLL_CTL_ADD, t->timer_fd, &ev) < 0) {
		r = -errno;
		goto fail;
	}
	if (t->kind != SYSLOG_UNIX) {
		r = syslog_resolver_new(t->host, t->port,
					t->kind == SYSLOG_TCP ? SOCK_STREAM : SOCK_DGRAM,
					on_resolved, t, &t->resolver);
		if (r < 0)
			goto fail;
		ev.data.u32 = TAG_RESOLVER;
		if (epoll_ctl(t->epoll_fd, EPOLL_CTL_ADD, syslog_resolver_fd(t->resolver), &ev) <
		    0) {
			r = -errno;
			goto fail;
		}
	}
	try_connect(t);
	*ret = t;
	return 0;
fail:
	syslog_conn_free(t);
	return r;
}
