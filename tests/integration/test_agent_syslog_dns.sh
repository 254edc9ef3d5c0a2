# SPDX-License-Identifier: GPL-2.0-only
# The agent's syslog target by host name, with DNS servers this test runs.
# The agent runs in a private mount namespace whose /etc/resolv.conf (bind
# mounted) names a test DNS server on a loopback address:
#  1. a server that reads queries and never answers: CSV rows keep their
#     cadence (one per interval, none missing), the first row is written
#     before the resolver's first retransmission (startup does not wait for
#     DNS), messages queue and drop (counted), the failure is reported;
#  2. a server that answers with a long TTL: one lookup for the whole run,
#     although the agent reconnects on SIGHUP and after rsyslogd restarts;
#  3. a short TTL, then the name moves to another address: the agent looks
#     it up again once the TTL is over (not before: TTLs are clamped to 5 s)
#     and its messages follow the name to rsyslogd's other address, with no
#     message lost or sent twice;
#  4. a short TTL, then the DNS server stops answering: the refresh fails
#     (reported), the agent goes on with the address it had, every message
#     arrives.
# Every message goes to a real rsyslogd listening on 127.0.0.2 and 127.0.0.3.
source "$CGPERF_SRC/tests/lib/common.sh"
command -v unshare >/dev/null || fail "unshare is missing (util-linux)"
NAME=logs.cgperf.test
TTL_MIN=5 # SYSLOG_DNS_TTL_MIN_S

PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.2",0)); print(s.getsockname()[1])')
mkdir -p "$TMP/rs"
cat >"$TMP/rs/rsyslog.conf" <<CONF
global(workDirectory="$TMP/rs")
module(load="imtcp")
input(type="imtcp" address="127.0.0.2" port="$PORT" name="at-2")
input(type="imtcp" address="127.0.0.3" port="$PORT" name="at-3")
template(name="raw" type="string" string="%inputname%\t%rawmsg%\n")
*.* action(type="omfile" file="$TMP/rs/out.log" template="raw")
CONF
start_rsyslogd() { rsyslogd_start "$TMP/rs/rsyslog.conf" 2 "$PORT"; }
stop_rsyslogd() { rsyslogd_stop; }

# start_dns NAME ZONE|--ignore: a DNS server; its address in $DNS_ADDR.
start_dns() {
	local i
	start_bg python3 "$CGPERF_SRC/tests/lib/dns_server.py" "$TMP/$1.addr" "$TMP/$1.queries" "$2"
	for i in $(seq 100); do
		[ -s "$TMP/$1.addr" ] && break
		sleep 0.1
	done
	DNS_ADDR=$(cat "$TMP/$1.addr") || fail "the DNS server did not start"
	printf 'nameserver %s\n' "$DNS_ADDR" >"$TMP/$1.resolv.conf"
}

# start_ns_agent NAME DNS_NAME: the agent, in a mount namespace of its own
# that sees the resolv.conf of DNS server DNS_NAME. Same pid (unshare and
# the shell exec).
start_ns_agent() {
	local name=$1 dns=$2
	start_bg unshare -m --propagation private bash -c \
		'mount --bind "$1" /etc/resolv.conf && shift && exec "$@"' _ "$TMP/$dns.resolv.conf" \
		"$CGPERF" agent -v -c "$TMP/$name.yaml" 2>"$TMP/$name.log"
	AGENT_PID=$LAST_PID
	wait_for_line "$TMP/$name.log" "cgroups under" 30
}
stop_agent() {
	kill -TERM "$AGENT_PID"
	wait "$AGENT_PID" || fail "agent failed: $(tail -5 "$TMP/$1.log")"
}

write_config() { # NAME QUEUE_MAX
	agent_yaml "$TMP/$1.yaml" "$TMP/csv-$1" "tcp://$NAME:$PORT" "cgperf-$1" "$2"
}

# answering_run NAME TTL: a DNS server answering 127.0.0.2 with TTL, and
# the agent asking it.
answering_run() {
	echo "$NAME A 127.0.0.2 $2" >"$TMP/zone-$1"
	start_dns "$1" "$TMP/zone-$1"
	write_config "$1" 1000
	start_ns_agent "$1" "$1"
}

# a_queries LOG: A queries for our name seen by a DNS server.
a_queries() { awk -v n="$NAME" '$2 == n && $3 == "A"' "$1" | wc -l; }
# messages APP INPUT: how many of APP's messages rsyslogd got on INPUT.
messages() { awk -F'\t' -v a=" $1 " -v i="$2" '$1 == i && index($2, a)' "$TMP/rs/out.log" 2>/dev/null | wc -l; }
wait_messages() { # APP INPUT AT_LEAST
	local i
	for i in $(seq 300); do
		[ "$(messages "$1" "$2")" -ge "$3" ] && return 0
		sleep 0.1
	done
	fail "rsyslogd got fewer than $3 messages of $1 on $2 (got $(messages "$1" "$2"))"
}

c_rel="system.slice/docker-$(printf '%064x' 9).scope"
c=$(mkcg "$c_rel")
start_bg sleep 1000 # a process in the counted cgroup
echo "$LAST_PID" >"$TEST_CG/$c_rel/cgroup.procs"
start_rsyslogd

# ---- 1. a DNS server that never answers ----
start_dns blackhole --ignore
write_config stall 3
start_ns_agent stall blackhole
wait_counted "$TMP/stall.log" "$c"
sleep 9 # while the first lookup waits (it gives up at 10 s)
stop_agent stall
log "queries seen: $(wc -l <"$TMP/blackhole.queries"); agent: $(grep -i 'syslog' "$TMP/stall.log" | tr '\n' '|')"
[ "$(a_queries "$TMP/blackhole.queries")" -ge 1 ] || fail "the agent never asked the test DNS server"
[ "$(messages cgperf-stall at-2)$(messages cgperf-stall at-3)" = 00 ] || fail "messages arrived without an answer?"
python3 - "$TMP" "$c" "$NAME" <<'PY' || fail "rows did not keep their cadence while the resolver stalled (see above)"
import csv, datetime, glob, sys
tmp, cg, name = sys.argv[1:4]
rows = []
for p in glob.glob(tmp + '/csv-stall/*.csv'):
    rows += [r for r in csv.DictReader(open(p, newline='')) if r['cgroup'] == cg]
secs = [int(datetime.datetime.strptime(r['timestamp'], '%Y-%m-%dT%H:%M:%S.%fZ')
            .replace(tzinfo=datetime.timezone.utc).timestamp()) for r in rows]
print('# row seconds:', [s - secs[0] for s in secs])
# Rows kept coming while the lookup waited (how many depends on the
# machine's load: a slept-through tick is one collection later; a loop
# blocked on DNS would have none until the resolver gave up).
assert len(secs) >= 3, len(secs)
# The first row comes before the resolver's first retransmission of a
# query (the same name and type asked again): nothing waited for DNS.
seen, retrans = set(), None
for line in open(tmp + '/blackhole.queries'):
    t, qname, qtype, _ = line.split()
    if qname != name:
        continue
    if (qname, qtype) in seen:
        retrans = float(t)
        break
    seen.add((qname, qtype))
first_row = datetime.datetime.strptime(rows[0]['timestamp'], '%Y-%m-%dT%H:%M:%S.%fZ') \
    .replace(tzinfo=datetime.timezone.utc).timestamp()
print('# first row %.3f, first retransmission %s' % (first_row, retrans))
assert retrans is not None, 'the resolver never retransmitted: the test proves nothing'
assert first_row < retrans, 'the first row waited for DNS'
PY
# Everything queued and dropped is counted: each row became one message,
# none sent, the newest 3 left undelivered.
rows=$(python3 -c 'import csv,glob,sys; print(sum(1 for p in glob.glob(sys.argv[1] + "/*.csv") for _ in csv.DictReader(open(p))))' "$TMP/csv-stall")
summary=$(grep "summary:" "$TMP/stall.log") || fail "no summary line"
[[ $summary =~ syslog:\ 0\ messages\ sent,\ ([0-9]+)\ dropped,\ 3\ undelivered ]] ||
	fail "unexpected syslog summary: $summary"
[ $((BASH_REMATCH[1] + 3)) -eq "$rows" ] || fail "dropped ${BASH_REMATCH[1]} + 3 undelivered != $rows rows"
grep -q "queue full (3 messages): dropping the oldest" "$TMP/stall.log" || fail "the drops were not reported"

# ---- 2. an answer with a long TTL: one lookup, whatever reconnects ----
answering_run long 3600
wait_messages cgperf-long at-2 2
kill -HUP "$AGENT_PID" # the same config: the sinks reopen, syslog reconnects
wait_for_line "$TMP/long.log" "SIGHUP" 10
n=$(messages cgperf-long at-2)
wait_messages cgperf-long at-2 $((n + 2))
stop_rsyslogd # the connection breaks; the agent reconnects when it is back
start_rsyslogd
n=$(messages cgperf-long at-2)
wait_messages cgperf-long at-2 $((n + 2))
stop_agent long
log "queries: $(tr '\n' '|' <"$TMP/long.queries")"
[ "$(a_queries "$TMP/long.queries")" -eq 1 ] ||
	fail "the name was looked up $(a_queries "$TMP/long.queries") times within its TTL (SIGHUP, reconnect)"
grep -q "reconnect\|connected after" "$TMP/long.log" || fail "no reconnect was seen: the test proves nothing"

# ---- 3. a short TTL, then the name moves ----
answering_run move 1
wait_messages cgperf-move at-2 1
echo "$NAME A 127.0.0.3 3600" >"$TMP/zone-move.new"
mv "$TMP/zone-move.new" "$TMP/zone-move"
wait_messages cgperf-move at-3 2
stop_agent move
log "queries: $(tr '\n' '|' <"$TMP/move.queries"); agent: $(grep -i 'syslog' "$TMP/move.log" | tr '\n' '|')"
# The first lookup, then one per TTL at most (how many before the test
# moved the name depends on its speed).
[ "$(a_queries "$TMP/move.queries")" -ge 2 ] ||
	fail "expected a lookup after the TTL, saw $(a_queries "$TMP/move.queries") in all"
python3 - "$TMP" "$NAME" "$TTL_MIN" <<'PY' || fail "the move to the new address went wrong (see above)"
import re, sys
tmp, name, ttl_min = sys.argv[1], sys.argv[2], float(sys.argv[3])
a = [float(l.split()[0]) for l in open(tmp + '/move.queries') if l.split()[1:3] == [name, 'A']]
print('# A queries %s s apart' % ['%.3f' % (y - x) for x, y in zip(a, a[1:])])
# Looked up again once the clamped TTL was over, never before.
assert all(y - x >= ttl_min - 0.1 for x, y in zip(a, a[1:])), a
seqs = {'at-2': [], 'at-3': []}
for line in open(tmp + '/rs/out.log', encoding='utf-8', errors='replace'):
    inp, _, raw = line.rstrip('\n').partition('\t')
    if ' cgperf-move ' in raw and inp in seqs:
        seqs[inp].append(int(re.search(r' seq="(\d+)"', raw).group(1)))
print('# seq at 127.0.0.2:', seqs['at-2'], 'at 127.0.0.3:', seqs['at-3'])
# Every message once, the old address's before the new one's.
both = seqs['at-2'] + seqs['at-3']
assert sorted(both) == list(range(1, len(both) + 1)), 'a message lost or sent twice'
assert max(seqs['at-2']) < min(seqs['at-3'])
PY

# ---- 4. the DNS server goes silent after the first answer ----
answering_run outage 1
wait_messages cgperf-outage at-2 1
echo IGNORE >>"$TMP/zone-outage"
n=$(messages cgperf-outage at-2)
wait_for_line "$TMP/outage.log" "still using the addresses it had before" 30
wait_messages cgperf-outage at-2 $((n + 10)) # delivery went on through the silent lookup
stop_agent outage
[ "$(a_queries "$TMP/outage.queries")" -ge 2 ] || fail "no refresh was asked: the test proves nothing"
grep -q "cannot resolve $NAME: no answer from the DNS servers within 10 s; still using" "$TMP/outage.log" ||
	fail "the failed refresh was not reported clearly: $(grep -i syslog "$TMP/outage.log")"
awk -F'\t' '$1 == "at-2" && index($2, " cgperf-outage ")' "$TMP/rs/out.log" |
	sed -n 's/.* seq="\([0-9]*\)".*/\1/p' >"$TMP/outage.seqs"
seq 1 "$(wc -l <"$TMP/outage.seqs")" | cmp -s - "$TMP/outage.seqs" ||
	fail "messages lost or repeated during the DNS outage: $(tr '\n' ' ' <"$TMP/outage.seqs")"
