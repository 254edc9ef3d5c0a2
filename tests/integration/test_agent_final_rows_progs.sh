# SPDX-License-Identifier: GPL-2.0-only
# A BPF program's last row follows the rules of a cgroup's final row
# (test_agent_final_rows, docs/AGENT.md "BPF programs"). The CSV directory
# is a 64 KiB tmpfs, filled after a live cgroup's file got its page (its rows
# still fit, one per collection: they count the collections) and before the
# test programs are loaded (none of their rows fits).
# A. unloaded while the disk is full: the collection that finds it gone
#    cannot write its final row; once there is space a retry writes it, once,
#    with every run made;
# C. still full: tried again at each of the 10 collections after the one
#    that found it gone (which is not a try), then given up with one line;
# B. the agent exits (a persistent one: the programs' statistics end with
#    it anyway) with a program gone and one live, neither row fits: both are
#    given up at once "at the end of the counting session", and counted.
# What must happen between two collections happens with the agent stopped
# (SIGSTOP), as in test_agent_final_rows.
source "$CGPERF_SRC/tests/lib/common.sh"
source "$CGPERF_SRC/tests/lib/prog_runner.sh"
source "$CGPERF_SRC/tests/lib/small_disk.sh"

# conf NAME: an agent config (1 s intervals, CSV files on the small disk)
# with bpf_programs.
# Collections are counted by a live cgroup's rows: each in the file at once.
CSV_FLUSH=0
conf() {
	agent_yaml "$TMP/$1.yaml" "$small/csv"
	printf 'bpf_programs:\n  include: ["cgperf_f*"]\n' >>"$TMP/$1.yaml"
}
# live_then_fill NAME: a new live cgroup whose file gets its first page,
# then the disk is filled. Its rows (one per collection, written before
# any program's row of the same collection) count the collections; a new
# file per case, so its page always has room.
live_then_fill() {
	l=$(mkcg "system.slice/live-$1.service")
	lfile=
	for _ in $(seq 50); do
		lfile=$(grep -l -- "$l," "$small"/csv/*.csv 2>/dev/null | head -1) || true
		[ -n "$lfile" ] && break
		sleep 0.1
	done
	[ -n "$lfile" ] || fail "$1: no CSV file of $l before the fill: $(ls "$small/csv")"
	fill
}
collections() { grep -c -- "$l," "$lfile"; }
collections_ge() { [ "$(collections)" -ge "$1" ]; }
# tracked: two more collections, so a program loaded before is logged.
tracked() {
	local n
	n=$(collections)
	poll 100 0.05 collections_ge $((n + 2)) || fail "no collections"
}
prog_file() { echo "$small/csv/bpf-prog_cgperf_$1_$2.csv"; }

conf p
start_agent p "$TMP/p.yaml"

# A. Gone while full, then space comes back: a retry writes its final row.
live_then_fill a
runner_start A cgperf_fa
runner A 300
wait_for_line "$TMP/p.log" "No space left on device" 10
tracked
kill -STOP "$AGENT_PID"
n0=$(collections)
runner_exit A
kill -CONT "$AGENT_PID"
tracked # the first of the two found it gone: done with it when the second one is
kill -STOP "$AGENT_PID"
[ "$(rows "$(prog_file fa "$A_ID")")" = 0 ] || fail "A: a row was written on a full disk"
! grep -q "gave up" "$TMP/p.log" || fail "A: given up at once: $(grep "gave up" "$TMP/p.log")"
unfill
kill -CONT "$AGENT_PID"
wait_rows "$(prog_file fa "$A_ID")" 0
tracked
python3 - "$(prog_file fa "$A_ID")" <<'PY' || fail "A: the final row is wrong"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline='')))
assert len(rows) == 1, '%d rows, not its one final row' % len(rows)
assert rows[0]['runs'] == '300', 'the final row holds %s runs of 300' % rows[0]['runs']
PY
log "ok: A: the final row written by a retry, once, with all 300 runs"

# C. Gone while full, and it stays full.
rmdir "$TEST_CG/system.slice/live-a.service"
live_then_fill c
runner_start C cgperf_fc
runner C 10
tracked
kill -STOP "$AGENT_PID"
n0=$(collections)
runner_exit C
kill -CONT "$AGENT_PID"
poll 400 0.05 grep -q "gave up the last row of BPF program" "$TMP/p.log" || fail "C: never given up"
n=$(collections)
grep -q "gave up the last row of BPF program $C_ID (cgperf_fc) after 10 retries" "$TMP/p.log" ||
	fail "C: $(grep "gave up" "$TMP/p.log")"
# The collection that found it gone, then 10 retries.
[ $((n - n0)) = 11 ] || fail "C: given up at the $((n - n0))th collection after the unload, not the 11th"
log "ok: C: given up after the 10 collections that followed the one that found it gone"

kill -TERM "$AGENT_PID"; wait "$AGENT_PID" || fail "agent failed: $(tail -5 "$TMP/p.log")"
grep -q "summary: .* 1 final rows lost" "$TMP/p.log" || fail "C: $(grep summary "$TMP/p.log")"

# B. An agent exits with B gone and D live, neither row fits (one line:
#    the lines are rate-limited; both counted).
unfill
rmdir "$TEST_CG/system.slice/live-c.service"
conf q
start_agent q "$TMP/q.yaml"
live_then_fill b
runner_start B cgperf_fb
runner_start D cgperf_fd
runner B 5; runner D 5
tracked
kill -STOP "$AGENT_PID"
runner_exit B
kill -TERM "$AGENT_PID"
kill -CONT "$AGENT_PID"
wait "$AGENT_PID" || fail "agent failed: $(tail -5 "$TMP/q.log")"
n=$(grep -c "gave up the last row of BPF program" "$TMP/q.log" || true)
[ "$n" = 1 ] || fail "B: $n lines about lost rows: $(grep "gave up" "$TMP/q.log")"
grep -Eq "gave up the last row of BPF program ($B_ID \\(cgperf_fb\\)|$D_ID \\(cgperf_fd\\)) at the end of the counting session" "$TMP/q.log" ||
	fail "B: $(grep "gave up" "$TMP/q.log")"
grep -q "summary: .* 2 final rows lost" "$TMP/q.log" || fail "B: $(grep summary "$TMP/q.log")"
runner_exit D
unfill
log "ok: B: at exit, the rows that do not fit are given up at once, named and counted"
