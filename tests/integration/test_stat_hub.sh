# SPDX-License-Identifier: GPL-2.0-only
# Sessions that count cgroups with one event set share one cgroup hub
# (bpf/follower_hub.bpf.c): one on_switch program for all of them, each
# counting its own cgroups exactly. A member killed with SIGKILL leaves its
# index, which the next session takes back; the agent's persistent session
# makes a hub of its own and publishes it, so an on-call `cgperf stat -G`
# started later joins it and keeps counting right through an agent restart
# and its release (which gives the agent's index back). The registry keeps
# only live hubs.
source "$CGPERF_SRC/tests/lib/common.sh"
command -v bpftool >/dev/null || fail "bpftool is needed (apt-get install bpftool)"
EV=cpu-clock,context-switches # agent_yaml's events, in its order
cg_a=$(mkcg a)
cg_b=$(mkcg b)
first_prog=$(bpftool prog show -j | python3 -c "import json, sys; print(max([p['id'] for p in json.load(sys.stdin)] + [0]))")

# hub_progs NAME PID...: the hub programs NAME loaded since the test began
# that these processes hold (pins count for nobody).
hub_progs() {
	local held name=$1
	shift
	held=$(held_progs "$@" | paste -sd,)
	bpftool prog show -j | python3 -c "
import json, sys
held = {int(i) for i in '$held'.split(',') if i}
print(sorted(p['id'] for p in json.load(sys.stdin) if p['id'] > $first_prog and p['id'] in held
             and p.get('name') == '$name'))"
}
switch_progs() { hub_progs on_switch "$@"; }
# counted NAME CG: cpu-clock (ms) session NAME wrote for CG.
counted() { stat_csv_value "$TMP/$1.csv" cpu-clock "$2"; }

# ---- two sessions, one program ----------------------------------------------
# Cgroup sessions take the hub whatever the kernel allows (trampolines
# or not: bpf/counter.c choose_mode), which is what this test checks.
start_cgperf s1 -e "$EV" -G "$cg_a"; p1=$CGPERF_PID
start_cgperf s2 -e "$EV" -G "$cg_b"; p2=$CGPERF_PID
for s in s1 s2; do
	grep -q "follower mode: the cgroup hub" "$TMP/$s.log" ||
		fail "$s did not choose the cgroup hub: $(grep 'follower mode' "$TMP/$s.log")"
done
grep -q "sharing the cgroup hub" "$TMP/s2.log" || fail "s2 did not join s1's hub: $(cat "$TMP/s2.log")"
progs=$(switch_progs "$p1" "$p2")
[ "$(echo "$progs" | tr -cd , | wc -c)" = 0 ] && [ "$progs" != "[]" ] ||
	fail "two cgroup sessions of one event set hold on_switch programs $progs, expected one"
log "s1 and s2 share on_switch program $progs"
# Each member holds the hub's on_attach link too (tasks that move
# themselves): it lives as long as the hub, whoever made it.
attach1=$(hub_progs on_attach "$p1") attach2=$(hub_progs on_attach "$p2")
[ "$attach1" != "[]" ] && [ "$attach1" = "$attach2" ] ||
	fail "s1 holds on_attach $attach1, s2 $attach2: expected the one of their hub"

a0=$(usage_usec a); b0=$(usage_usec b)
burn_pinned a 1 s_a
burn_pinned b 1 s_b
a1=$(usage_usec a); b1=$(usage_usec b)

# ---- syncs of two processes meeting on one CPU (one's IPI inside the -------
# ---- other's local run) change nothing twice ----------------------------------
start_cgperf f1 -e "$EV" -G "$cg_b" -I 10; pf1=$CGPERF_PID
start_cgperf f2 -e "$EV" -G "$cg_b" -I 10; pf2=$CGPERF_PID
bf0=$(usage_usec b)
burn_pinned b 2 f_b
bf1=$(usage_usec b)
# (s2 counts this burn too: its steal bound as well.)
STEAL_MS[s_b]=$(awk -v a="${STEAL_MS[s_b]:-0}" -v b="${STEAL_MS[f_b]:-0}" 'BEGIN { print a + b }')
kill -INT "$pf1" "$pf2"; wait "$pf1" || fail "f1 failed"; wait "$pf2" || fail "f2 failed"
for f in f1 f2; do
	assert_cpu_clock "$f (-I 10, syncing beside another): b's burn" "$(counted $f "$cg_b")" \
		"$(((bf1 - bf0) / 1000))" 2 f_b
done

# ---- SIGKILL of s1: s2 goes on, s3 takes s1's index back --------------------
kill -KILL "$p1"; wait "$p1" 2>/dev/null || true
start_cgperf s3 -e "$EV" -G "$cg_a"; p3=$CGPERF_PID
grep -q "sharing the cgroup hub .* at index 0" "$TMP/s3.log" ||
	fail "s3 did not join the hub at s1's index: $(cat "$TMP/s3.log")"
grep -q "hub index 0: its session (pid $p1) is gone; taken back" "$TMP/s3.log" ||
	fail "s3 did not say it took s1's index back: $(cat "$TMP/s3.log")"
[ "$(switch_progs "$p2" "$p3")" = "$progs" ] || fail "s3 is not on the hub $progs: $(switch_progs "$p2" "$p3")"
a2=$(usage_usec a)
burn_pinned a 1 s3_a
burn_pinned b 1 s_b
a3=$(usage_usec a); b2=$(usage_usec b)
kill -INT "$p2" "$p3"; wait "$p2" || fail "s2 failed"; wait "$p3" || fail "s3 failed"
assert_cpu_clock "s2: b's three burns (one after s1's SIGKILL)" "$(counted s2 "$cg_b")" \
	"$(((b2 - b0) / 1000))" 2 s_b
assert_cpu_clock "s3: a's burn after it took s1's index" "$(counted s3 "$cg_a")" \
	"$(((a3 - a2) / 1000))" 2 s3_a
# s1's index held none of its counts over to s3 (a's first burn was s1's).
awk -v got="$(counted s3 "$cg_a")" -v first="$(((a1 - a0) / 1000))" -v second="$(((a3 - a2) / 1000))" \
	'BEGIN { exit !(got < second + first / 2) }' || fail "s3 counted s1's burn too"
poll 100 0.1 progs_gone "$progs" || fail "the hub $progs outlived its sessions"

# ---- the agent's hub: a later stat joins it, and keeps counting across ------
# ---- an agent restart ---------------------------------------------------------
mkcg system.slice/web >/dev/null
agent_yaml "$TMP/hub.yaml" "$TMP/csv"
start_agent ag1 "$TMP/hub.yaml"
grep -q "sharing the cgroup hub" "$TMP/ag1.log" && fail "the agent joined a hub instead of making its own: $(cat "$TMP/ag1.log")"
start_cgperf s4 -e "$EV" -G "$cg_a"; p4=$CGPERF_PID
grep -q "sharing the cgroup hub .* at index 1" "$TMP/s4.log" ||
	fail "s4 did not join the agent's hub: $(cat "$TMP/s4.log")"
hub=$(switch_progs "$AGENT_PID" "$p4")
kill -TERM "$AGENT_PID"; wait "$AGENT_PID" || fail "agent failed at SIGTERM"
a4=$(usage_usec a)
burn_pinned a 1 s4_a
start_agent ag2 "$TMP/hub.yaml"
grep -q "adopt" "$TMP/ag2.log" || fail "the agent did not adopt its pinned session: $(cat "$TMP/ag2.log")"
burn_pinned a 1 s4_a
a5=$(usage_usec a)
[ "$(switch_progs "$AGENT_PID" "$p4")" = "$hub" ] || fail "the agent and s4 held $hub, now $(switch_progs "$AGENT_PID" "$p4")"
[ "$(hub_progs on_attach "$AGENT_PID")" != "[]" ] || fail "the restarted agent holds no on_attach link (its pins)"
kill -TERM "$AGENT_PID"; wait "$AGENT_PID" || fail "agent failed at SIGTERM"

# ---- the agent released while s4 holds its hub: index 0 given back, s4 ------
# ---- goes on ------------------------------------------------------------------
# hub_index_used I: the used flag of index I in the hub's sessions map.
hub_index_used() {
	python3 - "$hub" "$1" <<'PY'
import json, subprocess, sys
def bt(*a): return json.loads(subprocess.run(['bpftool', '-j'] + list(a), capture_output=True, check=True).stdout)
prog = bt('prog', 'show', 'id', sys.argv[1].strip('[]'))
sess = [m for m in prog['map_ids'] if bt('map', 'show', 'id', str(m))['name'] == 'sessions'][0]
entry = [e['formatted'] for e in bt('map', 'dump', 'id', str(sess)) if e['formatted']['key'] == int(sys.argv[2])][0]
print(entry['value']['used'])
PY
}
[ "$(hub_index_used 0)" = 1 ] || fail "the agent's pinned session is not at index 0 of its hub"
"$CGPERF" release -c "$TMP/hub.yaml" 2>"$TMP/release.log" || fail "release failed: $(cat "$TMP/release.log")"
[ "$(hub_index_used 0)" = 0 ] || fail "the released agent's index 0 is still used in the hub s4 holds"
[ "$(switch_progs "$p4")" = "$hub" ] || fail "the hub s4 holds is gone: s4 holds $(switch_progs "$p4")"
[ "$(hub_progs on_attach "$p4")" != "[]" ] || fail "s4 holds no on_attach link of the agent's hub after its release"
a6=$(usage_usec a)
burn_pinned a 1 s4_b
a7=$(usage_usec a)
kill -INT "$p4"; wait "$p4" || fail "s4 failed"
assert_cpu_clock "s4 on the agent's hub, across the agent's restart and release" \
	"$(counted s4 "$cg_a")" "$(((a5 - a4 + a7 - a6) / 1000))" 2 s4_a

# ---- the registry keeps only live hubs --------------------------------------
for ev in page-faults cpu-clock context-switches; do
	"$CGPERF" stat -x, -o /dev/null -e "$ev" -G "$cg_a" --duration 0.1 2>"$TMP/reg.log" ||
		fail "a short stat failed: $(cat "$TMP/reg.log")"
done
entries=$(bpftool map dump pinned "$CGPERF_BPFFS_DIR/hub_map" -j | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')
[ "$entries" -le 1 ] || fail "the hub registry holds $entries entries after every hub but the last is gone"
log "ok: one hub for every session, indexes taken back, the agent's hub shared across its restart and release, the registry swept"
