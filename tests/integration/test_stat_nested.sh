# SPDX-License-Identifier: GPL-2.0-only
# Nested cgroups, three monitored levels (pod > a > a/x): a parent with no
# tasks of its own counts exactly what its children count (within 1%); a task
# in an unmonitored grandchild counts for its nearest monitored ancestor and
# everything above it. Where the msr PMU has its tsc event, msr/tsc/ (the
# PMU branch) rolls up the same way, exactly, and each level's count is its
# cpu-clock x the TSC rate.
source "$CGPERF_SRC/tests/lib/common.sh"

pod=$(mkcg pod)
a=$(mkcg pod/a)
x=$(mkcg pod/a/x)
b=$(mkcg pod/b)
mkcg pod/b/unmonitored >/dev/null

# -G repeated and with a list: the same as one list.
events=cpu-clock,context-switches
! have_tsc || events+=",$TSC"
start_cgperf nested -e "$events" -G "$pod" -G "$a,$b,$x"
steal_begin burns
run_in_cg pod/a/x "$BURN" 1; pa=$LAST_PID
run_in_cg pod/b "$BURN" 0.5; pb=$LAST_PID
run_in_cg pod/b/unmonitored "$BURN" 0.7; pc=$LAST_PID
wait "$pa" "$pb" "$pc"
a_usage=$(usage_usec pod/a); b_usage=$(usage_usec pod/b)
steal_end burns
sleep 0.2
kill -INT "$CGPERF_PID"; wait "$CGPERF_PID" || fail "cgperf stat failed: $(cat "$TMP/nested.log")"

pod_ms=$(stat_csv_value "$TMP/nested.csv" cpu-clock "$pod")
a_ms=$(stat_csv_value "$TMP/nested.csv" cpu-clock "$a")
b_ms=$(stat_csv_value "$TMP/nested.csv" cpu-clock "$b")
x_ms=$(stat_csv_value "$TMP/nested.csv" cpu-clock "$x")
sum=$(awk -v x="$a_ms" -v y="$b_ms" 'BEGIN { printf "%.3f", x + y }')
log "pod $pod_ms ms, a $a_ms ms, b (with its unmonitored child) $b_ms ms"
assert_within_pct "parent == sum of children (cpu-clock)" "$pod_ms" "$sum" 1
assert_within_pct "a == its only child a/x (cpu-clock)" "$a_ms" "$x_ms" 1
pod_cs=$(stat_csv_value "$TMP/nested.csv" context-switches "$pod")
a_cs=$(stat_csv_value "$TMP/nested.csv" context-switches "$a")
b_cs=$(stat_csv_value "$TMP/nested.csv" context-switches "$b")
[ "$pod_cs" = "$(awk -v x="$a_cs" -v y="$b_cs" 'BEGIN { printf "%.3f", x + y }')" ] ||
	fail "context-switches: pod $pod_cs != a $a_cs + b $b_cs"
# b includes the grandchild's 0.7 s: cpu.stat of b is hierarchical too.
assert_cpu_clock "b (with grandchild) vs its cpu.stat" "$b_ms" "$(awk -v u="$b_usage" 'BEGIN { print u / 1000 }')" 3 burns
assert_cpu_clock "a vs its cpu.stat" "$a_ms" "$(awk -v u="$a_usage" 'BEGIN { print u / 1000 }')" 3 burns

if [[ $events == *"$TSC"* ]]; then
	for l in pod a b x; do
		declare "${l}_tsc=$(stat_csv_value "$TMP/nested.csv" "$TSC" "${!l}")"
	done
	log "$TSC: pod $pod_tsc, a $a_tsc, b $b_tsc, x $x_tsc"
	[ "$pod_tsc" = "$(awk -v x="$a_tsc" -v y="$b_tsc" 'BEGIN { printf "%.3f", x + y }')" ] ||
		fail "$TSC: pod $pod_tsc != a $a_tsc + b $b_tsc"
	[ "$a_tsc" = "$x_tsc" ] || fail "$TSC: a $a_tsc != its only child a/x $x_tsc"
	assert_tsc pod "$pod_tsc" "$pod_ms"
	assert_tsc a "$a_tsc" "$a_ms"
	assert_tsc "b (with grandchild)" "$b_tsc" "$b_ms"
fi
