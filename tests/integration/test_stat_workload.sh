# `-- CMD` and -p count the process and every child it forks; CPU (-C) and
# GLOBAL (-a) filters checked on the same workload.
source "$CGPERF_SRC/tests/lib/common.sh"
mkcg w >/dev/null

# -- CMD: 3 children x 0.4 s of CPU (task clock), the parent burns nothing.
steal_begin cmd
"$CGPERF" stat -x, -o "$TMP/cmd.csv" -e cpu-clock,task-clock -- "$FORKER" 3 0.4 2>"$TMP/cmd.log" ||
	fail "cgperf stat -- forker failed: $(cat "$TMP/cmd.log")"
steal_end cmd
cmd_ms=$(stat_csv_value "$TMP/cmd.csv" cpu-clock)
assert_cpu_clock "-- CMD counts forked children" "$cmd_ms" 1200 5 cmd

# -p: attach to a running forker before it forks (it waits 1 s first).
steal_begin p
run_in_cg w "$FORKER" 2 0.5 1; fpid=$LAST_PID
before=$(usage_usec w)
start_cgperf pid -e cpu-clock -p "$fpid"
wait "$fpid"
after=$(usage_usec w)
steal_end p
kill -INT "$CGPERF_PID"; wait "$CGPERF_PID" || fail "cgperf stat -p failed"
pid_ms=$(stat_csv_value "$TMP/pid.csv" cpu-clock)
assert_cpu_clock "-p counts children forked after attach" "$pid_ms" \
	"$(awk -v a="$before" -v b="$after" 'BEGIN { print (b - a) / 1000 }')" 3 p

# -C 0 with a burner pinned to CPU 0: the CPU filter counts all of CPU 0's
# time (any task) over the window, and so does -a for every CPU.
ncpu=$(nproc)
start_cgperf cpu -e cpu-clock -C 0 --duration 1.5
start_cgperf all -e cpu-clock -a --duration 1.5
run_in_cg w taskset -c 0 "$BURN" 0.5
wait "$CGPERF_PID"
sleep 2
cpu_ms=$(stat_csv_value "$TMP/cpu.csv" cpu-clock)
all_ms=$(stat_csv_value "$TMP/all.csv" cpu-clock)
assert_within_pct "-C 0 counts one CPU's wall time" "$cpu_ms" 1500 3
assert_within_pct "-a counts every CPU's wall time" "$all_ms" "$((1500 * ncpu))" 3

# -a and -G at once on the same burn: the cgroup's share is inside the total.
start_cgperf g -e cpu-clock -G "$TEST_CG_REL/w"
start_cgperf a -e cpu-clock -a
run_in_cg w "$BURN" 0.5; wait "$LAST_PID"
kill -INT "$CGPERF_PID"; wait "$CGPERF_PID" || true
g_pid=${STARTED_PIDS[-3]}
kill -INT "$g_pid"; wait "$g_pid" || true
g_ms=$(stat_csv_value "$TMP/g.csv" cpu-clock)
a_ms=$(stat_csv_value "$TMP/a.csv" cpu-clock)
awk -v g="$g_ms" -v a="$a_ms" 'BEGIN { exit !(g >= 490 && g < a) }' ||
	fail "cgroup share $g_ms ms should be ~500 and below the global $a_ms ms"
log "ok: -G $g_ms ms within -a $a_ms ms"

# Children are forgotten once they are freed (a reused pid must not be
# counted, and the filter map must not fill up): a -p target that forks 20
# short-lived children keeps exactly one filter entry, its own.
start_bg sh -c 'sleep 1; for i in $(seq 20); do /bin/true; done; exec sleep 4'
spid=$LAST_PID
start_cgperf forget -e cpu-clock -p "$spid"
sleep 2.5
# The session's filter map is the one BPF hash map it holds an fd to.
filter_id=$(grep -l "^map_type:[[:space:]]*1$" /proc/"$CGPERF_PID"/fdinfo/* 2>/dev/null |
	xargs -r grep -h "^map_id:" | awk '{ print $2 }')
[ "$(wc -w <<<"$filter_id")" = 1 ] || fail "expected one hash map fd in cgperf, found: $filter_id"
filter_entries=$(bpftool map dump id "$filter_id" -j | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')
[ "$filter_entries" = 1 ] || fail "after 20 children exited the filter holds $filter_entries entries, expected 1"
kill -INT "$CGPERF_PID"; wait "$CGPERF_PID" || true
log "ok: exited children were removed from the filter"
