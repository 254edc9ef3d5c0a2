# SPDX-License-Identifier: GPL-2.0-only
# Nothing lost when the agent restarts: the counting session is pinned and
# the next agent adopts it. Real BPF, real cgroups with burners, a real
# rsyslogd, cpu.stat as the oracle:
#  - SIGKILL mid-interval, down 3 s, restart: a container's CSV rows (and its
#    syslog messages) add up to its cpu.stat usage over the whole window, the
#    down time included;
#  - SIGTERM + restart (the upgrade path): nothing lost, nothing twice; seq
#    goes on;
#  - a cgroup removed while no agent runs gets its final row at adoption; one
#    created while down is counted in its monitored parent, then on its own;
#  - a config with other events drains the pinned session (its last rows) and
#    replaces it, also after a kill -9 (the totals saved apart are read);
#  - `cgperf release`: final rows, every pin gone, the perf_events closed;
#  - two instances side by side, one instance twice refused, pinned state of
#    another layout replaced, a pin directory owned by another user refused.
# Where the msr PMU has its tsc event, the session counts msr/tsc/ too (the
# PMU branch, its totals across kill -9 and restarts): c1's rows and
# messages hold its cpu-clock x the TSC rate.
source "$CGPERF_SRC/tests/lib/common.sh"

# cpu-clock includes the hypervisor's steal time, cpu.stat does not: the upper
# bound allows what was stolen on all CPUs since the test began (the shared
# cpu.stat oracle of common.sh).
steal_ms() { "$CPU_ORACLE" steal "$STEAL0" "$("$CPU_ORACLE" snap)"; }
# assert_usage WHAT CGPERF_MS USAGE_MS STEAL_MS: within 1 % (+ steal above).
assert_usage() { STEAL_MS[restart]=$4; assert_cpu_clock "$1" "$2" "$3" 1 restart; }
# csv_ms CGROUP [EVENT] [DIR]: sum over the CSV files, rotated ones included.
csv_ms() {
	python3 - "$TMP/${3:-csv}" "$1" "${2:-cpu-clock}" <<'PY'
import csv, glob, sys
d, cg, col = sys.argv[1:]
total = sum(float(r[col]) for p in glob.glob(d + "/*.csv*")
            for r in csv.DictReader(open(p, newline='')) if r['cgroup'] == cg and r.get(col))
print(total / 1e6)
PY
}
usage_ms() { echo $(($(usage_usec "$1") / 1000)); }

rsyslogd_start_tcp

# syslog_ms CGROUP [EVENT]: sum of cpu-clock (EVENT) over the messages of
# CGROUP (ms: / 1e6). A kill -9 between a collection's send and the save of
# what was sent (docs/AGENT.md, "Exactness": a millisecond here, longer in an
# emulated guest) sends that seq again after the restart, its delta from the
# same saved totals to later: the later message of a seq holds the earlier's
# counts, so it replaces it, as a receiver deduplicating by seq would do.
syslog_ms() {
	python3 - "$TMP/rs/out.log" "$1" "${2:-cpu-clock}" <<'PY'
import re, sys
PARAM = re.compile(r' ([^ =\]]+)="((?:[^"\\\]]|\\.)*)"')
by_seq, order = {}, []
for line in open(sys.argv[1], encoding='utf-8', errors='replace'):
    p = {k: re.sub(r'\\(.)', r'\1', v) for k, v in PARAM.findall(line)}
    if p.get('cgroup') == sys.argv[2] and p.get(sys.argv[3]):
        seq, v = int(p['seq']), int(p[sys.argv[3]])
        if seq in by_seq:
            assert seq == order[-1] and v >= by_seq[seq], "seq %d sent again out of order, or with less: %s" % (seq, order)
            print("# seq %d sent again after a restart (%d, then %d)" % (seq, by_seq[seq], v), file=sys.stderr)
        else:
            order.append(seq)
        by_seq[seq] = v
assert order == list(range(1, len(order) + 1)), "seq not 1..n across restarts: %s" % order
print(sum(by_seq.values()) / 1e6)
PY
}

mkcg pod >/dev/null
conf() { # conf NAME EVENTS [INSTANCE]
	cat >"$TMP/$1.yaml" <<YAML
interval: 1s
instance: ${3:-default}
events: [$2]
cgroups:
  include: ["$TEST_CG_REL/**"]
outputs:
  csv:
    directory: $TMP/${4:-csv}
  syslog:
    target: tcp://127.0.0.1:$TCP_PORT
    app_name: cgperf-restart
YAML
}
main_events="cpu-clock, context-switches"
! have_tsc || main_events+=", $TSC"
conf main "$main_events"
c1_rel=pod/c1; c2_rel=pod/c2
pod=$(mkcg pod); c1=$(mkcg $c1_rel); c2=$(mkcg $c2_rel)
STEAL0=$("$CPU_ORACLE" snap)

# ---- SIGKILL mid-interval, down 3 s, restart --------------------------------
start_agent a1 "$TMP/main.yaml"
wait_counted "$TMP/a1.log" "$c1"; wait_counted "$TMP/a1.log" "$c2"
run_in_cg $c1_rel "$BURN" 6; b1=$LAST_PID
run_in_cg $c2_rel "$BURN" 1.5; b2=$LAST_PID
sleep 2.5
kill -KILL "$AGENT_PID"; wait "$AGENT_PID" 2>/dev/null || true
[ -e "$CGPERF_BPFFS_DIR/instances/default/session" ] || fail "no pinned session after kill -9"
wait "$b2"
# Removed while no agent runs: its final row comes from its slot at adoption.
c2_usage=$(usage_ms $c2_rel); rmdir "$TEST_CG/$c2_rel"
# Created while down: counted in its monitored parent until adopted.
c3=$(mkcg pod/c3)
run_in_cg pod/c3 "$BURN" 0.4; wait "$LAST_PID"
c3_down=$(usage_ms pod/c3)
sleep 1.5
start_agent a2 "$TMP/main.yaml"
grep -Eq "adopted the pinned counting session: [2-9] cgroups resumed, 1 gone while no agent ran" "$TMP/a2.log" ||
	fail "adoption not reported as expected: $(grep -i adopt "$TMP/a2.log")"
wait_counted "$TMP/a2.log" "$c3"
wait "$b1"
run_in_cg pod/c3 "$BURN" 0.3; wait "$LAST_PID"
sleep 1.5
c1_usage=$(usage_ms $c1_rel); c3_usage=$(usage_ms pod/c3)

# ---- SIGTERM + restart: the upgrade path ------------------------------------
kill -TERM "$AGENT_PID"; wait "$AGENT_PID" || fail "agent failed at SIGTERM: $(tail -3 "$TMP/a2.log")"
# At 1 s, rows are held and appended together (csv.flush_interval, 5 s by
# default): the kill above and this stop came with rows held, not yet
# written, and the sums below hold them once.
grep -Eq "summary: .*CSV: [0-9]+ rows written, 0 failed, [1-9][0-9]* held first" "$TMP/a2.log" ||
	fail "no rows held at a 1 s interval: $(grep summary "$TMP/a2.log")"
run_in_cg $c1_rel "$BURN" 0.5; wait "$LAST_PID"   # while down
start_agent a3 "$TMP/main.yaml"
sleep 1.5
kill -TERM "$AGENT_PID"; wait "$AGENT_PID" || fail "agent failed: $(tail -3 "$TMP/a3.log")"
c1_usage=$(usage_ms $c1_rel); pod_usage=$(usage_ms pod)
steal=$(steal_ms)

assert_usage "c1: kill -9, 3 s down, restart, SIGTERM, burn while down, restart (CSV)" \
	"$(csv_ms "$c1")" "$c1_usage" "$steal"
assert_usage "c1 (syslog)" "$(syslog_ms "$c1")" "$c1_usage" "$steal"
if [[ $main_events == *"$TSC"* ]]; then
	assert_tsc "c1 (CSV)" "$(csv_ms "$c1" "$TSC" | awk '{ printf "%.0f", $1 * 1e6 }')" "$(csv_ms "$c1")"
	assert_tsc "c1 (syslog)" "$(syslog_ms "$c1" "$TSC" | awk '{ printf "%.0f", $1 * 1e6 }')" "$(syslog_ms "$c1")"
fi
assert_usage "c2 removed while down: its final row at adoption" "$(csv_ms "$c2")" "$c2_usage" "$steal"
assert_usage "c2 (syslog)" "$(syslog_ms "$c2")" "$c2_usage" "$steal"
assert_usage "c3 created while down: counted from adoption on" "$(csv_ms "$c3")" \
	"$((c3_usage - c3_down))" "$steal"
assert_usage "pod: its children's time, the down time and c3's first burn included" \
	"$(csv_ms "$pod")" "$pod_usage" "$steal"
python3 - "$TMP/csv" "$c2" <<'PY' 2>&1 || fail "c2's row at adoption does not cover the down time"
import csv, glob, sys
rows = [r for p in glob.glob(sys.argv[1] + '/*.csv') for r in csv.DictReader(open(p)) if r['cgroup'] == sys.argv[2]]
print("# c2: %d rows, last interval_ms %s" % (len(rows), rows[-1]['interval_ms']))
# The row written at adoption covers the whole time since the last row
# before the kill, more than the 1.9 s the test waited after it.
assert int(rows[-1]['interval_ms']) >= 1900, rows[-1]['interval_ms']
PY

# ---- a config with other events: the pinned session is drained --------------
# ... after a kill -9: what its rows already hold is in the totals saved at
# each collection (a cgroup's blob is written when it comes or goes).
start_agent a3k "$TMP/main.yaml"
sleep 1.2 # a collection first: the burn below is in rows written after it
run_in_cg $c1_rel "$BURN" 1; wait "$LAST_PID"
sleep 1.5
kill -KILL "$AGENT_PID"; wait "$AGENT_PID" 2>/dev/null || true
conf other "cpu-clock, page-faults"
start_agent a4 "$TMP/other.yaml"
grep -qF "the pinned session counted other events (${main_events//, /,})" "$TMP/a4.log" ||
	fail "no drain line: $(grep instance "$TMP/a4.log")"
run_in_cg $c1_rel "$BURN" 0.3; wait "$LAST_PID"
sleep 1.5
kill -TERM "$AGENT_PID"; wait "$AGENT_PID" || fail "agent failed: $(tail -3 "$TMP/a4.log")"
assert_usage "c1 across the drained and the new session" "$(csv_ms "$c1")" "$(usage_ms $c1_rel)" \
	"$(steal_ms)"

# ---- release: final rows, pins gone, perf_events closed ---------------------
leader=$(leader_id "$TMP/a4.log" page-faults)
[ -n "$leader" ] || fail "no leader id in the log"
run_in_cg $c1_rel "$BURN" 0.3; wait "$LAST_PID"
"$CGPERF" release -c "$TMP/other.yaml" 2>"$TMP/release.log" || fail "release failed: $(cat "$TMP/release.log")"
grep -q "released" "$TMP/release.log" || fail "release said nothing: $(cat "$TMP/release.log")"
[ ! -e "$CGPERF_BPFFS_DIR/instances/default" ] || fail "pins left: $(ls "$CGPERF_BPFFS_DIR/instances/default")"
wait_map_gone "$leader"
assert_usage "c1 with the final rows of release" "$(csv_ms "$c1")" "$(usage_ms $c1_rel)" \
	"$(steal_ms)"
"$CGPERF" release -c "$TMP/other.yaml" 2>"$TMP/release2.log" || fail "a second release must be a no-op"
grep -q "nothing to release" "$TMP/release2.log" || fail "$(cat "$TMP/release2.log")"

# ---- two instances side by side; one instance twice --------------------------
conf ia "cpu-clock" a csv-a; conf ib "cpu-clock" b csv-b
start_agent ia "$TMP/ia.yaml"; pa=$AGENT_PID
start_agent ib "$TMP/ib.yaml"; pb=$AGENT_PID
u0=$(usage_ms $c1_rel)
run_in_cg $c1_rel "$BURN" 0.5; wait "$LAST_PID"
if "$CGPERF" agent -c "$TMP/ia.yaml" --duration 1 2>"$TMP/dup.log"; then fail "a second agent of instance a ran"; fi
grep -q "instance 'a' is in use by another cgperf agent" "$TMP/dup.log" || fail "$(cat "$TMP/dup.log")"
sleep 1.5
kill -TERM "$pa" "$pb"; wait "$pa"; wait "$pb"
u1=$(usage_ms $c1_rel)
for i in a b; do
	"$CGPERF" release -c "$TMP/i$i.yaml" 2>/dev/null || fail "release of $i failed"
	assert_usage "instance $i" "$(csv_ms "$c1" cpu-clock csv-$i)" "$((u1 - u0))" "$(steal_ms)"
done

# ---- pinned state of another layout: replaced, with one line -----------------
bogus="$CGPERF_BPFFS_DIR/instances/bogus"
mkdir -p "$bogus"
bpftool map create "$bogus/session" type array key 4 value 8 entries 1 name cgperf_session ||
	fail "cannot make a fake pin"
"$CGPERF" agent -c "$TMP/main.yaml" --instance bogus --duration 1.5 2>"$TMP/bogus.log" ||
	fail "agent refused to replace pinned state of another layout: $(cat "$TMP/bogus.log")"
grep -q "of another cgperf (layout) and cannot be read" "$TMP/bogus.log" || fail "$(cat "$TMP/bogus.log")"
"$CGPERF" release -c "$TMP/main.yaml" --instance bogus 2>/dev/null

# ---- a record too long to keep: its cgroup starts over, it is never counted twice
long=long; for i in 1 2 3 4 5 6 7 8; do long="$long/$(printf 'l%.0s' $(seq 249))$i"; done
lcg=$(mkcg "$long")
cat >"$TMP/long.yaml" <<YAML
interval: 1s
instance: long
events: [cpu-clock]
cgroups:
  include: ["$TEST_CG_REL/long/**/*8"]
outputs:
  csv:
    directory: $TMP/csv-long
YAML
start_agent l1 "$TMP/long.yaml"
wait_counted "$TMP/l1.log" "$lcg"
grep -q "cannot persist a cgroup's record" "$TMP/l1.log" || fail "no line about the record not kept"
run_in_cg "$long" "$BURN" 0.4; wait "$LAST_PID"
sleep 1.5
kill -KILL "$AGENT_PID"; wait "$AGENT_PID" 2>/dev/null || true
start_agent l2 "$TMP/long.yaml"
run_in_cg "$long" "$BURN" 0.2; wait "$LAST_PID"
sleep 1.5
kill -TERM "$AGENT_PID"; wait "$AGENT_PID"
"$CGPERF" release -c "$TMP/long.yaml" 2>/dev/null
python3 - "$TMP/csv-long" "$lcg" "$(usage_ms "$long")" "$(steal_ms)" <<'PY' ||
import csv, glob, os, sys
d, cg, usage, steal = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
# 1 %, or the cpu.stat tolerance floor vm-run sets under emulation.
tol = max(1.0, float(os.environ.get('CGPERF_ORACLE_TOL_MIN_PCT', 0))) / 100
got = sum(float(r['cpu-clock']) for p in glob.glob(d + '/*.csv*') for r in csv.DictReader(open(p))
          if r['cgroup'] == cg and r['cpu-clock']) / 1e6
print("# a cgroup whose record was not kept: %.1f ms in its rows, %.1f ms used" % (got, usage))
sys.exit(0 if 0.2 * usage < got <= usage * (1 + tol) + steal else 1)
PY
	fail "a cgroup whose record was not kept was counted twice (or not at all)"

# ---- gone while down, under an anchored root: still the container it was ---
# The final row of a container removed while no agent ran is written from its
# persisted record; its identity is decided again from the path below the
# configured cgroups.root, not below "/" (where this path is no container).
agent_yaml "$TMP/anchored.yaml" "$TMP/csv-anchored"
d_rel="system.slice/docker-d$(printf '%063x' 42).scope"
d=$(mkcg "$d_rel")
start_agent an1 "$TMP/anchored.yaml"
wait_counted "$TMP/an1.log" "$d"
run_in_cg "$d_rel" "$BURN" 0.3; wait "$LAST_PID"
sleep 1.5
kill -KILL "$AGENT_PID"; wait "$AGENT_PID" 2>/dev/null || true
rmdir "$TEST_CG/$d_rel"
start_agent an2 "$TMP/anchored.yaml"
sleep 1.5
kill -TERM "$AGENT_PID"; wait "$AGENT_PID"
"$CGPERF" release -c "$TMP/anchored.yaml" 2>/dev/null
python3 - "$TMP/csv-anchored" "$d" <<'PY' || fail "the final row of a container gone while down lost its identity"
import csv, glob, sys
rows = [r for p in glob.glob(sys.argv[1] + '/*.csv*') for r in csv.DictReader(open(p))
        if r['cgroup'] == sys.argv[2]]
kinds = [(r['kind'], r['runtime'], r['container_id']) for r in rows]
print("# rows of the container gone while down: %s" % kinds)
assert len(rows) >= 2 and all(k == ('container', 'docker', 'd' + '0' * 11) for k in kinds), kinds
PY

# ---- kill -9 while rows are held ---------------------------------------------
# An hour's flush period: every row after the file's first is held (up to
# 2 KiB), so the kill lands with rows held, not in the file; the record saved
# the last row written, not the held ones: the next agent's first row holds
# their counts, each once.
h_rel=pod/held; h=$(mkcg $h_rel)
cat >"$TMP/held.yaml" <<YAML
interval: 1s
instance: held
events: [cpu-clock]
cgroups:
  include: ["$TEST_CG_REL/pod/held"]
outputs:
  csv:
    directory: $TMP/csv-held
    flush_interval: 1h
YAML
h_rows() { cat "$TMP"/csv-held/*.csv 2>/dev/null | grep -c ",$h," || true; }
start_agent h1 "$TMP/held.yaml"
wait_counted "$TMP/h1.log" "$h"
run_in_cg $h_rel "$BURN" 3; hb=$LAST_PID
sleep 4.2 # four collections or more: the first row written, the others held
n=$(h_rows)
[ "$n" -ge 1 ] && [ "$n" -le 2 ] || fail "$n rows in the file after 4 s: rows were not held"
kill -KILL "$AGENT_PID"; wait "$AGENT_PID" 2>/dev/null || true
wait "$hb"
start_agent h2 "$TMP/held.yaml"
sleep 1.5
kill -TERM "$AGENT_PID"; wait "$AGENT_PID" || fail "agent failed: $(tail -3 "$TMP/h2.log")"
"$CGPERF" release -c "$TMP/held.yaml" >/dev/null 2>&1 || fail "release of the held instance failed"
assert_usage "kill -9 with rows held (flush_interval 1h): each count once" \
	"$(csv_ms "$h" cpu-clock csv-held)" "$(usage_ms $h_rel)" "$(steal_ms)"
python3 - "$TMP/csv-held" "$h" "$n" <<'PY' || fail "the row after the kill does not cover the held rows"
import csv, glob, sys
rows = [r for p in glob.glob(sys.argv[1] + '/*.csv') for r in csv.DictReader(open(p)) if r['cgroup'] == sys.argv[2]]
n = int(sys.argv[3])
print("# held: %d rows in the file at the kill; the next covers %s ms" % (n, rows[n]['interval_ms']))
# The first row after the kill: the held rows' time (3 s and more) and the gap.
assert int(rows[n]['interval_ms']) >= 3000, rows[n]['interval_ms']
PY

# ---- a directory owned by another user, a symlink: refused -------------------
evil="$CGPERF_BPFFS_DIR/instances/evil"
mkdir -p "$evil"; chown 65534:65534 "$evil"
if "$CGPERF" agent -c "$TMP/main.yaml" --instance evil --duration 1 2>"$TMP/evil.log"; then
	fail "agent used a pin directory owned by another user"
fi
grep -q "not owned by root" "$TMP/evil.log" || fail "$(cat "$TMP/evil.log")"
rmdir "$evil"
ln -s /tmp "$CGPERF_BPFFS_DIR/instances/link" 2>/dev/null || true
if [ -L "$CGPERF_BPFFS_DIR/instances/link" ]; then
	if "$CGPERF" agent -c "$TMP/main.yaml" --instance link --duration 1 2>"$TMP/link.log"; then
		fail "agent followed a symlinked pin directory"
	fi
	grep -q "a symlink" "$TMP/link.log" || fail "$(cat "$TMP/link.log")"
	rm -f "$CGPERF_BPFFS_DIR/instances/link"
else
	log "bpffs does not take symlinks here: the symlink case cannot be made"
fi
log "ok: nothing lost across kill -9, SIGTERM, removal and creation while down, drain and release"
