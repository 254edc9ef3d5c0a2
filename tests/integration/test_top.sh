# SPDX-License-Identifier: GPL-2.0-only
# cgperf top on a test tree shaped like a docker host and a kubelet's
# (cgroups.root is this test's subtree, names from fixture metadata): the
# batch table and --json parsed; the full screen under a real terminal
# (tmux): a burner's container on top by CPU with its name and its cpu.stat
# rate, sort, reverse, filter and tree keys, a resize, a cgroup appearing and
# one removed while it runs, and q, SIGTERM and SIGINT restoring the terminal.
source "$CGPERF_SRC/tests/lib/common.sh"
FIX="$CGPERF_SRC/tests/fixtures/metadata"
command -v tmux >/dev/null || fail "tmux is missing (scripts/install-deps)"
cat >"$TMP/top.yaml" <<EOF
cgroups:
  root: "$TEST_CG_REL"
  include: ["$TEST_CG_REL/**"]
metadata:
  docker: "$FIX/docker"
  containerd: ""
  crio: ""
  podman: ""
  pod_logs: "$FIX/pod_logs"
EOF
sha() { printf '%s' "$1" | sha256sum | cut -c1-64; }
web=$(sha docker-web); cid=$(sha pod-container); new=$(sha new-container)
uid=5f0c3c1e-8a51-4a8e-9c3a-2b7f6d1e0a42 # the prod/web-0 pod of the fixture pod logs
WEB="system.slice/docker-$web.scope"
POD="kubepods/besteffort/pod$uid"
mkcg "$WEB" >/dev/null
mkcg "$POD/$cid" >/dev/null
mkcg "system.slice/cron.service" >/dev/null
# The burner: one busy thread pinned to one CPU, all the test long.
run_in_cg "$WEB" taskset -c "$BURN_CPU" "$BURN" 600
# A little work in the pod's container (context switches, never busy).
run_in_cg "$POD/$cid" sh -c 'while :; do sleep 0.05; done'

# within_points A B N: |A - B| <= N.
within_points() { awk -v a="$1" -v b="$2" -v n="$3" 'BEGIN { d = a - b; exit !(d <= n && -d <= n) }'; }

# cpustat_pct U0 T0 U1 T1: web's CPU % from cpu.stat between two readings.
cpustat_pct() { awk -v du=$(($3 - $1)) -v dt=$(($4 - $2)) 'BEGIN { printf "%.1f", 100 * du * 1000 / dt }'; }

# marked OUT MARKS REGEX: standard input to OUT; at each line matching REGEX
# (the start of an interval's output, printed right after its sample) web's
# cpu.stat usage and the time go to MARKS: the cpu.stat window of each
# interval, whatever the load (not the window of the whole run, whose start
# and end top spends starting and stopping).
marked() {
	python3 -c '
import re, sys, time
cg, out, marks, rx = sys.argv[1:5]
o, m = open(out, "w"), open(marks, "w")
for line in sys.stdin:
    if re.match(rx, line):
        u = [int(l.split()[1]) for l in open(cg + "/cpu.stat") if l.startswith("usage_usec")][0]
        m.write("%d %d\n" % (u, time.monotonic_ns())); m.flush()
    o.write(line); o.flush()
' "$TEST_CG/$WEB" "$@"
}
# marks_pct MARKS: web's cpu.stat CPU % between consecutive marks, as a list.
marks_pct() {
	python3 -c '
import sys
m = [tuple(map(int, l.split())) for l in open(sys.argv[1])]
print(",".join("%.1f" % (100 * (u1 - u0) * 1000 / (t1 - t0)) for (u0, t0), (u1, t1) in zip(m, m[1:])))' "$1"
}

# ---- batch: plain text tables ----
{ "$CGPERF" top -c "$TMP/top.yaml" -b -n 3 -d 1 2>"$TMP/batch.log" || echo "exit $?" >>"$TMP/batch.log"; } |
	marked "$TMP/batch.txt" "$TMP/batch.marks" '^cgperf top - '
! grep -q '^exit ' "$TMP/batch.log" || fail "cgperf top -b failed: $(cat "$TMP/batch.log")"
python3 - "$TMP/batch.txt" "${cid:0:12}" "$(marks_pct "$TMP/batch.marks")" <<'PY' || fail "batch tables wrong: $(cat "$TMP/batch.txt")"
import sys
webs = []
blocks = [b.splitlines() for b in open(sys.argv[1], encoding='utf-8').read().split('\n\n') if b.strip()]
assert len(blocks) == 3, len(blocks)
for b in blocks:
    assert b[0].startswith('cgperf top - ') and 'sort CPU% (largest first)' in b[0], b[0]
    head = next(i for i, l in enumerate(b) if l.lstrip().startswith('CPU%'))
    cols = b[head].split()
    assert cols[:4] == ['CPU%', 'CORES', 'CS/s', 'FAULTS/s'] and cols[-3:] == ['KIND', 'NAME', 'PATH'], cols
    rows = [l.split() for l in b[head + 1:]]
    cpu = [float(r[0]) for r in rows]
    assert cpu == sorted(cpu, reverse=True), cpu
    # A parent counts its children: above web only its ancestors.
    w = next(i for i, r in enumerate(rows) if r[5] == 'web')
    assert rows[w][4] == 'container' and all(rows[w][6].startswith(r[6] + '/') for r in rows[:w]), rows
    webs.append(cpu[w])
    names = {r[5] for r in rows}
    assert {'web', 'prod/web-0', 'cron.service', sys.argv[2]} <= names, names
# The burner's CPU% of each interval after the first against cpu.stat
# between the tables' starts (each printed right after its sample).
stat = [float(x) for x in sys.argv[3].split(',')]
assert len(stat) == 2, stat
assert all(abs(w - c) <= 10 for w, c in zip(webs[1:], stat)), (webs, stat)
PY
log "ok: -b: three tables sorted by CPU%, web on top, its CPU% as cpu.stat's"

# ---- targets as cgperf stat takes them, -e ----
"$CGPERF" top -c "$TMP/top.yaml" -G "$TEST_CG_REL/$WEB" -e cpu-clock,page-faults -b -n 2 -d 0.5 >"$TMP/g.txt" 2>"$TMP/g.log" ||
	fail "cgperf top -G failed: $(cat "$TMP/g.log")"
"$CGPERF" top -c "$TMP/top.yaml" --for-each-cgroup 'docker-*.scope,cron.service' --json -n 2 -d 0.5 >"$TMP/fe.json" 2>"$TMP/fe.log" ||
	fail "cgperf top --for-each-cgroup failed: $(cat "$TMP/fe.log")"
python3 - "$TMP/g.txt" "$TMP/fe.json" "$TEST_CG_REL" <<'PY' || fail "-G / --for-each-cgroup / -e wrong: $(cat "$TMP/g.txt" "$TMP/fe.json")"
import json, sys
blocks = [b.splitlines() for b in open(sys.argv[1], encoding='utf-8').read().split('\n\n') if b.strip()]
assert len(blocks) == 2, blocks
for b in blocks:
    head = next(i for i, l in enumerate(b) if l.lstrip().startswith('CPU%'))
    assert b[head].split() == ['CPU%', 'CORES', 'FAULTS/s', 'KIND', 'NAME', 'PATH'], b[head]
    rows = [l.split() for l in b[head + 1:]]
    assert [r[4] for r in rows] == ['web'], rows
for line in open(sys.argv[2], encoding='utf-8'):
    o = json.loads(line)
    # The globs match on the whole host: only this test's subtree is known.
    ours = [r for r in o['cgroups'] if r['path'].startswith('/' + sys.argv[3].strip('/') + '/')]
    assert sorted(r['name'] for r in ours) == ['cron.service', 'web'], o['cgroups']
PY
log "ok: -G one cgroup, --for-each-cgroup two, -e the columns"

# ---- msr/tsc/ (the PMU branch): its EV/s column and %RUN ----
if have_tsc; then
	tsc_rate
	"$CGPERF" top -c "$TMP/top.yaml" -G "$TEST_CG_REL/$WEB" -e "cpu-clock,$TSC" --json -n 2 -d 0.5 \
		>"$TMP/tsc.json" 2>"$TMP/tsc.log" || fail "cgperf top -e $TSC failed: $(cat "$TMP/tsc.log")"
	python3 - "$TMP/tsc.json" "$TSC" "$TSC_PER_MS" <<'PY' || fail "top's $TSC columns wrong: $(cat "$TMP/tsc.json")"
import json, sys
path, ev, rate = sys.argv[1], sys.argv[2], float(sys.argv[3])
objs = [json.loads(l) for l in open(path, encoding='utf-8')]
assert len(objs) == 2, objs
tsc = cpu = 0
for o in objs:
    (web,) = [r for r in o['cgroups'] if r['name'] == 'web']
    # Per second of the burner's CPU time: the TSC rate (per ms x 1000).
    per_ms = web[ev + '_per_s'] / web['cpu_cores'] / 1000
    print("# top: web %.1f %s per cpu-clock ms (rate %.1f), %%RUN %s" % (per_ms, ev, rate, web['running_pct']))
    # One 0.5 s table under two CPU hogs was 1.1 % off; both tables together
    # are held to 1 %, each to 3 %.
    assert abs(per_ms - rate) <= rate * 3 / 100, (per_ms, rate)
    tsc += web[ev + '_per_s'] * o['interval_s']
    cpu += web['cpu_cores'] * o['interval_s'] * 1000
    # msr/tsc never multiplexes: on the counter all the time it was enabled.
    assert web['running_pct'] == 100.0, web
assert abs(tsc / cpu - rate) <= rate / 100, (tsc / cpu, rate)
PY
	log "ok: top -e $TSC: web's $TSC/s at its cores x the TSC rate, %RUN 100"
fi

# ---- --json: one object per interval, compared with cpu.stat ----
{ "$CGPERF" top -c "$TMP/top.yaml" --json --tree -n 3 -d 1 2>"$TMP/json.log" || echo "exit $?" >>"$TMP/json.log"; } |
	marked "$TMP/top.json" "$TMP/top.marks" '^[{]'
! grep -q '^exit ' "$TMP/json.log" || fail "cgperf top --json failed: $(cat "$TMP/json.log")"
stat_pct=$(marks_pct "$TMP/top.marks")
python3 - "$TMP/top.json" "$TEST_CG_REL" "$web" "$uid" "$cid" "$stat_pct" <<'PY' || fail "--json wrong: $(cat "$TMP/top.json")"
import json, sys
path, base, web, uid, cid, stat_pct = sys.argv[1:7]
lines = open(path, encoding='utf-8').read().splitlines()
assert len(lines) == 3, len(lines)
webs = []
for n, line in enumerate(lines):
    o = json.loads(line)
    assert o['interval_s'] == 1 and o['time'].endswith('Z'), o
    # No PMU here: the missing columns say why.
    assert any(m.startswith('no IPC: ') for m in o['missing']), o['missing']
    by = {r['path'][len(base):]: r for r in o['cgroups']}
    w = by['/system.slice/docker-%s.scope' % web]
    assert w['name'] == 'web' and w['kind'] == 'container', w
    webs.append(w['cpu_pct'])
    assert abs(w['cpu_cores'] * 100 - w['cpu_pct']) < 1e-6, w
    assert 'ipc' not in w and w['context-switches_per_s'] >= 0, w
    pod = by['/kubepods/besteffort/pod' + uid]
    c = by['/kubepods/besteffort/pod%s/%s' % (uid, cid)]
    assert pod['name'] == 'prod/web-0' and pod['kind'] == 'pod', pod
    assert c['name'] == cid[:12] and c['kind'] == 'container', c
    # The tree: the container right below its pod; the pod counts it.
    rows = o['cgroups']
    i = rows.index(pod)
    assert rows[i + 1] == c and c['depth'] == pod['depth'] + 1, rows
    # (From the second interval on: a row's first one starts when it was added.)
    assert c['context-switches_per_s'] > 0 and (n == 0 or pod['context-switches_per_s'] >= c['context-switches_per_s']), (pod, c)
# Each interval after the first against cpu.stat between the objects.
stat = [float(x) for x in stat_pct.split(',')]
assert len(stat) == 2 and all(abs(w - c) <= 10 for w, c in zip(webs[1:], stat)), (webs, stat)
print("# cpu.stat %s%%, top %s" % (stat, webs))
PY
log "ok: --json: three objects, web's CPU% within 10 points of cpu.stat ($stat_pct%) in each interval, pod > container tree"

# ---- the full screen under tmux ----
SOCK="cgperf-$TEST_NAME-$$"
tmx() { tmux -L "$SOCK" "$@"; }
test_cleanup() { tmux -L "$SOCK" kill-server 2>/dev/null || true; }
screen() { tmx capture-pane -p -t top; }
# wait_screen WHAT PYTHON_EXPR: wait until the expression over the screen's
# lines (`s`, a list) is true; fail with the screen if it never is.
wait_screen() {
	local i
	for ((i = 0; i < 100; i++)); do
		screen >"$TMP/screen.txt"
		python3 -c "import sys; s = open(sys.argv[1], encoding='utf-8').read().split('\n'); sys.exit(0 if ($2) else 1)" \
			"$TMP/screen.txt" 2>/dev/null && return 0
		sleep 0.2
	done
	echo "--- screen:"; cat "$TMP/screen.txt"
	fail "screen never showed: $1"
}
# Rows: lines after the column header; NAME is the 6th word, PATH the 7th.
ROWS='[l.split() for l in s[next(i for i, l in enumerate(s) if l.lstrip().startswith("CPU%")) + 1:] if l.strip()]'
NAMES="[r[5] for r in $ROWS]"
# web with a CPU% and only its ancestors (which count it) above it / below it.
WEB_TOP="(lambda R: any(r[5] == 'web' and r[0] != '-' and all(r[6].startswith(q[6] + '/') for q in R[:i]) for i, r in enumerate(R)))($ROWS)"
WEB_BOTTOM="(lambda R: any(r[5] == 'web' and all(r[6].startswith(q[6] + '/') for q in R[i + 1:]) for i, r in enumerate(R)))($ROWS)"
WEB_PCT="next(r[0] for r in $ROWS if r[5] == 'web')"

tmx new-session -d -s top -x 160 -y 40 "env PS1='TOPTEST\$ ' bash --norc --noprofile"
tmx send-keys -t top "sh -c 'echo \$\$ >$TMP/top.pid; exec $CGPERF top -c $TMP/top.yaml -d 1'; echo rc=\$?" Enter
wait_screen "web on top with a CPU%" "len($ROWS) >= 4 and $WEB_TOP"
[ "$(tmx display -p -t top '#{alternate_on}')" = 1 ] || fail "top does not use the alternate screen"
# The screen's CPU% against cpu.stat over the same interval: cpu.stat read
# when the title changes (a new interval is drawn), twice.
next_update() {
	local title i
	title=$(screen | head -1)
	for ((i = 0; i < 2000; i++)); do
		[ "$(screen | head -1)" != "$title" ] && return 0
		sleep 0.005
	done
	fail "the screen stopped updating"
}
next_update
u0=$(usage_usec "$WEB"); t0=$(date +%s%N)
next_update
u1=$(usage_usec "$WEB"); t1=$(date +%s%N)
screen >"$TMP/screen.txt"
screen_pct=$(python3 -c "import sys; s = open(sys.argv[1]).read().split('\n'); print($WEB_PCT)" "$TMP/screen.txt")
stat_pct=$(cpustat_pct $u0 $t0 $u1 $t1)
within_points "$screen_pct" "$stat_pct" 10 || fail "screen CPU% $screen_pct vs cpu.stat $stat_pct%: $(cat "$TMP/screen.txt")"
log "ok: screen: web on top, CPU% $screen_pct vs cpu.stat $stat_pct%"
grep -q "no IPC: event 'cycles' is not supported" "$TMP/screen.txt" || fail "the header does not say why IPC is missing"

tmx send-keys -t top N
wait_screen "sorted by name" "'sort NAME (A-Z)' in s[0] and $NAMES == sorted($NAMES)"
tmx send-keys -t top N
wait_screen "sorted by name, reversed" "'sort NAME (Z-A)' in s[0] and $NAMES == sorted($NAMES, reverse=True)"
tmx send-keys -t top '>'
wait_screen "'>' sorts by CPU%" "'sort CPU% (largest first)' in s[0] and $WEB_TOP"
tmx send-keys -t top r
wait_screen "reversed: web last" "'sort CPU% (smallest first)' in s[0] and $WEB_BOTTOM and not $WEB_TOP"
tmx send-keys -t top S
wait_screen "sorted by CS/s" "'sort CS/s (largest first)' in s[0]"
log "ok: keys N, '>', r, S sort and reverse"

tmx send-keys -t top / w e b Enter
wait_screen "filter 'web'" "\"filter 'web'\" in s[0] and sorted($NAMES) == ['prod/web-0', 'web']"
tmx send-keys -t top / BSpace BSpace BSpace c r o n Escape
wait_screen "Esc keeps the old filter" "\"filter 'web'\" in s[0] and sorted($NAMES) == ['prod/web-0', 'web']"
# By path: the pod and its container have besteffort only in their paths.
tmx send-keys -t top / BSpace BSpace BSpace b e s t e f f o r t Enter
wait_screen "filter 'besteffort'" "\"filter 'besteffort'\" in s[0] and sorted($NAMES) == sorted(['besteffort', 'prod/web-0', '${cid:0:12}'])"
tmx send-keys -t top / $(printf 'BSpace %.0s' {1..10}) Enter
wait_screen "an empty filter shows all" "'filter' not in s[0] and 'cron.service' in $NAMES"
log "ok: / filters by name and path, Esc and an empty filter"

tmx send-keys -t top h
wait_screen "help" "s[0].startswith('cgperf top: keys') and any('q          quit' in l for l in s)"
tmx send-keys -t top x
wait_screen "help closed by any key" "s[0].startswith('cgperf top - ')"
tmx send-keys -t top d 0 . 5 Enter
wait_screen "delay 0.5 s" "'every 0.5 s' in s[0]"
tmx send-keys -t top d x Enter
wait_screen "a bad delay refused" "'every 0.5 s' in s[0] and any(l.startswith('invalid delay') for l in s)"
tmx send-keys -t top Space
wait_screen "paused" "s[0].endswith(', PAUSED')"
tmx send-keys -t top p
wait_screen "resumed" "'PAUSED' not in s[0]"
log "ok: help, delay change (and a refused one), pause and resume"

# Tree: the pod's container right below it, indented two more.
tmx send-keys -t top C t
wait_screen "tree" "', tree' in s[0] and any(l.split()[5:6] == ['prod/web-0'] for l in s)"
python3 - "$TMP/screen.txt" "$cid" <<'PY' || fail "tree wrong: $(cat "$TMP/screen.txt")"
import sys
s = open(sys.argv[1], encoding='utf-8').read().split('\n')
cid = sys.argv[2][:12]
col = s[next(i for i, l in enumerate(s) if l.lstrip().startswith('CPU%'))].index('NAME')
pod = next(i for i, l in enumerate(s) if l[col:].lstrip().startswith('prod/web-0'))
ind = lambda l: len(l[col:]) - len(l[col:].lstrip())
assert s[pod + 1][col:].lstrip().startswith(cid), (s[pod], s[pod + 1])
assert ind(s[pod + 1]) == ind(s[pod]) + 2 and ind(s[pod]) >= 2, (s[pod], s[pod + 1])
PY
tmx send-keys -t top t
wait_screen "flat again" "', tree' not in s[0]"
log "ok: t shows slice > pod > container and back"

# A wider terminal: paths longer than 160 columns are no longer cut.
tmx resize-window -t top -x 260 -y 40
wait_screen "the resize" "max(len(l) for l in s) > 160"
log "ok: the screen follows a resize"

# A container appears, then goes.
mkcg "system.slice/docker-$new.scope" >/dev/null
wait_screen "the new container" "'${new:0:12}' in $NAMES"
rmdir "$TEST_CG/system.slice/docker-$new.scope"
wait_screen "the removed container dropped" "'${new:0:12}' not in $NAMES and 'web' in $NAMES"
log "ok: a cgroup made while top runs is shown, a removed one dropped"

# restored HOW: after HOW the shell is back with rc=0 below it, on the main
# screen with a cursor.
restored() {
	wait_screen "the shell after $1" "'rc=0' in s and any(l.startswith('TOPTEST') for l in s[s.index('rc=0'):])"
	[ "$(tmx display -p -t top '#{alternate_on} #{cursor_flag}')" = "0 1" ] ||
		fail "$1 left the terminal in the alternate screen or without a cursor"
	log "ok: $1 restores the terminal, exit 0"
}
# relaunch: top again in a cleared terminal, its pid in top.pid.
relaunch() {
	tmx send-keys -t top clear Enter
	tmx send-keys -t top "sh -c 'echo \$\$ >$TMP/top.pid; exec $CGPERF top -c $TMP/top.yaml -d 1'; echo rc=\$?" Enter
	wait_screen "top again" "len($ROWS) >= 4"
}
tmx send-keys -t top q
restored q
relaunch
kill -TERM "$(cat "$TMP/top.pid")"
restored SIGTERM
relaunch
tmx send-keys -t top C-c # SIGINT from the terminal
restored SIGINT
echo PASS
