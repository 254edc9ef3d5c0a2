# SPDX-License-Identifier: GPL-2.0-only
# Container churn under the agent: 300 cgroups created and removed in a few
# seconds while counting, with the cap at 40. Slots are recycled (the cap is
# never hit), every cgroup gets its final row, and the agent's fds come back
# to where they were. Then a changed config on SIGHUP restarts counting with
# the new events (the files' event columns change, nothing is mixed).
source "$CGPERF_SRC/tests/lib/common.sh"
mkcg churn >/dev/null
cat >"$TMP/agent.yaml" <<YAML
interval: 1s
events: [context-switches]
cgroups:
  root: "$TEST_CG_REL"
  include: ["$TEST_CG_REL/churn/*"]
  max: 40
outputs:
  csv:
    directory: $TMP/csv
YAML
start_agent agent "$TMP/agent.yaml"
fds_before=$(ls /proc/"$AGENT_PID"/fd | wc -l)
for batch in $(seq 0 14); do
	for i in $(seq 0 19); do mkdir "$TEST_CG/churn/c$batch-$i"; done
	sleep 0.05
	for i in $(seq 0 19); do rmdir "$TEST_CG/churn/c$batch-$i"; done
done
# Until every one has its final row (however long a loaded machine takes),
# then a collection more for the files to be closed.
all_files() { [ "$(ls "$TMP/csv" | wc -l)" -ge 300 ]; }
poll $((1200 * ${CGPERF_SLOW_FACTOR:-1})) 0.05 all_files || true
n=$(ls "$TMP/csv" | wc -l)
[ "$n" = 300 ] || fail "expected a final row file for each of 300 cgroups, found $n"
fds_back() { fds_after=$(ls /proc/"$AGENT_PID"/fd | wc -l); [ "$fds_after" -le "$fds_before" ]; }
poll $((300 * ${CGPERF_SLOW_FACTOR:-1})) 0.1 fds_back || fail "agent fds grew from $fds_before to $fds_after"
grep -q "cap (40) reached" "$TMP/agent.log" && fail "slots were not recycled: $(grep cap "$TMP/agent.log")"
log "ok: 300 cgroups came and went: 300 files, fds $fds_before -> $fds_after"

# A valid new config on SIGHUP: counting restarts with the new event set.
mkcg churn/stay >/dev/null
wait_counted "$TMP/agent.log" "$TEST_CG_REL/churn/stay"
sleep 1.2
sed -i 's/events: \[context-switches\]/events: [context-switches, cpu-clock]/' "$TMP/agent.yaml"
kill -HUP "$AGENT_PID"
wait_for_line "$TMP/agent.log" "counting .* 2 events" 10
run_in_cg churn/stay "$BURN" 0.2; wait "$LAST_PID"
sleep 1.5
kill -TERM "$AGENT_PID"; wait "$AGENT_PID" || fail "agent failed"
f=$(grep -l "churn/stay" "$TMP"/csv/*.csv | head -1)
head -1 "$f" | grep -q "cpu-clock" || fail "after reload the file has the old header: $(head -1 "$f")"
python3 - "$TMP/csv" <<'PY' || fail "malformed CSV after reload"
import csv, glob, sys
for p in glob.glob(sys.argv[1] + '/*'):
    rows = list(csv.reader(open(p, newline='')))
    assert all(len(r) == len(rows[0]) for r in rows), p
PY
log "ok: SIGHUP with new events started a file with the new columns"
