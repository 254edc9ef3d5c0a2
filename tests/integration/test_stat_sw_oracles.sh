# SPDX-License-Identifier: GPL-2.0-only
# The events cgperf reads from the shared perf_events (context-switches,
# page-faults), per cgroup, against two oracles: the kernel's own per-task
# counts (/proc/PID/task/*/status context switches, /proc/PID/stat minflt) of
# workloads whose counts are known, and `perf stat -a -G` over the same window.
# Also a workload that sleeps between its faults (every switch one to idle,
# the case where the follower's switch from idle reads nothing, and its
# switch to idle holds the faults unread), with its cpu-clock against
# perf's; then two of them in two cgroups taking turns on one CPU through
# idle (the faults left unread for one cgroup must be taken before the
# other's task runs); and a task that moves itself to another cgroup while
# it runs (the faults left unread for its old cgroup stay there).
source "$CGPERF_SRC/tests/lib/common.sh"
cg=$(mkcg sw)

start_cgperf cgperf -e context-switches,page-faults,cpu-clock -G "$cg"
# perf takes one -G entry per event.
start_perf_stat -a -x, -o "$TMP/perf.csv" -e context-switches,page-faults,cpu-clock -G "${cg#/},${cg#/},${cg#/}"

# known_in_cg ARGS...: run `known ARGS` in the cgroup, pinned to one CPU (the
# ping-pong partners then wait for each other at every round trip); once it
# has stopped itself, add what the kernel counted for every task of the
# cgroup to ORACLE_CS and ORACLE_FLT, then let it exit.
ORACLE_CS=0 ORACLE_FLT=0
known_in_cg() {
	local pid pids
	run_in_cg sw taskset -c "$BURN_CPU" "$KNOWN" "$@"; pid=$LAST_PID
	wait_stopped "$pid"
	pids=$(cg_pids sw)
	ORACLE_CS=$((ORACLE_CS + $(task_switches $pids)))
	ORACLE_FLT=$((ORACLE_FLT + $(proc_minflt $pids)))
	kill -CONT "$pid"
	wait "$pid" || fail "known $* failed"
}
known_in_cg switches 20000
known_in_cg faults 20000
known_in_cg sleeps 3000
sleep 0.2

kill -INT "$CGPERF_PID"; wait "$CGPERF_PID" || fail "cgperf stat failed: $(cat "$TMP/cgperf.log")"
pkill -INT -P "$PERF_PID" sleep || true
wait "$PERF_PID" || true

# A kernel hiding some switches: what cgperf took out of intervals (-v).
log "$(grep 'did not show switching in' "$TMP/cgperf.log" || echo 'no hidden switches')"
cs=$(stat_csv_value "$TMP/cgperf.csv" context-switches "$cg")
flt=$(stat_csv_value "$TMP/cgperf.csv" page-faults "$cg")
perf_cs=$(stat_csv_value "$TMP/perf.csv" context-switches "${cg#/}")
perf_flt=$(stat_csv_value "$TMP/perf.csv" page-faults "${cg#/}")
log "context-switches: cgperf $cs, perf -G $perf_cs, kernel per task $ORACLE_CS"
log "page-faults: cgperf $flt, perf -G $perf_flt, kernel per task (minflt) $ORACLE_FLT"
ms=$(stat_csv_value "$TMP/cgperf.csv" cpu-clock "$cg")
perf_ms=$(stat_csv_value "$TMP/perf.csv" cpu-clock "${cg#/}")
log "cpu-clock: cgperf $ms ms, perf -G $perf_ms ms"
# 43000 switches and 23000 faults known; the rest (start, exit, the shell
# before exec) is a few dozen.
[ "$ORACLE_CS" -ge 43000 ] || fail "the workloads made only $ORACLE_CS switches"
[ "$ORACLE_FLT" -ge 23000 ] || fail "the workloads made only $ORACLE_FLT faults"
assert_count "context-switches vs the tasks' own counts" "$cs" "$ORACLE_CS" 1 50
assert_count "page-faults vs the tasks' minflt" "$flt" "$ORACLE_FLT" 1 50
assert_count "context-switches vs perf stat -G" "$cs" "$perf_cs" 1 50
assert_count "page-faults vs perf stat -G" "$flt" "$perf_flt" 1 50
assert_count "cpu-clock vs perf stat -G" "$ms" "$perf_ms" 2 5

# Two cgroups' sleepers on one CPU: each one's faults against its minflt.
cga=$(mkcg swa) cgb=$(mkcg swb)
start_cgperf two -e page-faults,cpu-clock -G "$cga,$cgb"
run_in_cg swa taskset -c "$BURN_CPU" "$KNOWN" sleeps 4000; pa=$LAST_PID
run_in_cg swb taskset -c "$BURN_CPU" "$KNOWN" sleeps 4000; pb=$LAST_PID
wait_stopped "$pa"
wait_stopped "$pb"
flt_a=$(proc_minflt $(cg_pids swa)) flt_b=$(proc_minflt $(cg_pids swb))
kill -CONT "$pa" "$pb"
wait "$pa" || fail "known sleeps (a) failed"
wait "$pb" || fail "known sleeps (b) failed"
sleep 0.2
kill -INT "$CGPERF_PID"; wait "$CGPERF_PID" || fail "cgperf stat failed: $(cat "$TMP/two.log")"
log "$(grep 'did not show switching in' "$TMP/two.log" || echo 'no hidden switches')"
got_a=$(stat_csv_value "$TMP/two.csv" page-faults "$cga")
got_b=$(stat_csv_value "$TMP/two.csv" page-faults "$cgb")
log "page-faults, two cgroups through idle on one CPU: a $got_a (minflt $flt_a), b $got_b (minflt $flt_b)"
[ "$flt_a" -ge 4000 ] && [ "$flt_b" -ge 4000 ] || fail "the sleepers made only $flt_a and $flt_b faults"
assert_count "page-faults of cgroup a vs its minflt" "$got_a" "$flt_a" 1 50
assert_count "page-faults of cgroup b vs its minflt" "$got_b" "$flt_b" 1 50

# A task in c that moves itself to d while it runs, after bursts of faults
# each followed by a switch to idle: the faults it made in c, left unread
# at those switches, are c's, not d's.
cgc=$(mkcg swc) cgd=$(mkcg swd)
start_cgperf moved -e page-faults,cpu-clock -G "$cgc,$cgd"
KNOWN_MOVE_TO="$TEST_CG/swd/cgroup.procs" run_in_cg swc taskset -c "$BURN_CPU" "$KNOWN" moves 2000 >"$TMP/moved.out"
pm=$LAST_PID
wait_stopped "$pm"
flt_total=$(proc_minflt "$pm")
kill -CONT "$pm"
wait "$pm" || fail "known moves failed"
flt_c=$(cat "$TMP/moved.out")
sleep 0.2
kill -INT "$CGPERF_PID"; wait "$CGPERF_PID" || fail "cgperf stat failed: $(cat "$TMP/moved.log")"
got_c=$(stat_csv_value "$TMP/moved.csv" page-faults "$cgc")
got_d=$(stat_csv_value "$TMP/moved.csv" page-faults "$cgd")
log "page-faults of a task that moved itself while it ran: c $got_c (minflt before the move $flt_c), d $got_d (after $((flt_total - flt_c)))"
[ "$flt_c" -ge 100000 ] || fail "the mover made only $flt_c faults before it moved"
assert_count "page-faults in the cgroup it left vs its minflt before the move" "$got_c" "$flt_c" 1 50
assert_count "page-faults in the cgroup it moved to vs its minflt after" "$got_d" "$((flt_total - flt_c))" 1 50

# A task that faults, then moves itself to another cgroup while it runs,
# nothing read in between: its faults are the first cgroup's (charged at the
# move), not the one it went to. The write sleeps (and so reads) when the
# kernel's cgroup lock is cold, whatever cgperf does: up to 10 tries for one
# where it did not.
cge=$(mkcg swe) cgf=$(mkcg swf)
for try in 1 2 3 4 5 6 7 8 9 10; do
	start_cgperf "selfmove$try" -e page-faults,cpu-clock -G "$cge,$cgf"
	KNOWN_MOVE_FROM="$TEST_CG/swe/cgroup.procs" KNOWN_MOVE_TO="$TEST_CG/swf/cgroup.procs" \
		run_in_cg swe taskset -c "$BURN_CPU" "$KNOWN" selfmove 500 >"$TMP/selfmove.out"
	pm=$LAST_PID
	wait_stopped "$pm"
	kill -CONT "$pm"
	wait "$pm" || fail "known selfmove failed"
	sleep 0.2
	kill -INT "$CGPERF_PID"; wait "$CGPERF_PID" || fail "cgperf stat failed: $(cat "$TMP/selfmove$try.log")"
	read -r m_before m_after slept <"$TMP/selfmove.out"
	got_e=$(stat_csv_value "$TMP/selfmove$try.csv" page-faults "$cge")
	got_f=$(stat_csv_value "$TMP/selfmove$try.csv" page-faults "$cgf")
	log "a self-move after faults (try $try, switches in the move: $slept): e $got_e (minflt before the move $m_before), f $got_f (after: $((m_after - m_before)) and its exit's)"
	[ "$m_before" -ge 500 ] || fail "the mover made only $m_before faults"
	# Its minflt also holds the ~60 faults its shell made before it
	# entered e (run_in_cg); broken, e would lose the 500 to f.
	assert_count "page-faults of the cgroup left vs the mover's minflt before" "$got_e" "$m_before" 1 100
	# After the move, the mover only exits (a few faults, past its minflt).
	awk -v g="$got_f" -v m="$((m_after - m_before))" 'BEGIN { exit !(g <= m + 50) }' ||
		fail "the cgroup moved to was charged $got_f page faults; the mover made $((m_after - m_before)) there before its exit"
	[ "$slept" != 0 ] || break
done
[ "$slept" = 0 ] || log "SKIP (part): the mover was switched out in its move in all 10 tries (a cold cgroup lock, or a busy CPU): the case was not exercised"
