# SPDX-License-Identifier: GPL-2.0-only
# How the agent's syslog output reconnects, seen by real listeners:
#  1. the backoff: a receiver that accepts and closes at once (a balancer
#     without backends) is tried again after 0.5, 1, 2, 4 s: each gap
#     between the connections the listener accepts is at least that long
#     (a slow machine only adds to them; the doubling rule itself is
#     unit/test_syslog_sink's);
#  2. SIGHUP while rsyslogd is down: the agent reconnects and keeps its
#     queue; once rsyslogd is back every message arrives, none missing.
# Only the order and ratios of events are checked, never how fast they are.
source "$CGPERF_SRC/tests/lib/common.sh"

# ---- 1. the backoff schedule ----
python3 - "$TMP/listener.port" "$TMP/accepts" <<'PY' &
import os, socket, sys, time
s = socket.socket()
s.bind(('127.0.0.1', 0))
s.listen(16)
with open(sys.argv[1] + '.tmp', 'w') as f:
    f.write(str(s.getsockname()[1]))
os.rename(sys.argv[1] + '.tmp', sys.argv[1])
log = open(sys.argv[2], 'a', buffering=1)
while True:
    c, _ = s.accept()
    log.write('%.6f\n' % time.monotonic())
    c.close()
PY
STARTED_PIDS+=($!)
for _ in $(seq 100); do [ -s "$TMP/listener.port" ] && break; sleep 0.1; done
LPORT=$(cat "$TMP/listener.port") || fail "the listener did not start"
# Nothing to count: no message is ever sent, so nothing can reset the backoff.
cat >"$TMP/backoff.yaml" <<YAML
instance: backoff
interval: 1s
events: [cpu-clock]
cgroups:
  include: ["$TEST_CG_REL/nothing-here"]
outputs:
  syslog:
    target: tcp://127.0.0.1:$LPORT
YAML
start_agent backoff "$TMP/backoff.yaml"
for _ in $(seq 300); do [ "$(wc -l <"$TMP/accepts")" -ge 5 ] && break; sleep 0.1; done
kill -TERM "$AGENT_PID"; wait "$AGENT_PID" || fail "agent failed: $(tail -5 "$TMP/backoff.log")"
python3 - "$TMP/accepts" <<'PY' || fail "the reconnect backoff does not grow (see above)"
import sys
t = [float(l) for l in open(sys.argv[1])][:5]
assert len(t) == 5, 'fewer than 5 connection attempts: %r' % t
gaps = [b - a for a, b in zip(t, t[1:])]
print('# gaps between attempts (s):', ['%.3f' % g for g in gaps])
# The backoff before each attempt: 0.5, 1, 2, 4 s at least (10 % and 50 ms
# for when the listener logs an accept later than the one before).
for g, want in zip(gaps, (0.5, 1, 2, 4)):
    assert g >= want * 0.9 - 0.05, 'an attempt %.3f s after the one before, not %g s' % (g, want)
PY
grep -q "the receiver closed the connection" "$TMP/backoff.log" || fail "the closed connection was not reported"

# ---- 2. SIGHUP while the receiver is down keeps the queue ----
PORT=$(free_port)
mkdir -p "$TMP/rs"
cat >"$TMP/rs/rsyslog.conf" <<CONF
global(workDirectory="$TMP/rs")
module(load="imtcp")
input(type="imtcp" address="127.0.0.1" port="$PORT")
template(name="raw" type="string" string="%rawmsg%\n")
*.* action(type="omfile" file="$TMP/rs/out.log" template="raw")
CONF
start_rsyslogd() { rsyslogd_start "$TMP/rs/rsyslog.conf" 1 "$PORT"; }
messages() { grep -c " cgperf-hup " "$TMP/rs/out.log" 2>/dev/null || true; }
wait_messages() {
	for _ in $(seq 300); do
		[ "$(messages)" -ge "$1" ] && return 0
		sleep 0.1
	done
	fail "rsyslogd got $(messages) messages, expected at least $1"
}
c_rel="system.slice/docker-$(printf '%064x' 7).scope"
c=$(mkcg "$c_rel")
start_bg sleep 1000
echo "$LAST_PID" >"$TEST_CG/$c_rel/cgroup.procs"
agent_yaml "$TMP/hup.yaml" "" "tcp://127.0.0.1:$PORT" cgperf-hup 1000
start_rsyslogd
start_agent hup "$TMP/hup.yaml"
wait_messages 2
# Right after a message arrived (the next is an interval away): stop.
wait_messages $(($(messages) + 1))
rsyslogd_stop
sleep 2 # messages queue
kill -HUP "$AGENT_PID"
wait_for_line "$TMP/hup.log" "SIGHUP" 10
sleep 2 # more queue, after the SIGHUP's reconnect failed
queued_at_restart=$(grep -c . "$TMP/rs/out.log")
start_rsyslogd
wait_messages $((queued_at_restart + 8))
kill -TERM "$AGENT_PID"; wait "$AGENT_PID" || fail "agent failed: $(tail -5 "$TMP/hup.log")"
sleep 0.5
log "agent: $(grep -i 'syslog\|SIGHUP' "$TMP/hup.log" | tr '\n' '|')"
python3 - "$TMP/rs/out.log" <<'PY' || fail "messages queued across the SIGHUP were lost (see above)"
import re, sys
seqs = [int(m.group(1)) for m in (re.search(r' seq="(\d+)"', l) for l in open(sys.argv[1])
                                  if ' cgperf-hup ' in l) if m]
print('# seqs:', seqs)
assert seqs == list(range(1, len(seqs) + 1)), 'a gap or a duplicate'
PY
