# SPDX-License-Identifier: GPL-2.0-only
# The agent end to end: test containers (cgroups named like Docker's, with CPU
# burners) get per-container CSV rows whose cpu-clock adds up, over the run,
# to the kernel's cpu.stat usage within 3% (plus the steal time, which
# cpu-clock includes and cpu.stat does not); a container living 300 ms between
# two intervals still gets its row; SIGTERM writes final rows; kill -9 and a
# restart need no manual cleanup.
source "$CGPERF_SRC/tests/lib/common.sh"

# Distinct short ids (the first 12 characters), as real containers have.
hex() { printf '%012x%052x' "$1" 0; }
c1_rel="system.slice/docker-$(hex 1).scope"
c2_rel="system.slice/docker-$(hex 2).scope"
mkcg system.slice >/dev/null
cat >"$TMP/agent.yaml" <<YAML
interval: 2s
events: [cpu-clock, context-switches]
cgroups:
  root: "$TEST_CG_REL"
  include: ["$TEST_CG_REL/**"]
outputs:
  csv:
    directory: $TMP/csv
YAML
"$CGPERF" check-config "$TMP/agent.yaml" || fail "test config rejected"

start_agent agent "$TMP/agent.yaml"
c1=$(mkcg "$c1_rel"); c2=$(mkcg "$c2_rel")
wait_counted "$TMP/agent.log" "$c1"
wait_counted "$TMP/agent.log" "$c2"

steal_begin c1; steal_begin c2
run_in_cg "$c1_rel" "$BURN" 1.5 2; p1=$LAST_PID
run_in_cg "$c2_rel" taskset -c "$BURN_CPU" "$BURN" 1; p2=$LAST_PID

# A container that lives ~300 ms, all between two rows (interval 2 s).
short=$(mkcg short-lived)
wait_counted "$TMP/agent.log" "$short"
burn_pinned short-lived 0.3 short
short_usage=$(usage_usec short-lived)
rmdir "$TEST_CG/short-lived"
wait_for_line "$TMP/agent.log" "stopped counting $short" 10

wait "$p1" "$p2"
u1=$(usage_usec "$c1_rel"); u2=$(usage_usec "$c2_rel")
steal_end c1; steal_end c2 "$BURN_CPU"
# Burn again right before SIGTERM: only the final rows can hold this.
burn_pinned "$c2_rel" 0.4 c2
u2_final=$(usage_usec "$c2_rel")
kill -TERM "$AGENT_PID"
wait "$AGENT_PID" || fail "agent exited non-zero after SIGTERM: $(tail -5 "$TMP/agent.log")"

grep -q "summary: .* cgroups counted, .* 0 over the cap (0 waiting at the end, 0 gave their slot up), 0 final rows lost; CSV: [0-9]* rows written, 0 failed" "$TMP/agent.log" ||
	fail "no clean exit summary: $(tail -3 "$TMP/agent.log")"
log "$(grep summary "$TMP/agent.log")"
ls -l "$TMP/csv" >&2
assert_cpu_clock "container 1 cpu-clock (all rows)" \
	"$(csv_sum "$TMP/csv" "$c1" cpu-clock | awk '{ print $1 / 1e6 }')" "$((u1 / 1000))" 3 c1
assert_cpu_clock "container 2 incl. the burn just before SIGTERM" \
	"$(csv_sum "$TMP/csv" "$c2" cpu-clock | awk '{ print $1 / 1e6 }')" "$((u2_final / 1000))" 3 c2
[ "$u2_final" -gt $((u2 + 300000)) ] || fail "the last burn did not happen"
assert_cpu_clock "short-lived container's row" \
	"$(csv_sum "$TMP/csv" "$short" cpu-clock | awk '{ print $1 / 1e6 }')" "$((short_usage / 1000))" 3 short

# kill -9, then a restart works without cleanup and appends to the same files.
files_before=$(ls "$TMP/csv" | wc -l)
start_agent agent2 "$TMP/agent.yaml"
kill -KILL "$AGENT_PID"; wait "$AGENT_PID" 2>/dev/null || true
start_agent agent3 "$TMP/agent.yaml" --duration 2.5
run_in_cg "$c1_rel" "$BURN" 0.2; wait "$LAST_PID"
wait "$AGENT_PID" || fail "restarted agent failed: $(tail -5 "$TMP/agent3.log")"
ls -l "$TMP/csv" >&2; [ "$(ls "$TMP/csv" | wc -l)" = "$files_before" ] || fail "restart created new files: $(ls "$TMP/csv")"
python3 - "$TMP/csv" <<'PY' || fail "CSV files are not well-formed after restarts"
import csv, glob, sys
for p in glob.glob(sys.argv[1] + "/*.csv"):
    rows = list(csv.reader(open(p, newline='', encoding='utf-8', errors='surrogateescape')))
    header = rows[0]
    assert header[:10] == ['timestamp', 'cgroup', 'cgroup_id', 'kind', 'runtime', 'container_id',
                           'container_name', 'pod', 'namespace', 'interval_ms'], header
    for r in rows[1:]:
        assert len(r) == len(header), (p, r)
        assert r != header, "header repeated in " + p
PY
log "ok: restart after kill -9 appended to the same well-formed files"
