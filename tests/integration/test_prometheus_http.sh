# SPDX-License-Identifier: GPL-2.0-only
# The agent's metrics endpoint over real HTTP (curl, python sockets):
# promtool lints the text format clean, prometheus_client's OpenMetrics
# parser accepts the OpenMetrics one (negotiated by Accept, # EOF,
# _created), gzip when accepted, HEAD, 404/405/413/431, the idle timeout,
# odd cgroup names as label values, a removed cgroup kept for keep_removed
# then dropped, a unix socket, a bind failure at start (one line, exit 1)
# and at reload (the old endpoint keeps serving), libmicrohttpd missing (one
# line, exit 1: it is opened when the endpoint starts), 200 concurrent scrapes
# while the CSV rows keep their cadence.
source "$CGPERF_SRC/tests/lib/common.sh"
source "$CGPERF_SRC/tests/lib/prometheus.sh"

PORT=$(free_port)
URL="http://127.0.0.1:$PORT/metrics"
write_config() { # LISTEN [EXTRA PROMETHEUS KEYS]
	agent_yaml "$TMP/agent.yaml" <<YAML
  csv:
    directory: $TMP/csv
    flush_interval: 0 # rows counted as the loop's heartbeat: in the file at once
  prometheus:
    listen: "$1"
    keep_removed: 4s
${2:-}
YAML
}
write_config "127.0.0.1:$PORT"

burn_rel=$(mkcg burner)
odd_names=('q"uote' 'back\slash' $'bad\xffbyte' $'caf\xc3\xa9')
for n in "${odd_names[@]}"; do mkdir "$TEST_CG/$n"; done
gone_rel=$(mkcg gone)

# take_port: another process listens on $PORT (SO_REUSEADDR, as TIME_WAIT
# connections of earlier scrapes may linger); its pid in $BLOCKER.
take_port() {
	python3 -c 'import socket,sys,time; s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(); time.sleep(60)' "$PORT" &
	BLOCKER=$!; STARTED_PIDS+=("$BLOCKER")
	for _ in $(seq 50); do ss -ltn "sport = :$PORT" | grep -q LISTEN && return 0; sleep 0.1; done
	fail "could not take port $PORT for the bind failure case"
}

# ---- a port taken: one clear line, exit 1, before counting anything ----
take_port
rc=0; "$CGPERF" agent -c "$TMP/agent.yaml" --duration 5 2>"$TMP/busy.log" || rc=$?
[ "$rc" = 1 ] || fail "agent on a taken port exited $rc, expected 1"
grep -q "cannot listen on 127.0.0.1:$PORT: Address already in use" "$TMP/busy.log" ||
	fail "no clear bind error: $(cat "$TMP/busy.log")"
[ "$(grep -c . "$TMP/busy.log")" = 1 ] || fail "more than one line for a bind failure: $(cat "$TMP/busy.log")"
grep -q 'created the leader\|counting' "$TMP/busy.log" && fail "the agent counted before binding"
kill "$BLOCKER"; wait "$BLOCKER" 2>/dev/null || true

# ---- libmicrohttpd not installed: one clear line, exit 1 ----
rc=0; without_lib libmicrohttpd.so.12 "$CGPERF" agent -c "$TMP/agent.yaml" --duration 5 \
	2>"$TMP/nomhd.log" || rc=$?
[ "$rc" = 1 ] || fail "agent without libmicrohttpd exited $rc, expected 1: $(cat "$TMP/nomhd.log")"
grep -q "cannot serve 127.0.0.1:$PORT: libmicrohttpd.so.12 cannot be loaded: " "$TMP/nomhd.log" ||
	fail "no clear line without libmicrohttpd: $(cat "$TMP/nomhd.log")"
[ "$(grep -c . "$TMP/nomhd.log")" = 1 ] || fail "more than one line: $(cat "$TMP/nomhd.log")"

# ---- the endpoint ----
start_agent http "$TMP/agent.yaml"
run_in_cg burner "$BURN" 3
BURNER=$LAST_PID
wait_http "$URL" 20
# Once the burner has used a second of CPU (cpu.stat: whatever the machine's
# load), the collections after that export at least that much.
burnt_1s() { [ "$(usage_usec burner)" -ge 1000000 ]; }
poll $((1200 * ${CGPERF_SLOW_FACTOR:-1})) 0.05 burnt_1s || fail "the burner never used 1 s of CPU"
u0=$(usage_usec burner)
scraped_it() {
	curl -sS -D "$TMP/text.hdr" -o "$TMP/text.txt" "$URL" &&
		v=$(prom_value "$TMP/text.txt" text cgperf_events_total cpu-clock "$burn_rel" 2>/dev/null) &&
		awk -v v="$v" -v u="$u0" 'BEGIN { exit !(v >= u * 1000 * 0.98) }'
}
poll $((600 * ${CGPERF_SLOW_FACTOR:-1})) 0.1 scraped_it ||
	fail "the burner's cpu-clock never reached the ${u0} us cpu.stat had shown: ${v:-none} ns"

grep -qi '^Content-Type: text/plain; version=0.0.4; charset=utf-8' "$TMP/text.hdr" || fail "text content type: $(cat "$TMP/text.hdr")"
lint=$("$PROMTOOL" check metrics <"$TMP/text.txt" 2>&1) || fail "promtool check metrics failed: $lint"
[ -z "$lint" ] || fail "promtool lint warnings: $lint"
log "ok: promtool check metrics: no errors, no warnings ($(wc -c <"$TMP/text.txt") bytes)"
prom_parse text "$TMP/text.txt" >"$TMP/text.samples"
for fam in cgperf_events_total cgperf_events_running_ratio cgperf_cgroups_monitored \
	cgperf_cgroups_over_cap_total cgperf_collection_duration_seconds cgperf_csv_rows_written_total \
	cgperf_csv_rows_failed_total cgperf_csv_rows_held cgperf_watch_limit_reached cgperf_build_info; do
	grep -q "^$fam	" "$TMP/text.samples" || fail "family $fam missing"
done
ratio=$(prom_value "$TMP/text.txt" text cgperf_events_running_ratio cpu-clock "$burn_rel")
[ "$ratio" = 1.0 ] || fail "software event running ratio $ratio, expected 1"
grep -q '"follower_mode": "tp"\|"follower_mode": "fexit"' "$TMP/text.samples" || fail "build_info follower_mode"

# Odd names reach the parser as the same label values; bytes that are not
# UTF-8 as U+FFFD.
for n in 'q"uote' 'back\slash' $'bad\xef\xbf\xbdbyte' $'caf\xc3\xa9'; do
	prom_value "$TMP/text.txt" text cgperf_events_total context-switches "$TEST_CG_REL/$n" >/dev/null ||
		fail "cgroup '$n' not in the metrics as such"
done
log "ok: quotes, backslashes, non-UTF-8 and UTF-8 names parse back"

# OpenMetrics when asked for, as Prometheus asks. The agent builds the
# formats scrapers ask for: the first such request may still get text (which
# that Accept header allows), the ones after a collection get OpenMetrics.
OM_ACCEPT='application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1'
curl -sS -o /dev/null -H "Accept: $OM_ACCEPT" "$URL"
om_served() {
	curl -sS -D "$TMP/om.hdr" -o "$TMP/om.txt" -H "Accept: $OM_ACCEPT" "$URL" &&
		grep -qi '^Content-Type: application/openmetrics-text; version=1.0.0; charset=utf-8' "$TMP/om.hdr"
}
poll $((300 * ${CGPERF_SLOW_FACTOR:-1})) 0.1 om_served || fail "OpenMetrics content type: $(cat "$TMP/om.hdr")"
[ "$(tail -n1 "$TMP/om.txt")" = "# EOF" ] || fail "OpenMetrics body does not end with # EOF"
prom_parse openmetrics "$TMP/om.txt" >"$TMP/om.samples" || fail "the OpenMetrics parser refused the body"
created=$(prom_value "$TMP/om.txt" openmetrics cgperf_events_created cpu-clock "$burn_rel")
now=$(date +%s)
awk -v c="$created" -v n="$now" 'BEGIN { exit !(c > n - 60 && c <= n) }' || fail "_created $created not the agent's start (now $now)"
log "ok: OpenMetrics negotiated, parsed, _created $created"

# gzip when accepted, the same body.
curl -sS -D "$TMP/gz.hdr" -H 'Accept-Encoding: gzip' -o "$TMP/gz.bin" "$URL"
grep -qi '^Content-Encoding: gzip' "$TMP/gz.hdr" || fail "no gzip: $(cat "$TMP/gz.hdr")"
gzip -dc "$TMP/gz.bin" >"$TMP/gz.txt" || fail "the gzip body does not decompress"
"$PROMTOOL" check metrics <"$TMP/gz.txt" || fail "the gzip body does not lint"
curl -sS -D "$TMP/nogz.hdr" -o /dev/null -H 'Accept-Encoding: gzip;q=0' "$URL"
grep -qi '^Content-Encoding' "$TMP/nogz.hdr" && fail "gzip sent although refused (q=0)"

# HEAD: headers only.
code=$(curl -sS -I -o "$TMP/head.hdr" -w '%{http_code}' "$URL")
[ "$code" = 200 ] || fail "HEAD: $code"
grep -qi '^Content-Length: [1-9]' "$TMP/head.hdr" || fail "HEAD without Content-Length"

# Only GET/HEAD on the path; nothing else.
status() { curl -sS -o /dev/null -w '%{http_code}' "$@"; }
[ "$(status -X POST -d x "$URL")" = 405 ] || fail "POST not 405"
curl -sS -D - -o /dev/null -X DELETE "$URL" | grep -qi '^Allow: GET, HEAD' || fail "405 without Allow"
[ "$(status "http://127.0.0.1:$PORT/")" = 404 ] || fail "/ not 404"
[ "$(status "http://127.0.0.1:$PORT/metrics/")" = 404 ] || fail "/metrics/ not 404"
[ "$(status -X GET -H 'Content-Length: 5' --data-binary 12345 "$URL")" = 413 ] || fail "GET with a body not 413"
big=$(head -c 20000 /dev/zero | tr '\0' a)
code=$(status -H "X-Big: $big" "$URL" || true)
[[ "$code" =~ ^4[0-9][0-9]$ ]] || fail "20 kB of headers answered $code"
log "ok: 405 with Allow, 404, 413 for a body, $code for oversized headers"

# A connection that sends nothing is closed after the idle timeout.
python3 - "$PORT" <<'PY' || fail "an idle connection was not closed by the server"
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.settimeout(30)
t0 = time.time()
s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")  # never finished
data = s.recv(65536)
while data:
    data = s.recv(65536)
print("# idle connection closed by the server after %.1f s" % (time.time() - t0))
PY

# ---- removed cgroups: kept with their final value for keep_removed ----
wait "$BURNER" || true
curl -sS -o "$TMP/before.txt" "$URL"
rmdir "$TEST_CG/gone"
t_rm=$(date +%s.%N)
# Its final row is in the metrics once the next collection after the
# agent saw it go has published: kept there, not dropped.
wait_for_line "$TMP/http.log" "stopped counting $TEST_CG_REL/gone" 30
kept() {
	curl -sS -o "$TMP/kept.txt" "$URL" &&
		prom_value "$TMP/kept.txt" text cgperf_events_total cpu-clock "$gone_rel" >/dev/null
}
kept || fail "a removed cgroup left the metrics before keep_removed"
# Dropped once keep_removed (4 s) has passed since its final row, which
# came after the rmdir: never sooner than 4 s after it, later under load.
dropped() {
	curl -sS -o "$TMP/dropped.txt" "$URL" &&
		! prom_value "$TMP/dropped.txt" text cgperf_events_total cpu-clock "$gone_rel" >/dev/null 2>&1
}
poll $((600 * ${CGPERF_SLOW_FACTOR:-1})) 0.1 dropped || fail "a removed cgroup is still there long after keep_removed"
kept_s=$(awk -v a="$t_rm" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
awk -v k="$kept_s" 'BEGIN { exit !(k >= 4) }' || fail "a removed cgroup dropped ${kept_s}s after its rmdir, before keep_removed (4 s)"
log "ok: removed cgroup kept for keep_removed, then dropped (${kept_s}s after its rmdir)"

# ---- 200 concurrent scrapes: the agent keeps its cadence ----
rows() { csv_rows "$TMP/csv" "$burn_rel"; }
csv_rows() { python3 - "$@" <<'PY'
import csv, glob, sys
n = 0
for p in glob.glob(sys.argv[1] + "/*.csv"):
    with open(p, newline='', encoding='utf-8', errors='surrogateescape') as f:
        n += sum(1 for r in csv.DictReader(f) if r.get('cgroup') == sys.argv[2])
print(n)
PY
}
r0=$(rows); t0=$(date +%s.%N)
python3 - "$PORT" 200 6 >"$TMP/flood.log" <<'PY' || fail "concurrent scrapes: $(cat "$TMP/flood.log")"
# N clients in parallel, each scraping in a loop for D seconds (bounded,
# loopback only). Every answer is either a whole 200 body or a refused /
# closed connection (the connection cap); nothing hangs.
import socket, sys, threading, time
port, n, dur = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
ok = refused = bad = 0
lock = threading.Lock()
def client():
    global ok, refused, bad
    end = time.time() + dur
    while time.time() < end:
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=10)
            s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            buf = b""
            while True:
                d = s.recv(1 << 16)
                if not d: break
                buf += d
            s.close()
            head, _, body = buf.partition(b"\r\n\r\n")
            if not head:
                res = "refused"
            elif head.startswith(b"HTTP/1.1 200") and body.endswith(b"} 1\n"):
                res = "ok"
            else:
                res = "bad"
        except (ConnectionResetError, ConnectionRefusedError, BrokenPipeError):
            res = "refused"
        except socket.timeout:
            res = "bad"
        with lock:
            if res == "ok": ok += 1
            elif res == "refused": refused += 1
            else: bad += 1
ts = [threading.Thread(target=client) for _ in range(n)]
[t.start() for t in ts]; [t.join() for t in ts]
print("# %d clients: %d whole answers, %d refused at the cap, %d bad" % (n, ok, refused, bad))
sys.exit(1 if bad or ok < 64 else 0)
PY
cat "$TMP/flood.log"
# The loop went on while they scraped (HTTP has threads of its own): rows
# came during the flood. How many depends on the machine's load (missed
# ticks are one collection), so: some, not one a second.
r1=$(rows); t1=$(date +%s.%N)
expect=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%d", b - a }')
[ $((r1 - r0)) -ge 2 ] || fail "$((r1 - r0)) rows in ${expect}s of concurrent scrapes: the loop stalled"
log "ok: $((r1 - r0)) CSV rows in ${expect}s while 200 clients scraped"
kill -0 "$AGENT_PID" || fail "the agent died under concurrent scrapes"

# ---- reload: a unix socket; then an address that cannot be bound ----
write_config "unix:$TMP/metrics.sock" "    path: /m"
kill -HUP "$AGENT_PID"
for _ in $(seq 50); do [ -S "$TMP/metrics.sock" ] && break; sleep 0.1; done
wait_http "http://localhost/m" 10 --unix-socket "$TMP/metrics.sock"
[ "$(stat -c %a "$TMP/metrics.sock")" = 660 ] || fail "socket mode $(stat -c %a "$TMP/metrics.sock")"
curl -sS --unix-socket "$TMP/metrics.sock" -o "$TMP/unix.txt" http://localhost/m
"$PROMTOOL" check metrics <"$TMP/unix.txt" || fail "metrics over the unix socket do not lint"
curl -s -o /dev/null "$URL" && fail "the old TCP endpoint still answers after the reload"
log "ok: reloaded onto a unix socket"

take_port
write_config "127.0.0.1:$PORT"
kill -HUP "$AGENT_PID"
wait_for_line "$TMP/http.log" "keeping the running configuration" 10
grep -q "cannot listen on 127.0.0.1:$PORT: Address already in use" "$TMP/http.log" || fail "no bind error at reload"
curl -sS --unix-socket "$TMP/metrics.sock" -o /dev/null http://localhost/m || fail "the old endpoint stopped at a failed reload"
kill -0 "$AGENT_PID" || fail "the agent exited at a failed reload"
log "ok: a reload whose address is taken keeps the old endpoint"

kill -TERM "$AGENT_PID"; wait "$AGENT_PID" || fail "agent exit status $?"
[ -e "$TMP/metrics.sock" ] && fail "the unix socket was left behind"
log "PASS"
