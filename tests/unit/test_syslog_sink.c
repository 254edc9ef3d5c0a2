// SPDX-License-Identifier: GPL-2.0-only
/* The syslog sink end to end against a real rsyslogd, started by this test
 * with its own config, pid file and work directory (no privilege change),
 * listening on a unix socket in the test's directory and on loopback UDP and
 * TCP. Everything it receives is written raw to a file that a small python3
 * RFC 5424 / RFC 3164 parser (below) turns into JSON; the values must equal
 * what was sent. Then rsyslogd is stopped (messages queue, the oldest are
 * dropped and counted), restarted (delivery resumes, counts reported), and
 * paused with SIGSTOP to exercise partial TCP writes and a reconnect in the
 * middle of a message. Only the rsyslogd this test started is signalled, by
 * the pid from its pid file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "sink/syslog_sink.h"
#include "sink/syslog_transport.h"
#include "agent/record.h"
#include "tests/lib/test_files.h"

#define RSYSLOGD "/usr/sbin/rsyslogd"
#define FFFD "\xEF\xBF\xBD"
#define NR_EVENTS 4
#define T0 1700000000
/* A POSIX TZ (no tzdata needed) 5 h 45 min east of UTC, as Nepal: local
 * time cannot be mistaken for UTC, nor for a whole-hour shift. */
#define TEST_TZ "CGT-5:45"
#define TEST_TZ_OFFSET_S (5 * 3600 + 45 * 60)
/* Safety nets only: nothing asserts how fast things happen. */
#define WAIT_S 60

static const char python_parser[] =
	"# Strict reader of what rsyslogd wrote (\"%inputname%<TAB>%rawmsg%\" lines):\n"
	"# RFC 5424 (header, one SD element, params) or RFC 3164 (PRI, timestamp,\n"
	"# hostname except on the unix socket, TAG[PID]:, name=\"value\" pairs).\n"
	"# Prints a JSON list; a line of ours that does not parse is an \"error\" entry.\n"
	"import json, re, sys\n"
	"\n"
	"path, prefix = sys.argv[1], sys.argv[2].encode()\n"
	"\n"
	"def name_ok(n):\n"
	"    return 1 <= len(n) <= 32 and all(33 <= ord(c) <= 126 and c not in '=\"]' for c in n)\n"
	"\n"
	"def value_ok(v):\n"
	"    return not any(ord(c) < 32 or ord(c) == 127 for c in v)\n"
	"\n"
	"def params(s, i, closing):\n"
	"    \"\"\"name=\"value\" pairs, each after one space, from s[i]; returns (list, index).\"\"\"\n"
	"    out = []\n"
	"    while i < len(s) and s[i] == ' ':\n"
	"        eq = s.index('=\"', i)\n"
	"        name = s[i + 1:eq]\n"
	"        if not name_ok(name):\n"
	"            raise ValueError('bad SD-NAME %r' % name)\n"
	"        i, v = eq + 2, []\n"
	"        while True:\n"
	"            c = s[i]\n"
	"            if c == '\\\\' and s[i + 1] in '\"\\\\]':\n"
	"                v.append(s[i + 1]); i += 2\n"
	"            elif c == '\"':\n"
	"                i += 1; break\n"
	"            elif c == ']' and closing:\n"
	"                raise ValueError('unescaped ] in value')\n"
	"            else:\n"
	"                v.append(c); i += 1\n"
	"        v = ''.join(v)\n"
	"        if not value_ok(v):\n"
	"            raise ValueError('control character in %r' % v)\n"
	"        out.append([name, v])\n"
	"    return out, i\n"
	"\n"
	"H5424 = re.compile(r'<(\\d{1,3})>1 (\\S+) (\\S+) (\\S+) (\\S+) (\\S+) \\[')\n"
	"H3164 = re.compile(r'<(\\d{1,3})>([A-Z][a-z]{2}) ([ 1-3]\\d) (\\d\\d:\\d\\d:\\d\\d) ')\n"
	"TAG = re.compile(r'([^\\[\\]: ]{1,48})\\[(\\d+)\\]:')\n"
	"\n"
	"def parse(inp, raw):\n"
	"    s = raw.decode('utf-8')  # strict: invalid UTF-8 is an error\n"
	"    r = {'input': inp, 'len': len(raw)}\n"
	"    m = H5424.match(s)\n"
	"    if m:\n"
	"        r.update(format='5424', pri=int(m[1]), timestamp=m[2], hostname=m[3], app=m[4],\n"
	"                 procid=m[5], msgid=m[6])\n"
	"        i = m.end()\n"
	"        j = i\n"
	"        while j < len(s) and s[j] not in ' ]':\n"
	"            j += 1\n"
	"        r['sdid'] = s[i:j]\n"
	"        if not name_ok(r['sdid']):\n"
	"            raise ValueError('bad SD-ID')\n"
	"        r['params'], i = params(s, j, True)\n"
	"        if s[i] != ']':\n"
	"            raise ValueError('SD element not closed at %d' % i)\n"
	"        rest = s[i + 1:]\n"
	"        if rest and not rest.startswith(' '):\n"
	"            raise ValueError('junk after SD')\n"
	"        r['msg'] = rest[1:] if rest else None\n"
	"        return r\n"
	"    m = H3164.match(s)\n"
	"    if not m:\n"
	"        raise ValueError('neither RFC 5424 nor RFC 3164')\n"
	"    r.update(format='3164', pri=int(m[1]), timestamp='%s %s %s' % (m[2], m[3], m[4]))\n"
	"    i = m.end()\n"
	"    if inp != 'imuxsock':\n"
	"        sp = s.index(' ', i)\n"
	"        r['hostname'] = s[i:sp]\n"
	"        i = sp + 1\n"
	"    t = TAG.match(s, i)\n"
	"    if not t:\n"
	"        raise ValueError('no TAG[PID]:')\n"
	"    r.update(app=t[1], procid=t[2])\n"
	"    r['params'], i = params(s, t.end(), False)\n"
	"    if i != len(s):\n"
	"        raise ValueError('junk after params at %d' % i)\n"
	"    return r\n"
	"\n"
	"out = []\n"
	"with open(path, 'rb') as f:\n"
	"    for line in f.read().split(b'\\n'):\n"
	"        if not line or prefix not in line:\n"
	"            continue\n"
	"        inp, _, raw = line.partition(b'\\t')\n"
	"        inp = inp.decode()\n"
	"        try:\n"
	"            out.append(parse(inp, raw))\n"
	"        except (ValueError, IndexError, UnicodeDecodeError) as e:\n"
	"            out.append({'input': inp, 'error': str(e), 'raw': raw[:300].decode('utf-8', 'replace')})\n"
	"json.dump(out, sys.stdout)\n"
	"\n";

static struct {
	char dir[64];
	char conf[128], pidfile[128], out[128], sock[128], log[128], parser[128], json[128],
		errfile[128];
	int udp_port, tcp_port;
	pid_t pid; /* the rsyslogd we started, 0 when not running */
	bool paused; /* stopped with SIGSTOP */
	char hostname[256];
} rs;

/* ---- rsyslogd ----------------------------------------------------------- */

static int free_port(int type)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, type, 0);

	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	close(fd);
	return ntohs(a.sin_port);
}

static pid_t pid_from_pidfile(void)
{
	/* Not there yet reads as empty: the callers poll. */
	char *s = test_read_file(rs.pidfile, NULL) ?: strdup("");
	pid_t pid = (pid_t)atoi(s);

	free(s);
	return pid;
}

/* Lines of the output file holding `a` and (if not NULL) `b`. */
static int count_lines(const char *a, const char *b)
{
	char *text = test_read_file(rs.out, NULL) ?: strdup(""), *line, *save = NULL;
	int n = 0;

	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (strstr(line, a) && (!b || strstr(line, b)))
			n++;
	free(text);
	return n;
}

static void wait_lines(const char *a, const char *b, int at_least)
{
	for (int i = 0; i < WAIT_S * 20; i++) {
		if (count_lines(a, b) >= at_least)
			return;
		usleep(50000);
	}
	fail_msg("rsyslogd wrote fewer than %d lines with '%s' '%s' in %d s", at_least, a,
		 b ? b : "", WAIT_S);
}

static void rsyslog_start(void)
{
	struct sockaddr_in tcp = { .sin_family = AF_INET,
				   .sin_port = htons((uint16_t)rs.tcp_port),
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct sockaddr_in udp = tcp;
	struct stat st;
	char probe[64];
	pid_t pid;
	int i;

	udp.sin_port = htons((uint16_t)rs.udp_port);
	unlink(rs.pidfile);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int fd = open(rs.log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
		dup2(fd, 1);
		dup2(fd, 2);
		execl(RSYSLOGD, "rsyslogd", "-n", "-f", rs.conf, "-i", rs.pidfile, (char *)NULL);
		_exit(127);
	}
	rs.pid = pid;

	/* Ready: pid file written, unix socket bound, TCP accepting, and a UDP
	 * probe seen in the output (the only proof the UDP input reads). */
	for (i = 0; i < WAIT_S * 20; i++) {
		int fd, ok;

		if (waitpid(pid, NULL, WNOHANG) == pid)
			fail_msg("rsyslogd exited at start; see %s", rs.log);
		if (pid_from_pidfile() != pid || stat(rs.sock, &st) < 0) {
			usleep(50000);
			continue;
		}
		fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		ok = connect(fd, (struct sockaddr *)&tcp, sizeof(tcp)) == 0;
		close(fd);
		if (ok)
			break;
		usleep(50000);
	}
	assert_true(i < WAIT_S * 20);
	snprintf(probe, sizeof(probe), "<14>1 - - probe-%d - - - ready", (int)pid);
	for (i = 0; i < WAIT_S * 20; i++) {
		int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

		sendto(fd, probe, strlen(probe), 0, (struct sockaddr *)&udp, sizeof(udp));
		close(fd);
		snprintf(probe, sizeof(probe), "probe-%d", (int)pid);
		if (count_lines(probe, NULL) > 0)
			break;
		snprintf(probe, sizeof(probe), "<14>1 - - probe-%d - - - ready", (int)pid);
		usleep(50000);
	}
	assert_true(i < WAIT_S * 20);
}

/* Stop the rsyslogd we started: by the pid in its pid file, which must be
 * the child we forked. */
static void rsyslog_stop(int sig)
{
	pid_t pid = pid_from_pidfile();

	/* Never kill(0, ...): that would be our own process group. */
	assert_true(rs.pid > 0);
	assert_int_equal(pid, rs.pid);
	assert_int_equal(kill(pid, sig), 0);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	rs.pid = 0;
	rs.paused = false;
}

static void rsyslog_pause(bool pause)
{
	int status;

	assert_true(rs.pid > 0);
	rs.paused = pause;
	assert_int_equal(kill(rs.pid, pause ? SIGSTOP : SIGCONT), 0);
	assert_int_equal(waitpid(rs.pid, &status, pause ? WUNTRACED : WCONTINUED), rs.pid);
	assert_true(pause ? WIFSTOPPED(status) : WIFCONTINUED(status));
}

static char *end_capture(void);

/* Each test starts with a running rsyslogd, whatever a failed one left. */
static void rsyslog_ensure_running(void)
{
	free(end_capture());
	if (rs.pid > 0 && rs.paused)
		rsyslog_pause(false);
	if (rs.pid == 0)
		rsyslog_start();
}

static int setup(void **state)
{
	char conf[2048];

	if (access(RSYSLOGD, X_OK) != 0) {
		fprintf(stderr, "%s is missing (package rsyslog)\n", RSYSLOGD);
		return -1;
	}
	strcpy(rs.dir, "/tmp/cgperf-test_syslog_sink.XXXXXX");
	if (!mkdtemp(rs.dir))
		return -1;
#define P(field, name) snprintf(rs.field, sizeof(rs.field), "%s/%s", rs.dir, name)
	P(conf, "rsyslog.conf");
	P(pidfile, "rsyslogd.pid");
	P(out, "received.log");
	P(sock, "log.sock");
	P(log, "rsyslogd.log");
	P(parser, "parse.py");
	P(json, "parsed.json");
	P(errfile, "stderr.txt");
#undef P
	rs.udp_port = free_port(SOCK_DGRAM);
	rs.tcp_port = free_port(SOCK_STREAM);
	gethostname(rs.hostname, sizeof(rs.hostname) - 1);
	/* Its own work directory, no system socket, and a unix input that
	 * parses RFC 5424 too (imuxsock's default parser only knows the
	 * local RFC 3164 form). maxMessageSize is left at its default (8096)
	 * so the sink's limit is checked against it. A burst of ~2 KiB UDP
	 * datagrams costs ~4 KiB each in the receive buffer: the default
	 * (208 KiB) holds ~50 and the kernel drops the rest silently, which
	 * is loopback loss, not the sink's; rcvbufSize makes room. */
	snprintf(
		conf, sizeof(conf),
		"global(workDirectory=\"%s\")\n"
		"module(load=\"imuxsock\" SysSock.Use=\"off\")\n"
		"input(type=\"imuxsock\" Socket=\"%s\" useSpecialParser=\"off\" parseHostname=\"on\")\n"
		"module(load=\"imudp\")\n"
		"input(type=\"imudp\" address=\"127.0.0.1\" port=\"%d\" rcvbufSize=\"4m\")\n"
		"module(load=\"imtcp\")\n"
		"input(type=\"imtcp\" address=\"127.0.0.1\" port=\"%d\")\n"
		"template(name=\"raw\" type=\"string\" string=\"%%inputname%%\\t%%rawmsg%%\\n\")\n"
		"*.* action(type=\"omfile\" file=\"%s\" template=\"raw\")\n",
		rs.dir, rs.sock, rs.udp_port, rs.tcp_port, rs.out);
	test_write_str(rs.conf, conf);
	test_write_str(rs.parser, python_parser);
	{
		char cmd[512];
		snprintf(cmd, sizeof(cmd), RSYSLOGD " -N1 -f %s >>%s 2>&1", rs.conf, rs.log);
		if (system(cmd) != 0) {
			fprintf(stderr, "rsyslogd -N1 refused the test config; see %s\n", rs.log);
			return -1;
		}
	}
	rsyslog_start();
	return 0;
}

static int teardown(void **state)
{
	free(end_capture());
	if (rs.pid > 0) {
		kill(rs.pid, SIGCONT);
		if (pid_from_pidfile() == rs.pid) {
			kill(rs.pid, SIGTERM);
		} else {
			kill(rs.pid, SIGKILL); /* our child, pid file or not */
		}
		waitpid(rs.pid, NULL, 0);
		rs.pid = 0;
	}
	if (getenv("CGPERF_KEEP_TMP")) {
		fprintf(stderr, "kept %s\n", rs.dir);
		return 0;
	}
	return test_rmtemp(rs.dir) < 0 ? -1 : 0;
}

/* ---- records ------------------------------------------------------------ */

static const char *const events[NR_EVENTS] = { "cpu-clock", "cycles", "L1-dcache-load-misses",
					       "context-switches" };
/* Their SD-NAMEs, written out (docs/SYSLOG.md): the third with "_running_pct"
 * would be 33 characters. */
static const char *const value_names[NR_EVENTS] = { "cpu-clock", "cycles", "L1-dcache-load-misses",
						    "context-switches" };
static const char *const pct_names[NR_EVENTS] = { "cpu-clock_running_pct", "cycles_running_pct",
						  "L1-dcache-loa~4d05b1_running_pct",
						  "context-switches_running_pct" };

struct test_cgroup {
	struct sink_cgroup cg;
	/* what a correct receiver reads back */
	const char *path_expected;
	const char *container_expected;
};

static char long_path[1701], huge_path[2601], partial_path[3001];

static struct test_cgroup cgroups[] = {
	{ { .id = 1001,
	    .path = "/test/a \"quoted\" ]bracket\\back,comma/\xc3\xa9t\xc3\xa9",
	    .kind = "container",
	    .runtime = "docker",
	    .container_id = "0123456789ab",
	    .container_name = "web\n1",
	    .pod = "",
	    .pod_namespace = "" },
	  "/test/a \"quoted\" ]bracket\\back,comma/\xc3\xa9t\xc3\xa9",
	  "web" FFFD "1" },
	{ { .id = 1002,
	    .path = "/test/bad\xffutf8.service",
	    .kind = "service",
	    .runtime = "systemd",
	    .container_id = "",
	    .container_name = "",
	    .pod = "",
	    .pod_namespace = "" },
	  "/test/bad" FFFD "utf8.service",
	  "" },
	{ { .id = 1003,
	    .path = "/kubepods.slice/kubepods-pod1.slice",
	    .kind = "pod",
	    .runtime = "containerd",
	    .container_id = "",
	    .container_name = "",
	    .pod = "nginx-7d9",
	    .pod_namespace = "default" },
	  "/kubepods.slice/kubepods-pod1.slice",
	  "" },
	/* Too long for one UDP datagram: split. */
	{ { .id = 1004,
	    .path = long_path,
	    .kind = "other",
	    .runtime = "",
	    .container_id = "",
	    .container_name = "",
	    .pod = "",
	    .pod_namespace = "" },
	  long_path,
	  "" },
	/* Too long for a datagram even alone: cut over UDP. */
	{ { .id = 1005,
	    .path = huge_path,
	    .kind = "other",
	    .runtime = "",
	    .container_id = "",
	    .container_name = "",
	    .pod = "",
	    .pod_namespace = "" },
	  huge_path,
	  "" },
	/* ~3 KB messages for the TCP partial-write test. */
	{ { .id = 1006,
	    .path = partial_path,
	    .kind = "other",
	    .runtime = "",
	    .container_id = "",
	    .container_name = "",
	    .pod = "",
	    .pod_namespace = "" },
	  partial_path,
	  "" },
};

static void init_paths(void)
{
	memset(long_path, 'l', sizeof(long_path) - 1);
	memcpy(long_path, "/long/", 6);
	memset(huge_path, 'h', sizeof(huge_path) - 1);
	memcpy(huge_path, "/huge/", 6);
	/* A socket buffer rarely ends on the boundary of messages this long. */
	memset(partial_path, 'p', sizeof(partial_path) - 1);
	memcpy(partial_path, "/partial/", 9);
}

/* Cumulative totals after k intervals of counting (k = 0: nothing). The third
 * event is multiplexed: on the PMU half of its enabled time. */
static struct reading total(int cg, int e, int k)
{
	uint64_t enabled = (uint64_t)k * (e == 2 ? 2000000000ULL : 1000000000ULL);

	return (struct reading){
		.counter = 1000ULL * (uint64_t)k * (uint64_t)(cg + 1) * (uint64_t)(e + 1) +
			   (uint64_t)k * (uint64_t)k,
		.enabled = enabled,
		.running = e == 2 ? enabled / 2 : enabled,
	};
}

/* Allocations fail on demand: this test is linked with --wrap for malloc,
 * calloc and realloc. fail_alloc_in = n: the n-th allocation from now fails
 * (once); 0: none do. */
static int fail_alloc_in;
void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t size);

static bool alloc_fails_now(void)
{
	if (fail_alloc_in <= 0 || --fail_alloc_in > 0)
		return false;
	errno = ENOMEM;
	return true;
}

void *__wrap_malloc(size_t size)
{
	return alloc_fails_now() ? NULL : __real_malloc(size);
}

void *__wrap_calloc(size_t n, size_t size)
{
	return alloc_fails_now() ? NULL : __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t size)
{
	return alloc_fails_now() ? NULL : __real_realloc(p, size);
}

/* The agent's record of (sink, cgroup): the syslog output's last-written
 * totals and sequence. A later start is a new record (counting restarted:
 * a new session). */
struct fed {
	struct sink *sink;
	int cg, start;
	struct cg_record rec;
};
static struct fed fed[64];

static struct cg_record *record_of(struct sink *s, int cg, int start)
{
	struct fed *free_slot = NULL;

	for (size_t i = 0; i < sizeof(fed) / sizeof(fed[0]); i++) {
		if (fed[i].sink == s && fed[i].cg == cg && fed[i].start == start)
			return &fed[i].rec;
		if (fed[i].sink == s && fed[i].cg == cg)
			fed[i].sink = NULL; /* restarted */
		if (!fed[i].sink && !free_slot)
			free_slot = &fed[i];
	}
	assert_non_null(free_slot);
	*free_slot = (struct fed){ .sink = s, .cg = cg, .start = start };
	free_slot->rec.created_ns = (uint64_t)(T0 + 10 * start) * 1000000000u;
	return &free_slot->rec;
}

/* Hand the sink interval k of cgroup cg, counting since interval `start`,
 * as the agent does: the delta since the last message written (a failed
 * write leaves the base where it was); the write's result. */
static int try_write_record(struct sink *s, int cg, int k, int start, bool final)
{
	struct reading totals[NR_EVENTS], delta[NR_EVENTS];
	struct cg_record *rec = record_of(s, cg, start);
	uint64_t now_ns = (uint64_t)(T0 + 10 * k) * 1000000000u;
	struct sink_record r;
	int ret;

	for (int e = 0; e < NR_EVENTS; e++)
		totals[e] = total(cg, e, k - start);
	rec->view = cgroups[cg].cg;
	rec->removed = final;
	record_row(rec, RECORD_OUT_SYSLOG, totals, NR_EVENTS, now_ns, delta, &r);
	r.time = (struct timespec){ T0 + 10 * k, 0 };
	r.event_names = events;
	ret = s->ops->write(s, &r);
	if (ret < 0)
		return ret;
	record_commit(rec, RECORD_OUT_SYSLOG, totals, NR_EVENTS, now_ns);
	for (size_t i = 0; final && i < sizeof(fed) / sizeof(fed[0]); i++)
		if (fed[i].sink == s && fed[i].cg == cg)
			fed[i].sink = NULL; /* forgotten: a new record next time */
	return 0;
}

static void write_record(struct sink *s, int cg, int k, int start, bool final)
{
	assert_int_equal(try_write_record(s, cg, k, start, final), 0);
}

/* ---- what arrived ------------------------------------------------------- */

static json_object *parse_received(const char *app_prefix)
{
	char cmd[512];
	json_object *all;

	snprintf(cmd, sizeof(cmd), "python3 %s %s %s >%s", rs.parser, rs.out, app_prefix, rs.json);
	assert_int_equal(system(cmd), 0);
	all = json_object_from_file(rs.json);
	assert_non_null(all);
	for (size_t i = 0; i < json_object_array_length(all); i++) {
		json_object *m = json_object_array_get_idx(all, i), *err;
		if (json_object_object_get_ex(m, "error", &err))
			fail_msg("unparsable message: %s", json_object_to_json_string(m));
	}
	return all;
}

static const char *jstr(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

/* A message's params, as an ordered list of [name, value]. */
static const char *param(json_object *m, const char *name)
{
	json_object *params, *seen = NULL;

	assert_true(json_object_object_get_ex(m, "params", &params));
	for (size_t i = 0; i < json_object_array_length(params); i++) {
		json_object *p = json_object_array_get_idx(params, i);
		if (!strcmp(json_object_get_string(json_object_array_get_idx(p, 0)), name)) {
			assert_null(seen); /* no name twice */
			seen = json_object_array_get_idx(p, 1);
		}
	}
	return seen ? json_object_get_string(seen) : NULL;
}

/* The timestamp a message of interval k carries: RFC 5424 in UTC with
 * milliseconds, RFC 3164 in local time. The test runs in a zone 5:45 east
 * of UTC (TEST_TZ): the local time is worked out here from that offset, not
 * by the C library's time zone code that the sink uses. */
static void expected_timestamp(enum syslog_format format, int k, char *buf, size_t len)
{
	time_t t = T0 + 10 * k + (format == SYSLOG_RFC3164 ? TEST_TZ_OFFSET_S : 0);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, format == SYSLOG_RFC5424 ? "%Y-%m-%dT%H:%M:%S.000Z" : "%b %e %H:%M:%S",
		 &tm);
}

/* The messages (parts) of app for interval k of cgroup id, sequence seq. */
static int find_messages(json_object *all, const char *app, enum syslog_format format, uint64_t id,
			 int k, int seq, json_object **ret, int max)
{
	char ids[24], seqs[24], ts[64];
	int n = 0;

	snprintf(ids, sizeof(ids), "%" PRIu64, id);
	snprintf(seqs, sizeof(seqs), "%d", seq);
	expected_timestamp(format, k, ts, sizeof(ts));
	for (size_t i = 0; i < json_object_array_length(all); i++) {
		json_object *m = json_object_array_get_idx(all, i);
		const char *a = jstr(m, "app"), *cid = param(m, "cgroup_id"), *sq = param(m, "seq");
		const char *t = jstr(m, "timestamp");

		if (a && !strcmp(a, app) && cid && !strcmp(cid, ids) && sq && !strcmp(sq, seqs) &&
		    t && !strcmp(t, ts)) {
			assert_true(n < max);
			ret[n++] = m;
		}
	}
	return n;
}

struct expect {
	const char *app;
	enum syslog_format format;
	enum syslog_transport transport;
	int facility;
	uint32_t pen;
};

/* Check the message(s) of interval k of cgroup cg (counting since `start`,
 * previous message at interval `prev`) with sequence number seq. */
static void check_record(json_object *all, const struct expect *x, int cg, int k, int prev,
			 int start, int seq)
{
	json_object *parts[8];
	int n = find_messages(all, x->app, x->format, cgroups[cg].cg.id, k, seq, parts, 8);
	int seen[NR_EVENTS][2] = { { 0 } };
	char buf[64], pid[24];

	if (n == 0)
		fail_msg("%s: no message for cgroup %d interval %d (seq %d)", x->app, cg, k, seq);
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	for (int p = 0; p < n; p++) {
		json_object *m = parts[p];
		const char *cut = param(m, "truncated"), *part = param(m, "part");
		json_object *pri;

		/* Header */
		assert_true(json_object_object_get_ex(m, "pri", &pri));
		assert_int_equal(json_object_get_int(pri), x->facility * 8 + 6);
		assert_string_equal(jstr(m, "procid"), pid);
		assert_string_equal(jstr(m, "format"),
				    x->format == SYSLOG_RFC5424 ? "5424" : "3164");
		if (x->format == SYSLOG_RFC5424) {
			snprintf(buf, sizeof(buf), "cgperf@%u", (unsigned)x->pen);
			assert_string_equal(jstr(m, "sdid"), buf);
			assert_string_equal(jstr(m, "msgid"), "counts");
			assert_string_equal(jstr(m, "hostname"), rs.hostname);
		} else if (x->transport != SYSLOG_UNIX) {
			assert_string_equal(jstr(m, "hostname"), rs.hostname);
		}
		/* Identifying params, in every part */
		if (cut) {
			assert_string_equal(cut, "cgroup");
			assert_true(x->transport == SYSLOG_UDP);
			assert_true(strlen(param(m, "cgroup")) >= 1000);
			assert_memory_equal(param(m, "cgroup"), cgroups[cg].path_expected,
					    strlen(param(m, "cgroup")));
		} else {
			assert_string_equal(param(m, "cgroup"), cgroups[cg].path_expected);
		}
		snprintf(buf, sizeof(buf), "%" PRIu64, cgroups[cg].cg.id);
		assert_string_equal(param(m, "cgroup_id"), buf);
		assert_string_equal(param(m, "kind"), cgroups[cg].cg.kind);
		assert_string_equal(param(m, "runtime"), cgroups[cg].cg.runtime);
		assert_string_equal(param(m, "container_id"), cgroups[cg].cg.container_id);
		assert_string_equal(param(m, "container"), cgroups[cg].container_expected);
		assert_string_equal(param(m, "pod"), cgroups[cg].cg.pod);
		assert_string_equal(param(m, "namespace"), cgroups[cg].cg.pod_namespace);
		snprintf(buf, sizeof(buf), "%d", (k - (prev > start ? prev : start)) * 10000);
		assert_string_equal(param(m, "interval_ms"), buf);
		if (n > 1) {
			char expected[16];
			snprintf(expected, sizeof(expected), "/%d", n);
			assert_non_null(part);
			assert_non_null(strstr(part, expected));
		} else {
			assert_null(part);
		}
		/* Counters: the difference since the previous message, whole. */
		for (int e = 0; e < NR_EVENTS; e++) {
			const char *v = param(m, value_names[e]), *pct = param(m, pct_names[e]);
			struct reading now = total(cg, e, k - start);
			struct reading before =
				prev > start ? total(cg, e, prev - start) : (struct reading){ 0 };
			uint64_t delta = now.counter - before.counter;

			assert_true(!v == !pct); /* value and percent travel together */
			if (!v)
				continue;
			snprintf(buf, sizeof(buf), "%" PRIu64, e == 2 ? 2 * delta : delta);
			assert_string_equal(v, buf);
			assert_string_equal(pct, e == 2 ? "50.00" : "100.00");
			seen[e][0]++;
		}
	}
	for (int e = 0; e < NR_EVENTS; e++)
		assert_int_equal(seen[e][0], 1);
}

/* ---- driving the sink like the agent's epoll loop ----------------------- */

static struct sink *new_sink(enum syslog_transport transport, enum syslog_format format,
			     const char *app, int facility, uint32_t pen, size_t queue_max)
{
	struct syslog_config c = {
		.enabled = true,
		.transport = transport,
		.format = format,
		.facility = facility,
		.enterprise_id = pen,
		.queue_max = queue_max,
	};
	struct sink *s;

	snprintf(c.app_name, sizeof(c.app_name), "%s", app);
	snprintf(c.host, sizeof(c.host), "127.0.0.1");
	snprintf(c.port, sizeof(c.port), "%d", transport == SYSLOG_UDP ? rs.udp_port : rs.tcp_port);
	snprintf(c.socket_path, sizeof(c.socket_path), "%s", rs.sock);
	if (transport == SYSLOG_UNIX)
		snprintf(c.target, sizeof(c.target), "unix:%s", rs.sock);
	else
		snprintf(c.target, sizeof(c.target), "%s://127.0.0.1:%d",
			 transport == SYSLOG_UDP ? "udp" : "tcp",
			 transport == SYSLOG_UDP ? rs.udp_port : rs.tcp_port);
	assert_int_equal(syslog_sink_new(&c, &s), 0);
	assert_true(syslog_sink_fd(s) >= 0);
	/* A new sink may reuse a freed one's address: its records are new. */
	for (size_t i = 0; i < sizeof(fed) / sizeof(fed[0]); i++)
		if (fed[i].sink == s)
			fed[i].sink = NULL;
	return s;
}

static struct syslog_sink_stats stats_of(struct sink *s)
{
	struct syslog_sink_stats st;

	assert_int_equal(syslog_sink_get_stats(s, &st), 0);
	return st;
}

/* Poll the sinks' fds and process them until every queue is empty. */
static void drive_until_empty(struct sink **sinks, int n)
{
	for (int round = 0; round < WAIT_S * 10; round++) {
		struct pollfd pfd[8];
		bool empty = true;

		for (int i = 0; i < n; i++) {
			empty &= stats_of(sinks[i]).queued == 0;
			pfd[i] =
				(struct pollfd){ .fd = syslog_sink_fd(sinks[i]), .events = POLLIN };
		}
		if (empty)
			return;
		poll(pfd, (nfds_t)n, 100);
		for (int i = 0; i < n; i++)
			if (pfd[i].revents)
				assert_int_equal(syslog_sink_process(sinks[i]), 0);
	}
	fail_msg("queues not empty after %d s", WAIT_S);
}

/* stderr goes to a file while the sink's reports are checked. A failed
 * assertion leaves it redirected: the next test or teardown restores it. */
static int saved_stderr = -1;

static void capture_stderr(void)
{
	int fd = open(rs.errfile, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	assert_true(fd >= 0 && saved_stderr < 0);
	fflush(stderr);
	saved_stderr = dup(2);
	dup2(fd, 2);
	close(fd);
}

static char *end_capture(void)
{
	char *text;

	if (saved_stderr < 0)
		return strdup("");
	fflush(stderr);
	dup2(saved_stderr, 2);
	close(saved_stderr);
	saved_stderr = -1;
	text = test_read_file(rs.errfile, NULL) ?: strdup("");
	fputs(text, stderr); /* visible in the test log */
	return text;
}

static int app_lines(const char *app, enum syslog_format format)
{
	char pat[64];

	snprintf(pat, sizeof(pat), format == SYSLOG_RFC5424 ? " %s " : " %s[", app);
	return count_lines(pat, NULL);
}

static void wait_app_lines(const char *app, enum syslog_format format, int at_least)
{
	char pat[64];

	snprintf(pat, sizeof(pat), format == SYSLOG_RFC5424 ? " %s " : " %s[", app);
	wait_lines(pat, NULL, at_least);
}

/* Some line of text holds both a and b. */
static bool line_with(const char *text, const char *a, const char *b)
{
	for (const char *p = text; p && *p;) {
		const char *end = strchr(p, '\n');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		char *line = strndup(p, len);
		bool found = strstr(line, a) && strstr(line, b);

		free(line);
		if (found)
			return true;
		p = end ? end + 1 : NULL;
	}
	return false;
}

/* ---- tests -------------------------------------------------------------- */

/* Every transport and format: each record arrives, parses, and carries the
 * values sent; odd bytes are escaped or replaced; UDP splits and cuts. */
static void test_every_transport_and_format(void **state)
{
	struct expect x[6];
	struct sink *sinks[6];
	char apps[6][32];

	rsyslog_ensure_running();

	for (int i = 0; i < 6; i++) {
		snprintf(apps[i], sizeof(apps[i]), "cgperf-t%d", i);
		x[i] = (struct expect){ apps[i], i % 2 ? SYSLOG_RFC3164 : SYSLOG_RFC5424,
					(enum syslog_transport[]){ SYSLOG_UNIX, SYSLOG_UDP,
								   SYSLOG_TCP }[i / 2],
					i == 2 ? 16 : 3, i == 0 ? 12345 : 32473 };
		sinks[i] = new_sink(x[i].transport, x[i].format, apps[i], x[i].facility, x[i].pen,
				    1000);
	}
	for (int i = 0; i < 6; i++) {
		for (int k = 1; k <= 3; k++) {
			for (int cg = 0; cg < 3; cg++)
				write_record(sinks[i], cg, k, 0, k == 3 && cg == 2);
			if (k == 1) {
				write_record(sinks[i], 3, 1, 0, false);
				write_record(sinks[i], 4, 1, 0, false);
			}
			assert_int_equal(sinks[i]->ops->flush(sinks[i]), 0);
		}
		/* Interval 4: cgroup 1's counting restarted at 3 (a new `since`);
		 * cgroup 2 was final at 3 and comes back as a new one. */
		write_record(sinks[i], 0, 4, 0, false);
		write_record(sinks[i], 1, 4, 3, false);
		write_record(sinks[i], 2, 4, 3, false);
		assert_int_equal(sinks[i]->ops->flush(sinks[i]), 0);
	}
	drive_until_empty(sinks, 6);
	for (int i = 0; i < 6; i++) {
		struct syslog_sink_stats st = stats_of(sinks[i]);

		assert_int_equal(st.records, 14);
		assert_int_equal(st.dropped, 0);
		assert_int_equal(st.sent, st.messages);
		if (x[i].transport == SYSLOG_UDP)
			assert_true(st.messages >= 14 + 2); /* the long and the huge cgroup split */
		else
			assert_int_equal(st.messages, 14);
		wait_app_lines(apps[i], x[i].format, (int)st.messages);
		assert_int_equal(app_lines(apps[i], x[i].format), (int)st.messages);
	}

	json_object *all = parse_received("cgperf-t");
	for (int i = 0; i < 6; i++) {
		for (int k = 1; k <= 3; k++)
			for (int cg = 0; cg < 3; cg++)
				check_record(all, &x[i], cg, k, k - 1, 0, k);
		check_record(all, &x[i], 3, 1, 0, 0, 1);
		check_record(all, &x[i], 4, 1, 0, 0, 1);
		check_record(all, &x[i], 0, 4, 3, 0, 4);
		/* Restarted (a new session): the totals themselves, since the
		 * new start, in a new sequence. */
		check_record(all, &x[i], 1, 4, 3, 3, 1);
		/* Forgotten at its final record: a new sequence. */
		check_record(all, &x[i], 2, 4, 3, 3, 1);
		sinks[i]->ops->free(sinks[i]);
	}
	json_object_put(all);
}

/* rsyslogd stopped: the queue fills and drops its oldest, counted and
 * reported; restarted: the sink reconnects on its own and delivers the rest. */
static void test_receiver_down_then_back(void **state)
{
	const enum syslog_transport kinds[3] = { SYSLOG_TCP, SYSLOG_UNIX, SYSLOG_UDP };
	const char *apps[3] = { "cgperf-o0", "cgperf-o1", "cgperf-o2" };
	struct expect x[3];
	struct sink *sinks[3];
	uint64_t sent_before[3];
	char *err;

	rsyslog_ensure_running();

	for (int i = 0; i < 3; i++) {
		x[i] = (struct expect){ apps[i], i == 1 ? SYSLOG_RFC3164 : SYSLOG_RFC5424, kinds[i],
					3, 32473 };
		sinks[i] = new_sink(kinds[i], x[i].format, apps[i], 3, 32473, 5);
		for (int cg = 0; cg < 3; cg++)
			write_record(sinks[i], cg, 1, 0, false);
	}
	drive_until_empty(sinks, 3);
	for (int i = 0; i < 3; i++)
		wait_app_lines(apps[i], x[i].format, 3);

	capture_stderr();
	rsyslog_stop(SIGTERM);
	/* Four intervals while it is down: 12 messages into queues of 5. */
	for (int i = 0; i < 3; i++)
		sent_before[i] = stats_of(sinks[i]).sent;
	for (int k = 2; k <= 5; k++)
		for (int i = 0; i < 3; i++) {
			for (int cg = 0; cg < 3; cg++)
				write_record(sinks[i], cg, k, 0, false);
			assert_int_equal(sinks[i]->ops->flush(sinks[i]), 0);
		}
	for (int i = 0; i < 2; i++) {
		struct syslog_sink_stats st = stats_of(sinks[i]);

		/* Nothing was written into a dead connection (TCP: its FIN is
		 * seen before writing)... */
		assert_int_equal(st.sent, sent_before[i]);
		/* ...the newest 5 wait, the oldest 7 were dropped. */
		assert_int_equal(st.queued, 5);
		assert_int_equal(st.dropped, 7);
		assert_false(st.connected);
	}
	rsyslog_start();
	drive_until_empty(sinks, 3);
	err = end_capture();

	for (int i = 0; i < 2; i++)
		wait_app_lines(apps[i], x[i].format, (int)stats_of(sinks[i]).sent);
	/* UDP: the datagrams sent into the void never arrive; wait for the rest. */
	wait_app_lines(apps[2], x[2].format,
		       (int)(stats_of(sinks[2]).sent - stats_of(sinks[2]).refused));
	json_object *all = parse_received("cgperf-o");
	for (int i = 0; i < 2; i++) {
		struct syslog_sink_stats st = stats_of(sinks[i]);
		char label[300];

		assert_int_equal(st.sent, 8);
		assert_int_equal(st.dropped, 7);
		assert_int_equal(st.reconnects, 1);
		assert_int_equal(app_lines(apps[i], x[i].format), 8);
		/* Interval 1, then what was left in the queue: the last cgroups
		 * of interval 4 and all of 5. The deltas run from one queued
		 * message to the next, so the dropped ones' counts are missing,
		 * which the gap in seq shows. */
		for (int cg = 0; cg < 3; cg++)
			check_record(all, &x[i], cg, 1, 0, 0, 1);
		check_record(all, &x[i], 1, 4, 3, 0, 4);
		check_record(all, &x[i], 2, 4, 3, 0, 4);
		for (int cg = 0; cg < 3; cg++)
			check_record(all, &x[i], cg, 5, 4, 0, 5);
		/* Reported: the outage, the drops, then the recovery with the counts. */
		if (i == 0)
			snprintf(label, sizeof(label), "syslog tcp://127.0.0.1:%d: ", rs.tcp_port);
		else
			snprintf(label, sizeof(label), "syslog unix:%s: ", rs.sock);
		assert_true(line_with(err, label, "of at most 5 (oldest dropped first)"));
		assert_true(line_with(
			err, label,
			"queue full (5 messages): dropping the oldest; 1 dropped so far"));
		assert_true(line_with(
			err, label,
			"5 queued messages to deliver, 7 dropped meanwhile (7 in total)"));
	}
	/* UDP cannot know the receiver is gone until a port-unreachable comes
	 * back for a datagram already sent: those are counted as refused, and
	 * exactly they are missing. */
	{
		struct syslog_sink_stats st = stats_of(sinks[2]);
		int delivered = app_lines(apps[2], x[2].format);

		assert_true(st.refused >= 1);
		assert_int_equal((uint64_t)delivered + st.refused, st.sent);
		assert_int_equal(st.sent + st.dropped, 15);
	}
	json_object_put(all);
	free(err);

	/* Delivery goes on as before. */
	for (int i = 0; i < 3; i++)
		for (int cg = 0; cg < 3; cg++)
			write_record(sinks[i], cg, 6, 0, false);
	drive_until_empty(sinks, 3);
	for (int i = 0; i < 2; i++)
		wait_lines(apps[i], "seq=\"6\"", 3);
	all = parse_received("cgperf-o");
	for (int i = 0; i < 2; i++)
		for (int cg = 0; cg < 3; cg++)
			check_record(all, &x[i], cg, 6, 5, 0, 6);
	json_object_put(all);
	for (int i = 0; i < 3; i++)
		sinks[i]->ops->free(sinks[i]);
}

/* Write until the socket is full and the oldest queued message is partly
 * written. rsyslogd is paused; a full socket that happened to end on a
 * message boundary gets drained and filled again. */
static int fill_until_partial(struct sink *s, int next_k)
{
	for (int tries = 0; tries < 50; tries++) {
		struct syslog_sink_stats st;

		rsyslog_pause(true);
		for (;;) {
			write_record(s, 5, next_k++, 0, false);
			st = stats_of(s);
			if (st.queued > 0 && st.head_written > 0) {
				/* A short write may only mean loopback's softirq has not
				 * run yet (a loaded host): blocked is when a flush a
				 * moment later still moves nothing. */
				struct syslog_sink_stats again;

				usleep(100 * 1000);
				assert_int_equal(s->ops->flush(s), 0);
				again = stats_of(s);
				if (again.queued == st.queued &&
				    again.head_written == st.head_written)
					break;
			} else if (st.queued > 0) {
				break;
			}
			assert_true(next_k < 1000000);
		}
		/* Blocked: nothing more goes out until rsyslogd reads. */
		if (st.head_written > 0)
			return next_k;
		rsyslog_pause(false);
		drive_until_empty(&s, 1);
	}
	fail_msg("never saw a partly written message");
	return next_k;
}

static void test_tcp_partial_writes_and_reconnect(void **state)
{
	struct expect x = { "cgperf-p", SYSLOG_RFC5424, SYSLOG_TCP, 3, 32473 };
	struct sink *s = new_sink(SYSLOG_TCP, SYSLOG_RFC5424, "cgperf-p", 3, 32473, 1000000);
	struct syslog_sink_stats st;
	json_object *all;
	int next_k = 1, head, last;
	char seq[32];

	rsyslog_ensure_running();

	/* A partly written message is completed before the next one. */
	next_k = fill_until_partial(s, next_k);
	st = stats_of(s);
	assert_true(st.partial_writes > 0);
	rsyslog_pause(false);
	drive_until_empty(&s, 1);
	last = next_k - 1;
	snprintf(seq, sizeof(seq), "seq=\"%d\"", last);
	wait_lines("cgperf-p", seq, 1);
	all = parse_received("cgperf-p");
	for (int k = 1; k <= last; k++)
		check_record(all, &x, 5, k, k - 1, 0, k);
	assert_int_equal(app_lines("cgperf-p", SYSLOG_RFC5424), last);
	json_object_put(all);

	/* The connection dies in the middle of a message: it is sent again
	 * whole on the next connection, after rsyslogd is back. What rsyslogd
	 * had received but not read when killed is lost with it (the kernel
	 * had taken it: the sink cannot know). */
	next_k = fill_until_partial(s, next_k);
	st = stats_of(s);
	head = (int)st.sent + 1;
	rsyslog_stop(SIGKILL);
	write_record(s, 5, next_k++, 0, false);
	assert_int_equal(s->ops->flush(s), 0);
	st = stats_of(s);
	assert_false(st.connected);
	assert_int_equal(st.head_written, 0);
	rsyslog_start();
	drive_until_empty(&s, 1);
	last = next_k - 1;
	snprintf(seq, sizeof(seq), "seq=\"%d\"", last);
	wait_lines("cgperf-p", seq, 1);
	all = parse_received("cgperf-p");
	for (int k = head; k <= last; k++) {
		json_object *m[2];
		assert_int_equal(find_messages(all, "cgperf-p", SYSLOG_RFC5424, cgroups[5].cg.id, k,
					       k, m, 2),
				 1);
		check_record(all, &x, 5, k, k - 1, 0, k);
	}
	for (int k = 1; k < head; k++) {
		json_object *m[2];
		assert_true(find_messages(all, "cgperf-p", SYSLOG_RFC5424, cgroups[5].cg.id, k, k,
					  m, 2) <= 1);
	}
	assert_int_equal(stats_of(s).reconnects, 1);
	json_object_put(all);
	s->ops->free(s);
}

/* A full queue drops its oldest message that has not started, never the
 * partly written one at its head: the TCP stream stays well framed. */
static void test_tcp_full_queue_keeps_partial_message(void **state)
{
	struct expect x = { "cgperf-q", SYSLOG_RFC5424, SYSLOG_TCP, 3, 32473 };
	struct sink *s = new_sink(SYSLOG_TCP, SYSLOG_RFC5424, "cgperf-q", 3, 32473, 3);
	struct syslog_sink_stats st;
	json_object *all, *m[2];
	int next_k, head, last;
	char seq[32];

	rsyslog_ensure_running();

	next_k = fill_until_partial(s, 1);
	st = stats_of(s);
	head = (int)st.sent + 1;
	assert_int_equal(st.queued, 1);
	for (int i = 0; i < 5; i++)
		write_record(s, 5, next_k + i, 0, false);
	st = stats_of(s);
	assert_int_equal(st.queued, 3);
	assert_int_equal(st.dropped, 3);
	assert_true(st.head_written > 0);
	rsyslog_pause(false);
	drive_until_empty(&s, 1);
	last = next_k + 4;
	snprintf(seq, sizeof(seq), "seq=\"%d\"", last);
	wait_lines("cgperf-q", seq, 1);
	all = parse_received("cgperf-q");
	/* Everything up to the partly written one, complete... */
	for (int k = 1; k <= head; k++)
		check_record(all, &x, 5, k, k - 1, 0, k);
	/* ...not the three oldest waiting ones... */
	for (int k = next_k; k < next_k + 3; k++)
		assert_int_equal(find_messages(all, "cgperf-q", SYSLOG_RFC5424, cgroups[5].cg.id, k,
					       k, m, 2),
				 0);
	/* ...and the two newest. */
	check_record(all, &x, 5, next_k + 3, next_k + 2, 0, next_k + 3);
	check_record(all, &x, 5, next_k + 4, next_k + 3, 0, next_k + 4);
	assert_int_equal(app_lines("cgperf-q", SYSLOG_RFC5424), head + 2);
	assert_int_equal(stats_of(s).dropped, 3);
	json_object_put(all);
	s->ops->free(s);
}

/* A record split over UDP whose formatting or queueing fails half-way (an
 * allocation fails: the first, the second, ... of the write) leaves nothing
 * behind: each part is sent once, and the counts of a failed record arrive
 * in the next one. What rsyslogd received adds up exactly to the totals: no
 * part twice, no (seq, part) twice, every seq complete. */
static void test_split_record_failing_half_way(void **state)
{
	struct sink *s = new_sink(SYSLOG_UDP, SYSLOG_RFC5424, "cgperf-s", 3, 32473, 1000);
	uint64_t sums[NR_EVENTS] = { 0 };
	int k = 0, failed = 0, parts[64][8] = { { 0 } }, nparts[64] = { 0 };
	struct syslog_sink_stats st;
	json_object *all;

	rsyslog_ensure_running();
	capture_stderr();
	/* Fail the n-th allocation of a write, n = 1, 2, ... until a write
	 * needs fewer than n; after each failure one write that succeeds. */
	for (int n = 1;; n++) {
		int r;

		fail_alloc_in = n;
		r = try_write_record(s, 3, ++k, 0, false);
		fail_alloc_in = 0;
		if (r == 0)
			break;
		assert_int_equal(r, -ENOMEM);
		failed++;
		write_record(s, 3, ++k, 0, false);
		assert_true(n < 60);
	}
	free(end_capture());
	st = stats_of(s);
	assert_true(failed >= 3); /* some failed after a part was formatted */
	assert_int_equal(st.format_errors, failed);
	assert_true(st.messages >= 2 * st.records - 2 * (uint64_t)failed);
	drive_until_empty(&s, 1);
	wait_app_lines("cgperf-s", SYSLOG_RFC5424, (int)st.messages);

	all = parse_received("cgperf-s");
	assert_int_equal(json_object_array_length(all), st.messages);
	for (size_t i = 0; i < json_object_array_length(all); i++) {
		json_object *m = json_object_array_get_idx(all, i);
		int seq = atoi(param(m, "seq")), part, of;

		assert_int_equal(sscanf(param(m, "part"), "%d/%d", &part, &of), 2);
		assert_true(seq >= 1 && seq < 64 && part >= 1 && part <= of && of < 8);
		assert_true(nparts[seq] == 0 || nparts[seq] == of);
		nparts[seq] = of;
		assert_int_equal(parts[seq][part]++, 0); /* no part twice */
		for (int e = 0; e < NR_EVENTS; e++) {
			const char *v = param(m, value_names[e]);
			if (v)
				sums[e] += strtoull(v, NULL, 10);
		}
	}
	/* seq 1.. without gaps, each with all its parts */
	for (int seq = 1; seq <= k - failed; seq++)
		for (int part = 1; part <= nparts[seq]; part++)
			assert_int_equal(parts[seq][part], 1);
	assert_int_equal(nparts[k - failed + 1], 0);
	for (int e = 0; e < NR_EVENTS; e++) {
		uint64_t want = total(3, e, k).counter;
		assert_int_equal(sums[e], e == 2 ? 2 * want : want);
	}
	json_object_put(all);
	s->ops->free(s);
}

/* The sink without a receiver at all (the default unix:/dev/log on a host
 * without one): created fine, messages queue, nothing blocks, and free()
 * reports what was never delivered. */
static void test_no_receiver(void **state)
{
	struct syslog_config c = {
		.enabled = true,
		.transport = SYSLOG_UNIX,
		.format = SYSLOG_RFC3164,
		.facility = 3,
		.enterprise_id = 32473,
		.queue_max = 2,
	};
	struct sink *s;
	struct syslog_sink_stats st;
	char *err;

	rsyslog_ensure_running();

	snprintf(c.socket_path, sizeof(c.socket_path), "%s/nobody-listens.sock", rs.dir);
	snprintf(c.target, sizeof(c.target), "unix:%s/nobody-listens.sock", rs.dir);
	capture_stderr();
	assert_int_equal(syslog_sink_new(&c, &s), 0);
	for (int k = 1; k <= 3; k++)
		write_record(s, 0, k, 0, false);
	st = stats_of(s);
	assert_int_equal(st.queued, 2);
	assert_int_equal(st.dropped, 1);
	assert_int_equal(syslog_sink_drain(s, 200), -ETIMEDOUT);
	s->ops->free(s);
	err = end_capture();
	assert_non_null(strstr(err, "nobody-listens.sock: connect: No such file or directory"));
	assert_non_null(strstr(err, "2 queued messages were not delivered"));
	free(err);

	/* Bad configs are refused, not half-created. */
	c.queue_max = 0;
	assert_int_equal(syslog_sink_new(&c, &s), -EINVAL);
	c.queue_max = 1;
	c.facility = 24;
	assert_int_equal(syslog_sink_new(&c, &s), -EINVAL);
	assert_int_equal(syslog_sink_fd(NULL), -EINVAL);
}

/* The delays between failed attempts: 0.5 s doubling up to 30 s, then 30 s
 * for good (the order of attempts is checked against a real listener in
 * tests/integration/test_agent_syslog_reconnect.sh). */
/* A message's params as "name=value name=value ...", in order. */
static void params_text(json_object *m, char *buf, size_t len)
{
	json_object *params;
	size_t n = 0;

	buf[0] = '\0';
	assert_true(json_object_object_get_ex(m, "params", &params));
	for (size_t i = 0; i < json_object_array_length(params) && n < len; i++) {
		json_object *p = json_object_array_get_idx(params, i);

		n += (size_t)snprintf(buf + n, len - n, "%s%s=%s", i ? " " : "",
				      json_object_get_string(json_object_array_get_idx(p, 0)),
				      json_object_get_string(json_object_array_get_idx(p, 1)));
	}
}

/* BPF programs' messages (MSGID bpf-prog): runs and run_ns; with events
 * counted inside programs counted_runs and each event's value and
 * running_pct after them, as the CSV's cells ("" for a program without
 * event counts). */
static void test_prog_messages(void **state)
{
	static const char *const names[2] = { "cpu-clock", "cs" };
	const struct reading delta[2] = { { 5000, 1000, 500 }, { 0, 0, 0 } };
	struct sink_prog p = { 881, "cgperf_tprog", "59f4a931744dcdc6", "socket_filter" };
	struct sink_prog_record r = {
		.prog = &p, .interval_ms = 999, .runs = 500, .run_ns = 11313
	};
	const char *want[3] = {
		"prog_id=881 prog_name=cgperf_tprog prog_tag=59f4a931744dcdc6 prog_type=socket_filter "
		"interval_ms=999 seq=1 runs=500 run_ns=11313",
		"prog_id=881 prog_name=cgperf_tprog prog_tag=59f4a931744dcdc6 prog_type=socket_filter "
		"interval_ms=999 seq=2 runs=500 run_ns=11313 counted_runs=499 cpu-clock=10000 "
		"cpu-clock_running_pct=50.00 cs=0 cs_running_pct=",
		"prog_id=881 prog_name=cgperf_tprog prog_tag=59f4a931744dcdc6 prog_type=socket_filter "
		"interval_ms=999 seq=3 runs=500 run_ns=11313 counted_runs= cpu-clock= "
		"cpu-clock_running_pct= cs= cs_running_pct=",
	};
	struct sink *s;
	json_object *all;
	int found = 0;

	rsyslog_ensure_running();
	s = new_sink(SYSLOG_TCP, SYSLOG_RFC5424, "cgperf-p0", 3, 32473, 100);
	for (int k = 1; k <= 3; k++) {
		r.time = (struct timespec){ T0 + 10 * k, 0 };
		r.seq = (uint64_t)k;
		r.nr_events = k > 1 ? 2 : 0;
		r.event_names = names;
		r.counted = k == 2;
		r.counted_runs = 499;
		r.delta = delta;
		assert_int_equal(s->ops->write_prog(s, &r), 0);
	}
	assert_int_equal(s->ops->flush(s), 0);
	drive_until_empty(&s, 1);
	wait_app_lines("cgperf-p0", SYSLOG_RFC5424, 3);
	all = parse_received("cgperf-p0");
	for (size_t i = 0; i < json_object_array_length(all); i++) {
		json_object *m = json_object_array_get_idx(all, i);
		const char *seq = param(m, "seq");
		char text[1024];

		assert_string_equal(jstr(m, "msgid"), "bpf-prog");
		params_text(m, text, sizeof(text));
		assert_string_equal(text, want[atoi(seq) - 1]);
		found++;
	}
	assert_int_equal(found, 3);
	json_object_put(all);
	s->ops->free(s);
}

static void test_backoff_schedule(void **state)
{
	const unsigned want[] = { 500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000 };
	unsigned ms = SYSLOG_BACKOFF_MIN_MS;

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		assert_int_equal(ms, want[i]);
		ms = syslog_backoff_next(ms);
	}
	assert_int_equal(syslog_backoff_next(0), SYSLOG_BACKOFF_MIN_MS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_transport_and_format),
		cmocka_unit_test(test_receiver_down_then_back),
		cmocka_unit_test(test_tcp_partial_writes_and_reconnect),
		cmocka_unit_test(test_tcp_full_queue_keeps_partial_message),
		cmocka_unit_test(test_split_record_failing_half_way),
		cmocka_unit_test(test_prog_messages),
		cmocka_unit_test(test_backoff_schedule),
		cmocka_unit_test(test_no_receiver),
	};

	/* RFC 3164 timestamps are local time: a known zone that is not UTC. */
	setenv("TZ", TEST_TZ, 1);
	tzset();
	init_paths();
	return cmocka_run_group_tests(tests, setup, teardown);
}
