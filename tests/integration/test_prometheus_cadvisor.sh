# SPDX-License-Identifier: GPL-2.0-only
# cAdvisor's names (outputs.prometheus.names: both), read back by a real
# Prometheus scraping the agent, for a real Docker container with labels:
#  - container_perf_events_total and container_perf_events_scaling_ratio
#    carry cAdvisor's labels: id (the cgroup path), name (the Docker name),
#    image, container_label_<key> for the allow-listed keys only (a label
#    not asked for never shows), event; cpu="" (summed over CPUs), which
#    Prometheus stores as no label at all;
#  - the counter is cgperf_events_total's, at the same scrape, and its
#    cpu-clock matches the container's cpu.stat (the FIFO gate of the
#    runtime tests: lower bound what ran after the gate);
#  - queries written against cAdvisor's names (per container by name and
#    image) return one series of that shape;
#  - perf_events: cAdvisor opens events x CPUs x cgroups of them; the agent
#    opens none when 30 more cgroups come (the kernel's count of its
#    perf_event_open() calls, by perf stat).
source "$CGPERF_SRC/tests/lib/common.sh"
source "$CGPERF_SRC/tests/lib/runtimes.sh"
source "$CGPERF_SRC/tests/lib/runtime_checks.sh"
source "$CGPERF_SRC/tests/lib/prometheus.sh"

rt_start_dockerd
PORT=$(free_port)
PPORT=$(free_port)
API="http://127.0.0.1:$PPORT/api/v1"
cat >"$TMP/agent.yaml" <<EOF
interval: 1s
events: [cpu-clock, context-switches]
cgroups:
  root: "$TEST_CG_REL"
  include: ["$TEST_CG_REL/**"]
metadata:
  docker: "$DOCKER_DATA"
outputs:
  prometheus:
    listen: 127.0.0.1:$PORT
    names: both
    container_labels: [app, tier.level, absent]
EOF
"$CGPERF" check-config "$TMP/agent.yaml" >/dev/null || fail "config rejected"
# Two keys that make one label name: refused, with where.
printf 'outputs:\n  prometheus:\n    container_labels: [a.b, a-b]\n' >"$TMP/dup.yaml"
! "$CGPERF" check-config "$TMP/dup.yaml" >"$TMP/dup.out" 2>&1 || fail "a.b and a-b both accepted"
grep -q "dup.yaml:3:.*'a-b' is the label container_label_a_b, as 'a.b' already is" "$TMP/dup.out" ||
	fail "duplicate label names: $(cat "$TMP/dup.out")"

start_agent agent "$TMP/agent.yaml"
wait_http "http://127.0.0.1:$PORT/metrics" 20
cat >"$TMP/prometheus.yml" <<YAML
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: cgperf
    static_configs:
      - targets: ["127.0.0.1:$PORT"]
YAML
mkdir "$TMP/tsdb"
start_bg "$PROMETHEUS" --config.file="$TMP/prometheus.yml" --storage.tsdb.path="$TMP/tsdb" \
	--web.listen-address="127.0.0.1:$PPORT" --log.level=warn
PROM_PID=$LAST_PID
wait_http "http://127.0.0.1:$PPORT/-/ready" 60

# api PATH ARGS...: the JSON of a Prometheus API call, "data" only.
api() {
	local path=$1; shift
	curl -sS --get "$API/$path" "$@" | python3 -c '
import json, sys
d = json.load(sys.stdin)
if d.get("status") != "success": sys.exit("API call failed: %s" % d)
print(json.dumps(d["data"]))'
}
# query PROMQL: the value of the single series an instant query returns.
query() {
	api query --data-urlencode "query=$1" | python3 -c '
import json, sys
r = json.load(sys.stdin)["result"]
if len(r) != 1: sys.exit("expected one series, got %d: %s" % (len(r), r))
print(r[0]["value"][1])'
}

rc_begin
name="web-$$"
id=$($DOCKER run -d --name "$name" --label app=web --label tier.level=front --label secret=s3cr3t \
	-v "$RC_GATE_MOUNT:/gate:ro" cgperf-bb:1 sh -c "$(rc_burn_cmd web)") ||
	fail "docker run failed: $(tail -5 "$RT/dockerd.log")"
rel="docker/$id"
rc_open_gate "$rel" web
rc_wait_idle "$rel"
usage_ms=$(awk -v u="$(usage_usec "$rel")" 'BEGIN { print u / 1000 }')
gate_ms=$(awk -v u="${RC_GATE_USAGE[$rel]}" 'BEGIN { print u / 1000 }')

# perf_events: cAdvisor opens one per event x CPU x cgroup; the agent's
# are per event x CPU, shared by every cgroup. The kernel counts the
# agent's perf_event_open() calls while 30 more cgroups come and are
# counted: none.
start_perf_stat -x, -o "$TMP/opens.csv" -e syscalls:sys_enter_perf_event_open -p "$AGENT_PID"
for i in $(seq 30); do mkcg "more/c$i" >/dev/null; done
wait_counted "$TMP/agent.log" "$TEST_CG_REL/more/c30"
sleep 1.5 # a collection with them all
pkill -INT -P "$PERF_PID" sleep
wait "$PERF_PID" || fail "perf stat failed: $(cat "$TMP/opens.csv")"
opens=$(awk -F, '$3 == "syscalls:sys_enter_perf_event_open" { print $1 }' "$TMP/opens.csv")
cpus=$(grep -c '^cpu[0-9]' /proc/stat)
log "perf_event_open() by the agent while 30 cgroups were added: ${opens:-none} (cAdvisor: 2 events x $cpus CPUs x 30 = $((2 * cpus * 30)))"
[ "$opens" = 0 ] || fail "the agent opened perf_events for new cgroups: '$opens' ($(cat "$TMP/opens.csv"))"

# Prometheus has the container's final count once two scrapes agree.
sel="container_perf_events_total{event=\"cpu-clock\",name=\"$name\"}"
prev= got=
for _ in $(seq 100); do
	got=$(query "$sel" 2>/dev/null) && [ "$got" = "$prev" ] && break
	prev=$got
	sleep 1
done
[ -n "$got" ] || fail "Prometheus has no $sel"

# The series as Prometheus stored them.
api series --data-urlencode "match[]=container_perf_events_total{name=\"$name\"}" \
	--data-urlencode "match[]=container_perf_events_scaling_ratio{name=\"$name\"}" >"$TMP/series.json"
python3 - "$TMP/series.json" "$TEST_CG_REL/$rel" "$name" "127.0.0.1:$PORT" <<'PY' || fail "cAdvisor's labels"
import json, sys
series = json.load(open(sys.argv[1]))
cg, name, inst = sys.argv[2:5]
want = []
for fam in ("container_perf_events_total", "container_perf_events_scaling_ratio"):
    for ev in ("context-switches", "cpu-clock"):
        want.append({"__name__": fam, "event": ev, "id": cg, "name": name, "image": "cgperf-bb:1",
                     "container_label_app": "web", "container_label_tier_level": "front",
                     "instance": inst, "job": "cgperf"})
key = lambda s: json.dumps(s, sort_keys=True)
got = sorted(series, key=key)
if got != sorted(want, key=key):
    sys.exit("series:\n  got  %s\n  want %s" % ("\n       ".join(map(key, got)), "\n       ".join(map(key, sorted(want, key=key)))))
print("# ok: %d series with cAdvisor's labels, no label of 'secret', no cpu" % len(got))
PY

# The same counter under both names, and cpu.stat.
diff=$(query "$sel - on(event) cgperf_events_total{event=\"cpu-clock\",cgroup=\"$TEST_CG_REL/$rel\"}")
[ "$diff" = 0 ] || fail "container_perf_events_total - cgperf_events_total = $diff"
got_ms=$(awk -v v="$got" 'BEGIN { print v / 1e6 }')
steal_ms=$(($(rc_steal_ms) - RC_STEAL0))
log "container_perf_events_total cpu-clock ${got_ms} ms; cpu.stat ${usage_ms} ms (${gate_ms} ms before the gate), steal <= ${steal_ms} ms"
awk -v g="$got_ms" -v u="$usage_ms" -v b="$gate_ms" -v s="$steal_ms" \
	'BEGIN { exit !(g >= (u - b) * 0.98 && g <= u * 1.02 + s) }' ||
	fail "cpu-clock ${got_ms} ms outside [cpu.stat after the gate $(awk -v u="$usage_ms" -v b="$gate_ms" 'BEGIN{print u-b}') ms -2 %, cpu.stat ${usage_ms} ms +2 % + steal]"
[ "$(query "container_perf_events_scaling_ratio{event=\"cpu-clock\",name=\"$name\"}")" = 1 ] ||
	fail "a software event's scaling ratio is not 1"

# A query as written against cAdvisor: per container by name and image.
api query --data-urlencode "query=sum by (name, image) (container_perf_events_total{event=\"context-switches\",name!=\"\"}) / sum by (name, image) (container_perf_events_total{event=\"cpu-clock\",name!=\"\"})" >"$TMP/q.json"
python3 - "$TMP/q.json" "$name" <<'PY' || fail "a cAdvisor-style query"
import json, sys
r = json.load(open(sys.argv[1]))["result"]
if [s["metric"] for s in r] != [{"name": sys.argv[2], "image": "cgperf-bb:1"}]:
    sys.exit("result: %s" % r)
print("# ok: switches per ns of %s: %s" % (sys.argv[2], r[0]["value"][1]))
PY

# The exposition as written (Prometheus re-sorts labels): cAdvisor's order,
# the label not asked for nowhere; and as promtool lints it.
curl -sS "http://127.0.0.1:$PORT/metrics" >"$TMP/metrics.txt"
want="container_perf_events_total{container_label_absent=\"\",container_label_app=\"web\",container_label_tier_level=\"front\",cpu=\"\",event=\"cpu-clock\",id=\"$TEST_CG_REL/$rel\",image=\"cgperf-bb:1\",name=\"$name\"} "
grep -qF "$want" "$TMP/metrics.txt" || fail "no line starting $want: $(grep -m2 container_perf_events_total "$TMP/metrics.txt")"
! grep -q 's3cr3t\|container_label_secret' "$TMP/metrics.txt" || fail "a label not asked for was exposed"
"$PROMTOOL" check metrics <"$TMP/metrics.txt" || fail "promtool check metrics: $(promtool check metrics <"$TMP/metrics.txt" 2>&1 | head -5)"

kill -TERM "$PROM_PID"; wait "$PROM_PID" 2>/dev/null || true
kill -TERM "$AGENT_PID"; wait "$AGENT_PID" || fail "agent exit status $?"
log "PASS"
