# Every row of a container carries its name, even when the name comes late:
# a new container's interval rows wait for its names lookup (at most 10 s;
# agent_collect.c names_wait). Docker look-alike metadata under a private
# root: three "slow" containers have a 14 MiB config.v2.json each (under the
# 16 MiB cap), which the lookup thread parses one after the other (~100 ms
# each here); container "fast", created right after, is looked up only
# then, while the agent collects every 50 ms. Without the wait, fast's first
# rows carried its short id; with it, its first row covers those lookups.
source "$CGPERF_SRC/tests/lib/common.sh"

sha() { printf '%s' "$1" | sha256sum | cut -c1-64; }
fast=$(sha names-fast)
slows=()
for i in 1 2 3; do
	slows+=("$(sha "names-slow-$i")")
	mkdir -p "$TMP/docker/containers/${slows[-1]}"
	python3 -c '
import json, sys
json.dump({"ID": sys.argv[1], "Name": "/slow", "Config": {"Image": "busybox"},
           "Pad": ["x" * 1000] * 14000}, open(sys.argv[2], "w"))' \
		"${slows[-1]}" "$TMP/docker/containers/${slows[-1]}/config.v2.json"
done
mkdir -p "$TMP/docker/containers/$fast"
printf '{"ID":"%s","Name":"/fast-one","Config":{"Image":"busybox"}}' "$fast" \
	>"$TMP/docker/containers/$fast/config.v2.json"
cat >"$TMP/agent.yaml" <<CONF
interval: 50ms
events: [cpu-clock]
cgroups:
  root: "$TEST_CG_REL"
  include: ["$TEST_CG_REL/system.slice/*"]
metadata:
  docker: "$TMP/docker"
outputs:
  csv:
    directory: $TMP/csv
    flush_interval: 0
CONF
"$CGPERF" check-config "$TMP/agent.yaml" >/dev/null || fail "config rejected"
mkcg system.slice >/dev/null
start_agent agent "$TMP/agent.yaml"
for slow in "${slows[@]}"; do mkcg "system.slice/docker-$slow.scope" >/dev/null; done
mkcg "system.slice/docker-$fast.scope" >/dev/null
run_in_cg "system.slice/docker-$fast.scope" "$BURN" 0.3
wait "$LAST_PID"
sleep 1
kill -TERM "$AGENT_PID"
wait "$AGENT_PID" || fail "agent failed: $(tail -5 "$TMP/agent.log")"
python3 - "$TMP/csv" "$TEST_CG_REL/system.slice/docker-$fast.scope" <<'PY' || fail "rows of fast without its name"
import csv, glob, sys
rows = [r for p in glob.glob(sys.argv[1] + '/*.csv')
        for r in csv.DictReader(open(p, newline='', encoding='utf-8'))
        if r['cgroup'] == sys.argv[2]]
names = [r['container_name'] for r in rows]
first_ms = int(rows[0]['interval_ms']) if rows else 0
print('# fast: %d rows, names %s, the first covering %d ms' % (len(rows), sorted(set(names)), first_ms))
assert len(rows) >= 3, 'too few rows of fast: %d' % len(rows)
assert set(names) == {'fast-one'}, names
# The first row waited for the lookups (more than two 50 ms intervals).
assert first_ms > 100, 'the first row did not wait: %d ms' % first_ms
PY
log "ok: every row of a container named late carries its name"
