# SPDX-License-Identifier: GPL-2.0-only
# A cgroup burning ~2 s of CPU: cgperf's cpu-clock for it agrees within 3%
# with the kernel's own cpu.stat usage delta (plus the steal time over the
# window, which cpu-clock includes and cpu.stat does not) and with
# `perf stat -a -G` (same clock, steal included), over the same window.
# Where the msr PMU has its tsc event, msr/tsc/ (the switch programs' PMU
# branch) is counted too, by `-G` and by a `--for-each-cgroup` session
# beside it: each within 1 % of its own cpu-clock x the TSC rate, and
# within 3 % of perf -G's (as cpu-clock: two tools attribute a CPU's time
# at their own switch hooks; 1.26 % apart under two CPU hogs, cpu-clock
# 1.0 % apart in the same run).
source "$CGPERF_SRC/tests/lib/common.sh"

cg=$(mkcg burner)
cgperf_tmp_log="$TMP/perf.log"
events=cpu-clock,task-clock,context-switches perf_events=cpu-clock perf_cgs=${cg#/}
if have_tsc; then
	events+=",$TSC" perf_events+=",$TSC" perf_cgs+=",${cg#/}"
	start_cgperf each -e "cpu-clock,$TSC" --for-each-cgroup "$cg"
	EACH_PID=$CGPERF_PID
fi

start_cgperf cgperf -e "$events" -G "$cg"
# perf as an independent oracle over the same window. It is told to run
# until we signal it; its -G takes the path relative to the cgroup2 root.
start_perf_stat -a -x, -o "$TMP/perf.csv" -e "$perf_events" -G "$perf_cgs"

steal_begin burner
before=$(usage_usec burner)
run_in_cg burner "$BURN" 2 2
wait "$LAST_PID"
after=$(usage_usec burner)
steal_end burner
sleep 0.2

kill -INT "$CGPERF_PID"; wait "$CGPERF_PID" || fail "cgperf stat failed: $(cat "$TMP/cgperf.log")"
[ -z "${EACH_PID:-}" ] || { kill -INT "$EACH_PID"; wait "$EACH_PID" || fail "cgperf stat --for-each-cgroup failed: $(cat "$TMP/each.log")"; }
# perf stops on SIGINT to the sleep it runs (its child), then prints.
pkill -INT -P "$PERF_PID" sleep || true
wait "$PERF_PID" || true

kernel_ms=$(awk -v a="$before" -v b="$after" 'BEGIN { printf "%.3f", (b - a) / 1000 }')
cgperf_ms=$(stat_csv_value "$TMP/cgperf.csv" cpu-clock "$cg")
task_ms=$(stat_csv_value "$TMP/cgperf.csv" task-clock "$cg")
perf_ms=$(stat_csv_value "$TMP/perf.csv" cpu-clock "${cg#/}")
log "cpu.stat: $kernel_ms ms, cgperf cpu-clock: $cgperf_ms ms, task-clock: $task_ms, perf -G: $perf_ms ms"

allow_unseen burner "$TMP/cgperf.log" "$(awk -v a="$before" -v b="$after" 'BEGIN { print (b - a) / 1000 }')"
assert_cpu_clock "cgperf cpu-clock vs cpu.stat" "$cgperf_ms" "$kernel_ms" 3 burner
assert_within_pct "cgperf cpu-clock vs perf stat -G" "$cgperf_ms" "$perf_ms" 3
assert_cpu_clock "cgperf task-clock vs cpu.stat" "$task_ms" "$kernel_ms" 3 burner
# 2 threads x 2 s of CPU: sanity that we measured the burn at all.
within_pct "$kernel_ms" 4000 10 || fail "the burner used $kernel_ms ms, expected ~4000"

if [ -n "${EACH_PID:-}" ]; then
	tsc=$(stat_csv_value "$TMP/cgperf.csv" "$TSC" "$cg")
	perf_tsc=$(stat_csv_value "$TMP/perf.csv" "$TSC" "${cg#/}")
	each_ms=$(stat_csv_value "$TMP/each.csv" cpu-clock "$cg")
	each_tsc=$(stat_csv_value "$TMP/each.csv" "$TSC" "$cg")
	log "$TSC: cgperf -G $tsc, --for-each-cgroup $each_tsc (cpu-clock $each_ms ms), perf -G $perf_tsc"
	assert_within_pct "cgperf -G $TSC vs perf stat -G" "$tsc" "$perf_tsc" 3
	assert_tsc "cgperf -G" "$tsc" "$cgperf_ms"
	assert_tsc "cgperf --for-each-cgroup" "$each_tsc" "$each_ms"
	assert_within_pct "--for-each-cgroup $TSC vs perf stat -G" "$each_tsc" "$perf_tsc" 3
fi
