# SPDX-License-Identifier: GPL-2.0-only
# The agent's bpf_programs rows with events counted inside the programs
# (bpf_programs.events: true; fentry/fexit, agent/agent_prof.c). T: a program with BTF function info
# (tests/helpers/prog_runner.c "btf"), N: one without. Whether the kernel
# allows trampolines is asked without cgperf's code (tests/helpers/
# fexit_probe.c):
# * refused (this CI machine): the agent said so once, naming the kernel's
#   errno text, its rows are right without event columns; then SKIP;
# * allowed: T's 1000 runs are all counted (counted_runs = runs), cpu-clock
#   inside them is above 0 and at most the run time the kernel measured; N is
#   named with its reason and has empty event cells; T left idle is let go
#   (its runs made before the agent attaches again are in runs only), and
#   when its owner exits T is not kept alive by the agent: it gets its final
#   row and its id is gone from the kernel within a few intervals (its
#   last row may come a collection later, empty: the kernel frees it a
#   grace period after the agent lets go).
source "$CGPERF_SRC/tests/lib/common.sh"
source "$CGPERF_SRC/tests/lib/prog_runner.sh"

exists() { bpftool prog show id "$1" >/dev/null 2>&1; }
attached() { grep -c "BPF program $T_ID (cgperf_tbtf): counting events inside it (fentry/fexit on its function 'cgperf_tbtf')" "$TMP/a.log" || true; }
# wait_attached N: until the agent attached to T for the Nth time.
wait_attached() {
	local i
	for ((i = 0; i < 50; i++)); do [ "$(attached)" -ge "$1" ] && return 0; sleep 0.1; done
	fail "T was not attached a ${1}th time: $(tail -20 "$TMP/a.log")"
}

runner_start N cgperf_tnobtf
runner_start T cgperf_tbtf btf
agent_yaml "$TMP/a.yaml" "$TMP/csv"
printf 'bpf_programs:\n  include: ["cgperf_t*btf"]\n  events: true\n' >>"$TMP/a.yaml"
start_agent a "$TMP/a.yaml"
T_CSV="$TMP/csv/bpf-prog_cgperf_tbtf_$T_ID.csv"
wait_rows "$T_CSV" 0

krc=0; kernel=$("$CGPERF_BUILD/tests/fexit_probe") || krc=$?
log "independent probe: $kernel"
case $krc in
3)
	runner T 1000
	n=$(rows "$T_CSV"); wait_rows "$T_CSV" $((n + 1))
	kill -TERM "$AGENT_PID"; wait "$AGENT_PID" || fail "agent failed: $(tail -5 "$TMP/a.log")"
	[ "$(grep -c "need BPF trampolines" "$TMP/a.log")" = 1 ] || fail "not said once: $(cat "$TMP/a.log")"
	grep -q "trampolines unavailable: .*: ${kernel##*: }; logging run counts and run time only" "$TMP/a.log" ||
		fail "the agent's line does not name the kernel's refusal ($kernel)"
	! grep -q "counted_runs" "$T_CSV" || fail "event columns without event counts"
	runs=$(awk -F, 'NR > 1 { s += $7 } END { print s }' "$T_CSV")
	[ "$runs" = 1000 ] || fail "T: $runs runs in the rows, 1000 made"
	skip "events inside BPF programs need BPF trampolines; the kernel refused: $kernel"
	;;
0) ;;
*) fail "the independent fexit probe could not run: $kernel" ;;
esac

# Attached at first sight (agent start), let go at the first collection
# (it had not run): runs made while it is not attached are runs, not
# counted runs. One run, and it is attached again at the next collection;
# 1000 then are counted (the collection after them sees it ran: it stays).
wait_attached 1
grep -q "BPF program $N_ID (cgperf_tnobtf): no event counts inside it: no BTF function info" "$TMP/a.log" ||
	fail "the program without BTF is not named with its reason"
runner T 1
wait_attached 2
runner T 1000
# Idle for two collections: let go; 200 runs before it is attached again,
# 300 after.
n=$(rows "$T_CSV"); wait_rows "$T_CSV" $((n + 2))
runner T 200
wait_attached 3
runner T 300
n=$(rows "$T_CSV"); wait_rows "$T_CSV" "$n"
# The owner unloads T: gone from the kernel within a few intervals.
runner_exit T
gone_at=$(date +%s.%N)
poll 50 0.1 eval '! exists "$T_ID"' || fail "T ($T_ID) is kept alive after its owner exited"
gone_seen=$(date +%s.%N)
log "T gone $(python3 -c "print('%.1f' % ($gone_seen - $gone_at))") s after its owner exited"
sleep 2.5
kill -TERM "$AGENT_PID"; wait "$AGENT_PID" || fail "agent failed: $(tail -5 "$TMP/a.log")"

python3 - "$TMP/csv" "$T_ID" "$N_ID" "$gone_seen" <<'PY' || fail "event counts are wrong (see above)"
import csv, datetime, glob, os, sys
d, t, n, gone = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
rows = lambda id: list(csv.DictReader(open(glob.glob('%s/bpf-prog_*_%s.csv' % (d, id))[0])))
rt, rn = rows(t), rows(n)
s = lambda c: sum(int(r[c] or 0) for r in rt)
print('# T: %d rows, runs %d, counted %d, cpu-clock %d ns, run time %d ns, cs %d' %
      (len(rt), s('runs'), s('counted_runs'), s('cpu-clock'), s('run_ns'), s('context-switches')))
assert s('runs') == 1501, 'runs %d of 1501' % s('runs')
assert s('counted_runs') == 1300, 'counted runs %d, want 1000 + 300' % s('counted_runs')
assert 0 < s('cpu-clock') <= s('run_ns'), 'cpu-clock inside the runs not within the run time'
# PREEMPT_RT runs BPF programs preemptible (migrate_disable only): a run
# may be switched out there; elsewhere never.
preempt_rt = os.path.exists('/sys/kernel/realtime') and open('/sys/kernel/realtime').read().strip() == '1'
assert s('context-switches') <= (s('counted_runs') if preempt_rt else 0), 'context switches inside a test run'
assert all(r['counted_runs'] == '' and r['cpu-clock'] == '' for r in rn), rn
ts = lambda r: datetime.datetime.strptime(r['timestamp'], '%Y-%m-%dT%H:%M:%S.%fZ').replace(
    tzinfo=datetime.timezone.utc).timestamp()
# Its counts were all read before it went (in the collection that let it
# go). The kernel frees a program a grace period after its last holder lets
# go, so the collection that finds its id gone may come one after: then that
# one row, the last, holds nothing.
late = [r for r in rt if ts(r) > gone]
assert len(late) <= 1 and all(int(r['runs']) == 0 and int(r['counted_runs'] or 0) == 0 for r in late), \
    'T: rows with runs after it was gone (%.3f): %r' % (gone, late)
PY
log "ok: runs counted inside T, N named, idle T detached and attached again, T not kept alive"
