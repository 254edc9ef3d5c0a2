# SPDX-License-Identifier: GPL-2.0-only
# --for-each-cgroup expands a glob over the live cgroup tree; -t counts one
# thread and not its siblings.
source "$CGPERF_SRC/tests/lib/common.sh"

d1=$(mkcg 'fe/docker-aaa.scope'); d2=$(mkcg 'fe/x/docker-bbb.scope'); other=$(mkcg fe/other)
start_cgperf each -e cpu-clock --for-each-cgroup "$TEST_CG_REL/**/docker-*.scope"
burn_pinned 'fe/docker-aaa.scope' 0.3 d1
burn_pinned 'fe/x/docker-bbb.scope' 0.2 d2
burn_pinned fe/other 0.2 other
u1=$(usage_usec 'fe/docker-aaa.scope'); u2=$(usage_usec 'fe/x/docker-bbb.scope')
kill -INT "$CGPERF_PID"; wait "$CGPERF_PID" || fail "--for-each-cgroup run failed: $(cat "$TMP/each.log")"
grep -q "$other" "$TMP/each.csv" && fail "'$other' does not match the pattern but was counted"
[ "$(wc -l <"$TMP/each.csv")" = 2 ] || fail "expected 2 cgroups: $(cat "$TMP/each.csv")"
assert_cpu_clock "docker-aaa.scope" "$(stat_csv_value "$TMP/each.csv" cpu-clock "$d1")" "$((u1 / 1000))" 3 d1
assert_cpu_clock "docker-bbb.scope" "$(stat_csv_value "$TMP/each.csv" cpu-clock "$d2")" "$((u2 / 1000))" 3 d2

rc=0; "$CGPERF" stat --duration 0.1 --for-each-cgroup "$TEST_CG_REL/nothing-*" 2>"$TMP/err" >/dev/null || rc=$?
[ "$rc" = 1 ] && grep -q "no cgroup matches" "$TMP/err" || fail "unmatched pattern: exit $rc, $(cat "$TMP/err")"

# -t: three threads wait for a line on a FIFO (sent once cgperf counts, however
# long its attach took) then burn 0.4 s each; count only one of them.
mkcg t >/dev/null
mkfifo "$TMP/t.go"
steal_begin t
run_in_cg t taskset -c "$BURN_CPU" "$BURN" 0.4 3 "$TMP/t.go"; bpid=$LAST_PID
wait_at_fifo "$bpid"  # its threads are made before it opens the FIFO
tid=$(ls "/proc/$bpid/task" | sort -n | tail -1)
[ "$tid" != "$bpid" ] || fail "burner has no extra threads"
start_cgperf tid -e cpu-clock,task-clock -t "$tid"
echo go >"$TMP/t.go"
wait "$bpid"
steal_end t "$BURN_CPU"
kill -INT "$CGPERF_PID"; wait "$CGPERF_PID" || fail "-t run failed"
# The thread burned 400 ms of its own CPU time (the task clock, like cpu.stat).
assert_cpu_clock "-t counts one thread of three" "$(stat_csv_value "$TMP/tid.csv" cpu-clock)" 400 5 t
