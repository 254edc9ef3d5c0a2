# SPDX-License-Identifier: GPL-2.0-only
# Hardware events, where the host has a PMU: a pinned burner's cycles and
# instructions per cgroup against `perf stat -a -G` over the same window, its
# IPC in a sane range, and more hardware events than the PMU has counters
# (multiplexed: running below enabled, the scaled instructions per ms of the
# same loop within 15 % of the unmultiplexed run's). Where the PMU is missing
# (this CI machine), perf itself must say so (not only cgperf), and the test
# skips with the reason.
source "$CGPERF_SRC/tests/lib/common.sh"
command -v perf >/dev/null || fail "perf is needed (scripts/install-deps installs linux-perf)"

# The oracle's own verdict, captured before it is read (no SIGPIPE).
perf stat -x, -e cycles -- true >"$TMP/probe.out" 2>&1 || true
if grep -q "<not supported>" "$TMP/probe.out"; then
	"$CGPERF" stat --strict -e cycles -a --duration 0.1 >"$TMP/c.out" 2>&1 &&
		fail "perf cannot count cycles here, but cgperf --strict did: $(cat "$TMP/c.out")"
	grep -q "cycles" "$TMP/c.out" || fail "cgperf's refusal does not name the event: $(cat "$TMP/c.out")"
	skip "no hardware PMU: perf stat says cycles are <not supported> ($(head -c 200 "$TMP/c.out"))"
fi

cg=$(mkcg hw)
HW="cycles,instructions"
# Seven hardware events (with cpu-clock, a session's most): five on general
# counters, more than most PMUs have (4 per hyperthread on Intel).
MUX="cycles,instructions,branches,branch-misses,cache-references,cache-misses,L1-dcache-loads"

# field FILE EVENT COL: column COL (0-based, after the optional time) of
# EVENT's row for the cgroup in a -x, file.
field() {
	python3 - "$1" "$2" "$3" "${cg#/}" <<'PY'
import csv, sys
for r in csv.reader(open(sys.argv[1])):
    if len(r) >= 7 and r[2] == sys.argv[2] and r[3].strip('/') == sys.argv[4]:
        print(r[int(sys.argv[3])]); break
else:
    sys.exit("no %s row in %s" % (sys.argv[2], sys.argv[1]))
PY
}

# 1. Two events, no multiplexing: cgperf against perf over the same burn.
start_cgperf a -e "cpu-clock,$HW" -G "$cg"
start_bg perf stat -a -x, -o "$TMP/perf.csv" -e "$HW" -G "${cg#/},${cg#/}" -- sleep 60
PERF_PID=$LAST_PID
sleep 1
burn_pinned hw 1 hw
kill -INT "$CGPERF_PID"; wait "$CGPERF_PID" || fail "cgperf stat failed: $(cat "$TMP/a.log")"
pkill -INT -P "$PERF_PID" sleep || true
wait "$PERF_PID" || true
cyc=$(field "$TMP/a.csv" cycles 0) ins=$(field "$TMP/a.csv" instructions 0)
pcyc=$(field "$TMP/perf.csv" cycles 0) pins=$(field "$TMP/perf.csv" instructions 0)
log "cycles: cgperf $cyc, perf -G $pcyc; instructions: cgperf $ins, perf -G $pins"
assert_count "cycles vs perf stat -G" "$cyc" "$pcyc" 5 1000000
assert_count "instructions vs perf stat -G" "$ins" "$pins" 5 1000000
awk -v i="$ins" -v c="$cyc" 'BEGIN { exit !(c > 0 && i / c > 0.05 && i / c < 8) }' ||
	fail "IPC of a burner loop $ins / $cyc outside 0.05..8"

# 2. Multiplexed: the same loop, instructions per ms of its cpu-clock.
start_cgperf m -e "cpu-clock,$MUX" -G "$cg"
burn_pinned hw 1 hw
kill -INT "$CGPERF_PID"; wait "$CGPERF_PID" || fail "cgperf stat (multiplexed) failed: $(cat "$TMP/m.log")"
pct=$(field "$TMP/m.csv" instructions 5)
awk -v p="$pct" 'BEGIN { exit !(p > 0 && p <= 100) }' ||
	fail "instructions running $pct % of the time"
if awk -v p="$pct" 'BEGIN { exit !(p >= 100) }'; then
	log "this PMU has counters for all seven events: nothing multiplexed (only the rate is checked)"
fi
ms=$(field "$TMP/m.csv" cpu-clock 0) mins=$(field "$TMP/m.csv" instructions 0)
ms1=$(field "$TMP/a.csv" cpu-clock 0)
log "multiplexed: instructions $mins in $ms ms (running $pct %); unmultiplexed: $ins"
python3 - "$ins" "$ms1" "$mins" "$ms" <<'PY' || fail "scaled instructions off"
import sys
ins, ms1, mins, ms = (float(a) for a in sys.argv[1:5])
# Both runs burned the same loop: instructions per ms of CPU are the loop's.
rate1, rate2 = ins / ms1, mins / ms
print("# instructions per ms: %.0f unmultiplexed, %.0f multiplexed (scaled)" % (rate1, rate2))
assert abs(rate2 - rate1) <= 0.15 * rate1, (rate1, rate2)
PY
echo PASS
