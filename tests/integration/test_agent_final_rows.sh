# SPDX-License-Identifier: GPL-2.0-only
# A removed cgroup's final row that cannot be written (full disk: a 64 KiB
# tmpfs as the CSV directory, filled before the cgroup is made, so none of
# its rows fits) is kept and tried again (docs/CSV.md "A final row"):
# A. space back before SIGTERM: a retry writes it, once (the interval is a
#    day, so on a host whose clock is not set that retry is the exit's);
# B. still full when an agent that ends its session (--no-persist) exits:
#    one line names the cgroup (an ESC in its name, escaped) and the loss
#    is counted;
# B2. still full when a persistent agent exits: the row stays pending in the
#    pinned session, the next agent writes it;
# C. retried at each of the 10 collections after the removal, then given up
#    with one line; removals of 12 other cgroups between two intervals do
#    not use the tries up; the CSV failure line comes once (rate limit).
# Every clock set (settimeofday, a time sync) also makes a collection
# (docs/AGENT.md "Clock steps"); some VM hosts set it every 100 ms. So what
# must happen between two collections happens while the agent is stopped
# (SIGSTOP): at SIGCONT it handles the removals before any timer.
source "$CGPERF_SRC/tests/lib/common.sh"

source "$CGPERF_SRC/tests/lib/small_disk.sh"
mkcg system.slice >/dev/null

# conf FILE INTERVAL: cpu-clock of $TEST_CG_REL/system.slice/* into $small/csv.
conf() {
	cat >"$1" <<YAML
instance: $(basename "$1" .yaml)
interval: $2
events: [cpu-clock]
cgroups:
  root: "$TEST_CG_REL"
  include: ["$TEST_CG_REL/system.slice/*"]
outputs:
  csv:
    directory: $small/csv
YAML
}
# No collection during A, B, B2: the longest interval (24 h, or 23 h when
# the 24 h grid's next point is less than 10 minutes away).
long=$(python3 -c 'import time; print(next(h for h in (24, 23) if h * 3600 - time.time() % (h * 3600) > 600))')
for i in a b b2; do conf "$TMP/$i.yaml" "${long}h"; done

# counted_while_full REL NAME PATTERN: fill the disk, count a burner in REL
# (PATTERN: its name in the log): none of its rows fits. Sets USAGE_MS
# (cpu.stat of REL).
counted_while_full() {
	local rel=$1
	fill
	mkcg "$rel" >/dev/null
	wait_for_line "$TMP/$2.log" "counting $3 (" 10
	burn_pinned "$rel" 0.3 "$2"
	USAGE_MS=$(($(usage_usec "$rel") / 1000))
}
# no_rows NAME REL: no row of REL is in the CSV directory (yet).
no_rows() {
	! csv_sum "$small/csv" "$TEST_CG_REL/$2" cpu-clock >/dev/null 2>&1 || fail "$1: a row of $2 was written on a full disk"
}
# one_row NAME REL: REL has exactly one row (its final row, written once:
# a second one would hold zeros, so only the count tells).
one_row() {
	local n
	n=$(cat "$small"/csv/*.csv | grep -c -- ",$TEST_CG_REL/$2," || true)
	[ "$n" = 1 ] || fail "$1: $n rows of $2, not its one final row"
}
# removed_then_term NAME REL PATTERN: with the agent stopped, remove REL,
# queue SIGTERM, let it go on: the removal's final row fails, at most one
# collection retries it, then the exit; wait for the agent.
removed_then_term() {
	kill -STOP "$AGENT_PID"
	rmdir "$TEST_CG/$2"
	kill -TERM "$AGENT_PID"
	kill -CONT "$AGENT_PID"
	wait "$AGENT_PID" || fail "agent $1 failed: $(tail -5 "$TMP/$1.log")"
	grep -q "stopped counting $3" "$TMP/$1.log" || fail "$1: the removal was not seen: $(cat "$TMP/$1.log")"
}

# A. Freed before SIGTERM: a retry writes the final row.
a_rel=system.slice/final-a.service
start_agent a "$TMP/a.yaml"
counted_while_full "$a_rel" a "$TEST_CG_REL/$a_rel"
rmdir "$TEST_CG/$a_rel"
wait_for_line "$TMP/a.log" "stopped counting $TEST_CG_REL/$a_rel" 10
kill -STOP "$AGENT_PID"
no_rows A "$a_rel"
grep -q "gave up" "$TMP/a.log" && fail "A: given up before the space came back: $(grep "gave up" "$TMP/a.log")"
unfill
kill -TERM "$AGENT_PID"
kill -CONT "$AGENT_PID"
wait "$AGENT_PID" || fail "agent A failed: $(tail -5 "$TMP/a.log")"
grep -q "summary: .* 0 final rows lost" "$TMP/a.log" || fail "A: $(grep summary "$TMP/a.log")"
one_row A "$a_rel"
got=$(csv_sum "$small/csv" "$TEST_CG_REL/$a_rel" cpu-clock | awk '{ print $1 / 1e6 }')
assert_cpu_clock "A: the final row, written by a retry" "$got" "$USAGE_MS" 3 a

# B. Still full when the session ends: one line, escaped name, counted.
b_rel=$'system.slice/final\e[31mb.service'
b_esc="$TEST_CG_REL/system.slice/final\\x1b[31mb.service"
rm -rf "$small/csv"
start_agent b "$TMP/b.yaml" --no-persist
counted_while_full "$b_rel" b "$TEST_CG_REL/system.slice/final.x1b.31mb.service"
removed_then_term b "$b_rel" "$TEST_CG_REL/system.slice/final.x1b.31mb.service"
unfill
n=$(grep -c "gave up the last row of cgroup " "$TMP/b.log" || true)
[ "$n" = 1 ] || fail "B: $n lines about the lost final row: $(cat "$TMP/b.log")"
grep -qF "gave up the last row of cgroup $b_esc (id " "$TMP/b.log" ||
	fail "B: the line does not name $b_esc: $(grep "gave up" "$TMP/b.log")"
grep "gave up" "$TMP/b.log" | grep -q "at the end of the counting session" || fail "B: $(grep "gave up" "$TMP/b.log")"
grep -q "summary: .* 1 final rows lost" "$TMP/b.log" || fail "B: the loss is not counted: $(grep summary "$TMP/b.log")"
log "ok: B: the lost final row reported once, by its escaped name, and counted"

# B2. Still full when a persistent agent exits: the next agent writes it.
rm -rf "$small/csv"
c2_rel=system.slice/final-b2.service
start_agent b2 "$TMP/b2.yaml"
counted_while_full "$c2_rel" b2 "$TEST_CG_REL/$c2_rel"
removed_then_term b2 "$c2_rel" "$TEST_CG_REL/$c2_rel"
grep -q "summary: .* 0 final rows lost" "$TMP/b2.log" || fail "B2: $(grep summary "$TMP/b2.log")"
no_rows B2 "$c2_rel"
unfill
start_agent b2next "$TMP/b2.yaml"
kill -TERM "$AGENT_PID"; wait "$AGENT_PID" || fail "agent B2 (next) failed: $(tail -5 "$TMP/b2next.log")"
one_row B2 "$c2_rel"
got=$(csv_sum "$small/csv" "$TEST_CG_REL/$c2_rel" cpu-clock | awk '{ print $1 / 1e6 }')
assert_cpu_clock "B2: the pending final row written by the next agent" "$got" "$USAGE_MS" 3 b2

# C. 1 s intervals. L lives (its rows count the collections) and so do 12
#    churn cgroups; their files get a page before the disk is filled, so
#    their rows still fit. The target, made after the fill, never gets one.
rm -rf "$small/csv"
conf "$TMP/c.yaml" 1s
l=$(mkcg system.slice/live.service)
for i in $(seq 12); do mkcg "system.slice/churn-$i.service" >/dev/null; done
start_agent c "$TMP/c.yaml"
lfile=
for _ in $(seq 50); do
	lfile=$(grep -l -- "$l," "$small"/csv/*.csv 2>/dev/null | head -1) || true
	[ -n "$lfile" ] && [ "$(ls "$small"/csv/*.csv | wc -l)" = 13 ] && break
	sleep 0.1
done
[ -n "$lfile" ] || fail "C: no CSV files before the fill: $(ls "$small/csv")"
fill
t=$(mkcg system.slice/target.service)
wait_counted "$TMP/c.log" "$t"
wait_for_line "$TMP/c.log" "No space left on device" 5
# Right after a collection (L's row count moves) stop the agent, remove the
# target and the 12 others, let it go on: all between two collections.
rows() { grep -c -- "$l," "$lfile"; }
n0=$(rows)
for _ in $(seq 400); do [ "$(rows)" != "$n0" ] && break; sleep 0.005; done
kill -STOP "$AGENT_PID"
n0=$(rows)
rmdir "$TEST_CG/system.slice/target.service"
for i in $(seq 12); do rmdir "$TEST_CG/system.slice/churn-$i.service"; done
kill -CONT "$AGENT_PID"
for _ in $(seq 400); do
	grep -q "gave up the last row" "$TMP/c.log" && break
	sleep 0.05
done
n=$(rows)
grep -q "gave up the last row of cgroup $t (id [0-9]*) after 10 retries" "$TMP/c.log" ||
	fail "C: no give-up line for $t: $(cat "$TMP/c.log")"
[ $((n - n0)) = 10 ] || fail "C: given up after $((n - n0)) collections, not 10: $(grep -c "gave up" "$TMP/c.log") lines"
log "ok: C: the final row was given up at the 10th collection after the removal, churn or not"
kill -TERM "$AGENT_PID"; wait "$AGENT_PID" || fail "agent C failed: $(tail -5 "$TMP/c.log")"
unfill
for i in $(seq 12); do
	csv_sum "$small/csv" "$TEST_CG_REL/system.slice/churn-$i.service" cpu-clock >/dev/null ||
		fail "C: churn-$i lost its final row"
done
grep -q "summary: .* 1 final rows lost" "$TMP/c.log" || fail "C: $(grep summary "$TMP/c.log")"
n=$(grep -c "No space left on device" "$TMP/c.log")
[ "$n" = 1 ] || fail "C: $n CSV failure lines for one kind within 60 s, not 1"
log "ok: C: one CSV failure line (no space) for all the failures within 60 s"
