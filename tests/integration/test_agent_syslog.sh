# SPDX-License-Identifier: GPL-2.0-only
# The agent with CSV and syslog at once, to a real rsyslogd started by this
# test (loopback TCP with octet counting, and UDP): every interval's message
# arrives, the RFC 5424 structured data parses, and its counter values equal
# the CSV rows'. rsyslogd stopped for a few intervals, then restarted:
# delivery resumes and the agent reports what it queued and dropped. Then
# the agent with only `--syslog unix:PATH` on its command line (the config
# file has no syslog output) to rsyslogd's imuxsock on a private socket, as
# local programs log: imuxsock parses the tag and pid, the values equal the
# CSV's.
source "$CGPERF_SRC/tests/lib/common.sh"

TCP_PORT=$(free_port); UDP_PORT=$(free_port)
mkdir -p "$TMP/rs"
cat >"$TMP/rs/rsyslog.conf" <<CONF
global(workDirectory="$TMP/rs")
module(load="imtcp")
input(type="imtcp" address="127.0.0.1" port="$TCP_PORT")
module(load="imudp")
input(type="imudp" address="127.0.0.1" port="$UDP_PORT")
module(load="imuxsock" SysSock.Use="off")
input(type="imuxsock" Socket="$TMP/rs/log.sock")
template(name="raw" type="string" string="%inputname%\t%rawmsg%\n")
template(name="parsed" type="string" string="%syslogtag%\t%programname%\t%msg%\n")
if \$inputname == "imuxsock" then action(type="omfile" file="$TMP/rs/unix.log" template="parsed")
*.* action(type="omfile" file="$TMP/rs/out.log" template="raw")
CONF
start_rsyslogd() { rsyslogd_start "$TMP/rs/rsyslog.conf" 1 "$TCP_PORT"; }
stop_rsyslogd() { rsyslogd_stop; }
start_rsyslogd

c_rel="system.slice/docker-$(printf '%064x' 5).scope"
mkcg system.slice >/dev/null
for transport in tcp udp; do
	port=$TCP_PORT; [ $transport = udp ] && port=$UDP_PORT
	agent_yaml "$TMP/$transport.yaml" "$TMP/csv-$transport" "$transport://127.0.0.1:$port" cgperf-test 3
done

# Rows and messages are waited for by their number, not by time (a loaded
# machine collects less often: a slept-through tick is one collection).
# rows_of DIR: the cgroup's CSV rows there; msgs_of FILE [INPUT]: its messages.
rows_of() { python3 - "$1" "$c" <<'PY'
import csv, glob, sys
print(sum(1 for p in glob.glob(sys.argv[1] + '/*.csv')
          for r in csv.DictReader(open(p, newline='')) if r['cgroup'] == sys.argv[2]))
PY
}
msgs_of() { grep -c -- "cgroup=\"$c\"" "$1" 2>/dev/null | tr -d '\n'; }
msgs_in() { grep -- "^$2	" "$1" 2>/dev/null | grep -c -- "cgroup=\"$c\"" | tr -d '\n'; }
rows_at_least() { [ "$(rows_of "$1")" -ge "$2" ]; }
wait_rows() { poll $((1200 * ${CGPERF_SLOW_FACTOR:-1})) 0.05 rows_at_least "$1" "$2" || fail "no $2 rows in $1"; }

# TCP first, with an outage in the middle.
start_agent tcp "$TMP/tcp.yaml"
c=$(mkcg "$c_rel"); wait_counted "$TMP/tcp.log" "$c"
run_in_cg "$c_rel" "$BURN" 0.5; wait "$LAST_PID"
wait_rows "$TMP/csv-tcp" 2
stop_rsyslogd
run_in_cg "$c_rel" "$BURN" 0.3; wait "$LAST_PID"
# Collections while it is away, until the queue (queue_max 3) drops the
# oldest (CSV rows are flushed every 5 s: not a count of collections).
wait_for_line "$TMP/tcp.log" "dropping the oldest" 60
start_rsyslogd
run_in_cg "$c_rel" "$BURN" 0.2; wait "$LAST_PID"
wait_rows "$TMP/csv-tcp" $(($(rows_of "$TMP/csv-tcp") + 3))
kill -TERM "$AGENT_PID"; wait "$AGENT_PID" || fail "agent failed: $(tail -5 "$TMP/tcp.log")"
grep -qi "dropped" "$TMP/tcp.log" || fail "the outage's drops were not reported: $(cat "$TMP/tcp.log")"
grep -q "summary: .*syslog: [0-9]* messages sent, [1-9][0-9]* dropped" "$TMP/tcp.log" ||
	fail "the exit summary does not count the drops: $(grep summary "$TMP/tcp.log")"
log "agent said: $(grep -i 'syslog' "$TMP/tcp.log" | tail -3 | tr '\n' '|')"

# UDP, no outage: every interval's message must arrive.
start_agent udp "$TMP/udp.yaml"
run_in_cg "$c_rel" "$BURN" 0.4; wait "$LAST_PID"
wait_rows "$TMP/csv-udp" 3
kill -TERM "$AGENT_PID"; wait "$AGENT_PID" || fail "agent failed: $(tail -5 "$TMP/udp.log")"
# rsyslogd has written them all (however long that takes here).
udp_all() { [ "$(msgs_in "$TMP/rs/out.log" imudp)" -ge "$(rows_of "$TMP/csv-udp")" ]; }
poll $((600 * ${CGPERF_SLOW_FACTOR:-1})) 0.05 udp_all || true

python3 - "$TMP" "$c" <<'PY' || fail "syslog and CSV disagree (see above)"
import csv, glob, re, sys
tmp, cg = sys.argv[1], sys.argv[2]
SD = re.compile(r'^<(\d+)>1 (\S+) (\S+) (\S+) (\S+) (\S+) \[(\S+?@\d+)((?: [^ =\]]+="(?:[^"\\\]]|\\.)*")*)\]')
PARAM = re.compile(r' ([^ =\]]+)="((?:[^"\\\]]|\\.)*)"')
unescape = lambda v: re.sub(r'\\(.)', r'\1', v)
msgs = {'imtcp': [], 'imudp': []}
for line in open(tmp + '/rs/out.log', encoding='utf-8', errors='replace'):
    inp, _, raw = line.rstrip('\n').partition('\t')
    m = SD.match(raw)
    assert m, "not RFC 5424 with structured data: %r" % raw
    assert m.group(4) == 'cgperf-test', m.group(4)
    params = {k: unescape(v) for k, v in PARAM.findall(m.group(8))}
    if params.get('cgroup') == cg:
        msgs[inp].append(params)
def csv_rows(d):
    rows = []
    for p in glob.glob(d + '/*.csv'):
        rows += [r for r in csv.DictReader(open(p, newline='')) if r['cgroup'] == cg]
    return rows
for transport, inp in (('udp', 'imudp'), ('tcp', 'imtcp')):
    rows, got = csv_rows(tmp + '/csv-' + transport), msgs[inp]
    print("# %s: %d CSV rows, %d syslog messages" % (transport, len(rows), len(got)))
    csv_total = sum(int(r['cpu-clock']) for r in rows)
    sys_total = sum(int(m['cpu-clock']) for m in got if m.get('cpu-clock', '') != '')
    if transport == 'udp':
        # Every interval arrived, with the CSV's values, row for row.
        assert len(got) == len(rows), (len(got), len(rows))
        for r, m in zip(rows, got):
            assert r['cpu-clock'] == m['cpu-clock'] and r['context-switches'] == m['context-switches'], (r, m)
        assert csv_total == sys_total, (csv_total, sys_total)
    else:
        # The outage dropped the oldest queued messages; the rest match the CSV.
        seqs = [int(m['seq']) for m in got if 'seq' in m]
        assert seqs == sorted(seqs), seqs
        assert len(got) < len(rows), "an outage with queue_max 3 must lose messages"
        assert sys_total <= csv_total
        assert got[-1]['cpu-clock'] == rows[-1]['cpu-clock'], (got[-1], rows[-1])
print("# ok: syslog values equal the CSV's")
PY

# unix: from the command line only, to imuxsock's own parser (RFC 3164
# without a hostname, the default for unix: targets).
agent_yaml "$TMP/unix.yaml" "$TMP/csv-unix"
[ -S "$TMP/rs/log.sock" ] || fail "rsyslogd made no socket at $TMP/rs/log.sock"
start_agent unix "$TMP/unix.yaml" --syslog "unix:$TMP/rs/log.sock"
run_in_cg "$c_rel" "$BURN" 0.4; wait "$LAST_PID"
wait_rows "$TMP/csv-unix" 3
kill -TERM "$AGENT_PID"; wait "$AGENT_PID" || fail "agent failed: $(tail -5 "$TMP/unix.log")"
unix_all() { [ "$(msgs_of "$TMP/rs/unix.log")" -ge "$(rows_of "$TMP/csv-unix")" ]; }
poll $((600 * ${CGPERF_SLOW_FACTOR:-1})) 0.05 unix_all || true
python3 - "$TMP" "$c" "$AGENT_PID" <<'PY' || fail "the unix: messages are wrong (see above)"
import csv, glob, re, sys
tmp, cg, pid = sys.argv[1:4]
PARAM = re.compile(r' ([^ =\]]+)="((?:[^"\\\]]|\\.)*)"')
got = []
for line in open(tmp + '/rs/unix.log', encoding='utf-8', errors='replace'):
    tag, prog, msg = line.rstrip('\n').split('\t', 2)
    # imuxsock read the tag and the pid, not a hostname, in front.
    assert tag == 'cgperf[%s]:' % pid and prog == 'cgperf', (tag, prog)
    params = dict(PARAM.findall(' ' + msg.lstrip(' ')))
    if params.get('cgroup') == cg:
        got.append(params)
rows = []
for p in glob.glob(tmp + '/csv-unix/*.csv'):
    rows += [r for r in csv.DictReader(open(p, newline='')) if r['cgroup'] == cg]
print('# unix: %d CSV rows, %d messages' % (len(rows), len(got)))
assert len(rows) >= 3 and len(got) == len(rows), (len(got), len(rows))
for r, m in zip(rows, got):
    assert r['cpu-clock'] == m['cpu-clock'] and r['context-switches'] == m['context-switches'], (r, m)
PY
