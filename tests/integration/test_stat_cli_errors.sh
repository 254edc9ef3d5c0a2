# SPDX-License-Identifier: GPL-2.0-only
# Bad input gets one line on stderr and exit 2 (usage) or 1 (runtime);
# the CSV output has perf's field order.
source "$CGPERF_SRC/tests/lib/common.sh"

expect() { # expect CODE PATTERN ARGS...
	local code=$1 pat=$2 rc=0; shift 2
	"$CGPERF" "$@" >"$TMP/out" 2>"$TMP/err" || rc=$?
	[ "$rc" = "$code" ] || fail "cgperf $*: exit $rc, expected $code; stderr: $(cat "$TMP/err")"
	grep -q -- "$pat" "$TMP/err" || fail "cgperf $*: stderr lacks '$pat': $(cat "$TMP/err")"
	[ "$(grep -vc '^cgperf: warning' "$TMP/err")" = 1 ] ||
		fail "cgperf $*: expected one error line, got: $(cat "$TMP/err")"
	log "ok: cgperf $* -> $rc: $(grep -v '^cgperf: warning' "$TMP/err")"
}

expect 2 "unknown option '--bogus'" stat --bogus -a
expect 2 "unknown command" frobnicate
expect 2 "empty event list" stat -e "" -a
expect 2 "unknown event 'cyclez' (did you mean: cycles" stat -e cyclez -a
expect 2 "event groups ('{...}') are not supported" stat -e '{cpu-clock,cs}' -a
expect 2 "event modifiers and tracepoints are not supported" stat -e 'cpu-clock:u' -a
expect 2 "choose one target" stat -a -C 0
expect 2 "nothing to count" stat -e cpu-clock
expect 2 "invalid interval" stat -a -I abc
expect 2 "invalid duration" stat -a --duration -1
expect 2 "needs an argument" stat -a -e
expect 2 "invalid CPU list" stat -C 0-x --duration 0.1
expect 1 "does not exist" stat -G /no/such/cgroup-$$ --duration 0.1
expect 1 "process 999999999 does not exist" stat -p 999999999 --duration 0.1
expect 1 "cannot run 'no-such-command-$$'" stat -e cpu-clock -- no-such-command-$$
# In a PID namespace that is not the host's, pid targets would count nothing.
for args in "-p 1 --duration 0.1" "-- true"; do
	rc=0
	unshare -p -f --mount-proc "$CGPERF" stat -e cpu-clock $args >/dev/null 2>"$TMP/err" || rc=$?
	[ "$rc" = 1 ] && grep -q "PID namespace other than the host's" "$TMP/err" ||
		fail "stat $args in a PID namespace: exit $rc: $(cat "$TMP/err")"
done
log "ok: pid targets refused inside a PID namespace"
# An event no kernel supports (the software PMU has no event 0x7f): skipped
# with one warning, the others counted; --strict makes it an error.
BAD='software/config=0x7f/'
rc=0; "$CGPERF" stat -x, -e "cpu-clock,$BAD" -a --duration 0.2 >"$TMP/out" 2>"$TMP/err" || rc=$?
[ "$rc" = 0 ] || fail "an unsupported event without --strict: exit $rc: $(cat "$TMP/err")"
[ "$(grep -c "event '$BAD' is not supported by this kernel; skipping it" "$TMP/err")" = 1 ] ||
	fail "no (or more than one) warning for the skipped event: $(cat "$TMP/err")"
stat_csv_value "$TMP/out" cpu-clock >/dev/null || fail "cpu-clock not counted next to a skipped event: $(cat "$TMP/out")"
grep -qF "$BAD" "$TMP/out" && fail "a row for the skipped event: $(cat "$TMP/out")"
log "ok: unsupported event skipped with one warning"
expect 1 "event '$BAD' is not supported by this kernel" stat --strict -e "cpu-clock,$BAD" -a --duration 0.1
# Without a PMU, cycles is the unsupported event, with perf's own verdict.
perf_out=$(perf stat -x, -e cycles true 2>&1) || true
if grep -q "<not supported>" <<<"$perf_out"; then
	expect 1 "event 'cycles' is not supported on this host (no hardware PMU?)" \
		stat --strict -e cpu-clock,cycles -a --duration 0.1
fi
# Without root: a clear permission error, not a crash.
if id nobody >/dev/null 2>&1; then
	rc=0
	setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all \
		"$CGPERF" stat -e cpu-clock -a --duration 0.1 >"$TMP/out" 2>"$TMP/err" || rc=$?
	[ "$rc" = 1 ] || fail "unprivileged run: exit $rc, expected 1: $(cat "$TMP/err")"
	grep -qi "permission\|root" "$TMP/err" || fail "unprivileged run: unclear error: $(cat "$TMP/err")"
	log "ok: unprivileged -> $(tail -1 "$TMP/err")"
fi

# CSV field order (perf's): value, unit, event, cgroup, running ns, percent
# running, metric value, metric unit.
cg=$(mkcg 'odd,name "q"')
"$CGPERF" stat -v -x, -o "$TMP/csv" -e cpu-clock,context-switches -G "$cg" --duration 1.5 2>"$TMP/err" &
stat_pid=$!
wait_for_line "$TMP/err" "counting started"
run_in_cg 'odd,name "q"' "$BURN" 0.1
wait "$stat_pid" || fail "stat -x, failed: $(cat "$TMP/err")"
python3 - "$TMP/csv" "$cg" <<'PY' || fail "bad CSV: $(cat "$TMP/csv")"
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline='')))
assert len(rows) == 2, rows
assert rows[0][1:4] == ['msec', 'cpu-clock', sys.argv[2]], rows[0]
assert rows[1][1:4] == ['', 'context-switches', sys.argv[2]], rows[1]
assert rows[0][6:] == [rows[0][6], 'CPUs utilized'] and rows[1][7].endswith('/sec'), rows
for r in rows:
    assert len(r) == 8, r
    float(r[0]); int(r[4]); float(r[5]); float(r[6])
PY
log "ok: CSV fields and quoting of cgroup '$cg'"

# -I prints one row set per interval with a timestamp in front: increasing,
# and each interval's cpu-clock is its length (from the timestamps) on every
# CPU.
# Until 4 rows (however loaded the machine), then SIGINT.
start_bg "$CGPERF" stat -x, -I 200 -e cpu-clock -a -o "$TMP/int" 2>"$TMP/err"
wait_interval_rows "$TMP/int" cpu-clock 4
kill -INT "$LAST_PID"; wait "$LAST_PID" || fail "-I failed: $(cat "$TMP/err")"
awk -F, '{ if (NF != 8) exit 1 }' "$TMP/int" || fail "-I rows lack the timestamp field"
assert_cpus_per_interval "$TMP/int" cpu-clock "$(nproc)"

# -I in table form: perf's header and elapsed line, between them per interval
# one line per event, each starting with the interval's timestamp, which
# increases from interval to interval.
"$CGPERF" stat -I 300 -e cpu-clock,context-switches -a --duration 1 >"$TMP/tab" 2>"$TMP/err" || fail "-I (table) failed"
python3 - "$TMP/tab" <<'PY' || fail "bad -I table: $(cat "$TMP/tab")"
import re, sys
lines = [l for l in open(sys.argv[1]) if l.strip()]
assert "Performance counter stats for 'system wide'" in lines[0], lines[0]
assert 'seconds time elapsed' in lines[-1], lines[-1]
rows = [l.split() for l in lines[1:-1]]
ev = {'cpu-clock': [], 'context-switches': []}
for r in rows:
    t = float(r[0]); float(r[1].replace(',', ''))
    name = r[3] if r[2] == 'msec' else r[2]
    ev[name].append(t)
assert len(ev['cpu-clock']) >= 3 and ev['cpu-clock'] == ev['context-switches'], ev
ts = ev['cpu-clock']
assert all(b > a for a, b in zip(ts, ts[1:])), ts
PY
log "ok: -I table: $(sed -n 2p "$TMP/tab")"
