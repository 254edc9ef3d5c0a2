// SPDX-License-Identifier: GPL-2.0-only
#include "sink/syslog_sink.h"
#include "sink/csv_format.h"
#include "sink/syslog_format.h"
#include "sink/syslog_transport.h"
#include "util/log.h"
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MSGID "counts"
#define MSGID_PROG "bpf-prog"

struct syslog_sink {
	struct sink sink; /* first: the agent holds a struct sink * */
	struct syslog_config cfg;
	struct syslog_conn *conn;
	char hostname[256];
	unsigned long pid;

	uint64_t records, messages, format_errors;
	struct log_ratelimit rl_format;
};

static const struct sink_ops syslog_sink_ops;

static struct syslog_sink *to_syslog(struct sink *s)
{
	return s && s->ops == &syslog_sink_ops ? (struct syslog_sink *)s : NULL;
}

static int emit_message(const char *msg, size_t len, void *userdata)
{
	struct syslog_sink *k = userdata;
	return syslog_conn_stage(k->conn, msg, len);
}

/* An event's two SD-NAMEs: value and running_pct. */
typedef char param_names[2][SYSLOG_SD_NAME_MAX + 1];

/* The strings of one message's params, kept together for the formatter. */
struct record_text {
	char cgroup_id[24], interval_ms[24], seq[24];
	param_names names[READINGS_MAX_EVENTS];
	struct csv_event_cells cells[READINGS_MAX_EVENTS];
	char derived[NR_DERIVED][DERIVED_CELL_MAX];
	struct syslog_param ids[10 + NR_DERIVED];
	struct syslog_param counters[2 * READINGS_MAX_EVENTS];
};

static struct syslog_header header_for(const struct syslog_sink *k, const struct timespec *time,
				       const char *msgid)
{
	return (struct syslog_header){
		.format = k->cfg.format,
		.facility = k->cfg.facility,
		.severity = SYSLOG_SEVERITY_INFO,
		.time = *time,
		/* syslog(3) and journald expect no hostname on the local socket. */
		.hostname = k->cfg.format == SYSLOG_RFC3164 && k->cfg.transport == SYSLOG_UNIX
				    ? NULL
				    : k->hostname,
		.app_name = k->cfg.app_name[0] ? k->cfg.app_name : "cgperf",
		.procid = k->pid,
		.msgid = msgid,
		.enterprise_id = k->cfg.enterprise_id,
	};
}

/* All parts or none: a part already queued would be sent again inside the
 * retry (the next record holds these counts too). */
static int queue_record(struct syslog_sink *k, const struct syslog_header *h,
			const struct syslog_content *c)
{
	int ret = syslog_format_record(h, c, syslog_conn_message_max(k->conn), emit_message, k);

	if (ret < 0) {
		syslog_conn_discard(k->conn);
		return ret;
	}
	syslog_conn_commit(k->conn);
	k->messages += (uint64_t)ret;
	return 0;
}

/* Each event's value and running_pct params (names: their SD-NAMEs). */
static void event_params(int nr, const char *const *event_names,
			 const struct csv_event_cells *cells, param_names *names,
			 struct syslog_param *ret)
{
	for (int i = 0; i < nr; i++) {
		const char *name = event_names[i] ? event_names[i] : "";

		syslog_param_name(name, "", names[i][0]);
		syslog_param_name(name, "_running_pct", names[i][1]);
		ret[2 * i] = (struct syslog_param){ names[i][0], cells[i].value };
		ret[2 * i + 1] = (struct syslog_param){ names[i][1], cells[i].running_pct };
	}
}

static int format_and_queue(struct syslog_sink *k, const struct sink_record *r)
{
	const struct sink_cgroup *cg = r->cgroup;
	struct record_text t;
	struct syslog_header h = header_for(k, &r->time, MSGID);
	struct syslog_content content = {
		.ids = t.ids,
		.nr_ids = 0,
		.counters = t.counters,
		.nr_counters = 2 * (size_t)r->nr_events,
		.group = 2,
	};

	snprintf(t.cgroup_id, sizeof(t.cgroup_id), "%" PRIu64, cg->id);
	/* Unknown start: an empty value, not a guess. */
	t.interval_ms[0] = '\0';
	if (r->interval_known)
		snprintf(t.interval_ms, sizeof(t.interval_ms), "%" PRIu64, r->interval_ms);
	snprintf(t.seq, sizeof(t.seq), "%" PRIu64, r->seq);

#define ID(n, v) (t.ids[content.nr_ids++] = (struct syslog_param){ .name = (n), .value = (v) })
	ID("cgroup", cg->path);
	ID("cgroup_id", t.cgroup_id);
	ID("kind", cg->kind);
	ID("runtime", cg->runtime);
	ID("container_id", cg->container_id);
	ID("container", cg->container_name);
	ID("pod", cg->pod);
	ID("namespace", cg->pod_namespace);
	ID("interval_ms", t.interval_ms);
	ID("seq", t.seq);
	/* Derived metrics describe the whole row: like the ids, every part of a
	 * split message carries them. Undefined: an empty value. */
	for (int i = 0; i < k->cfg.derived.nr; i++) {
		enum derived_metric m = k->cfg.derived.m[i];

		derived_cell(m, r->derived, r->delta,
			     r->interval_known ? r->interval_ms * 1000000 : 0, t.derived[i]);
		ID(derived_name(m), t.derived[i]);
	}
#undef ID

	for (int i = 0; i < r->nr_events; i++)
		csv_format_event(&r->delta[i], &t.cells[i]);
	event_params(r->nr_events, r->event_names, t.cells, t.names, t.counters);
	return queue_record(k, &h, &content);
}

static int syslog_sink_write(struct sink *s, const struct sink_record *r)
{
	struct syslog_sink *k = to_syslog(s);
	int ret;

	if (!k || !r || !r->cgroup || r->nr_events < 0 || r->nr_events > READINGS_MAX_EVENTS ||
	    (r->nr_events && (!r->event_names || !r->delta)))
		return -EINVAL;
	k->records++;
	ret = format_and_queue(k, r);
	if (ret == 0)
		return 0;
	k->format_errors++;
	log_ratelimited(&k->rl_format, SYSLOG_REPORT_INTERVAL_S, LOG_LVL_WARN,
			"syslog %s: cannot format the message of cgroup %" PRIu64
			": %s; its counts go into the "
			"next one (%" PRIu64 " records not formatted so far)",
			k->cfg.target, r->cgroup->id, strerror(-ret), k->format_errors);
	return ret;
}

/* The strings of a BPF program's message. */
struct prog_text {
	char id[16], interval[24], seq[24], runs[24], ns[24], counted[24];
	param_names names[READINGS_MAX_EVENTS];
	struct csv_event_cells cells[READINGS_MAX_EVENTS];
	struct syslog_param ids[9];
	struct syslog_param counters[2 * READINGS_MAX_EVENTS];
};

/* A BPF program's row: its identity, interval, seq, runs, run_ns (and
 * counted_runs) as ids: they describe the whole row, every part of a split
 * message carries them; each event's value and running_pct as a group. */
static int format_prog(struct syslog_sink *k, const struct sink_prog_record *r)
{
	const struct sink_prog *p = r->prog;
	struct prog_text t;
	struct syslog_header h = header_for(k, &r->time, MSGID_PROG);
	struct syslog_content content = { t.ids, 0, t.counters, 2 * (size_t)r->nr_events, 2 };

	snprintf(t.id, sizeof(t.id), "%" PRIu32, p->id);
	snprintf(t.interval, sizeof(t.interval), "%" PRIu64, r->interval_ms);
	snprintf(t.seq, sizeof(t.seq), "%" PRIu64, r->seq);
	snprintf(t.runs, sizeof(t.runs), "%" PRIu64, r->runs);
	snprintf(t.ns, sizeof(t.ns), "%" PRIu64, r->run_ns);
	t.counted[0] = '\0';
	if (r->counted)
		snprintf(t.counted, sizeof(t.counted), "%" PRIu64, r->counted_runs);
#define ID(n, v) (t.ids[content.nr_ids++] = (struct syslog_param){ .name = (n), .value = (v) })
	ID("prog_id", t.id);
	ID("prog_name", p->name);
	ID("prog_tag", p->tag);
	ID("prog_type", p->type);
	ID("interval_ms", t.interval);
	ID("seq", t.seq);
	ID("runs", t.runs);
	ID("run_ns", t.ns);
	if (r->nr_events > 0)
		ID("counted_runs", t.counted);
#undef ID
	/* The CSV's cells; "" for a program whose events are not counted. */
	for (int i = 0; i < r->nr_events; i++) {
		t.cells[i] = (struct csv_event_cells){ "", "" };
		if (r->counted)
			csv_format_event(&r->delta[i], &t.cells[i]);
	}
	event_params(r->nr_events, r->event_names, t.cells, t.names, t.counters);
	return queue_record(k, &h, &content);
}

static int syslog_sink_write_prog(struct sink *s, const struct sink_prog_record *r)
{
	struct syslog_sink *k = to_syslog(s);
	int ret;

	if (!k || !sink_prog_record_valid(r))
		return -EINVAL;
	k->records++;
	ret = format_prog(k, r);
	if (ret == 0)
		return 0;
	k->format_errors++;
	log_ratelimited(&k->rl_format, SYSLOG_REPORT_INTERVAL_S, LOG_LVL_WARN,
			"syslog %s: cannot format the message of BPF program %" PRIu32
			": %s; its counts go into the next one (%" PRIu64
			" records not formatted so far)",
			k->cfg.target, r->prog->id, strerror(-ret), k->format_errors);
	return ret;
}

static int syslog_sink_flush(struct sink *s)
{
	struct syslog_sink *k = to_syslog(s);

	return k ? syslog_conn_process(k->conn) : -EINVAL;
}

static int syslog_sink_reopen(struct sink *s)
{
	struct syslog_sink *k = to_syslog(s);

	return k ? syslog_conn_reconnect(k->conn) : -EINVAL;
}

static void syslog_sink_free(struct sink *s)
{
	struct syslog_sink *k = to_syslog(s);

	if (!k)
		return;
	syslog_conn_free(k->conn);
	free(k);
}

static const struct sink_ops syslog_sink_ops = {
	.name = "syslog",
	.write = syslog_sink_write,
	.write_prog = syslog_sink_write_prog,
	.flush = syslog_sink_flush,
	.reopen = syslog_sink_reopen,
	.free = syslog_sink_free,
};

int syslog_sink_new(const struct syslog_config *cfg, struct sink **ret)
{
	struct syslog_sink *k;
	int r;

	if (!cfg || !ret)
		return -EINVAL;
	if (cfg->format != SYSLOG_RFC5424 && cfg->format != SYSLOG_RFC3164)
		return -EINVAL;
	if (cfg->facility < 0 || cfg->facility > 23)
		return -EINVAL;
	k = calloc(1, sizeof(*k));
	if (!k)
		return -ENOMEM;
	k->sink.ops = &syslog_sink_ops;
	k->cfg = *cfg;
	k->cfg.target[sizeof(k->cfg.target) - 1] = '\0';
	k->cfg.app_name[sizeof(k->cfg.app_name) - 1] = '\0';
	if (k->cfg.enterprise_id == 0)
		k->cfg.enterprise_id = CONFIG_DEFAULT_ENTERPRISE_ID;
	k->pid = (unsigned long)getpid();
	if (gethostname(k->hostname, sizeof(k->hostname) - 1) < 0)
		k->hostname[0] = '\0'; /* written as "-" */
	r = syslog_conn_new(cfg, &k->conn);
	if (r < 0)
		goto fail;
	*ret = &k->sink;
	return 0;
fail:
	syslog_sink_free(&k->sink);
	return r;
}

int syslog_sink_fd(struct sink *s)
{
	struct syslog_sink *k = to_syslog(s);

	return k ? syslog_conn_fd(k->conn) : -EINVAL;
}

int syslog_sink_process(struct sink *s)
{
	return syslog_sink_flush(s);
}

int syslog_sink_drain(struct sink *s, int timeout_ms)
{
	struct syslog_sink *k = to_syslog(s);

	return k ? syslog_conn_drain(k->conn, timeout_ms) : -EINVAL;
}

int syslog_sink_get_stats(struct sink *s, struct syslog_sink_stats *ret)
{
	struct syslog_sink *k = to_syslog(s);
	struct syslog_conn_stats c;

	if (!k || !ret)
		return -EINVAL;
	syslog_conn_get_stats(k->conn, &c);
	*ret = (struct syslog_sink_stats){
		.records = k->records,
		.messages = k->messages,
		.format_errors = k->format_errors,
		.sent = c.sent,
		.dropped = c.dropped,
		.reconnects = c.reconnects,
		.connect_failures = c.connect_failures,
		.refused = c.refused,
		.partial_writes = c.partial_writes,
		.dns_lookups = c.dns_lookups,
		.dns_failures = c.dns_failures,
		.queued = c.queued,
		.head_written = c.head_written,
		.connected = c.connected,
	};
	return 0;
}
