/* SPDX-License-Identifier: GPL-2.0-only */
/* The host name of a udp:// or tcp:// syslog target, resolved without ever
 * blocking the agent's loop: c-ares, whose sockets and timeouts are driven
 * through one epoll fd. The answer is kept for its DNS TTL (clamped to
 * SYSLOG_DNS_TTL_MIN_S..SYSLOG_DNS_TTL_MAX_S) and looked up again in the
 * background when that expires; until a new answer comes (or when the DNS
 * servers fail) the old addresses stay in use. A lookup without an answer
 * is given up after SYSLOG_DNS_TIMEOUT_MS. An address literal needs no
 * lookup and never expires. See docs/SYSLOG.md ("Name resolution"). */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#define SYSLOG_DNS_TTL_MIN_S 5
#define SYSLOG_DNS_TTL_MAX_S 3600
#define SYSLOG_DNS_TIMEOUT_MS 10000
#define SYSLOG_DNS_RETRY_MAX_S 60
#define SYSLOG_DNS_MAX_ADDRS 16

struct syslog_addr {
	struct sockaddr_storage sa;
	socklen_t len;
};

struct syslog_resolver;

/* A lookup ended, called from syslog_resolver_process(). err: 0 (changed:
 * the addresses differ from the ones before), or negative with why saying
 * what failed ("no answer from the DNS servers within 10 s"). */
typedef void (*syslog_resolved_fn)(void *ctx, int err, const char *why, bool changed);

/* host and port as in the target; socktype SOCK_STREAM or SOCK_DGRAM. No
 * lookup starts here. -EINVAL, -ENOMEM or an errno from epoll/timerfd. */
int syslog_resolver_new(const char *host, const char *port, int socktype, syslog_resolved_fn done,
			void *ctx, struct syslog_resolver **ret);
void syslog_resolver_free(struct syslog_resolver *r); /* NULL is fine */

/* Start a lookup unless one is running (its end is reported through done).
 * 0 or a negative errno when c-ares cannot be set up. */
int syslog_resolver_start(struct syslog_resolver *r);

/* Watch this fd for EPOLLIN (level triggered); when it is readable call
 * process(): it reads DNS answers, runs timeouts and background refreshes,
 * and calls done when a lookup ends. 0 or a negative errno. */
int syslog_resolver_fd(const struct syslog_resolver *r);
int syslog_resolver_process(struct syslog_resolver *r);

/* The addresses known now, fresh or expired (0: none yet). */
size_t syslog_resolver_addrs(const struct syslog_resolver *r, const struct syslog_addr **ret);
bool syslog_resolver_has(const struct syslog_resolver *r, const struct syslog_addr *a);

/* Lookups started and lookups that failed (for the stats). */
void syslog_resolver_counts(const struct syslog_resolver *r, uint64_t *ret_lookups,
			    uint64_t *ret_failures);
