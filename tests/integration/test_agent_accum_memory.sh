# SPDX-License-Identifier: GPL-2.0-only
# The agent's accumulators follow the live cgroups, not cgroups.max
# (bpf/accum.h): measured as the kernel's own memory accounting of the
# agent's accumulator map (memlock, what `bpftool map show` prints: for a
# non-preallocated hash, its values and bucket table, not the allocator's
# per-CPU caches), with cgroups.max at its default of 4096:
#  - hash (the default where the kernel allows it): a value per live cgroup;
#    200 cgroups added grow the map by at least 200 values, removing them
#    gives the memory back, and it stays far below the array's size;
#  - array (--accumulators array, the fallback before Linux 6.1): sized for all 4096 slots
#    from the start, and still counts (a burner's cpu-clock vs cpu.stat).
# Before Linux 6.4 the kernel reports a hash map's memlock from max_entries
# (no map_mem_usage yet), whatever it holds: there the oracle is the map's
# own entries (a dump) and its BPF_F_NO_PREALLOC flag (memory per entry).
# Skipped (exit 77) where hash accumulators are not available (before 6.1),
# after the array checks.
source "$CGPERF_SRC/tests/lib/common.sh"

NR_POSSIBLE=$(python3 -c 'import sys
n = 0
for part in open("/sys/devices/system/cpu/possible").read().strip().split(","):
    a, _, b = part.partition("-")
    n += int(b or a) - int(a) + 1
print(n)')
VALUE=48 # two events x 24 bytes (counter, enabled, running)
ARRAY_BYTES=$((4096 * NR_POSSIBLE * VALUE))

mkcg mem >/dev/null
for i in $(seq 1 5); do mkcg "mem/base$i" >/dev/null; done
cat >"$TMP/agent.yaml" <<YAML
interval: 1s
events: [cpu-clock, context-switches]
cgroups:
  include: ["$TEST_CG_REL/mem/*"]
outputs:
  csv:
    directory: $TMP/csv
YAML

# accum_map_id PID: the id of the accumulator map PID holds.
accum_map_id() {
	local f id
	for f in /proc/"$1"/fdinfo/*; do
		id=$(awk '$1 == "map_id:" { print $2 }' "$f" 2>/dev/null) || continue
		[ -n "$id" ] || continue
		bpftool -j map show id "$id" 2>/dev/null | grep -q '"name":"accum_readings"' &&
			{ echo "$id"; return 0; }
	done
	fail "no accumulator map among the fds of $1"
}
# map_info ID: "TYPE MEMLOCK" of map ID.
map_info() {
	bpftool -j map show id "$1" | python3 -c '
import json, sys
m = json.load(sys.stdin)
print(m["type"], m["bytes_memlock"])'
}
memlock() { map_info "$1" | awk '{ print $2 }'; }
# counted N: the agent's log says it counts N cgroups under mem/ at least.
counted_at_least() { [ "$(grep -c "counting $TEST_CG_REL/mem/" "$TMP/$2.log")" -ge "$1" ]; }

# ---- array: sized for every slot, and it counts ------------------------------
start_agent arr "$TMP/agent.yaml" --accumulators array --no-persist
wait_counted "$TMP/arr.log" "$TEST_CG_REL/mem/base5"
read -r type bytes <<<"$(map_info "$(accum_map_id "$AGENT_PID")")"
[ "$type" = percpu_array ] || fail "--accumulators array gave a $type map"
[ "$bytes" -ge "$ARRAY_BYTES" ] ||
	fail "array accumulators take $bytes bytes, less than 4096 slots x $NR_POSSIBLE CPUs x $VALUE"
# burn_check CG NAME: burn 0.4 s in CG; after the agent's exit its rows'
# cpu-clock must match cpu.stat (3 %, plus the steal on the burner's CPU).
burn_check() {
	local u0 u1 ms
	u0=$(usage_usec "$1")
	burn_pinned "$1" 0.4 "$2"
	u1=$(usage_usec "$1")
	sleep 1.5
	kill -TERM "$AGENT_PID"; wait "$AGENT_PID"
	ms=$(awk -v ns="$(csv_sum "$TMP/csv" "$TEST_CG_REL/$1" cpu-clock)" 'BEGIN { print ns / 1e6 }')
	assert_cpu_clock "$2: $1" "$ms" "$(((u1 - u0) / 1000))" 3 "$2"
}
burn_check mem/base1 "array accumulators"
log "ok: array accumulators: $type, $bytes bytes for 5 cgroups (>= $ARRAY_BYTES)"

reason=$("$CGPERF" stat -v --accumulators hash -e cpu-clock -G / --duration 0.1 2>&1 >/dev/null) ||
	skip "hash accumulators refused here: $(grep accumulators <<<"$reason")"

# ---- hash: grows and shrinks with the live cgroups ---------------------------
rm -rf "$TMP/csv"
start_agent hash "$TMP/agent.yaml"
grep -q "accumulators: per-CPU hash" "$TMP/hash.log" || fail "no line saying which accumulators: $(cat "$TMP/hash.log")"
wait_counted "$TMP/hash.log" "$TEST_CG_REL/mem/base5"
MAP=$(accum_map_id "$AGENT_PID")
read -r type m5 <<<"$(map_info "$MAP")"
[ "$type" = percpu_hash ] || fail "default accumulators are a $type map on a kernel that allows a hash"
# entries ID: how many entries map ID holds (the kernel's iteration of it).
entries() { bpftool -j map dump id "$1" | python3 -c 'import json, sys; print(len(json.load(sys.stdin)))'; }
e5=$(entries "$MAP")
for i in $(seq 1 200); do mkdir "$TEST_CG/mem/c$i"; done
poll 300 0.1 counted_at_least 205 hash || fail "the agent did not count the 200 new cgroups"
if python3 -c 'import os, sys; sys.exit(tuple(map(int, os.uname().release.split("-")[0].split(".")[:2])) < (6, 4))'; then
	m_live=$(memlock "$MAP")
	grow=$((m_live - m5))
	[ "$grow" -ge $((200 * NR_POSSIBLE * VALUE)) ] ||
		fail "200 cgroups grew the accumulators by $grow bytes, less than their values"
	[ "$m_live" -lt $((ARRAY_BYTES / 2)) ] ||
		fail "205 live cgroups take $m_live bytes of accumulators, not far below the array's $ARRAY_BYTES"
	log "ok: hash accumulators: 5 cgroups $m5 bytes, 205 cgroups $m_live bytes (array: $ARRAY_BYTES)"
	gone() { [ "$(memlock "$MAP")" -le $((m5 + m5 / 4)) ]; }
	left() { echo "$(memlock "$MAP") bytes (5 cgroups: $m5)"; }
else
	log "Linux $(uname -r) reports memlock from max_entries: counting the map's entries instead"
	flags=$(bpftool -j map show id "$MAP" | python3 -c 'import json, sys; print(json.load(sys.stdin)["flags"])')
	[ $((flags & 1)) = 1 ] || fail "the hash accumulators are preallocated (flags $flags): memory for every slot"
	n_live=$(entries "$MAP")
	[ "$n_live" -ge 205 ] && [ "$n_live" -le 410 ] || fail "205 live cgroups hold $n_live accumulator entries"
	log "ok: hash accumulators (BPF_F_NO_PREALLOC): $e5 entries for 5 cgroups, $n_live for 205 (array: 4096 slots)"
	gone() { [ "$(entries "$MAP")" -le "$e5" ]; }
	left() { echo "$(entries "$MAP") entries"; }
fi

# Removed: their final rows, then their values are freed.
for i in $(seq 1 200); do rmdir "$TEST_CG/mem/c$i"; done
poll 100 0.1 gone || fail "accumulators still $(left) after 200 cgroups left"
[ "$(ls "$TMP/csv" | grep -cE '_mem_c[0-9]+_[0-9a-f]{16}\.csv$' || true)" = 200 ] ||
	fail "not every removed cgroup has its file: $(ls "$TMP/csv" | wc -l) files"
log "ok: back to $(left) with the 5 cgroups left"

# A burner still counts right after the churn (values were recycled).
burn_check mem/base2 "hash accumulators"
"$CGPERF" release -c "$TMP/agent.yaml" 2>/dev/null || fail "release failed"
