# SPDX-License-Identifier: GPL-2.0-only
# Every row of a container carries its name, even when the name comes late:
# a new container's interval rows wait for its names lookup (at most 10 s;
# agent_collect.c names_wait). Docker look-alike metadata under a private
# root. The agent's lookup thread ("cgperf-names") is held still with ptrace
# (tests/helpers/freeze_thread) while container "fast" appears and burns, for
# four collections the test counts in another container's rows: so the
# lookup is late by construction, not by how slow this machine parses JSON.
# Checked: no row of fast while its name is unknown; after the thread goes
# on, every row named, the first covering the collections it waited through;
# held at SIGTERM, the agent exits all the same (the thread left behind).
source "$CGPERF_SRC/tests/lib/common.sh"

sha() { printf '%s' "$1" | sha256sum | cut -c1-64; }
fast=$(sha names-fast)
ref=$(sha names-ref)
for c in "$fast:fast-one" "$ref:ref-one"; do
	mkdir -p "$TMP/docker/containers/${c%%:*}"
	printf '{"ID":"%s","Name":"/%s","Config":{"Image":"busybox"}}' "${c%%:*}" "${c#*:}" \
		>"$TMP/docker/containers/${c%%:*}/config.v2.json"
done
cat >"$TMP/agent.yaml" <<CONF
interval: 100ms
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
# The agent exits with a thread under ptrace, where LeakSanitizer cannot run
# (a sanitizer build): its leak check is off here, ASan's checks stay.
[ -z "${ASAN_OPTIONS:-}" ] || export ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0"
mkcg system.slice >/dev/null
mkcg "system.slice/docker-$ref.scope" >/dev/null
start_agent agent "$TMP/agent.yaml"

# rows_of CGROUP_REL: the CSV rows of one cgroup, "timestamp interval_ms name" a line.
rows_of() {
	python3 - "$TMP/csv" "$1" <<'PY'
import csv, glob, sys
for p in sorted(glob.glob(sys.argv[1] + '/*.csv')):
    for r in csv.DictReader(open(p, newline='', encoding='utf-8')):
        if r['cgroup'] == sys.argv[2]:
            print(r['timestamp'], r['interval_ms'], r['container_name'])
PY
}
ref_rows() { rows_of "$TEST_CG_REL/system.slice/docker-$ref.scope" | grep -c ' ref-one$' || true; }
named_ref() { [ "$(ref_rows)" -ge 1 ]; }
poll 300 0.1 named_ref || fail "no named row of the reference container"

tid=
for t in /proc/"$AGENT_PID"/task/*; do
	[ "$(cat "$t/comm")" = cgperf-names ] && tid=${t##*/}
done
[ -n "$tid" ] || fail "the agent has no thread named cgperf-names"
mkfifo "$TMP/release"
"$CGPERF_BUILD/tests/freeze_thread" "$tid" <"$TMP/release" >"$TMP/freeze.out" 2>&1 &
FREEZE_PID=$!
STARTED_PIDS+=("$FREEZE_PID")
exec 7>"$TMP/release" # the writer: closing it (or a line) lets the thread go
poll 300 0.1 grep -qx frozen "$TMP/freeze.out" || fail "lookup thread not held: $(cat "$TMP/freeze.out")"

mkcg "system.slice/docker-$fast.scope" >/dev/null
wait_counted "$TMP/agent.log" "$TEST_CG_REL/system.slice/docker-$fast.scope"
run_in_cg "system.slice/docker-$fast.scope" "$BURN" 0.3
BURN_PID=$LAST_PID
# Four collections of the reference container after fast is counted.
before=$(ref_rows)
four_more() { [ "$(ref_rows)" -ge $((before + 4)) ]; }
poll 600 0.05 four_more || fail "the agent stopped collecting while its lookup thread was held"
rows_of "$TEST_CG_REL/system.slice/docker-$ref.scope" | tail -n +"$((before + 1))" | head -4 >"$TMP/held_ref"
fast_held=$(rows_of "$TEST_CG_REL/system.slice/docker-$fast.scope" | wc -l)
echo >&7
exec 7>&-
wait "$FREEZE_PID" || fail "freeze_thread: $(cat "$TMP/freeze.out")"
[ "$fast_held" -eq 0 ] || fail "$fast_held rows of fast written while its name was unknown"
wait "$BURN_PID"
got_fast() { [ "$(rows_of "$TEST_CG_REL/system.slice/docker-$fast.scope" | wc -l)" -ge 2 ]; }
poll 300 0.1 got_fast || fail "no rows of fast after its lookup went on"
# A lookup that never ends (a FUSE mount under a tenant's storage) does not
# hold the agent's stop: the thread held again, SIGTERM, and the agent exits
# with its final rows, the thread left behind and said so.
"$CGPERF_BUILD/tests/freeze_thread" "$tid" <"$TMP/release" >"$TMP/freeze.out" 2>&1 &
FREEZE_PID=$!
STARTED_PIDS+=("$FREEZE_PID")
exec 7>"$TMP/release"
poll 300 0.1 grep -qx frozen "$TMP/freeze.out" || fail "lookup thread not held again: $(cat "$TMP/freeze.out")"
kill -TERM "$AGENT_PID"
left_behind() { grep -q "container names: .* left behind" "$TMP/agent.log"; }
poll $((300 * ${CGPERF_SLOW_FACTOR:-1})) 0.1 left_behind ||
	fail "the held lookup thread was not said left behind: $(tail -5 "$TMP/agent.log")"
# A traced thread is reaped by its tracer: let go, or the agent's exit waits.
exec 7>&-
wait "$FREEZE_PID" 2>/dev/null || true
wait "$AGENT_PID" || fail "agent failed: $(tail -5 "$TMP/agent.log")"
grep -q "summary" "$TMP/agent.log" || fail "no summary at exit: $(tail -5 "$TMP/agent.log")"
rows_of "$TEST_CG_REL/system.slice/docker-$fast.scope" >"$TMP/fast_rows"
python3 - "$TMP/fast_rows" "$TMP/held_ref" <<'PY' || fail "rows of fast wrong"
import sys
from datetime import datetime
def ms(ts): return datetime.strptime(ts, '%Y-%m-%dT%H:%M:%S.%fZ').timestamp() * 1000
fast = [l.split(' ', 2) for l in open(sys.argv[1]).read().splitlines()]
held = [l.split(' ', 2) for l in open(sys.argv[2]).read().splitlines()]
names = {r[2] for r in fast}
print('# fast: %d rows, names %s, the first covering %s ms' % (len(fast), sorted(names), fast[0][1]))
assert names == {'fast-one'}, names
# The first row covers the collections it waited through: at least from the
# first to the fourth reference row written while the thread was held.
span = ms(held[3][0]) - ms(held[0][0])
assert int(fast[0][1]) >= span, 'first row covers %s ms, the wait spanned %d' % (fast[0][1], span)
PY
log "ok: every row of a container named late carries its name"
