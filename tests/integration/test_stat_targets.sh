# --for-each-cgroup expands a glob over the live cgroup tree; -t counts one
# thread and not its siblings.
source "$CGPERF_SRC/tests/lib/common.sh"

d1=$(mkcg 'fe/docker-aaa.scope'); d2=$(mkcg 'fe/x/docker-bbb.scope'); other=$(mkcg fe/other)
start_cgperf each -e cpu-clock --for-each-cgroup "$TEST_CG_REL/**/docker-*.scope"
run_in_cg 'fe/docker-aaa.scope' "$BURN" 0.3; p1=$LAST_PID
run_in_cg 'fe/x/docker-bbb.scope' "$BURN" 0.2; p2=$LAST_PID
run_in_cg fe/other "$BURN" 0.2; p3=$LAST_PID
wait "$p1" "$p2" "$p3"
u1=$(usage_usec 'fe/docker-aaa.scope'); u2=$(usage_usec 'fe/x/docker-bbb.scope')
kill -INT "$CGPERF_PID"; wait "$CGPERF_PID" || fail "--for-each-cgroup run failed: $(cat "$TMP/each.log")"
grep -q "$other" "$TMP/each.csv" && fail "'$other' does not match the pattern but was counted"
[ "$(wc -l <"$TMP/each.csv")" = 2 ] || fail "expected 2 cgroups: $(cat "$TMP/each.csv")"
assert_within_pct "docker-aaa.scope" "$(stat_csv_value "$TMP/each.csv" cpu-clock "$d1")" "$((u1 / 1000))" 3
assert_within_pct "docker-bbb.scope" "$(stat_csv_value "$TMP/each.csv" cpu-clock "$d2")" "$((u2 / 1000))" 3

rc=0; "$CGPERF" stat --duration 0.1 --for-each-cgroup "$TEST_CG_REL/nothing-*" 2>"$TMP/err" >/dev/null || rc=$?
[ "$rc" = 1 ] && grep -q "no cgroup matches" "$TMP/err" || fail "unmatched pattern: exit $rc, $(cat "$TMP/err")"

# -t: three threads wait 1 s then burn 0.4 s each; count only one of them.
mkcg t >/dev/null
run_in_cg t "$BURN" 0.4 3 1; bpid=$LAST_PID
sleep 0.2
tid=$(ls "/proc/$bpid/task" | sort -n | tail -1)
[ "$tid" != "$bpid" ] || fail "burner has no extra threads"
start_cgperf tid -e cpu-clock,task-clock -t "$tid"
wait "$bpid"
kill -INT "$CGPERF_PID"; wait "$CGPERF_PID" || fail "-t run failed"
assert_within_pct "-t counts one thread of three" "$(stat_csv_value "$TMP/tid.csv" cpu-clock)" 400 5
