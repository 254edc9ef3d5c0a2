# A cgroup burning ~2 s of CPU: cgperf's cpu-clock for it agrees within 3%
# with the kernel's own cpu.stat usage delta (plus the steal time over the
# window, which cpu-clock includes and cpu.stat does not) and with
# `perf stat -a -G` (same clock, steal included), over the same window.
source "$CGPERF_SRC/tests/lib/common.sh"

cg=$(mkcg burner)
cgperf_tmp_log="$TMP/perf.log"

start_cgperf cgperf -e cpu-clock,task-clock,context-switches -G "$cg"
# perf as an independent oracle over the same window. It is told to run
# until we signal it; its -G takes the path relative to the cgroup2 root.
start_bg perf stat -a -x, -o "$TMP/perf.csv" -e cpu-clock -G "${cg#/}" -- sleep 60
PERF_PID=$LAST_PID
sleep 1 # perf has no readiness signal; give it time to open its events

steal_begin burner
before=$(usage_usec burner)
run_in_cg burner "$BURN" 2 2
wait "$LAST_PID"
after=$(usage_usec burner)
steal_end burner
sleep 0.2

kill -INT "$CGPERF_PID"; wait "$CGPERF_PID" || fail "cgperf stat failed: $(cat "$TMP/cgperf.log")"
# perf stops on SIGINT to the sleep it runs (its child), then prints.
pkill -INT -P "$PERF_PID" sleep || true
wait "$PERF_PID" || true

kernel_ms=$(awk -v a="$before" -v b="$after" 'BEGIN { printf "%.3f", (b - a) / 1000 }')
cgperf_ms=$(stat_csv_value "$TMP/cgperf.csv" cpu-clock "$cg")
task_ms=$(stat_csv_value "$TMP/cgperf.csv" task-clock "$cg")
perf_ms=$(stat_csv_value "$TMP/perf.csv" cpu-clock "${cg#/}")
log "cpu.stat: $kernel_ms ms, cgperf cpu-clock: $cgperf_ms ms, task-clock: $task_ms, perf -G: $perf_ms ms"

assert_cpu_clock "cgperf cpu-clock vs cpu.stat" "$cgperf_ms" "$kernel_ms" 3 burner
assert_within_pct "cgperf cpu-clock vs perf stat -G" "$cgperf_ms" "$perf_ms" 3
assert_cpu_clock "cgperf task-clock vs cpu.stat" "$task_ms" "$kernel_ms" 3 burner
# 2 threads x 2 s of CPU: sanity that we measured the burn at all.
within_pct "$kernel_ms" 4000 10 || fail "the burner used $kernel_ms ms, expected ~4000"
