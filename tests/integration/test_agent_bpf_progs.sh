# SPDX-License-Identifier: GPL-2.0-only
# The agent's bpf_programs rows: test programs (prog_runner) run a known
# number of times with BPF_PROG_TEST_RUN. A program loaded before the agent
# counts from the agent's first read (runs made before it, while someone
# else had the statistics on, are not in its rows); one loaded while the
# agent runs counts from its load. The CSV rows' runs sum to exactly the runs
# made, run_ns > 0, an excluded name gets no file, a program unloaded gets
# one final row and then none, the syslog messages (a real rsyslogd, TCP,
# RFC 5424) carry the same runs, and after the agent exits the kernel's BPF
# statistics are off again. Events inside the programs are off by default
# (bpf_programs.events): no line about them, no event columns, in CSV or
# syslog. With events: true (a second agent, include ["*"]): whether the
# kernel allows trampolines is asked without cgperf's code (tests/helpers/
# fexit_probe.c); refused (this CI machine): one line at start names the
# kernel's refusal, never again, and the files have no event columns;
# allowed: the columns are there, empty for A (no BTF function info), which
# is named with that reason. Either way the agent's own programs (its
# counting session's, by the ids of their pins) are logged with their runs
# but said to be its own, never profiled (empty event cells where there are
# columns), also when the session is adopted from its pins by the next
# agent. Event counts themselves: test_agent_prog_fentry.
source "$CGPERF_SRC/tests/lib/common.sh"
source "$CGPERF_SRC/tests/lib/prog_runner.sh"
stats_before=$(cat /proc/sys/kernel/bpf_stats_enabled)

run_cnt() { bpftool prog show id "$1" -j | python3 -c 'import json,sys; print(json.load(sys.stdin).get("run_cnt", 0))'; }
rsyslogd_start_tcp

# A: loaded before the agent; 300 runs while `cgperf stat -b` has the
# statistics on, so its totals are not 0 when the agent first reads it.
runner_start A cgperf_tprog
runner_start X cgperf_txprog
start_cgperf pre -b "$A_ID" --duration 30
runner A 300
kill -INT "$CGPERF_PID"; wait "$CGPERF_PID" || fail "cgperf stat -b failed: $(cat "$TMP/pre.log")"
[ "$(run_cnt "$A_ID")" = 300 ] || fail "A's run_cnt is $(run_cnt "$A_ID"), want 300"

krc=0; kernel=$("$CGPERF_BUILD/tests/fexit_probe") || krc=$?
log "independent probe: $kernel"
case $krc in 0 | 3) ;; *) fail "the independent fexit probe could not run: $kernel" ;; esac

agent_yaml "$TMP/a.yaml" "$TMP/csv" "tcp://127.0.0.1:$TCP_PORT" cgperf-test
printf 'bpf_programs:\n  include: ["cgperf_t*"]\n  exclude: ["cgperf_tx*"]\n' >>"$TMP/a.yaml"
start_agent a "$TMP/a.yaml"
grep -q "logging 1 BPF programs" "$TMP/a.log" || fail "agent: $(cat "$TMP/a.log")"
A_CSV="$TMP/csv/bpf-prog_cgperf_tprog_$A_ID.csv"
wait_rows "$A_CSV" 0
runner A 1000; runner X 500
n=$(rows "$A_CSV"); wait_rows "$A_CSV" "$n"
runner A 234

# B: loaded while the agent runs, run at once: counted from its load.
runner_start B cgperf_tprog2
runner B 77
B_CSV="$TMP/csv/bpf-prog_cgperf_tprog2_$B_ID.csv"
wait_rows "$B_CSV" 0
n=$(rows "$B_CSV"); wait_rows "$B_CSV" "$n"
# The agent held still in its loop's poll (not in a collection, which takes
# its time first and may hold B's fd) while B goes (freed an RCU grace
# period later): every row of B after gone_at is written after B was gone.
stop_in_loop "$AGENT_PID"
runner_exit B
prog_gone() { ! bpftool prog show id "$B_ID" >/dev/null 2>&1; }
poll $((600 * ${CGPERF_SLOW_FACTOR:-1})) 0.05 prog_gone || fail "program B ($B_ID) still loaded 30 s after its runner exited"
gone_at=$(date +%s.%N)
kill -CONT "$AGENT_PID"
# Two more rows of A: B had two collections to write more than one last row.
n=$(rows "$A_CSV"); wait_rows "$A_CSV" $((n + 1))
kill -TERM "$AGENT_PID"; wait "$AGENT_PID" || fail "agent failed: $(tail -5 "$TMP/a.log")"
sleep 0.5

# Events inside programs are off: not a word about them, no columns.
! grep -E "need BPF trampolines|events inside the programs|counting events inside" "$TMP/a.log" ||
	fail "events inside programs while bpf_programs.events is off"
header=$(head -1 "$A_CSV")
[ "$header" = timestamp,prog_id,prog_name,prog_tag,prog_type,interval_ms,runs,run_ns ] ||
	fail "event columns while bpf_programs.events is off: $header"

[ -z "$(ls "$TMP/csv" | grep txprog)" ] || fail "an excluded program got a file: $(ls "$TMP/csv")"
python3 - "$TMP" "$A_ID" "$B_ID" "$gone_at" <<'PY' || fail "BPF program rows are wrong (see above)"
import csv, datetime, os, re, sys
tmp, a, b, gone_at = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
def load(name, id):
    rows = list(csv.DictReader(open('%s/csv/bpf-prog_%s_%s.csv' % (tmp, name, id), newline='')))
    assert rows and all(r['prog_id'] == id and r['prog_name'] == name and
                        r['prog_type'] == 'socket_filter' and re.fullmatch('[0-9a-f]{16}', r['prog_tag'])
                        for r in rows), rows
    return rows
ts = lambda r: datetime.datetime.strptime(r['timestamp'], '%Y-%m-%dT%H:%M:%S.%fZ').replace(
    tzinfo=datetime.timezone.utc).timestamp()
ra, rb = load('cgperf_tprog', a), load('cgperf_tprog2', b)
for name, rows, want in (('A', ra, 1234), ('B', rb, 77)):
    runs = sum(int(r['runs']) for r in rows)
    ns = sum(int(r['run_ns']) for r in rows)
    print('# %s: %d rows, %d runs, %d ns' % (name, len(rows), runs, ns))
    assert runs == want, '%s: %d runs in the rows, %d made' % (name, runs, want)
    assert ns > 0, '%s: no run time' % name
    assert all(int(r['run_ns']) > 0 for r in rows if int(r['runs'])), rows
after = [r for r in rb if ts(r) > gone_at]
assert len(after) == 1, 'B: %d rows after it was unloaded, want its one final row' % len(after)

SD = re.compile(r'^<\d+>1 \S+ \S+ cgperf-test \S+ (\S+) \[cgperf@\d+((?: [^ =\]]+="(?:[^"\\\]]|\\.)*")*)\]')
PARAM = re.compile(r' ([^ =\]]+)="((?:[^"\\\]]|\\.)*)"')
msgs = []
for line in open(tmp + '/rs/out.log', errors='replace') if os.path.exists(tmp + '/rs/out.log') else []:
    m = SD.match(line)
    if m and m.group(1) == 'bpf-prog':
        msgs.append(dict(PARAM.findall(m.group(2))))
ma = [m for m in msgs if m['prog_id'] == a]
assert ma and all(m['prog_name'] == 'cgperf_tprog' and m['prog_type'] == 'socket_filter' for m in ma), msgs
assert [int(m['seq']) for m in ma] == list(range(1, len(ma) + 1)), [m['seq'] for m in ma]
assert sum(int(m['runs']) for m in ma) == 1234, 'syslog: %d runs of A' % sum(int(m['runs']) for m in ma)
assert [m['runs'] for m in ma] == [r['runs'] for r in ra], 'syslog and CSV rows differ'
assert not [m for m in ma if 'counted_runs' in m], 'counted_runs param: %r' % ma
assert not [m for m in msgs if m['prog_name'] == 'cgperf_txprog'], 'an excluded program was logged'
print('# syslog: %d messages of A' % len(ma))
PY

# Off again: A's runs are not counted any more.
[ "$(cat /proc/sys/kernel/bpf_stats_enabled)" = "$stats_before" ] || fail "kernel.bpf_stats_enabled changed"
if [ "$stats_before" = 0 ]; then
	cnt=$(run_cnt "$A_ID"); runner A 100
	[ "$(run_cnt "$A_ID")" = "$cnt" ] || fail "BPF statistics still on after the agent exited ($cnt -> $(run_cnt "$A_ID"))"
fi
log "ok: exact runs from the first read and from the load, exclude, final row, syslog, statistics off again, no events inside programs by default"

# Events on, every program on the host. Run 1 loads (and pins) the counting
# session, run 2 adopts it from its pins.
agent_yaml "$TMP/e.yaml" "$TMP/csv-e"
printf 'bpf_programs:\n  include: ["*"]\n  events: true\n' >>"$TMP/e.yaml"
cols=
[ "$krc" = 3 ] || cols=,counted_runs,cpu-clock,cpu-clock_running_pct,context-switches,context-switches_running_pct
for run in 1 2; do
	start_agent e$run "$TMP/e.yaml"
	elog="$TMP/e$run.log"
	[ "$run" = 1 ] || grep -q "adopted the pinned counting session" "$elog" || fail "run 2 did not adopt: $(cat "$elog")"
	own=$(for f in "$CGPERF_BPFFS_DIR"/instances/e/prog_*; do bpftool prog show pinned "$f" -j; echo; done |
		python3 -c 'import json,sys; print(" ".join(str(json.loads(l)["id"]) for l in sys.stdin if l.strip()))')
	sync_id=$(bpftool prog show pinned "$CGPERF_BPFFS_DIR/instances/e/prog_on_sync" -j | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
	log "run $run: the agent's own programs: $own"
	[ -n "$own" ] && [[ " $own " == *" $sync_id "* ]] || fail "no pinned programs of the agent's session"
	SYNC_CSV="$TMP/csv-e/bpf-prog_on_sync_$sync_id.csv"
	n=$(rows "$SYNC_CSV"); wait_rows "$SYNC_CSV" $((n + 1))
	kill -TERM "$AGENT_PID"; wait "$AGENT_PID" || fail "agent failed: $(tail -5 "$elog")"
	said=$(grep -c "need BPF trampolines" "$elog" || true)
	if [ "$krc" = 3 ]; then
		[ "$said" = 1 ] || fail "run $run: the refusal was said $said times: $(grep trampolines "$elog")"
		line=$(grep "need BPF trampolines" "$elog")
		grep -q "bpf_programs: event counts inside BPF programs need BPF trampolines (fentry/fexit), and trampolines unavailable: .*: ${kernel##*: }; logging run counts and run time only" <<<"$line" ||
			fail "the line does not name the kernel's refusal ($kernel): $line"
	else
		[ "$said" = 0 ] || fail "trampolines work, yet: $(grep trampolines "$elog")"
		# One such line a minute (agent_prof.c not_profiled): the test's
		# programs without BTF (A, B, X) are tried in an order their runs
		# decide, so the line names whichever came first.
		grep -Eq "BPF program [0-9]+ \(cgperf_t(x)?prog2?\): no event counts inside it: no BTF function info" "$elog" ||
			fail "no program without BTF named with its reason: $(grep -i "cgperf_t" "$elog")"
	fi
	for id in $own; do
		grep -q "logging BPF program $id (.*, cgperf's own: no events counted inside it)" "$elog" ||
			fail "run $run: the agent's own program $id is not said to be its own: $(grep "BPF program $id " "$elog")"
		! grep -q "BPF program $id (.*): counting events inside it" "$elog" || fail "run $run: the agent profiled its own program $id"
	done
	python3 - "$TMP/csv-e" "$sync_id" "$cols" $own <<'PY' || fail "run $run: the agent's own programs' rows are wrong (see above)"
import csv, glob, sys
d, sync, cols, own = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
events = cols.split(',')[1:]
for id in own:
    files = glob.glob('%s/bpf-prog_*_%s.csv' % (d, id))
    if not files:
        continue  # an on_fork or on_free that did not load
    rows = list(csv.DictReader(open(files[0], newline='')))
    assert list(rows[0].keys())[8:] == events, 'columns of %s: %r' % (id, list(rows[0].keys()))
    assert all(r[c] == '' for r in rows for c in events), 'event cells of our own %s: %r' % (id, rows)
    if id == sync:
        print('# on_sync (%s): %d rows, %d runs' % (id, len(rows), sum(int(r['runs']) for r in rows)))
        assert sum(int(r['runs']) for r in rows) > 0, 'our on_sync has no runs logged'
PY
done
log "ok: events on: $([ "$krc" = 3 ] && echo "the refusal said once per agent" || echo "columns, A named"), the agent's own programs logged with their runs and never profiled, loaded and adopted"
