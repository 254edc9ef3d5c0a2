/* SPDX-License-Identifier: GPL-2.0-only */
/* Delivery of formatted syslog messages to one receiver: a unix datagram
 * socket, UDP, or TCP with RFC 6587 octet-counting framing ("LEN SP MSG").
 * Never blocks on the network: messages go to a bounded queue (the oldest is
 * dropped, and counted, when it is full) and are written as the socket
 * accepts them; a lost or refused receiver is retried with exponential
 * backoff. Drops, outages and recoveries are reported on stderr, at most one
 * line of each kind per SYSLOG_REPORT_INTERVAL_S.
 *
 * Driving it: syslog_conn_fd() is one epoll fd that stays the same for
 * the transport's life (across reconnects). Watch it for EPOLLIN (level
 * triggered); when it is readable, call syslog_conn_process(). That is
 * all the caller has to do: the backoff timer, connect completion, writable
 * socket and receiver hang-ups all surface through that fd.
 * See docs/SYSLOG.md. */
#pragma once
#include "config/config.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Largest message (without TCP framing) per transport. UDP: kept within one
 * 2048-byte datagram. Unix and TCP: rsyslog's default maxMessageSize is 8096
 * bytes (it cuts longer ones, and over TCP turns the rest into a message of
 * its own), so a receiver on defaults never cuts ours. */
#define SYSLOG_UDP_MESSAGE_MAX 2048
#define SYSLOG_STREAM_MESSAGE_MAX 8096

#define SYSLOG_BACKOFF_MIN_MS 500
#define SYSLOG_BACKOFF_MAX_MS 30000
#define SYSLOG_CONNECT_TIMEOUT_MS 10000
#define SYSLOG_REPORT_INTERVAL_S 60

struct syslog_conn;

/* The delay after a failed attempt that followed one of `ms`: doubling from
 * SYSLOG_BACKOFF_MIN_MS up to SYSLOG_BACKOFF_MAX_MS. It starts over once a
 * message got through (not at connect: a receiver that accepts and closes
 * at once is retried on this schedule too). */
unsigned syslog_backoff_next(unsigned ms);

struct syslog_conn_stats {
	uint64_t sent; /* messages handed to the kernel in full */
	uint64_t dropped; /* oldest dropped from a full queue, or refused by the
	                            * socket as too large */
	uint64_t reconnects; /* connections established after the first one */
	uint64_t connect_failures; /* failed attempts: resolve, connect, connection lost */
	uint64_t refused; /* UDP: port-unreachable reports. Each means at least
	                            * one datagram sent earlier was not received */
	uint64_t partial_writes; /* TCP: writes that took only part of a message */
	uint64_t dns_lookups; /* host name lookups started (first, refreshes, retries) */
	uint64_t dns_failures; /* lookups that failed or got no answer in time */
	size_t queued; /* waiting now, a partly written one included */
	size_t head_written; /* bytes of the first queued message already written */
	bool connected; /* a socket is connected (UDP: no receiver check) */
};

/* Creates the transport and makes a first connection attempt; a receiver
 * that is down is not an error (messages queue, retries follow). The host
 * name of udp:// and tcp:// targets is resolved without blocking
 * (sink/syslog_resolve.h): messages queue until its address is known, and
 * the addresses are kept for the DNS TTL, across reconnects.
 * -EINVAL: bad config (queue_max 0, unknown transport, bad unix path). */
int syslog_conn_new(const struct syslog_config *cfg, struct syslog_conn **ret);
/* Messages still queued are reported as not delivered. NULL is fine. */
void syslog_conn_free(struct syslog_conn *t);

/* The largest message syslog_conn_send() accepts. */
size_t syslog_conn_message_max(const struct syslog_conn *t);

/* A record's messages (the parts of a split one) are queued together or
 * not at all, so a record that fails half-way leaves nothing behind that
 * its retry would send a second time. stage() copies one message aside:
 * 0, or -EMSGSIZE (longer than the maximum), -EINVAL, -ENOMEM. commit()
 * queues every staged message and writes what the socket takes now (a full
 * queue drops its oldest, never one partly written; a receiver that is down
 * is not an error). discard() forgets the staged ones. */
int syslog_conn_stage(struct syslog_conn *t, const char *msg, size_t len);
void syslog_conn_commit(struct syslog_conn *t);
void syslog_conn_discard(struct syslog_conn *t);

/* The fd to watch (EPOLLIN), and what to call when it is readable: handles
 * timers, connect completion, writes and hang-ups without blocking. Returns 0
 * or a negative errno when the transport's own epoll fails. */
int syslog_conn_fd(const struct syslog_conn *t);
int syslog_conn_process(struct syslog_conn *t);

/* Close the connection and connect again now (SIGHUP), to the addresses
 * known (looked up again only when their TTL is over). The queue is kept; a partly written TCP message is sent again
 * whole on the new connection. */
int syslog_conn_reconnect(struct syslog_conn *t);

/* Wait (at most timeout_ms) until the queue is empty, trying to connect at
 * once if the receiver is down. For a clean exit. 0, or -ETIMEDOUT with
 * messages still queued. */
int syslog_conn_drain(struct syslog_conn *t, int timeout_ms);

void syslog_conn_get_stats(const struct syslog_conn *t, struct syslog_conn_stats *ret);
