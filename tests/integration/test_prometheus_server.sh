# SPDX-License-Identifier: GPL-2.0-only
# A real Prometheus server (Debian's prometheus, its own config and storage
# in this test's directory, loopback port) scrapes the agent every second.
# Through Prometheus' HTTP API: the increase of
# cgperf_events_total{event="cpu-clock"} of a burner cgroup over the run
# equals the cgroup's cpu.stat usage within 2 % (cpu-clock includes
# hypervisor steal time, cpu.stat does not: the steal of the burner's CPU is
# allowed on top), and cgroup names with quotes, backslashes and bytes that
# are not UTF-8 come back as the label values expected. It also evaluates
# the shipped rules (packaging/prometheus/cgperf-rules.yml): the burner's
# recorded CPU cores, no alert firing for a healthy agent.
source "$CGPERF_SRC/tests/lib/common.sh"
source "$CGPERF_SRC/tests/lib/prometheus.sh"

PORT=$(free_port)
PPORT=$(free_port)
API="http://127.0.0.1:$PPORT/api/v1"
agent_yaml "$TMP/agent.yaml" <<YAML
  prometheus:
    listen: 127.0.0.1:$PORT
YAML
burn_rel=$(mkcg burner)
for n in 'q"uote' 'back\slash' $'bad\xffbyte'; do mkdir "$TEST_CG/$n"; done

start_agent agent "$TMP/agent.yaml"
wait_http "http://127.0.0.1:$PORT/metrics" 20

mkdir "$TMP/tsdb"
cat >"$TMP/prometheus.yml" <<YAML
global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
rule_files: ["$CGPERF_SRC/packaging/prometheus/cgperf-rules.yml"]
scrape_configs:
  - job_name: cgperf
    static_configs:
      - targets: ["127.0.0.1:$PORT"]
YAML
"$PROMTOOL" check config "$TMP/prometheus.yml" >/dev/null || fail "promtool refused the Prometheus config"
start_bg "$PROMETHEUS" --config.file="$TMP/prometheus.yml" --storage.tsdb.path="$TMP/tsdb" \
	--web.listen-address="127.0.0.1:$PPORT" --log.level=warn
PROM_PID=$LAST_PID
wait_http "http://127.0.0.1:$PPORT/-/ready" 60

# query PROMQL: the value of the single result of an instant query.
query() {
	curl -sS --get "$API/query" --data-urlencode "query=$1" | python3 -c '
import json, sys
d = json.load(sys.stdin)
if d.get("status") != "success": sys.exit("query failed: %s" % d)
r = d["data"]["result"]
if len(r) != 1: sys.exit("expected one series, got %d: %s" % (len(r), r))
print(r[0]["value"][1])'
}
for _ in $(seq 100); do
	[ "$(query 'up{job="cgperf"}' 2>/dev/null)" = 1 ] && break
	sleep 0.2
done
[ "$(query 'up{job="cgperf"}')" = 1 ] || fail "Prometheus does not see the agent up"
# Samples of the idle burner cgroup first (min_over_time needs one from
# before the burn): waited for by their number.
two_samples() {
	[ "$(query "count_over_time(cgperf_events_total{event=\"cpu-clock\",cgroup=\"$burn_rel\"}[2m])" 2>/dev/null)" -ge 2 ] 2>/dev/null
}
poll $((600 * ${CGPERF_SLOW_FACTOR:-1})) 0.2 two_samples || fail "Prometheus has no samples of the burner cgroup"

# Burn 4 s on one CPU; its steal over the window bounds what cpu-clock may
# exceed cpu.stat by. /proc/stat's steal is in USER_HZ ticks: one more tick
# at each end for the granularity.
cpu=$(awk -F'[-,]' '{ print $NF }' /sys/devices/system/cpu/online)
steal_ticks() { awk -v c="cpu$cpu" '$1 == c { print $9 }' /proc/stat; }
s0=$(steal_ticks)
run_in_cg burner taskset -c "$cpu" "$BURN" 4
wait "$LAST_PID" || fail "burner failed"
s1=$(steal_ticks)
hz=$(getconf CLK_TCK)
steal_ms=$(awk -v a="$s0" -v b="$s1" -v hz="$hz" 'BEGIN { print (b - a + 2) * 1000 / hz }')
usage_ms=$(awk -v u="$(usage_usec burner)" 'BEGIN { print u / 1000 }')

# The agent's next collections, then Prometheus' scrapes of them: waited
# for by what Prometheus holds (the burn is over: nothing more comes), not
# by a time.
sel="cgperf_events_total{event=\"cpu-clock\",cgroup=\"$burn_rel\"}"
scraped_all() {
	inc_ns=$(query "max_over_time(${sel}[2m]) - min_over_time(${sel}[2m])" 2>/dev/null) &&
		awk -v v="$inc_ns" -v u="$usage_ms" 'BEGIN { exit !(v / 1e6 >= u * 0.98) }'
}
poll $((600 * ${CGPERF_SLOW_FACTOR:-1})) 0.2 scraped_all || true
inc_ns=$(query "max_over_time(${sel}[2m]) - min_over_time(${sel}[2m])")
first_ns=$(query "min_over_time(${sel}[2m])")
[ "$(query "resets(${sel}[2m])")" = 0 ] || fail "the counter went backwards"
got_ms=$(awk -v v="$inc_ns" 'BEGIN { print v / 1e6 }')
log "Prometheus: increase of cpu-clock over the run ${got_ms} ms (first sample ${first_ns} ns); cpu.stat ${usage_ms} ms; steal on CPU $cpu <= ${steal_ms} ms"
awk -v g="$got_ms" -v u="$usage_ms" -v s="$steal_ms" 'BEGIN { exit !(u > 3000 && g >= u * 0.98 && g <= u * 1.02 + s) }' ||
	fail "cpu-clock increase ${got_ms} ms vs cpu.stat ${usage_ms} ms: outside [-2 %, +2 % + steal ${steal_ms} ms]"
log "ok: cpu-clock through Prometheus within 2 % of cpu.stat (+ steal)"

# Odd names as Prometheus stored them.
curl -sS --get "$API/series" --data-urlencode 'match[]=cgperf_events_total{event="context-switches"}' >"$TMP/series.json"
python3 - "$TMP/series.json" "$TEST_CG_REL" <<'PY' || fail "odd cgroup names did not come back from Prometheus"
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
got = {s["cgroup"] for s in d["data"]}
base = sys.argv[2]
want = [base + '/q"uote', base + '/back\\slash', base + '/bad\ufffdbyte']
missing = [w for w in want if w not in got]
if missing:
    sys.exit("missing %r in %r" % (missing, sorted(got)))
print("# ok: Prometheus has %s" % ", ".join(repr(w[len(base):]) for w in want))
PY
for fam in cgperf_cgroups_monitored cgperf_collection_duration_seconds cgperf_watch_limit_reached; do
	query "$fam{job=\"cgperf\"}" >/dev/null || fail "$fam not scraped"
done
[ "$(query 'cgperf_build_info{job="cgperf"}')" = 1 ] || fail "build_info not scraped"
[ "$(query 'cgperf_cgroups_monitored{job="cgperf"}')" = 5 ] || fail "cgroups_monitored is not 5"

# The shipped rules, evaluated by this Prometheus: the burner's recorded
# cores over its burn (a rate over the few samples the window holds, whose
# size is Prometheus' affair: more than none), and no alert of a healthy
# agent.
cores=$(query "max_over_time(cgperf:cpu_cores:rate5m{cgroup=\"$burn_rel\"}[2m])") ||
	fail "no cgperf:cpu_cores:rate5m for the burner"
awk -v c="$cores" 'BEGIN { exit !(c > 0) }' || fail "recorded cores of a burner: $cores"
# ALERTS holds pending alerts too: a rule whose condition holds shows there
# at once, before its for: has passed.
curl -sS --get "$API/query" --data-urlencode 'query=ALERTS' >"$TMP/alerts.json"
python3 -c 'import json,sys; r = json.load(open(sys.argv[1]))["data"]["result"]; sys.exit("pending or firing: %s" % r if r else 0)' \
	"$TMP/alerts.json" || fail "alerts pending or firing for a healthy agent"
log "ok: the shipped rules load and record (burner: up to $cores cores), no alert fires"

kill -TERM "$PROM_PID"; wait "$PROM_PID" 2>/dev/null || true
kill -TERM "$AGENT_PID"; wait "$AGENT_PID" || fail "agent exit status $?"
log "PASS"
