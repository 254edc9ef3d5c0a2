# SPDX-License-Identifier: GPL-2.0-only
# Command-line flags override the config (here the embedded default): -e,
# --interval, --csv-dir; bad flags and a bad --syslog target get
# one line and exit 2; check-config reports FILE:LINE:COL and exits 2.
source "$CGPERF_SRC/tests/lib/common.sh"
c=$(mkcg "system.slice/docker-$(printf '%064x' 11).scope")
# Until the cgroup has 4 rows (however loaded the machine), then SIGTERM.
start_bg "$CGPERF" agent -e cpu-clock --interval 500ms --csv-dir "$TMP/csv" 2>"$TMP/agent.log"
four_rows() {
	local f
	f=$(grep -l -- "$c" "$TMP"/csv/*.csv 2>/dev/null | head -1) && [ "$(grep -c . "$f")" -ge 5 ]
}
poll $((1200 * ${CGPERF_SLOW_FACTOR:-1})) 0.05 four_rows || fail "no 4 rows for $c: $(cat "$TMP/agent.log")"
kill -TERM "$LAST_PID"
wait "$LAST_PID" || fail "agent on the embedded default failed: $(cat "$TMP/agent.log")"
f=$(grep -l -- "$c" "$TMP"/csv/*.csv | head -1)
[ -n "$f" ] || fail "no file for $c in $(ls "$TMP/csv")"
head -1 "$f" | grep -q ',cpu-clock,cpu-clock_running_pct$' || fail "header does not follow -e: $(head -1 "$f")"
python3 - "$f" <<'PY' || fail "rows do not follow the 500 ms wall-clock grid: $(cat "$f")"
import csv, datetime, sys
rows = list(csv.DictReader(open(sys.argv[1], newline='')))
assert len(rows) >= 3, rows
ts = [datetime.datetime.strptime(r['timestamp'], '%Y-%m-%dT%H:%M:%S.%fZ')
      .replace(tzinfo=datetime.timezone.utc).timestamp() * 1000 for r in rows]
ts = [round(t) for t in ts]
assert ts == sorted(ts), ts
# interval_ms is the time since the previous row (the agent's two clocks
# agree to the truncated millisecond).
for t0, t1, r in zip(ts, ts[1:], rows[1:]):
    assert abs(int(r['interval_ms']) - (t1 - t0)) <= 2, (t0, t1, r['interval_ms'])
# At most one periodic row per 500 ms slot of the wall clock (the last row
# is the final one at exit; a slot the loop slept through under load is
# one collection later), and the slots are the clock's own multiples: the
# earliest of them falls soon after one, whatever the delay of the others.
periodic = ts[:-1]
slots = [t // 500 for t in periodic]
assert all(b > a for a, b in zip(slots, slots[1:])), slots
assert min(t % 500 for t in periodic) < 250, [t % 500 for t in periodic]
PY
expect2() {
	local rc=0; "$CGPERF" "$@" >/dev/null 2>"$TMP/err" || rc=$?
	[ "$rc" = 2 ] || fail "cgperf $*: exit $rc, expected 2: $(cat "$TMP/err")"
	[ "$(wc -l <"$TMP/err")" = 1 ] || fail "cgperf $*: not one line: $(cat "$TMP/err")"
	log "ok: cgperf $* -> 2: $(cat "$TMP/err")"
}
expect2 agent --bogus
expect2 agent --interval -1s
expect2 agent --syslog 'udp://host-without-port'
expect2 agent -e cyclez
printf 'interval: 10s\nevents: [cpu-clock]\ncgroups:\n  max: many\n' >"$TMP/bad.yaml"
expect2 check-config "$TMP/bad.yaml"
grep -q "bad.yaml:4:8: " "$TMP/err" || fail "check-config error lacks FILE:LINE:COL: $(cat "$TMP/err")"
expect2 agent -c "$TMP/bad.yaml"

# The shipped example configuration is valid.
"$CGPERF" check-config "$CGPERF_SRC/packaging/cgperf.yaml" >/dev/null ||
	fail "packaging/cgperf.yaml does not pass check-config"

# An event this kernel does not support (the software PMU has no event 0x7f)
# is skipped with one warning and the others are counted: the files' columns
# are those of the supported events.
mkcg skip/one >/dev/null
cat >"$TMP/skip.yaml" <<YAML
interval: 500ms
events: [cpu-clock, "software/config=0x7f/"]
cgroups:
  include: ["$TEST_CG_REL/skip/*"]
outputs:
  csv:
    directory: $TMP/csv-skip
YAML
"$CGPERF" agent -c "$TMP/skip.yaml" --instance skip --duration 0.8 2>"$TMP/skip.log" ||
	fail "the agent failed on a config with an unsupported event: $(cat "$TMP/skip.log")"
[ "$(grep -c "event 'software/config=0x7f/' is not supported by this kernel; skipping it" "$TMP/skip.log")" = 1 ] ||
	fail "no single warning for the unsupported event: $(cat "$TMP/skip.log")"
f=$(ls "$TMP"/csv-skip/*.csv) || fail "no CSV file next to a skipped event"
head -1 "$f" | grep -q ',interval_ms,cpu-clock,cpu-clock_running_pct$' ||
	fail "columns with a skipped event: $(head -1 "$f")"
log "ok: the agent skipped the unsupported event with one warning"
