# SPDX-License-Identifier: GPL-2.0-only
# What the runtime tests check, the same way for every runtime: `cgperf list
# --json` and the agent's CSV rows name the real containers as their runtime
# does, count them like cpu.stat, and a tenant's look-alikes of them (a
# user@UID.service-shaped subtree of the test tree, holding the real ids and
# pod uid) get none of it. Source after common.sh and runtimes.sh.
#
#   rc_agent_config FILE METADATA_YAML   agent config anchored at the test tree
#   rc_begin                             before the containers start (steal window)
#   rc_burn_cmd NAME                     a container command: wait at gate NAME,
#                                        burn ~0.3 s, then sleep
#   RC_GATE_MOUNT                        the gates' directory, to bind-mount at /gate
#   rc_open_gate REL NAME                once the agent counts REL, open gate NAME
#   rc_wait_idle REL                     until cgroup REL (relative to the test
#                                        subtree) has burnt and gone idle
#   rc_lookalikes ID [POD_UID]           make the look-alikes, a sleeper in each
#   rc_check WANT_JSON                   list + agent rows against WANT_JSON:
#       {"<path relative to the test subtree>": {"kind": ..., "runtime": ...,
#        "container_name": ..., "pod_name": ..., "namespace": ..., "burns": bool}}

rc_agent_config() {
	cat >"$1" <<-EOF
	interval: 1s
	events: [cpu-clock]
	cgroups:
	  root: "$TEST_CG_REL"
	  include: ["$TEST_CG_REL/**"]
	metadata:
	$(printf '%s\n' "$2" | sed 's/^/  /')
	outputs:
	  csv:
	    directory: $TMP/csv
	EOF
	"$CGPERF" check-config "$1" >/dev/null || fail "runtime test config rejected: $(cat "$1")"
}

# The burn waits at a FIFO of its own (the host's $TMP/gate, bind-mounted
# read-only at /gate) until the agent counts its cgroup: what ran before
# (runc's setup, the shell) is in cpu.stat but not in the count, and is read
# while the container waits, so the lower bound does not depend on how fast
# the agent noticed the new cgroup.
RC_GATE_MOUNT=
declare -A RC_GATE_USAGE=()
rc_burn_cmd() {
	mkfifo "$RC_GATE_MOUNT/$1" || fail "cannot make gate $1"
	echo "read g </gate/$1; "'i=0; while [ $i -lt 150000 ]; do i=$((i+1)); done; exec sleep 2147483647'
}
rc_at_gate() {
	local p
	for p in $(cg_pids "$1"); do at_fifo "$p" && return 0; done
	return 1
}
rc_open_gate() {
	wait_counted "$TMP/agent.log" "$TEST_CG_REL/$1"
	poll 1000 0.01 rc_at_gate "$1" || fail "container $1 did not reach its gate"
	RC_GATE_USAGE[$1]=$(usage_usec "$1")
	echo go >"$RC_GATE_MOUNT/$2" || fail "cannot open gate $2"
}

rc_wait_idle() {
	local a b i
	for ((i = 0; i < 100; i++)); do
		a=$(usage_usec "$1"); sleep 0.3; b=$(usage_usec "$1")
		[ "$a" -gt 100000 ] && [ "$a" = "$b" ] && return 0
	done
	fail "container cgroup $1 did not burn and go idle (usage $b us)"
}

RC_TENANT="user.slice/user-4242.slice/user@4242.service"
RC_LOOKALIKES=() RC_ROOTLESS=()
# rc_lookalikes ID [POD]: the host layouts holding the real container id (and
# its pod's uid or id) where the tenant can mkdir, and the rootless layouts
# (a rootless container of uid 4242, which has no storage: no name at all).
rc_lookalikes() {
	local id=$1 pod=${2:-} rel a=$RC_TENANT/app.slice
	local shapes=("$a/docker-$id.scope" "$a/docker/$id" "$a/libpod_parent/libpod-$id"
		"$a/machine.slice/libpod-$id.scope" "$a/system.slice/docker-$id.scope")
	[ -z "$pod" ] || shapes+=("$a/kubepods/burstable/pod$pod/$id" "$a/kubepods/burstable/pod$pod"
		"$a/libpod_parent/$pod/libpod-$id" "$a/libpod_parent/$pod"
		"$a/machine.slice/machine-libpod_pod_$pod.slice/libpod-$id.scope")
	for rel in "${shapes[@]}" "$RC_TENANT/user.slice/docker-$id.scope" "$RC_TENANT/user.slice/libpod-$id.scope"; do
		mkcg "$rel" >/dev/null
		run_in_cg "$rel" sleep 60
	done
	RC_LOOKALIKES+=("${shapes[@]}")
	RC_ROOTLESS+=("$RC_TENANT/user.slice/docker-$id.scope" "$RC_TENANT/user.slice/libpod-$id.scope")
}

# steal_begin/steal_end/assert_cpu_clock come from tests/lib/common.sh where
# they exist; here a window's steal on all CPUs is the (looser) bound.
rc_steal_ms() { awk '$1 == "cpu" { print $9 * 10 }' /proc/stat; }
rc_begin() {
	RC_STEAL0=$(rc_steal_ms)
	RC_GATE_MOUNT=$TMP/gate
	mkdir -p "$RC_GATE_MOUNT"
}

rc_check() {
	local want=$1 steal1 rel
	for rel in "${!RC_GATE_USAGE[@]}"; do printf '%s %s\n' "$rel" "${RC_GATE_USAGE[$rel]}"; done >"$TMP/gate_usage"
	"$CGPERF" list -c "$TMP/agent.yaml" --json >"$TMP/list.json" || fail "cgperf list failed"
	# Usage now, then the final rows: the containers are idle in between.
	python3 - "$TMP/usage.json" "$TEST_CG" "$want" <<'PY'
import json, sys, os
out, base, want = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
u = {}
for rel in want:
    for line in open(os.path.join(base, rel, 'cpu.stat')):
        k, v = line.split()
        if k == 'usage_usec':
            u[rel] = int(v)
json.dump(u, open(out, 'w'))
PY
	kill -TERM "$AGENT_PID"
	wait "$AGENT_PID" || fail "agent failed: $(tail -5 "$TMP/agent.log")"
	steal1=$(rc_steal_ms)
	python3 - "$TMP/list.json" "$TMP/csv" "$TMP/usage.json" "$TEST_CG_REL" "$want" \
		"$(printf '%s\n' "${RC_LOOKALIKES[@]}")" "$((steal1 - RC_STEAL0))" \
		"$(printf '%s\n' "${RC_ROOTLESS[@]}")" "$TMP/gate_usage" <<'PY' || fail "runtime check failed"
import csv, glob, json, sys
listing = json.load(open(sys.argv[1], encoding='utf-8'))
csvdir, usage = sys.argv[2], json.load(open(sys.argv[3]))
base, want = sys.argv[4], json.loads(sys.argv[5])
lookalikes = [l for l in sys.argv[6].split('\n') if l]
steal_ms = float(sys.argv[7])
rootless = [l for l in sys.argv[8].split('\n') if l]
gate = {l.split()[0]: int(l.split()[1]) for l in open(sys.argv[9]) if l.strip()}
by = {r['path']: r for r in listing}
rows = {}
for p in glob.glob(csvdir + '/*.csv'):
    for r in csv.DictReader(open(p, newline='', encoding='utf-8', errors='surrogateescape')):
        rows.setdefault(r['cgroup'], []).append(r)
list_key = {'kind': 'kind', 'runtime': 'runtime', 'container_name': 'container_name',
            'pod_name': 'pod_name', 'namespace': 'namespace', 'pod_uid': 'pod_uid'}
csv_key = {'kind': 'kind', 'runtime': 'runtime', 'container_name': 'container_name',
           'pod_name': 'pod', 'namespace': 'namespace'}
names = set()
for rel, w in want.items():
    path = base + '/' + rel
    r = by.get(path)
    assert r, 'cgperf list does not show %s; it shows %s' % (path, sorted(by))
    for k, v in w.items():
        if k in list_key:
            assert r[list_key[k]] == v, ('list', rel, k, r[list_key[k]], v)
    assert path in rows, 'no CSV rows for %s' % path
    for row in rows[path]:
        for k, v in w.items():
            if k in csv_key:
                assert row[csv_key[k]] == v, ('csv', rel, k, row[csv_key[k]], v)
    if w.get('container_name'):
        names.add(w['container_name'])
    if w.get('burns'):
        got = sum(float(x['cpu-clock']) for x in rows[path]) / 1e6
        ref = usage[rel] / 1000
        assert rel in gate, 'burning container %s had no gate' % rel
        burn = ref - gate[rel] / 1000
        # cpu-clock includes steal time, cpu.stat does not; what ran before
        # the gate (runc's setup, before the agent counted the cgroup) may or
        # may not be in cpu-clock.
        ok = burn * 0.97 - 1 <= got <= ref * 1.03 + steal_ms + 5
        print('# %s: cpu-clock %.1f ms vs cpu.stat %.1f ms, %.1f ms of it after the gate (steal %.0f ms): %s'
              % (rel, got, ref, burn, steal_ms, 'ok' if ok else 'WRONG'))
        assert ok
for rel in lookalikes:
    path = base + '/' + rel
    r = by.get(path)
    assert r, 'look-alike %s not listed' % path
    assert r['kind'] not in ('container', 'pod'), ('look-alike taken for a container/pod', r)
    assert not r['container_name'] and not r['pod_name'] and not r['namespace'] and not r['container_id'], r
    for row in rows.get(path, []):
        assert row['kind'] not in ('container', 'pod') and not row['container_name'] and not row['pod'], row
for rel in rootless:
    path = base + '/' + rel
    r = by.get(path)
    assert r, 'rootless look-alike %s not listed' % path
    assert r['rootless'] is True and r['uid'] == 4242, r
    assert r['container_name'] in ('', r['container_id']) and not r['pod_name'], ('rootless look-alike named', r)
# No other cgroup carries a real container's name, in the list or the rows.
for r in listing:
    if r['path'][len(base) + 1:] not in want:
        assert r['container_name'] not in names, ('name borrowed', r)
for cg, rs in rows.items():
    if cg[len(base) + 1:] not in want:
        assert all(x['container_name'] not in names for x in rs), ('name borrowed in CSV', cg)
print('# ok: %d runtime cgroups named and counted; %d look-alikes and %d rootless look-alikes named nothing'
      % (len(want), len(lookalikes), len(rootless)))
PY
}
