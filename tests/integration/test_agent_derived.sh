# SPDX-License-Identifier: GPL-2.0-only
# The agent's derived columns (outputs.csv.derived, outputs.syslog.derived):
# cpu_cores of a container burning one CPU, summed over its rows, against the
# cgroup's cpu.stat; every row's cpu_cores is its cpu-clock over its interval;
# ipc/cpi follow instructions/cycles where the host has a PMU and are empty
# (never 0) with one warning where it has not; the syslog params carry the
# CSV's cells (a real rsyslogd over TCP); check-config refuses a metric whose
# events are not counted; a changed `derived` list starts a new file (the old
# header's file rotated), never a file with two headers.
source "$CGPERF_SRC/tests/lib/common.sh"

rsyslogd_start_tcp

# Does this host count instructions at all? (perf, not cgperf, says.)
PMU=0
perf stat -e instructions -x, -o "$TMP/pmu.txt" true 2>/dev/null &&
	grep -q '^[0-9]' "$TMP/pmu.txt" && PMU=1
log "hardware PMU: $PMU"

conf() { # conf FILE CSV_DERIVED
	cat >"$1" <<EOF
instance: derived
interval: 1s
events: [cpu-clock, context-switches, cycles, instructions]
cgroups:
  root: "$TEST_CG_REL"
  include: ["$TEST_CG_REL/system.slice/*"]
outputs:
  csv:
    directory: $TMP/csv
    derived: [$2]
  syslog:
    target: tcp://127.0.0.1:$TCP_PORT
    format: rfc5424
    app_name: cgperf-derived
    derived: [cpu_cores, ipc]
EOF
}

# check-config: a metric without its events is a config error, located.
printf 'events: [cpu-clock]\noutputs:\n  csv:\n    derived: [ipc]\n' >"$TMP/bad.yaml"
rc=0; out=$("$CGPERF" check-config "$TMP/bad.yaml" 2>&1) || rc=$?
[ "$rc" != 0 ] || fail "check-config accepted derived ipc without cycles/instructions"
echo "$out" | grep -q "bad.yaml:4:5: outputs.csv.derived: ipc needs the events instructions and cycles" ||
	fail "check-config's message: $out"

conf "$TMP/a.yaml" "cpu_cores, ipc, cpi"
"$CGPERF" check-config "$TMP/a.yaml" >/dev/null || fail "check-config refused $TMP/a.yaml"
c_rel="system.slice/docker-$(printf '%064x' 7).scope"
mkcg system.slice >/dev/null
c=$(mkcg "$c_rel")
start_agent a "$TMP/a.yaml"
wait_counted "$TMP/a.log" "$c"
if [ "$PMU" = 0 ]; then
	for out in csv syslog; do
		grep -q "outputs.$out.derived: ipc needs the events instructions and cycles, not counted here" "$TMP/a.log" ||
			fail "no warning that $out's ipc stays empty: $(cat "$TMP/a.log")"
	done
fi
u0=$(usage_usec "$c_rel")
burn_pinned "$c_rel" 2.5 burn
u1=$(usage_usec "$c_rel")
sleep 2.5 # the burner's last interval is written
kill -TERM "$AGENT_PID"; wait "$AGENT_PID" || fail "agent failed: $(tail -5 "$TMP/a.log")"

python3 - "$TMP" "$c" "$PMU" >"$TMP/sum.txt" <<'PY' || fail "derived columns are wrong (see above)"
import csv, glob, re, sys
tmp, cg, pmu = sys.argv[1], sys.argv[2], sys.argv[3] == '1'
files = glob.glob(tmp + '/csv/*.csv')
rows = []
for p in files:
    with open(p, newline='') as f:
        rd = csv.reader(f)
        head = next(rd)
        assert head[-3:] == ['cpu_cores', 'ipc', 'cpi'], head
        rows += [dict(zip(head, r)) for r in rd if r[1] == cg]
assert len(rows) >= 4, len(rows)
def scaled(r, ev):
    # An event the host cannot count was skipped: no column at all.
    v = r.get(ev, '')
    return None if v == '' else float(v)
busy = 0
for r in rows:
    clock, ms = float(r['cpu-clock']), int(r['interval_ms'])
    want = '%.3f' % (clock / (ms * 1e6))
    # Rounding of the same quotient: equal, or one unit apart at a .5 edge.
    assert abs(float(r['cpu_cores']) - float(want)) <= 0.0011, (r['cpu_cores'], want, r)
    # Rows while it burned show its CPU (however much of one a busy host
    # gives it: the sum below is held against cpu.stat).
    busy += float(r['cpu_cores']) >= 0.1
    ins, cyc = scaled(r, 'instructions'), scaled(r, 'cycles')
    if pmu and ins is not None and cyc:
        assert r['ipc'] != '' and abs(float(r['ipc']) - ins / cyc) <= 0.0011, r
        assert r['cpi'] != '' and abs(float(r['cpi']) - cyc / ins) <= 0.0011, r
    if not pmu:
        assert r['ipc'] == '' and r['cpi'] == '', "undefined must be empty: %r" % r
assert busy >= 1, "no row shows the burner's CPU: %r" % [r['cpu_cores'] for r in rows]
# Syslog: every message's derived params are the CSV row's cells (same seq).
PARAM = re.compile(r' ([^ =\]]+)="((?:[^"\\\]]|\\.)*)"')
msgs = {}
for line in open(tmp + '/rs/out.log', encoding='utf-8', errors='replace'):
    p = dict(PARAM.findall(line))
    if p.get('cgroup') == cg:
        msgs[p['seq']] = p
assert len(msgs) >= len(rows) - 1, (len(msgs), len(rows))
seq = 0
for r in rows:
    seq += 1
    m = msgs.get(str(seq))
    if m is None:
        continue
    assert m['cpu_cores'] == r['cpu_cores'] and m['ipc'] == r['ipc'], (m, r)
    assert 'cpi' not in m, "syslog was not asked for cpi: %r" % m
# cpu_cores x interval summed: the CPU time, for the cpu.stat oracle (ms).
print('%.3f' % sum(float(r['cpu_cores']) * int(r['interval_ms']) for r in rows))
PY
got=$(cat "$TMP/sum.txt")
assert_cpu_clock "sum of cpu_cores x interval_ms" "$got" "$(((u1 - u0) / 1000))" 10 burn

# Another list: the file with the old header is rotated, the new one has
# the new header only.
conf "$TMP/b.yaml" "cpu_cores"
start_agent b "$TMP/b.yaml"
run_in_cg "$c_rel" "$BURN" 0.3; wait "$LAST_PID"
sleep 2.5
kill -TERM "$AGENT_PID"; wait "$AGENT_PID" || fail "agent failed: $(tail -5 "$TMP/b.log")"
python3 - "$TMP" "$c" <<'PY' || fail "a changed derived list mixed headers"
import csv, glob, sys
tmp, cg = sys.argv[1], sys.argv[2]
cur = [p for p in glob.glob(tmp + '/csv/*.csv')]
old = [p for p in glob.glob(tmp + '/csv/*.csv.1')]
assert cur and old, (cur, old)
for p, tail in [(cur[0], ['_running_pct', 'cpu_cores']), (old[0], ['cpu_cores', 'ipc', 'cpi'])]:
    lines = open(p).read().splitlines()
    heads = [l for l in lines if l.startswith('timestamp,')]
    assert len(heads) == 1, (p, heads)
    head = heads[0].split(',')
    got = head[-len(tail):]
    if tail[0] == '_running_pct':  # after the events' columns, nothing but cpu_cores
        got[0] = got[0][-len(tail[0]):]
    assert got == tail, (p, head)
    assert all(len(next(csv.reader([l]))) == len(head) for l in lines), p
print('# ok: the new list started a new file; the old one was rotated')
PY
log "ok: derived columns"
