// SPDX-License-Identifier: GPL-2.0-only
/* prombench: what the Prometheus output costs at N cgroups x E events.
 *
 *   build/bench/prombench [CGROUPS [ROUNDS [NAMES]]]  (default 1000 cgroups, 50 rounds,
 *                                                 NAMES cgperf; cadvisor or both:
 *                                                 outputs.prometheus.names, with two
 *                                                 container_label_ keys)
 *
 * Reports, as medians over ROUNDS:
 *  - the exposition's size (text 0.0.4, OpenMetrics, gzip of the text);
 *  - the time to build each body (what the agent's loop pays per interval);
 *  - the time to gzip the text body (paid once per snapshot, by the first
 *    scrape asking for gzip, on an HTTP thread);
 *  - the time to serve one scrape over loopback TCP, plain and gzip (after
 *    the snapshot's gzip body exists): connect, request, whole body read;
 *  - the sink's side of a collection, as the agent's loop pays it: every
 *    cgroup's row (the record's delta, the sink's write, the commit), then
 *    prom_sink_publish(), in ns per cgroup; and the heap the sink keeps per
 *    cgroup.
 * Labels look like a container host's (docker scopes, names, pods). */
#include "agent/record.h"
#include "sink/prom_format.h"
#include "sink/prom_http.h"
#include "sink/prom_sink.h"

#include <arpa/inet.h>
#include <malloc.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define NR_EVENTS 4

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return v[n / 2];
}

static int free_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0), port;

	bind(fd, (struct sockaddr *)&a, sizeof(a));
	getsockname(fd, (struct sockaddr *)&a, &len);
	port = ntohs(a.sin_port);
	close(fd);
	return port;
}

/* One GET over a fresh connection; returns the bytes received, -1 on error. */
static long scrape(int port, bool gzip)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons((uint16_t)port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	char req[256], buf[1 << 16];
	long total = 0;
	ssize_t n;
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		close(fd);
		return -1;
	}
	snprintf(req, sizeof(req),
		 "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n%s\r\n",
		 gzip ? "Accept-Encoding: gzip\r\n" : "");
	if (write(fd, req, strlen(req)) < 0)
		total = -1;
	while (total >= 0 && (n = read(fd, buf, sizeof(buf))) > 0)
		total += n;
	close(fd);
	return total;
}

static void cgroup_path(char *buf, size_t size, int i)
{
	snprintf(buf, size,
		 "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod%08x.slice/"
		 "cri-containerd-%064x.scope",
		 i, i);
}

/* The agent's collections through the sink (agent_collect.c's emit, one
 * output): rows, then the publish. Hardware-like events run half the time. */
static void bench_sink(struct prom_http *http, int nr, int rounds, const char *const *names)
{
	struct prom_sink_opts o = { .http = http, .nr_events = NR_EVENTS, .event_names = names };
	struct record_set set = { 0 };
	struct reading *tot = calloc((size_t)nr * NR_EVENTS, sizeof(*tot));
	double *t_rows = calloc((size_t)rounds, sizeof(double)),
	       *t_pub = calloc((size_t)rounds, sizeof(double));
	struct prom_health h = { .version = "bench", .follower_mode = "tp" };
	uint64_t now_ns = 1000000000ull;
	size_t heap0, heap1 = 0;
	struct sink *s;

	for (int i = 0; i < nr; i++) {
		struct cg_identity ident = { 0 };
		struct cg_metadata meta = { 0 };
		char path[256];

		cgroup_path(path, sizeof(path), i);
		snprintf(meta.container_name, sizeof(meta.container_name), "service-%d-7d9f5c", i);
		record_add(&set, (uint64_t)i + 1, i, path, &ident, &meta);
	}
	heap0 = mallinfo2().uordblks;
	if (prom_sink_new(&o, &s) < 0)
		return;
	for (int r = -1; r < rounds; r++) {
		double t0;

		now_ns += 10000000000ull;
		for (int i = 0; i < nr * NR_EVENTS; i++) {
			tot[i].counter += 1000003 + (uint64_t)i;
			tot[i].enabled += 10000000;
			tot[i].running += i % NR_EVENTS < 2 ? 5000000 : 10000000;
		}
		t0 = now_ms();
		for (int i = 0; i < set.nr; i++) {
			struct cg_record *rec = set.items[i];
			const struct reading *t = &tot[(size_t)rec->slot * NR_EVENTS];
			struct reading delta[READINGS_MAX_EVENTS];
			struct sink_record row;

			record_row(rec, RECORD_OUT_PROMETHEUS, t, NR_EVENTS, now_ns, delta, &row);
			row.event_names = names;
			if (s->ops->write(s, &row) == 0)
				record_commit(rec, RECORD_OUT_PROMETHEUS, t, NR_EVENTS, now_ns);
		}
		if (r < 0) { /* the first collection: the sink's per-cgroup state made */
			heap1 = mallinfo2().uordblks;
			prom_sink_publish(s, &h);
			continue;
		}
		t_rows[r] = now_ms() - t0;
		t0 = now_ms();
		prom_sink_publish(s, &h);
		t_pub[r] = now_ms() - t0;
	}
	printf("sink, per collection (agent loop): rows %.1f ns per cgroup, publish %.1f ns per "
	       "cgroup; heap kept by the sink %.0f bytes per cgroup\n",
	       median(t_rows, rounds) * 1e6 / nr, median(t_pub, rounds) * 1e6 / nr,
	       (double)(heap1 - heap0) / nr);
	s->ops->free(s);
	record_clear(&set);
	free(tot);
	free(t_rows);
	free(t_pub);
}

int main(int argc, char **argv)
{
	int nr = argc > 1 ? atoi(argv[1]) : 1000, rounds = argc > 2 ? atoi(argv[2]) : 50;
	const char *naming = argc > 3 ? argv[3] : "cgperf";
	unsigned bits = !strcmp(naming, "cadvisor") ? PROM_NAMES_CADVISOR_BIT
			: !strcmp(naming, "both")   ? PROM_NAMES_CGPERF_BIT | PROM_NAMES_CADVISOR_BIT
						    : PROM_NAMES_CGPERF_BIT;
	static const char *const names[NR_EVENTS] = { "cycles", "instructions", "cpu-clock",
						      "context-switches" };
	static const char *const label_names[] = { "container_label_app",
						   "container_label_io_kubernetes_pod_name" };
	static const int order[] = { 0, 1 };
	struct buf *labels = calloc((size_t)nr, sizeof(*labels));
	struct buf *cadvisor = calloc((size_t)nr, sizeof(*cadvisor));
	struct prom_series *series = calloc((size_t)nr, sizeof(*series));
	uint64_t *totals = calloc((size_t)nr * NR_EVENTS, sizeof(*totals));
	double *ratio = calloc((size_t)nr * NR_EVENTS, sizeof(*ratio));
	double *t_text = calloc((size_t)rounds, sizeof(double)),
	       *t_om = calloc((size_t)rounds, sizeof(double));
	double *t_gz = calloc((size_t)rounds, sizeof(double)),
	       *t_get = calloc((size_t)rounds, sizeof(double));
	double *t_getgz = calloc((size_t)rounds, sizeof(double));
	struct prom_health h = { .cgroups_monitored = (uint64_t)nr,
				 .version = "bench",
				 .follower_mode = "tp" };
	struct prometheus_config cfg = { .max_connections = 64 };
	struct buf text = { 0 }, om = { 0 }, gz = { 0 };
	struct prom_http *http;
	char listen[64], err[256];
	long got = 0, gotgz = 0;
	int port;

	for (int i = 0; i < nr; i++) {
		char path[256], id[13], name[40];
		struct sink_cgroup cg = { .id = (uint64_t)i,
					  .path = path,
					  .kind = "container",
					  .runtime = "containerd",
					  .container_id = id,
					  .container_name = name,
					  .pod = name,
					  .pod_namespace = "production",
					  .image = "registry.example.com/shop/service:2.1",
					  .labels = { "service", name } };
		size_t split = 0;

		cgroup_path(path, sizeof(path), i);
		snprintf(id, sizeof(id), "%012x", i);
		snprintf(name, sizeof(name), "service-%d-7d9f5c", i);
		prom_cgroup_labels(&labels[i], &cg);
		prom_cadvisor_labels(&cadvisor[i], &cg, label_names, order, 2, &split);
		for (int e = 0; e < NR_EVENTS; e++) {
			totals[i * NR_EVENTS + e] = 123456789012ULL * (uint64_t)(i + e + 1);
			ratio[i * NR_EVENTS + e] = e < 2 ? 0.666667 : 1;
		}
		series[i] = (struct prom_series){ .labels = labels[i].data,
						  .labels_len = labels[i].len,
						  .totals = &totals[i * NR_EVENTS],
						  .running_ratio = &ratio[i * NR_EVENTS],
						  .created = { 1796212692, 0 },
						  .cadvisor = cadvisor[i].data,
						  .cadvisor_len = cadvisor[i].len,
						  .cadvisor_split = split };
	}
	struct prom_input in = { .names = bits,
				 .nr_events = NR_EVENTS,
				 .event_names = names,
				 .series = series,
				 .nr_series = (size_t)nr,
				 .health = &h };

	for (int r = 0; r < rounds; r++) {
		double t0;

		/* Buffers are reused, as the agent does (see prom_http's pool):
		 * fresh pages would cost a page fault per 4 KiB. */
		text.len = om.len = gz.len = 0;
		t0 = now_ms();
		prom_build(&in, PROM_FORMAT_TEXT, &text, NULL);
		t_text[r] = now_ms() - t0;
		t0 = now_ms();
		prom_build(&in, PROM_FORMAT_OPENMETRICS, &om, NULL);
		t_om[r] = now_ms() - t0;
		t0 = now_ms();
		prom_gzip(text.data, text.len, &gz);
		t_gz[r] = now_ms() - t0;
	}
	printf("%d cgroups x %d events, %s names\n", nr, NR_EVENTS, naming);
	printf("size: text %zu bytes, OpenMetrics %zu bytes, text gzip %zu bytes\n", text.len,
	       om.len, gz.len);
	printf("build (agent loop, per interval): text %.3f ms, OpenMetrics %.3f ms, both %.3f ms\n",
	       median(t_text, rounds), median(t_om, rounds),
	       median(t_text, rounds) + median(t_om, rounds));
	printf("gzip of the text body (once per snapshot, HTTP thread): %.3f ms\n",
	       median(t_gz, rounds));

	port = free_port();
	snprintf(listen, sizeof(listen), "127.0.0.1:%d", port);
	snprintf(cfg.path, sizeof(cfg.path), "/metrics");
	if (config_parse_listen(listen, &cfg, err, sizeof(err)) < 0 ||
	    prom_http_new(&cfg, &http, err, sizeof(err)) < 0) {
		fprintf(stderr, "prombench: %s\n", err);
		return 1;
	}
	prom_http_publish(http, &text, &om);
	scrape(port, true); /* the first gzip scrape compresses */
	for (int r = 0; r < rounds; r++) {
		double t0 = now_ms();

		got = scrape(port, false);
		t_get[r] = now_ms() - t0;
		t0 = now_ms();
		gotgz = scrape(port, true);
		t_getgz[r] = now_ms() - t0;
	}
	printf("scrape over loopback (connect, GET, whole body): plain %.3f ms (%ld bytes), "
	       "gzip %.3f ms (%ld bytes)\n",
	       median(t_get, rounds), got, median(t_getgz, rounds), gotgz);
	bench_sink(http, nr, rounds, names);
	prom_http_free(http);
	return got > 0 && gotgz > 0 ? 0 : 1;
}
