# SPDX-License-Identifier: GPL-2.0-only
# Re-alignment after a clock step (docs/AGENT.md "Clock steps"): the agent's
# interval timer is an absolute CLOCK_REALTIME timerfd armed with
# TFD_TIMER_CANCEL_ON_SET. CLOCK_REALTIME is stepped forward by 3.3 s, held
# 3 s, then stepped back (tests/helpers/clock_step, relative offsets: the
# clock ends where it would have been). Across both steps: no row is lost or
# written twice (cpu-clock adds up to cpu.stat, rows in order), each step
# gives one row at once whose timestamp jumps by interval_ms plus the step,
# every other row's interval_ms is the distance between timestamps, and
# after each step the rows fill every slot of the interval grid of the new
# time (a backward step without the re-arm leaves 3 slots empty).
source "$CGPERF_SRC/tests/lib/common.sh"
STEP_MS=3300
CLOCK_STEP="$CGPERF_BUILD/tests/clock_step"

# A time daemon would step or slew the clock under the test.
for d in systemd-timesyncd chronyd ntpd openntpd; do
	if pgrep -x "$d" >/dev/null; then skip "$d runs: it would fight the test's clock steps"; fi
done

# The helper steps back itself; should it die between its steps (SIGKILL),
# the cleanup does.
STEP_PID=
test_cleanup() {
	[ -n "$STEP_PID" ] || return 0
	wait "$STEP_PID" 2>/dev/null || true
	if grep -q stepped "$TMP/step.out" && ! grep -q restored "$TMP/step.out"; then
		"$CLOCK_STEP" "-$STEP_MS" && echo "# cleanup: stepped the clock back"
	fi
}
trap 'exit 143' TERM INT HUP

c_rel="system.slice/docker-$(printf '%064x' 21).scope"
c=$(mkcg "$c_rel")
cat >"$TMP/agent.yaml" <<YAML
interval: 1s
events: [cpu-clock]
cgroups:
  root: "$TEST_CG_REL"
  include: ["$TEST_CG_REL/system.slice/*"]
outputs:
  csv:
    directory: $TMP/csv
YAML
start_agent agent "$TMP/agent.yaml"
wait_counted "$TMP/agent.log" "$c"

# A burner through both steps (it burns CPU time, not wall
# time: the steps do not change how much it burns).
steal_begin c
run_in_cg "$c_rel" taskset -c "$BURN_CPU" "$BURN" 6 1
burner=$LAST_PID
sleep 2.2
start_bg "$CLOCK_STEP" "$STEP_MS" 3000 >"$TMP/step.out" 2>&1
STEP_PID=$LAST_PID
wait "$STEP_PID" || fail "clock_step failed: $(cat "$TMP/step.out")"
STEP_PID=
grep -q restored "$TMP/step.out" || fail "the clock was not stepped back: $(cat "$TMP/step.out")"
sleep 3.2
wait "$burner" || fail "burner failed"
steal_end c "$BURN_CPU"
kill -TERM "$AGENT_PID"; wait "$AGENT_PID" || fail "agent failed: $(tail -5 "$TMP/agent.log")"

f=$(grep -l -- "$c" "$TMP"/csv/*.csv) || fail "no CSV file for $c"
python3 - "$f" "$STEP_MS" <<'PY' || fail "rows across the clock steps: $(cat "$f")"
import csv, datetime, sys
rows = list(csv.DictReader(open(sys.argv[1], newline='')))
step = int(sys.argv[2])
ts = [round(datetime.datetime.strptime(r['timestamp'], '%Y-%m-%dT%H:%M:%S.%fZ')
            .replace(tzinfo=datetime.timezone.utc).timestamp() * 1000) for r in rows]
iv = [int(r['interval_ms']) for r in rows]
# The timestamp jump beyond interval_ms: 0 except at the two steps (the
# agent's two clocks agree to the truncated millisecond).
jump = [t1 - t0 - i for t0, t1, i in zip(ts, ts[1:], iv[1:])]
print("# timestamps %% 1000: %s" % [t % 1000 for t in ts])
print("# jumps beyond interval_ms: %s" % jump)
at = [k + 1 for k, j in enumerate(jump) if abs(j) > 2]
assert len(at) == 2, ("not exactly two steps", at)
assert abs(jump[at[0] - 1] - step) <= 2 and abs(jump[at[1] - 1] + step) <= 2, (at, jump)
# Segments: before the first step, from each step's row on. The last row is
# the one at exit. Every periodic row of a segment takes the next slot of
# the 1 s grid of its time: none is missed, none is written twice.
bounds = [0] + at + [len(rows) - 1]
for lo, hi in zip(bounds, bounds[1:]):
    slots = [t // 1000 for t in ts[lo:hi]]
    assert len(slots) >= 2, ("no periodic row after the step (or before the first)", lo, hi, slots)
    assert slots == list(range(slots[0], slots[0] + len(slots))), ("slots", lo, slots)
    # The grid is the clock's own: the earliest periodic row of the segment
    # falls just after a multiple of the interval, in the stepped time too.
    periodic = ts[lo + 1 if lo else lo:hi]
    assert min(t % 1000 for t in periodic) < 100, ("off the grid", lo, [t % 1000 for t in periodic])
PY
log "ok: one row at each step, then rows on the grid of the new time, none lost or doubled"

usage=$(usage_usec "$c_rel")
got=$(csv_sum "$TMP/csv" "$c" cpu-clock | awk '{ print $1 / 1e6 }')
assert_cpu_clock "cpu-clock across two clock steps" "$got" "$((usage / 1000))" 3 c
