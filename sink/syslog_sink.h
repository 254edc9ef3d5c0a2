/* SPDX-License-Identifier: GPL-2.0-only */
/* The syslog output: one message per monitored cgroup per interval (or
 * several parts of one, over UDP), RFC 5424 structured data or RFC 3164,
 * over a unix datagram socket, UDP or TCP. Implements sink/sink.h: the
 * agent hands it cumulative totals; it remembers, per cgroup, the totals of
 * the last message it queued and sends the difference, with the same value
 * and percent cells as the CSV output. See docs/SYSLOG.md.
 *
 * Event loop contract (the sink never blocks on the network):
 *  - add syslog_sink_fd() to the agent's epoll with EPOLLIN (level
 *    triggered). The fd is the same for the sink's whole life, across
 *    reconnects; do not close it.
 *  - whenever it is readable, call syslog_sink_process(). It completes
 *    connects, writes what the socket accepts (finishing a partly written TCP
 *    message first), notices hang-ups and runs the reconnect backoff.
 *  - write() queues and writes at once what the socket takes; flush() (once
 *    per interval) does the same as process().
 *  - before exiting, syslog_sink_drain() gives the queue a bounded time to
 *    reach the receiver; what is left is reported as not delivered by free(). */
#pragma once
#include "config/config.h"
#include "sink/sink.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct syslog_sink_stats {
	uint64_t records; /* records accepted by write() */
	uint64_t messages; /* messages queued (a split record counts each part) */
	uint64_t format_errors; /* records not formatted: their counts go into the next one */
	uint64_t sent; /* messages handed to the kernel in full */
	uint64_t dropped; /* messages dropped: queue full (oldest first), too large */
	uint64_t reconnects; /* connections established after the first */
	uint64_t connect_failures; /* failed attempts and lost connections */
	uint64_t refused; /* UDP port-unreachable reports */
	uint64_t partial_writes; /* TCP writes that took part of a message */
	uint64_t dns_lookups; /* host name lookups started */
	uint64_t dns_failures; /* lookups failed or unanswered */
	size_t queued; /* messages waiting now */
	size_t head_written; /* bytes of the oldest queued message already written (TCP) */
	bool connected;
};

/* cfg must be enabled and complete (config_parse_syslog_target() fills the
 * transport fields). A receiver that is down is not an error: messages queue.
 * -EINVAL for a bad config, -ENOMEM, or an errno from epoll/timerfd. */
int syslog_sink_new(const struct syslog_config *cfg, struct sink **ret);

/* The fd to watch for EPOLLIN, and what to call when it is readable (see
 * above). -EINVAL when s is not a syslog sink. */
int syslog_sink_fd(struct sink *s);
int syslog_sink_process(struct sink *s);

/* Wait at most timeout_ms for the queue to empty (exit path); connects at
 * once if the receiver is down. 0, or -ETIMEDOUT with messages left. */
int syslog_sink_drain(struct sink *s, int timeout_ms);

int syslog_sink_get_stats(struct sink *s, struct syslog_sink_stats *ret);
