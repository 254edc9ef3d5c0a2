# SPDX-License-Identifier: GPL-2.0-only
# A cgroup path that is removed and created again is a new cgroup (a new
# cgroup id, as when a container is recreated under the same name): the old
# one gets its final row, the new one starts from zero, and each id's rows
# add up to what that cgroup itself used (cpu.stat).
source "$CGPERF_SRC/tests/lib/common.sh"
c_rel="system.slice/docker-$(printf '%064x' 9).scope"
mkcg system.slice >/dev/null
cat >"$TMP/agent.yaml" <<YAML
interval: 1s
events: [cpu-clock]
cgroups:
  include: ["$TEST_CG_REL/system.slice/*"]
outputs:
  csv:
    directory: $TMP/csv
YAML
start_agent agent "$TMP/agent.yaml"

# wait_counted_n N: the agent (-v) has said N times that it counts $c.
wait_counted_n() {
	local i
	for ((i = 0; i < 100; i++)); do
		[ "$(grep -c "counting $c (" "$TMP/agent.log")" -ge "$1" ] && return 0
		sleep 0.1
	done
	fail "the agent did not count $c a $1. time: $(cat "$TMP/agent.log")"
}

c=$(mkcg "$c_rel"); wait_counted_n 1
id1=$(stat -c %i "$TEST_CG/$c_rel")
burn_pinned "$c_rel" 0.3 first
u1=$(usage_usec "$c_rel")
rmdir "$TEST_CG/$c_rel"
wait_for_line "$TMP/agent.log" "stopped counting $c" 10
mkcg "$c_rel" >/dev/null; wait_counted_n 2
id2=$(stat -c %i "$TEST_CG/$c_rel")
[ "$id1" != "$id2" ] || fail "the recreated cgroup has the old id $id1"
burn_pinned "$c_rel" 0.4 second
u2=$(usage_usec "$c_rel")
sleep 1.2
kill -TERM "$AGENT_PID"; wait "$AGENT_PID" || fail "agent failed: $(tail -5 "$TMP/agent.log")"

# id_sum ID: the cpu-clock (ms) of every row of cgroup id ID.
id_sum() {
	python3 - "$TMP/csv" "$c" "$1" <<'PY'
import csv, glob, sys
d, cg, cid = sys.argv[1:4]
rows = [r for p in glob.glob(d + '/*.csv') for r in csv.DictReader(open(p, newline=''))
        if r['cgroup'] == cg and r['cgroup_id'] == cid]
if not rows:
    sys.exit('no rows for %s with id %s' % (cg, cid))
print(sum(int(r['cpu-clock']) for r in rows) / 1e6)
PY
}
assert_cpu_clock "the first $c (id $id1)" "$(id_sum "$id1")" "$((u1 / 1000))" 3 first
assert_cpu_clock "the same path again (id $id2), from zero" "$(id_sum "$id2")" "$((u2 / 1000))" 3 second
