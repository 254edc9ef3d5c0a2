# The agent's bpf_programs rows: test programs (prog_runner) run a known
# number of times with BPF_PROG_TEST_RUN. A program loaded before the agent
# counts from the agent's first read (runs made before it, while someone
# else had the statistics on, are not in its rows); one loaded while the
# agent runs counts from its load. The CSV rows' runs sum to exactly the runs
# made, run_ns > 0, an excluded name gets no file, a program unloaded gets
# one final row and then none, the syslog messages (a real rsyslogd, TCP,
# RFC 5424) carry the same runs, and after the agent exits the kernel's BPF
# statistics are off again. Events inside the programs: whether the kernel
# allows trampolines is asked without cgperf's code (tests/helpers/
# fexit_probe.c); refused (this CI machine): one line at start names the
# kernel's refusal, never again, and the files have no event columns;
# allowed: the columns are there, empty for these programs (no BTF function
# info), and the first is named with that reason. Event counts themselves:
# test_agent_prog_fentry.
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
runner_exit B
gone_at=$(date +%s.%N)
# Two more rows of A: B had two collections to write more than one last row.
n=$(rows "$A_CSV"); wait_rows "$A_CSV" $((n + 1))
kill -TERM "$AGENT_PID"; wait "$AGENT_PID" || fail "agent failed: $(tail -5 "$TMP/a.log")"
sleep 0.5

# Events inside the programs: said once at start (the probe's reason), or
# columns (empty here: no BTF function info).
said=$(grep -c "need BPF trampolines" "$TMP/a.log" || true)
header=$(head -1 "$A_CSV")
if [ "$krc" = 3 ]; then
	[ "$said" = 1 ] || fail "the refusal was said $said times: $(grep trampolines "$TMP/a.log")"
	line=$(grep "need BPF trampolines" "$TMP/a.log")
	grep -q "bpf_programs: event counts inside BPF programs need BPF trampolines (fentry/fexit), and trampolines unavailable: .*: ${kernel##*: }; logging run counts and run time only" <<<"$line" ||
		fail "the line does not name the kernel's refusal ($kernel): $line"
	[ "$header" = timestamp,prog_id,prog_name,prog_tag,prog_type,interval_ms,runs,run_ns ] ||
		fail "event columns without event counts: $header"
	want_cols=
else
	[ "$said" = 0 ] || fail "trampolines work, yet: $(grep trampolines "$TMP/a.log")"
	want_cols=,counted_runs,cpu-clock,cpu-clock_running_pct,context-switches,context-switches_running_pct
	[ "$header" = "timestamp,prog_id,prog_name,prog_tag,prog_type,interval_ms,runs,run_ns$want_cols" ] ||
		fail "no event columns where trampolines work: $header"
	grep -q "BPF program $A_ID (cgperf_tprog): no event counts inside it: no BTF function info" "$TMP/a.log" ||
		fail "the program without BTF is not named with its reason"
fi

[ -z "$(ls "$TMP/csv" | grep txprog)" ] || fail "an excluded program got a file: $(ls "$TMP/csv")"
python3 - "$TMP" "$A_ID" "$B_ID" "$gone_at" "$want_cols" <<'PY' || fail "BPF program rows are wrong (see above)"
import csv, datetime, os, re, sys
tmp, a, b, gone_at = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
events = sys.argv[5].split(',')[1:]
def load(name, id):
    rows = list(csv.DictReader(open('%s/csv/bpf-prog_%s_%s.csv' % (tmp, name, id), newline='')))
    assert rows and all(r['prog_id'] == id and r['prog_name'] == name and
                        r['prog_type'] == 'socket_filter' and re.fullmatch('[0-9a-f]{16}', r['prog_tag'])
                        for r in rows), rows
    # No BTF function info: event cells empty, where there are event columns.
    assert all(r[c] == '' for r in rows for c in events), rows
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
assert all(('counted_runs' in m) == bool(events) for m in ma), 'counted_runs param: %r' % ma
assert all(m.get(c, '') == '' for m in ma for c in events), ma
assert not [m for m in msgs if m['prog_name'] == 'cgperf_txprog'], 'an excluded program was logged'
print('# syslog: %d messages of A' % len(ma))
PY

# Off again: A's runs are not counted any more.
[ "$(cat /proc/sys/kernel/bpf_stats_enabled)" = "$stats_before" ] || fail "kernel.bpf_stats_enabled changed"
if [ "$stats_before" = 0 ]; then
	cnt=$(run_cnt "$A_ID"); runner A 100
	[ "$(run_cnt "$A_ID")" = "$cnt" ] || fail "BPF statistics still on after the agent exited ($cnt -> $(run_cnt "$A_ID"))"
fi
log "ok: exact runs from the first read and from the load, exclude, final row, syslog, statistics off again, events inside programs said once or in their columns"
