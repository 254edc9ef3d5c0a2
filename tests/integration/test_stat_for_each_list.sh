# SPDX-License-Identifier: GPL-2.0-only
# --for-each-cgroup in perf's form: a comma list, each item a name or a glob
# (mixed), while a cgroup whose own name holds a comma stays reachable; an
# item that matches nothing is an error naming it.
source "$CGPERF_SRC/tests/lib/common.sh"

a=$(mkcg fl/a); comma=$(mkcg 'fl/b,c'); d=$(mkcg fl/x/docker-1.scope); mkcg fl/other >/dev/null
start_cgperf list -e cpu-clock --for-each-cgroup "$a,$TEST_CG_REL/fl/x/docker-*.scope"
run_in_cg fl/a "$BURN" 0.2; p1=$LAST_PID
run_in_cg fl/x/docker-1.scope "$BURN" 0.2; p2=$LAST_PID
run_in_cg fl/other "$BURN" 0.2; p3=$LAST_PID
wait "$p1" "$p2" "$p3"
kill -INT "$CGPERF_PID"; wait "$CGPERF_PID" || fail "list run failed: $(cat "$TMP/list.log")"
[ "$(wc -l <"$TMP/list.csv")" = 2 ] || fail "expected the name and the glob's match: $(cat "$TMP/list.csv")"
for cg in "$a" "$d"; do
	v=$(stat_csv_value "$TMP/list.csv" cpu-clock "$cg")
	python3 -c "import sys; sys.exit(0 if $v > 100 else 1)" || fail "$cg counted $v ms of its 200"
done
grep -q "fl/other" "$TMP/list.csv" && fail "fl/other matches no item but was counted"

# A name holding a comma: the whole argument names it.
"$CGPERF" stat -x, -e cpu-clock --for-each-cgroup "$comma" --duration 0.2 >"$TMP/comma.csv" 2>"$TMP/err" ||
	fail "a cgroup named with a comma: $(cat "$TMP/err")"
[ "$(wc -l <"$TMP/comma.csv")" = 1 ] && grep -q 'b,c' "$TMP/comma.csv" || fail "$(cat "$TMP/comma.csv")"

# One item of the list matching nothing.
rc=0
"$CGPERF" stat -e cpu-clock --for-each-cgroup "$a,$TEST_CG_REL/fl/nothing-*" --duration 0.1 \
	>/dev/null 2>"$TMP/err" || rc=$?
[ "$rc" = 1 ] && grep -q "no cgroup matches '$TEST_CG_REL/fl/nothing-\*'" "$TMP/err" ||
	fail "unmatched item: exit $rc, $(cat "$TMP/err")"
log "ok: perf's comma list, mixed names and globs, a comma in a name"
