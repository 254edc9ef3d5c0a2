# CPU hotplug under a running session: a CPU that goes offline is skipped,
# and when it comes back the shared perf_events are reopened for it, so -a
# counts every CPU again (a per-CPU perf_event does not come back by itself).
source "$CGPERF_SRC/tests/lib/common.sh"
ONLINE=/sys/devices/system/cpu/cpu1/online
[ -w "$ONLINE" ] || skip "CPU 1 cannot be taken offline on this machine ($ONLINE missing)"
[ "$(cat "$ONLINE")" = 1 ] || skip "CPU 1 is offline already"
test_cleanup() { echo 1 >"$ONLINE"; }
ncpu=$(nproc)

start_cgperf hp -a -e cpu-clock,context-switches -I 1000 --duration 8
sleep 1.3
echo 0 >"$ONLINE"
sleep 2
echo 1 >"$ONLINE"
wait "$CGPERF_PID" || fail "cgperf stat failed across hotplug: $(cat "$TMP/hp.log")"
grep -q "came online; their perf_events were reopened" "$TMP/hp.log" || fail "no reopen: $(cat "$TMP/hp.log")"
python3 - "$TMP/hp.csv" "$ncpu" <<'PY' || fail "wrong counts across hotplug: $(cat "$TMP/hp.csv")"
import csv, sys
n = int(sys.argv[2])
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) == 7 and r[3] == 'cpu-clock']
vals = [float(r[1]) for r in rows]
print("# cpu-clock per interval:", vals)
assert len(vals) >= 8, vals
# Offline: one CPU fewer (some interval lies fully inside the 2 s outage).
assert any(abs(v - (n - 1) * 1000) < 60 for v in vals[2:4]), vals
# Back online and reopened: every CPU counted again in the last intervals.
for v in vals[-3:-1]:
    assert abs(v - n * 1000) < 0.03 * n * 1000, vals
PY
log "ok: counting resumed on the CPU that came back"
