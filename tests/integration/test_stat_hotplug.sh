# SPDX-License-Identifier: GPL-2.0-only
# CPU hotplug under running sessions: a CPU that goes offline is skipped, and
# when it comes back the shared perf_events are reopened for it (a per-CPU
# perf_event does not come back by itself): -a counts every CPU's time again,
# and a task faulting on the returned CPU has its page faults (read from the
# reopened perf_event) counted for its cgroup, and a task switching there its
# context switches (counted by the follower running there). Where the msr
# PMU has its tsc event, a burner on the returned CPU has its msr/tsc/ (read
# through the reopened perf_event by the PMU branch) at cpu-clock x the TSC
# rate.
source "$CGPERF_SRC/tests/lib/common.sh"
ONLINE=/sys/devices/system/cpu/cpu1/online
[ -w "$ONLINE" ] || skip "CPU 1 cannot be taken offline on this machine ($ONLINE missing)"
[ "$(cat "$ONLINE")" = 1 ] || skip "CPU 1 is offline already"
test_cleanup() { echo 1 >"$ONLINE"; }
ncpu=$(nproc)
cg=$(mkcg sw)

g_events=context-switches,page-faults
# (task-clock, not cpu-clock: hp's cpu-clock leader must stay hp's own, or g
# may reopen it first and hp has nothing left to say it reopened.)
! have_tsc || g_events+=",task-clock,$TSC"
start_cgperf g -G "$cg" -e "$g_events"
g_pid=$CGPERF_PID
# g has no interval: told of hotplug, nothing wakes it while nothing changes
# (it read the online CPUs every second before).
assert_idle_wakeups "cgperf stat" "$g_pid" "$TMP/g.log" 3 1
# Driven by hp's rows, not by time (a loaded machine prints them late):
# the outage spans two whole intervals, the return three more.
start_cgperf hp -a -e cpu-clock,context-switches -I 1000
hp_pid=$CGPERF_PID
hp_rows() { grep -c ",cpu-clock," "$TMP/hp.csv" 2>/dev/null || true; }
wait_interval_rows "$TMP/hp.csv" cpu-clock 1
echo 0 >"$ONLINE"
off_at=$(hp_rows)
wait_interval_rows "$TMP/hp.csv" cpu-clock $((off_at + 3))
echo 1 >"$ONLINE"
on_at=$(hp_rows)
wait_for_line "$TMP/hp.log" "came online; their perf_events were reopened" 30
reopened_at=$(hp_rows)
wait_interval_rows "$TMP/hp.csv" cpu-clock $((reopened_at + 3))
# g has no -I (no sync until its end): it reopens the page-faults
# perf_event it alone uses by its own CPU check (when notified).
wait_for_line "$TMP/g.log" "event 'page-faults': 1 CPU(s) came online; their perf_events were reopened" 30
[[ $g_events != *"$TSC"* ]] ||
	wait_for_line "$TMP/g.log" "event '$TSC': 1 CPU(s) came online; their perf_events were reopened" 30
# known_on_cpu1 WHAT N: the known workload pinned to the returned CPU, in sw;
# the kernel's counts of it in SWITCHES and FAULTS.
SWITCHES=0 FAULTS=0
known_on_cpu1() {
	local k
	run_in_cg sw taskset -c 1 "$KNOWN" "$@"; k=$LAST_PID
	wait_stopped "$k"
	SWITCHES=$((SWITCHES + $(task_switches $(cg_pids sw))))
	FAULTS=$((FAULTS + $(proc_minflt $(cg_pids sw))))
	kill -CONT "$k"; wait "$k" || fail "known $* failed"
}
# Page faults are read from the shared perf_event of the CPU they happen
# on: only the reopened one sees these. Context switches are counted by the
# follower's runs on that CPU.
known_on_cpu1 faults 20000
known_on_cpu1 switches 10000
if [[ $g_events == *"$TSC"* ]]; then
	run_in_cg sw taskset -c 1 "$BURN" 0.5
	wait "$LAST_PID" || fail "the burner on CPU 1 failed"
fi
kill -INT "$g_pid" "$hp_pid"
wait "$g_pid" || fail "cgperf stat -G failed across hotplug: $(cat "$TMP/g.log")"
wait "$hp_pid" || fail "cgperf stat -a failed across hotplug: $(cat "$TMP/hp.log")"
assert_count "page-faults on the returned CPU vs the tasks' minflt" \
	"$(stat_csv_value "$TMP/g.csv" page-faults "$cg")" "$FAULTS" 1 50
assert_count "context-switches on the returned CPU vs the tasks' own counts" \
	"$(stat_csv_value "$TMP/g.csv" context-switches "$cg")" "$SWITCHES" 1 50
# Everything sw ran, it ran on the returned CPU.
[[ $g_events != *"$TSC"* ]] || assert_tsc "on the returned CPU" \
	"$(stat_csv_value "$TMP/g.csv" "$TSC" "$cg")" "$(stat_csv_value "$TMP/g.csv" task-clock "$cg")"

# -a per interval: cpu-clock over the interval's length is the number of
# CPUs counted (a ratio of cgperf's own clocks, whatever the machine's speed).
python3 - "$TMP/hp.csv" "$ncpu" "$off_at" "$on_at" "$reopened_at" <<'PY' || fail "wrong counts across hotplug: $(cat "$TMP/hp.csv")"
import csv, os, sys
n = int(sys.argv[2])
# Rows printed when the CPU went (off), came (on) and was reopened.
off, on, reopened = int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
# 3 % of the CPUs, or what vm-run allows per interval under emulation
# (one interval's 1.53 CPUs, the next's 1.38; a CPU's outage counted
# would still be a whole CPU more).
tol = max(3.0, float(os.environ.get('CGPERF_INTERVAL_TOL_PCT', 0))) / 100
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) == 8 and r[3] == 'cpu-clock']
ts = [float(r[0]) for r in rows]
cpus = [float(r[1]) / ((t - p) * 1000) for r, t, p in zip(rows, ts, [0.0] + ts[:-1])]
print("# CPUs counted per interval:", ["%.3f" % c for c in cpus])
assert len(cpus) >= reopened + 3 and ts == sorted(ts), (ts, cpus)
# Offline: one CPU fewer in the intervals that lie inside the outage (those
# that began after the row printed when it went, ended before it came back).
assert any(abs(c - (n - 1)) < tol * n for c in cpus[off + 1:on]), (off, on, cpus)
# Back online and reopened: every CPU counted again in the full intervals
# that began after the reopening.
for c in cpus[reopened + 1:-1]:
    assert abs(c - n) < tol * n, (reopened, cpus)
# Never more CPUs than there are: the time a CPU was offline is not counted
# when it comes back (its first switch, from idle, ends an interval that
# spans the outage). The last interval is the partial one at the end.
assert all(c < n * (1 + tol) for c in cpus[:-1]), cpus
PY
log "ok: counting resumed on the CPU that came back"
