# Command-line flags override the config (here the embedded default): -e,
# --interval, --csv-dir, --duration; bad flags and a bad --syslog target get
# one line and exit 2; check-config reports FILE:LINE:COL and exits 2.
source "$CGPERF_SRC/tests/lib/common.sh"
c=$(mkcg "system.slice/docker-$(printf '%064x' 11).scope")
"$CGPERF" agent -e cpu-clock --interval 500ms --csv-dir "$TMP/csv" --duration 1.6 2>"$TMP/agent.log" ||
	fail "agent on the embedded default failed: $(cat "$TMP/agent.log")"
f=$(grep -l -- "$c" "$TMP"/csv/*.csv | head -1)
[ -n "$f" ] || fail "no file for $c in $(ls "$TMP/csv")"
head -1 "$f" | grep -q ',cpu-clock,cpu-clock_running_pct$' || fail "header does not follow -e: $(head -1 "$f")"
python3 - "$f" <<'PY' || fail "rows are not 500 ms apart: $(cat "$f")"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline='')))
assert len(rows) >= 3, rows
for r in rows[1:-1]:
    assert 450 <= int(r['interval_ms']) <= 550, r
    # Rows fall on wall-clock multiples of the interval (..:00.000, ..:00.500).
    ms = int(r['timestamp'][-4:-1])
    assert ms % 500 < 100, r['timestamp']
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
