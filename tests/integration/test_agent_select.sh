# SPDX-License-Identifier: GPL-2.0-only
# Selection in the agent: containers_only, excludes by name glob, and the cap
# on monitored cgroups with its rate-limited warning and the count of what it
# left out.
source "$CGPERF_SRC/tests/lib/common.sh"
for i in 1 2 3 4; do mkcg "system.slice/docker-$(printf '%064x' $i).scope" >/dev/null; done
mkcg "system.slice/cron.service" >/dev/null
cat >"$TMP/agent.yaml" <<YAML
interval: 1s
events: [cpu-clock]
cgroups:
  root: "$TEST_CG_REL"
  include: ["$TEST_CG_REL/**"]
  exclude: ["*-$(printf '%064x' 4).scope"]
  containers_only: true
  max: 2
outputs:
  csv:
    directory: $TMP/csv
YAML
start_agent agent "$TMP/agent.yaml" --duration 3
# Two more containers over the cap, a second apart: the warning is rate
# limited (one line a minute), the exit summary counts all three.
sleep 0.5; mkcg "system.slice/docker-$(printf '%064x' 5).scope" >/dev/null
sleep 1; mkcg "system.slice/docker-$(printf '%064x' 6).scope" >/dev/null
wait "$AGENT_PID" || fail "agent failed: $(cat "$TMP/agent.log")"
grep -q "monitored cgroup cap (2) reached: 1 cgroups not counted" "$TMP/agent.log" ||
	fail "no cap warning: $(cat "$TMP/agent.log")"
[ "$(grep -c "monitored cgroup cap" "$TMP/agent.log")" = 1 ] ||
	fail "the cap warning is not rate limited: $(grep "monitored cgroup cap" "$TMP/agent.log")"
grep -q "summary: 2 cgroups counted, [0-9]* resumed, 3 over the cap" "$TMP/agent.log" ||
	fail "the summary does not count every cgroup over the cap: $(grep summary "$TMP/agent.log")"
n=$(ls "$TMP/csv" | wc -l)
[ "$n" = 2 ] || fail "expected 2 monitored containers, got files: $(ls "$TMP/csv")"
grep -l "cron.service\|$(printf '%064x' 4)" "$TMP"/csv/*.csv && fail "a service or an excluded container was logged"
log "ok: 2 of 5 eligible containers counted, cap reported once, service and excluded one skipped"
