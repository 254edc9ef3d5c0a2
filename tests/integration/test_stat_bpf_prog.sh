# SPDX-License-Identifier: GPL-2.0-only
# cgperf stat -b / --bpf-prog: BPF programs' run counts and run time from
# the kernel's BPF statistics. A program loaded here and run a known number
# of times (BPF_PROG_TEST_RUN) is counted exactly, with run time > 0, and gets
# a final line when it goes away; the statistics are off again afterwards;
# a program on sched_switch (another cgperf session's follower) runs once
# per context switch, as `cgperf stat -a -e cs` counts them; bad ids and
# globs are usage errors naming them.
source "$CGPERF_SRC/tests/lib/common.sh"
RUNNER="$CGPERF_BUILD/tests/prog_runner"
stats_before=$(cat /proc/sys/kernel/bpf_stats_enabled)

coproc RUN { exec "$RUNNER"; }
STARTED_PIDS+=("$RUN_PID")
read -r -u "${RUN[0]}" id || fail "prog_runner did not start"
log "test program id $id"

runner() { # runner N: run the test program N times
	echo "run $1" >&"${RUN[1]}"
	read -r -u "${RUN[0]}" reply; [ "$reply" = "ran $1" ] || fail "prog_runner: $reply"
}
run_cnt() { bpftool prog show id "$id" -j | python3 -c 'import json,sys; print(json.load(sys.stdin).get("run_cnt", 0))'; }

# ---- exact run counts; the statistics are off again afterwards -----------------
start_bg "$CGPERF" stat -v -b "$id" -I 200 -x, -o "$TMP/b.csv" 2>"$TMP/b.log"
wait_for_line "$TMP/b.log" "counting started" 10
# No trampolines: one line; with them: the program (no BTF) named.
grep -q "need BPF trampolines\|no event counts inside it: no BTF function info" "$TMP/b.log" ||
	fail "no line on event counts: $(cat "$TMP/b.log")"
runner 1000; sleep 0.3; runner 234; sleep 0.3
kill -INT "$LAST_PID"; wait "$LAST_PID" || fail "cgperf stat -b failed: $(cat "$TMP/b.log")"
sum_runs() { # sum_runs FILE: runs and run_ns of the test program, and its gone lines
	python3 - "$1" "$id" <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r['prog_id'] == sys.argv[2]]
assert all(r['prog_name'] == 'cgperf_tprog' and r['prog_type'] == 'socket_filter' for r in rows), rows
gone = [i for i, r in enumerate(rows) if r['state'] == 'gone']
assert gone in ([], [len(rows) - 1]), "a gone line must be the last one"
print(sum(int(r['runs']) for r in rows), sum(int(r['run_ns']) for r in rows), len(gone))
PY
}
read -r runs ns gone <<<"$(sum_runs "$TMP/b.csv")"
log "$runs runs, $ns ns"
[ "$runs" = 1234 ] || fail "counted $runs runs of 1234"
[ "$ns" -gt 0 ] || fail "no run time"
if [ "$stats_before" = 0 ]; then
	cnt=$(run_cnt); runner 100
	[ "$(run_cnt)" = "$cnt" ] || fail "BPF statistics still on after cgperf exited ($cnt -> $(run_cnt))"
fi

# ---- a program that goes away gets its final line -----------------------------
start_bg "$CGPERF" stat -v -b "$id" -I 200 -x, -o "$TMP/g.csv" 2>"$TMP/g.log"
wait_for_line "$TMP/g.log" "counting started" 10
runner 50
# The 50 runs read by an interval before the program goes (what runs after
# the last read is lost with it).
ran_50() { [ "$(sum_runs "$TMP/g.csv" 2>/dev/null | awk '{ print $1 }')" = 50 ]; }
poll $((600 * ${CGPERF_SLOW_FACTOR:-1})) 0.05 ran_50 || fail "the 50 runs never showed: $(cat "$TMP/g.csv")"
echo exit >&"${RUN[1]}"; wait "$RUN_PID" || fail "prog_runner failed"
# Its final line once the kernel has freed it (an RCU grace period later).
gone_line() { [ "$(sum_runs "$TMP/g.csv" | awk '{ print $3 }')" = 1 ]; }
poll $((600 * ${CGPERF_SLOW_FACTOR:-1})) 0.05 gone_line || true
kill -INT "$LAST_PID"; wait "$LAST_PID" || fail "cgperf stat -b failed: $(cat "$TMP/g.log")"
read -r runs ns gone <<<"$(sum_runs "$TMP/g.csv")"
[ "$runs" = 50 ] && [ "$gone" = 1 ] || fail "program gone: $runs runs, $gone final lines (want 50, 1)"

# ---- a sched_switch program: its runs as the kernel counts them -------------
start_cgperf cs -a -e cs --duration 30 # outlives the stat -b below; stopped after it
# The session's own on_switch (another cgperf on the host may run one too).
prog=$(held_progs "$CGPERF_PID" | while read -r id; do
	bpftool prog show id "$id" -j | python3 -c 'import json, sys; p = json.load(sys.stdin); print(p["id"]) if p.get("name") == "on_switch" else None'
done | tail -1)
[ -n "$prog" ] || fail "no on_switch program of the cgperf stat session"
# stat -b against the kernel's own run count of the program (its
# statistics on while stat -b runs): at least what the kernel counted over
# a window inside stat -b's, at most all it counted from before stat -b
# started to after it ended, whatever the load. (/proc/stat's ctxt is no
# oracle for the runs here: this VM's kernel hides some switches from the
# tracepoint, a quarter to five sixths of them under load.)
prog_runs() { bpftool prog show id "$prog" -j | python3 -c 'import json,sys; print(json.load(sys.stdin).get("run_cnt", 0))'; }
R0=$(prog_runs)
start_bg "$CGPERF" stat -v -b "$prog" -x, -o "$TMP/sw.csv" 2>"$TMP/sw.log"
sw_pid=$LAST_PID
wait_for_line "$TMP/sw.log" "counting started" 10
r0=$(prog_runs)
sleep 1
r1=$(prog_runs)
kill -INT "$sw_pid"; wait "$sw_pid" || fail "$(cat "$TMP/sw.log")"
R1=$(prog_runs)
kill -INT "$CGPERF_PID"; wait "$CGPERF_PID" || fail "cgperf stat -a -e cs failed"
runs=$(python3 -c "import csv; print(sum(int(r['runs']) for r in csv.DictReader(open('$TMP/sw.csv'))))")
log "on_switch ran $((r1 - r0)) times in 1 s, $((R1 - R0)) around stat -b; cgperf stat -b counted $runs"
[ $((r1 - r0)) -gt 0 ] || fail "on_switch never ran in a second"
# stat -b's own count: its window holds the inner one, and lies within
# the time the kernel counted runs for it (statistics on from its start).
[ "$runs" -ge $((r1 - r0)) ] && [ "$runs" -le $((R1 - R0)) ] ||
	fail "cgperf stat -b counted $runs runs: not between $((r1 - r0)) (a window it holds) and $((R1 - R0)) (all the kernel counted)"

# ---- bad input -------------------------------------------------------------
for args in "-b 4294967295" "-b 12x" "--bpf-prog no-such-program-*" "-b $prog -a"; do
	rc=0; "$CGPERF" stat $args --duration 0.1 >/dev/null 2>"$TMP/err" || rc=$?
	[ "$rc" = 2 ] || fail "cgperf stat $args: exit $rc, want 2"
	log "cgperf stat $args: $(head -1 "$TMP/err")"
	case $args in
	"-b 4294967295") grep -q "no BPF program with id 4294967295" "$TMP/err" ;;
	"-b 12x") grep -q "'12x' is not a BPF program id" "$TMP/err" ;;
	--bpf-prog*) grep -q "no BPF program is named like 'no-such-program-\*'" "$TMP/err" ;;
	*) grep -q "take no other target" "$TMP/err" ;;
	esac || fail "cgperf stat $args did not say why: $(cat "$TMP/err")"
done
log "ok: exact run counts, a final line for a program gone, statistics off again"
