/* SPDX-License-Identifier: GPL-2.0-only */
/* The metrics endpoint: an HTTP server (libmicrohttpd, its own threads)
 * serving the last published snapshot of the exposition. The agent builds a
 * snapshot after each collection and publishes it; a scrape only takes a
 * reference to the current snapshot and sends it (gzip-compressed once per
 * snapshot, on the first scrape that asks), so scrapes never touch BPF and
 * never wait for, or hold up, the agent's loop. Limits: docs/PROMETHEUS.md. */
#pragma once
#include "config/config.h"
#include "sink/prom_format.h"
#include <stddef.h>
#include <stdint.h>

#define PROM_HTTP_THREADS 2 /* serving threads: bounds the CPU scrapes can take */
#define PROM_HTTP_IDLE_TIMEOUT_S 10 /* a connection silent this long is closed */
#define PROM_HTTP_REQUEST_MAX 8192 /* request line + headers, bytes */

struct prom_http;

/* Bind cfg's listen address and start serving (503 until the first
 * publish). Returns 0, or -errno with one line for the user in err
 * ("cannot listen on 127.0.0.1:9464: Address already in use"). */
int prom_http_new(const struct prometheus_config *cfg, struct prom_http **ret, char *err,
		  size_t err_len);
void prom_http_free(struct prom_http *h); /* NULL is fine; unlinks its unix socket */

/* Whether h serves cfg's listen address (the server can then be kept when a
 * reload changes other settings; max_connections stays what it was). */
bool prom_http_same_listen(const struct prom_http *h, const struct prometheus_config *cfg);
/* Serve the metrics at this URL path from now on. */
void prom_http_set_path(struct prom_http *h, const char *path);

/* Whether a scrape has preferred OpenMetrics (then build it for every
 * snapshot; text is in every one). */
bool prom_http_wants_openmetrics(struct prom_http *h);
/* An empty buffer to build a body into: memory of a released snapshot when
 * there is one (already mapped), else a new one. */
void prom_http_take_buffer(struct prom_http *h, struct buf *ret);

/* Replace what scrapes get by the two bodies (text 0.0.4 and OpenMetrics;
 * an empty one: not built, scrapes asking for it get the other); takes
 * their memory (the buffers are emptied) whether it succeeds or not.
 * 0 or -ENOMEM (the previous snapshot stays). */
int prom_http_publish(struct prom_http *h, struct buf *text, struct buf *openmetrics);

/* gzip (RFC 1952) of data into out (appended). 0 or -ENOMEM. Exposed for the
 * benchmark. */
int prom_gzip(const char *data, size_t len, struct buf *out);
