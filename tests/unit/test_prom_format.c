// SPDX-License-Identifier: GPL-2.0-only
/* The Prometheus exposition builder, content negotiation, the sink's
 * per-cgroup state (scaling, monotonic totals, keep_removed) and the atomic
 * textfile. The formats themselves are checked against real parsers
 * (promtool, Prometheus, prometheus_client's OpenMetrics parser) by
 * tests/integration/test_prometheus*.sh. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sink/http_accept.h"
#include "sink/prom_format.h"
#include "sink/prom_sink.h"
#include "sink/textfile.h"
#include "tests/lib/test_files.h"

static char *escaped(const char *s)
{
	struct buf b = { 0 };
	char *out;

	assert_int_equal(prom_escape_label_value(&b, s), 0);
	out = strndup(b.data ? b.data : "", b.len);
	buf_free(&b);
	return out;
}

static void test_escape(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "/plain/path", "/plain/path" },
		{ "a\"b", "a\\\"b" },
		{ "a\\b", "a\\\\b" },
		{ "a\nb", "a\\nb" },
		{ "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x90\xb3",
		  "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x90\xb3" },
		{ "bad\xff", "bad\xef\xbf\xbd" },
		{ "\xc3(", "\xef\xbf\xbd(" }, /* truncated sequence */
		{ "\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" }, /* surrogate */
		{ "tab\tcr\r", "tab\tcr\r" }, /* allowed as is */
		{ "", "" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = escaped(cases[i].in);
		assert_string_equal(got, cases[i].out);
		free(got);
	}
}

/* ---- building ---- */

static const char *const names[] = { "cpu-clock", "cycles" };

struct fixture {
	struct buf labels[3];
	uint64_t totals[3][2];
	double ratio[3][2];
	struct prom_series series[3];
	struct prom_health health;
};

static void fixture_init(struct fixture *f)
{
	const struct sink_cgroup cg[3] = {
		{ .id = 1,
		  .path = "/docker/abc",
		  .kind = "container",
		  .runtime = "docker",
		  .container_id = "abc",
		  .container_name = "web \"1\"",
		  .pod = "",
		  .pod_namespace = "" },
		{ .id = 2,
		  .path = "/odd\\name\n",
		  .kind = "other",
		  .runtime = "",
		  .container_id = "",
		  .container_name = "",
		  .pod = "",
		  .pod_namespace = "" },
		{ .id = 3,
		  .path = "/kubepods/pod1",
		  .kind = "pod",
		  .runtime = "containerd",
		  .container_id = "",
		  .container_name = "",
		  .pod = "api-0",
		  .pod_namespace = "shop" },
	};

	memset(f, 0, sizeof(*f));
	for (int i = 0; i < 3; i++) {
		assert_int_equal(prom_cgroup_labels(&f->labels[i], &cg[i]), 0);
		f->totals[i][0] = 1000000000ULL * (i + 1);
		f->totals[i][1] = UINT64_MAX - i;
		f->ratio[i][0] = 1;
		f->ratio[i][1] = i == 0 ? -1 : 0.25;
		f->series[i] = (struct prom_series){ .labels = f->labels[i].data,
						     .labels_len = f->labels[i].len,
						     .totals = f->totals[i],
						     .running_ratio = f->ratio[i],
						     .created = { 1700000000 + i, 123456789 } };
	}
	f->health = (struct prom_health){ .cgroups_monitored = 3,
					  .cgroups_over_cap = 2,
					  .collection_duration_s = 0.0012345,
					  .have_csv = true,
					  .csv_rows_written = 10,
					  .csv_rows_held = 7,
					  .version = "1.2.3",
					  .follower_mode = "tp",
					  .since = { 1700000000, 0 } };
}

static void fixture_free(struct fixture *f)
{
	for (int i = 0; i < 3; i++)
		buf_free(&f->labels[i]);
}

static char *build(struct fixture *f, size_t n, enum prom_format fmt, size_t *ret_dropped)
{
	struct prom_input in = { .nr_events = 2,
				 .event_names = names,
				 .series = f->series,
				 .nr_series = n,
				 .health = &f->health };
	struct buf b = { 0 };
	char *out;

	assert_int_equal(prom_build(&in, fmt, &b, ret_dropped), 0);
	out = strndup(b.data, b.len);
	buf_free(&b);
	return out;
}

static void assert_has(const char *body, const char *line)
{
	if (!strstr(body, line))
		fail_msg("missing: %s\nin:\n%s", line, body);
}

static void assert_lacks(const char *body, const char *what)
{
	if (strstr(body, what))
		fail_msg("unexpected: %s\nin:\n%s", what, body);
}

static void test_text_format(void **state)
{
	struct fixture f;
	size_t dropped = 99;
	char *t;

	fixture_init(&f);
	t = build(&f, 3, PROM_FORMAT_TEXT, &dropped);
	assert_int_equal(dropped, 0);
	assert_has(t, "# TYPE cgperf_events_total counter\n");
	assert_has(
		t,
		"\ncgperf_events_total{event=\"cpu-clock\",cgroup=\"/docker/abc\",kind=\"container\","
		"runtime=\"docker\",container_id=\"abc\",container_name=\"web \\\"1\\\"\",pod=\"\","
		"namespace=\"\"} 1000000000\n");
	assert_has(t, "{event=\"cycles\",cgroup=\"/odd\\\\name\\n\",kind=\"other\"");
	assert_has(t, "pod=\"api-0\",namespace=\"shop\"} 18446744073709551613\n");
	assert_has(t, "# TYPE cgperf_events_running_ratio gauge\n");
	assert_has(t, "cgperf_events_running_ratio{event=\"cycles\",cgroup=\"/odd\\\\name\\n\"");
	assert_has(t, "namespace=\"\"} 0.25\n");
	/* A ratio not known yet has no sample. */
	assert_lacks(t, "cgperf_events_running_ratio{event=\"cycles\",cgroup=\"/docker/abc\"");
	assert_has(t, "\ncgperf_cgroups_monitored 3\n");
	assert_has(
		t,
		"# TYPE cgperf_cgroups_over_cap_total counter\ncgperf_cgroups_over_cap_total 2\n");
	assert_has(t, "\ncgperf_collection_duration_seconds 0.001235\n");
	assert_has(t, "\ncgperf_csv_rows_written_total 10\n");
	assert_has(t, "\ncgperf_csv_rows_failed_total 0\n");
	assert_has(t, "\n# TYPE cgperf_csv_rows_held gauge\ncgperf_csv_rows_held 7\n");
	assert_lacks(t, "syslog"); /* not configured */
	assert_has(t, "\ncgperf_watch_limit_reached 0\n");
	assert_has(t, "\ncgperf_build_info{version=\"1.2.3\",follower_mode=\"tp\"} 1\n");
	assert_lacks(t, "_created");
	assert_lacks(t, "# EOF");
	free(t);
	fixture_free(&f);
}

/* The follower's count of hidden switches: only where the agent can read it. */
static void test_unseen_switches(void **state)
{
	struct fixture f;
	char *t;

	fixture_init(&f);
	t = build(&f, 1, PROM_FORMAT_TEXT, NULL);
	assert_lacks(t, "unseen");
	free(t);
	f.health.have_unseen = true;
	f.health.unseen_switches = 4;
	f.health.unseen_ns = 2500000;
	f.health.unseen_faults = 7;
	t = build(&f, 1, PROM_FORMAT_TEXT, NULL);
	assert_has(t, "# TYPE cgperf_unseen_switches_total counter\n"
		      "cgperf_unseen_switches_total 4\n");
	assert_has(t, "# TYPE cgperf_unseen_switch_seconds_total counter\n"
		      "cgperf_unseen_switch_seconds_total 0.0025\n");
	assert_has(t, "# TYPE cgperf_unseen_switch_page_faults_total counter\n"
		      "cgperf_unseen_switch_page_faults_total 7\n");
	free(t);
	t = build(&f, 1, PROM_FORMAT_OPENMETRICS, NULL);
	assert_has(t, "# TYPE cgperf_unseen_switch_seconds counter\n");
	assert_has(t, "\ncgperf_unseen_switch_seconds_created 1700000000");
	free(t);
	fixture_free(&f);
}

/* The counter's syncs: CPUs run, CPUs left out (bpf/sync_skip.h). */
static void test_cpu_syncs(void **state)
{
	struct fixture f;
	char *t;

	(void)state;
	fixture_init(&f);
	f.health.cpu_syncs = 2031;
	f.health.cpu_syncs_skipped = 23;
	t = build(&f, 1, PROM_FORMAT_TEXT, NULL);
	assert_has(t, "# TYPE cgperf_cpu_syncs_total counter\n"
		      "cgperf_cpu_syncs_total 2031\n");
	assert_has(t, "# TYPE cgperf_cpu_syncs_skipped_total counter\n"
		      "cgperf_cpu_syncs_skipped_total 23\n");
	free(t);
	t = build(&f, 1, PROM_FORMAT_OPENMETRICS, NULL);
	assert_has(t, "# TYPE cgperf_cpu_syncs_skipped counter\n");
	assert_has(t, "\ncgperf_cpu_syncs_skipped_created 1700000000");
	free(t);
	fixture_free(&f);
}

static void test_openmetrics_format(void **state)
{
	struct fixture f;
	char *t;
	size_t len;

	fixture_init(&f);
	t = build(&f, 3, PROM_FORMAT_OPENMETRICS, NULL);
	assert_has(t, "# TYPE cgperf_events counter\n");
	assert_lacks(t, "# TYPE cgperf_events_total");
	assert_has(t, "cgperf_events_created{event=\"cpu-clock\",cgroup=\"/docker/abc\"");
	assert_has(t, "namespace=\"\"} 1700000000.123\n");
	assert_has(t, "# TYPE cgperf_cgroups_over_cap counter\ncgperf_cgroups_over_cap_total 2\n"
		      "cgperf_cgroups_over_cap_created 1700000000.000\n");
	len = strlen(t);
	assert_true(len > 6 && !strcmp(t + len - 6, "# EOF\n"));
	free(t);
	fixture_free(&f);
}

/* Two series with the same labels would make a scraper reject the whole
 * exposition: the later one is left out and counted. */
static void test_duplicates(void **state)
{
	struct fixture f;
	size_t dropped = 0;
	char *t, *p;
	int n = 0;

	fixture_init(&f);
	f.series[2].labels = f.series[0].labels;
	f.series[2].labels_len = f.series[0].labels_len;
	t = build(&f, 3, PROM_FORMAT_TEXT, &dropped);
	assert_int_equal(dropped, 1);
	for (p = t;
	     (p = strstr(p, "cgperf_events_total{event=\"cpu-clock\",cgroup=\"/docker/abc\"")); p++)
		n++;
	assert_int_equal(n, 1);
	assert_has(
		t,
		"cgroup=\"/docker/abc\",kind=\"container\",runtime=\"docker\",container_id=\"abc\","
		"container_name=\"web \\\"1\\\"\",pod=\"\",namespace=\"\"} 1000000000\n");
	free(t);
	fixture_free(&f);
}

/* ---- negotiation ---- */

static void test_accept(void **state)
{
	/* T, O: text or OpenMetrics served; the flags: which are acceptable
	 * (neither: 406). */
	enum {
		T = PROM_FORMAT_TEXT,
		O = PROM_FORMAT_OPENMETRICS
	};
	static const struct {
		const char *accept;
		int best; /* -1: 406 */
		bool text_ok, om_ok;
	} cases[] = {
		{ NULL, T, true, true },
		{ "", T, true, true },
		{ ";;;,,,=;q=", T, true, true }, /* no media range in it: as none */
		{ "*/*", T, true, true }, /* curl */
		{ "text/plain", T, true, false },
		{ "text/plain;version=0.0.4", T, true, false },
		{ "text/*", T, true, false },
		{ "application/openmetrics-text", O, false, true },
		{ "application/*", O, false, true },
		/* What Prometheus 2.x sends. */
		{ "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,"
		  "text/plain;version=0.0.4;q=0.5,*/*;q=0.1",
		  O, true, true },
		/* Older Prometheus: OpenMetrics 0.0.1 is not what is served. */
		{ "application/openmetrics-text; version=0.0.1,text/plain;version=0.0.4;q=0.5,*/*;q=0.1",
		  T, true, true },
		{ "Application/OpenMetrics-Text; Version=\"1.0.0\"", O, false, true },
		{ "application/openmetrics-text;version=2.0.0", -1, false, false },
		{ "application/openmetrics-text;version=2.0.0, text/plain", T, true, false },
		{ "application/openmetrics-text;q=0", -1, false, false },
		{ "text/plain;version=0.0.3", -1, false, false },
		{ "application/json", -1, false, false },
		{ "text/plain;version=0.0.4;q=0.9, application/openmetrics-text;q=0.5", T, true,
		  true },
		{ "text/plain;q=0.5, application/openmetrics-text;q=0.5", O, true, true },
		/* The most specific range decides (RFC 9110 12.5.1). */
		{ "text/plain;q=0, */*", O, false, true },
		{ "*/*;q=0.1, application/openmetrics-text;version=1.0.0;q=0", T, true, false },
		{ "text/*;q=0.5, text/plain;version=0.0.4;q=0.8, application/*;q=0.8", T, true,
		  true },
		{ "text/plain;version=0.0.4;q=0.001", T, true, false },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct http_accept a;

		http_negotiate(cases[i].accept, &a);
		if (a.ok[T] != cases[i].text_ok || a.ok[O] != cases[i].om_ok ||
		    (cases[i].best >= 0 && (int)a.best != cases[i].best))
			fail_msg("Accept: %s: best %d text %d openmetrics %d",
				 cases[i].accept ? cases[i].accept : "(none)", a.best, a.ok[T],
				 a.ok[O]);
	}

	assert_false(http_accepts_gzip(NULL));
	assert_false(http_accepts_gzip("identity"));
	assert_true(http_accepts_gzip("gzip"));
	assert_true(http_accepts_gzip("deflate, GZIP;q=0.5"));
	assert_true(http_accepts_gzip("*"));
	assert_false(http_accepts_gzip("gzip;q=0"));
	assert_false(http_accepts_gzip("gzip;q=0.000, *"));
	assert_true(http_accepts_gzip("br;q=1.0, gzip;q=0.001"));
	assert_false(http_accepts_gzip("gzipx"));
}

/* ---- the sink ---- */

static char dir[] = "/tmp/cgperf-test-prom.XXXXXX";

static char *slurp(const char *path)
{
	char *text = test_read_file(path, NULL);

	assert_non_null(text);
	return text;
}

/* The events the sink tests count (the agent's, given to prom_sink_new). */
static const char *const sink_events[1] = { "cycles" };

/* A row as the agent hands it: the totals, and the delta since *last (the
 * output's last written row), which then becomes the totals. */
static void write_rec(struct sink *s, const struct sink_cgroup *cg, struct reading *last,
		      uint64_t counter, uint64_t enabled, uint64_t running, bool final)
{
	const struct reading tot[1] = { { counter, enabled, running } };
	struct reading delta[1];
	struct sink_record r = { .cgroup = cg,
				 .nr_events = 1,
				 .event_names = sink_events,
				 .totals = tot,
				 .delta = delta,
				 .final = final,
				 .created = { 1700000000, 5000000 } };

	reading_delta(&tot[0], last, &delta[0]);
	assert_int_equal(s->ops->write(s, &r), 0);
	*last = tot[0];
}

static char *publish(struct sink *s, const char *path)
{
	struct prom_health h = { .version = "t", .follower_mode = "tp" };

	assert_int_equal(prom_sink_publish(s, &h), 0);
	return slurp(path);
}

static void test_sink_totals(void **state)
{
	const struct sink_cgroup a = { .id = 11, .path = "/a", .kind = "other", .runtime = "" };
	const struct sink_cgroup b = { .id = 12, .path = "/b", .kind = "other", .runtime = "" };
	char path[sizeof(dir) + 32];
	struct prom_sink_opts o = {
		.textfile = path, .keep_removed_ms = 0, .nr_events = 1, .event_names = sink_events
	};
	struct prom_sink_stats st;
	struct reading last_a = { 0 }, last_b = { 0 };
	struct sink *s;
	char *t;

	snprintf(path, sizeof(path), "%s/cgperf.prom", dir);
	assert_int_equal(prom_sink_new(&(struct prom_sink_opts){ 0 }, &s), -EINVAL);
	assert_int_equal(prom_sink_new(&o, &s), 0);
	/* First record: cumulative since `created`, scaled (half the time running). */
	write_rec(s, &a, &last_a, 100, 2000, 1000, false);
	write_rec(s, &b, &last_b, 7, 10, 10, false);
	t = publish(s, path);
	assert_has(t,
		   "cgperf_events_total{event=\"cycles\",cgroup=\"/a\",kind=\"other\",runtime=\"\","
		   "container_id=\"\",container_name=\"\",pod=\"\",namespace=\"\"} 200\n");
	assert_has(t, "cgperf_events_running_ratio{event=\"cycles\",cgroup=\"/a\"");
	assert_has(t, "namespace=\"\"} 0.5\n");
	free(t);
	/* Later records add the scaled change: 50 more at full time = 250. */
	write_rec(s, &a, &last_a, 150, 3000, 2000, false);
	/* Counting restarted underneath (totals went backwards): the new totals
	 * count as the change, the counter does not go down. */
	write_rec(s, &b, &last_b, 3, 10, 10, false);
	t = publish(s, path);
	assert_has(
		t,
		"cgroup=\"/a\",kind=\"other\",runtime=\"\",container_id=\"\",container_name=\"\","
		"pod=\"\",namespace=\"\"} 250\n");
	assert_has(
		t,
		"cgroup=\"/b\",kind=\"other\",runtime=\"\",container_id=\"\",container_name=\"\","
		"pod=\"\",namespace=\"\"} 10\n");
	free(t);
	/* A removed cgroup with keep_removed 0 is gone at the next publish
	 * after its final record. */
	write_rec(s, &b, &last_b, 5, 20, 20, true);
	t = publish(s, path);
	assert_lacks(t, "cgroup=\"/b\"");
	assert_has(t, "cgroup=\"/a\"");
	free(t);
	assert_int_equal(prom_sink_get_stats(s, &st), 0);
	assert_int_equal(st.publishes, 3);
	assert_int_equal(st.series, 1);
	assert_int_equal(st.textfile_writes, 3);
	s->ops->free(s);
	unlink(path);
}

/* cAdvisor's names: its families, HELP texts and labels (sorted around
 * event, container_label_<key> made of the allow-listed keys, cpu="" for
 * the sum over CPUs), the ratio 1 until known, and both namings at once. */
static void test_sink_cadvisor(void **state)
{
	static const char *const keys[] = { "team", "app.kubernetes.io/name" };
	const struct sink_cgroup web = { .id = 61,
					 .path = "/system.slice/docker-abc.scope",
					 .kind = "container",
					 .runtime = "docker",
					 .container_id = "abc",
					 .container_name = "web",
					 .image = "nginx:1.25",
					 .labels = { "blue", "web\"x" } };
	const struct sink_cgroup svc = { .id = 62,
					 .path = "/system.slice/cron.service",
					 .kind = "service",
					 .container_name = "cron.service" };
	char path[sizeof(dir) + 32];
	struct prom_sink_opts o = { .textfile = path,
				    .nr_events = 1,
				    .event_names = sink_events,
				    .names = PROM_NAMES_CADVISOR_BIT,
				    .nr_label_keys = 2,
				    .label_keys = keys };
	struct reading last_web = { 0 }, last_svc = { 0 };
	struct sink *s;
	char *t;

	(void)state;
	snprintf(path, sizeof(path), "%s/cadvisor.prom", dir);
	assert_int_equal(prom_sink_new(&o, &s), 0);
	write_rec(s, &web, &last_web, 100, 2000, 1000, false);
	write_rec(s, &svc, &last_svc, 0, 0, 0, false);
	t = publish(s, path);
	assert_has(t, "# HELP container_perf_events_total Perf event metric.\n"
		      "# TYPE container_perf_events_total counter\n");
	assert_has(t, "# HELP container_perf_events_scaling_ratio Perf event metric scaling "
		      "ratio.\n# TYPE container_perf_events_scaling_ratio gauge\n");
	assert_has(t, "container_perf_events_total{container_label_app_kubernetes_io_name="
		      "\"web\\\"x\",container_label_team=\"blue\",cpu=\"\",event=\"cycles\","
		      "id=\"/system.slice/docker-abc.scope\",image=\"nginx:1.25\",name=\"web\"} "
		      "200\n");
	assert_has(t, "container_perf_events_scaling_ratio{container_label_app_kubernetes_io_name="
		      "\"web\\\"x\",container_label_team=\"blue\",cpu=\"\",event=\"cycles\","
		      "id=\"/system.slice/docker-abc.scope\",image=\"nginx:1.25\",name=\"web\"} "
		      "0.5\n");
	/* A service: no name (cAdvisor names containers only), its labels
	 * empty, its ratio 1 while it has not run. */
	assert_has(t, "container_perf_events_scaling_ratio{container_label_app_kubernetes_io_name="
		      "\"\",container_label_team=\"\",cpu=\"\",event=\"cycles\","
		      "id=\"/system.slice/cron.service\",image=\"\",name=\"\"} 1\n");
	assert_lacks(t, "cgperf_events_total");
	assert_has(t, "cgperf_cgroups_monitored"); /* the agent's own families stay */
	free(t);
	s->ops->free(s);
	/* Both: cgperf's families and cAdvisor's, same totals. */
	o.names = PROM_NAMES_CGPERF_BIT | PROM_NAMES_CADVISOR_BIT;
	last_web = (struct reading){ 0 };
	assert_int_equal(prom_sink_new(&o, &s), 0);
	write_rec(s, &web, &last_web, 100, 2000, 1000, false);
	t = publish(s, path);
	assert_has(
		t,
		"cgperf_events_total{event=\"cycles\",cgroup=\"/system.slice/docker-abc.scope\"");
	assert_has(t, "name=\"web\"} 200\n");
	assert_has(t, "container_name=\"web\",pod=\"\",namespace=\"\"} 200\n");
	free(t);
	s->ops->free(s);
	/* Too many keys, or two that make one label name: refused. */
	o.nr_label_keys = SINK_MAX_LABELS + 1;
	assert_int_equal(prom_sink_new(&o, &s), -EINVAL);
	o.label_keys = (const char *const[]){ "a.b", "a-b" };
	o.nr_label_keys = 2;
	assert_int_equal(prom_sink_new(&o, &s), -EINVAL);
	unlink(path);
}

static void test_sink_keep_removed(void **state)
{
	const struct sink_cgroup a = {
		.id = 21, .path = "/svc", .kind = "service", .runtime = "systemd"
	};
	const struct sink_cgroup again = {
		.id = 22, .path = "/svc", .kind = "service", .runtime = "systemd"
	};
	char path[sizeof(dir) + 32];
	struct prom_sink_opts o = { .textfile = path,
				    .keep_removed_ms = 60000,
				    .nr_events = 1,
				    .event_names = sink_events };
	struct reading last_a = { 0 }, last_again = { 0 };
	struct sink *s;
	char *t, *p;
	int n = 0;

	snprintf(path, sizeof(path), "%s/keep.prom", dir);
	assert_int_equal(prom_sink_new(&o, &s), 0);
	write_rec(s, &a, &last_a, 40, 1, 1, false);
	write_rec(s, &a, &last_a, 42, 2, 2, true);
	t = publish(s, path);
	assert_has(t, "cgroup=\"/svc\",kind=\"service\",runtime=\"systemd\",container_id=\"\","
		      "container_name=\"\",pod=\"\",namespace=\"\"} 42\n");
	free(t);
	/* The same service again (new cgroup id, same labels): the live one
	 * wins, the removed one is not written next to it. */
	write_rec(s, &again, &last_again, 3, 1, 1, false);
	t = publish(s, path);
	for (p = t; (p = strstr(p, "cgperf_events_total{event=\"cycles\",cgroup=\"/svc\"")); p++)
		n++;
	assert_int_equal(n, 1);
	assert_has(t, "namespace=\"\"} 3\n");
	free(t);
	s->ops->free(s);
	/* cAdvisor's names only: a removed cgroup whose cAdvisor labels the
	 * live one has (same path, another kind: cgperf's labels differ)
	 * leaves too, and nothing is counted as a duplicate. */
	const struct sink_cgroup other = { .id = 23, .path = "/svc", .kind = "other" };
	struct reading last_other = { 0 };
	struct prom_sink_stats st;

	o.names = PROM_NAMES_CADVISOR_BIT;
	last_a = (struct reading){ 0 };
	assert_int_equal(prom_sink_new(&o, &s), 0);
	write_rec(s, &a, &last_a, 42, 2, 2, true);
	write_rec(s, &other, &last_other, 5, 1, 1, false);
	t = publish(s, path);
	n = 0;
	for (p = t;
	     (p = strstr(p, "container_perf_events_total{cpu=\"\",event=\"cycles\",id=\"/svc\""));
	     p++)
		n++;
	assert_int_equal(n, 1);
	assert_has(t, "name=\"\"} 5\n");
	free(t);
	assert_int_equal(prom_sink_get_stats(s, &st), 0);
	assert_int_equal(st.duplicates, 0);
	s->ops->free(s);
	unlink(path);
}

/* A new agent adopting the session: the output's last row was the previous
 * agent's, yet the series, new to this sink, shows the totals since
 * `created` (the counter continues); later rows add the agent's delta. */
static void test_sink_adopted(void **state)
{
	const struct sink_cgroup a = { .id = 31, .path = "/a", .kind = "other", .runtime = "" };
	char path[sizeof(dir) + 32];
	struct prom_sink_opts o = { .textfile = path, .nr_events = 1, .event_names = sink_events };
	/* totals (counter, enabled, running), then the total and ratio shown */
	static const struct {
		struct reading tot;
		const char *total, *ratio;
	} rows[] = {
		{ { 150, 20, 10 }, "namespace=\"\"} 300\n", "namespace=\"\"} 0.5\n" },
		{ { 170, 30, 20 }, "namespace=\"\"} 320\n", "namespace=\"\"} 1\n" },
	};
	struct reading last = { 100, 10, 10 };
	struct sink *s;

	snprintf(path, sizeof(path), "%s/adopted.prom", dir);
	assert_int_equal(prom_sink_new(&o, &s), 0);
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char *t;

		write_rec(s, &a, &last, rows[i].tot.counter, rows[i].tot.enabled,
			  rows[i].tot.running, false);
		t = publish(s, path);
		assert_has(t, rows[i].total);
		assert_has(t, rows[i].ratio);
		free(t);
	}
	s->ops->free(s);
	unlink(path);
}

/* The last rows of a drained session counted other events, in another
 * order, from a names array that is gone once the drain is done: matched by
 * name to the events the sink counts; what it does not count is left out. */
static void write_drained(struct sink *s, const struct sink_cgroup *cg)
{
	char a[32], b[32];
	const char *const ev[2] = { a, b };
	const struct reading tot[2] = { { 7, 1, 1 }, { 500, 4, 4 } };
	struct sink_record r = { .cgroup = cg,
				 .nr_events = 2,
				 .event_names = ev,
				 .totals = tot,
				 .delta = tot,
				 .final = true,
				 .created = { 1700000000, 0 } };

	snprintf(a, sizeof(a), "context-switches");
	snprintf(b, sizeof(b), "cycles");
	assert_int_equal(s->ops->write(s, &r), 0);
	memset(a, 0, sizeof(a)); /* the drain's names are gone */
	memset(b, 0, sizeof(b));
}

static void test_sink_drained_events(void **state)
{
	const struct sink_cgroup old = { .id = 41, .path = "/old", .kind = "other", .runtime = "" };
	const struct sink_cgroup now = { .id = 42, .path = "/now", .kind = "other", .runtime = "" };
	char path[sizeof(dir) + 32], *t;
	struct prom_sink_opts o = { .textfile = path,
				    .keep_removed_ms = 60000,
				    .nr_events = 1,
				    .event_names = sink_events };
	struct reading last = { 0 };
	struct sink *s;

	(void)state;
	snprintf(path, sizeof(path), "%s/drained.prom", dir);
	assert_int_equal(prom_sink_new(&o, &s), 0);
	write_drained(s, &old);
	write_rec(s, &now, &last, 100, 10, 10, false);
	t = publish(s, path);
	assert_has(t, "event=\"cycles\",cgroup=\"/old\"");
	assert_has(t, "event=\"cycles\",cgroup=\"/now\"");
	assert_lacks(t, "context-switches");
	assert_lacks(t, "event=\"\"");
	free(t);
	s->ops->free(s);
	unlink(path);
}

/* A container named after its first row (a slow name lookup): the series
 * goes on under its name, not its short id, with its total continued. */
static void test_sink_relabel(void **state)
{
	struct sink_cgroup cg = { .id = 51,
				  .gen = 1,
				  .path = "/docker/0123456789ab",
				  .kind = "container",
				  .runtime = "docker",
				  .container_id = "0123456789ab",
				  .container_name = "0123456789ab",
				  .pod = "",
				  .pod_namespace = "" };
	char path[sizeof(dir) + 32], *t;
	struct prom_sink_opts o = { .textfile = path, .nr_events = 1, .event_names = sink_events };
	struct reading last = { 0 };
	struct sink *s;

	(void)state;
	snprintf(path, sizeof(path), "%s/relabel.prom", dir);
	assert_int_equal(prom_sink_new(&o, &s), 0);
	write_rec(s, &cg, &last, 100, 10, 10, false);
	free(publish(s, path));
	cg.gen = 2;
	cg.container_name = "web";
	write_rec(s, &cg, &last, 150, 20, 20, false);
	t = publish(s, path);
	assert_has(t, "container_name=\"web\",pod=\"\",namespace=\"\"} 150\n");
	assert_lacks(t, "container_name=\"0123456789ab\"");
	free(t);
	s->ops->free(s);
	unlink(path);
}

static void test_textfile(void **state)
{
	char path[sizeof(dir) + 32], bad[sizeof(dir) + 32];
	struct stat st;
	char *t;

	snprintf(path, sizeof(path), "%s/t.prom", dir);
	snprintf(bad, sizeof(bad), "%s/missing/t.prom", dir);
	assert_int_equal(textfile_write(path, "one\n", 4), 0);
	umask(077);
	assert_int_equal(textfile_write(path, "two\n", 4), 0);
	umask(022);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	t = slurp(path);
	assert_string_equal(t, "two\n");
	free(t);
	assert_int_equal(textfile_write(bad, "x", 1), -ENOENT);
	/* No temporary file left behind: the directory is empty without it. */
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(dir), 0);
	assert_int_equal(mkdir(dir, 0700), 0);
}

static int setup(void **state)
{
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	return rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_text_format),
		cmocka_unit_test(test_openmetrics_format),
		cmocka_unit_test(test_unseen_switches),
		cmocka_unit_test(test_cpu_syncs),
		cmocka_unit_test(test_duplicates),
		cmocka_unit_test(test_accept),
		cmocka_unit_test(test_sink_totals),
		cmocka_unit_test(test_sink_cadvisor),
		cmocka_unit_test(test_sink_keep_removed),
		cmocka_unit_test(test_sink_adopted),
		cmocka_unit_test(test_sink_drained_events),
		cmocka_unit_test(test_sink_relabel),
		cmocka_unit_test(test_textfile),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
