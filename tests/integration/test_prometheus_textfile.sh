# SPDX-License-Identifier: GPL-2.0-only
# The textfile output with a real node_exporter (Debian's
# prometheus-node-exporter, textfile collector only, loopback port): the file
# is replaced atomically every interval (read back hundreds of times while
# the agent rewrites it: always complete, always lint-clean), node_exporter
# serves exactly the file's cgperf samples without a scrape error, and the
# totals equal the sums of the CSV rows of the same run. Where the msr PMU
# has its tsc event, msr/tsc/ too (the PMU branch): the burner's total at its
# cpu-clock x the TSC rate.
source "$CGPERF_SRC/tests/lib/common.sh"
source "$CGPERF_SRC/tests/lib/prometheus.sh"
prom_events="cpu-clock context-switches"
! have_tsc || { AGENT_EVENTS="cpu-clock, context-switches, $TSC"; prom_events+=" $TSC"; }

NPORT=$(free_port)
mkdir "$TMP/textfile"
FILE="$TMP/textfile/cgperf.prom"
agent_yaml "$TMP/agent.yaml" <<YAML
  csv:
    directory: $TMP/csv
  textfile:
    path: $FILE
YAML
burn_rel=$(mkcg burner)
mkdir "$TEST_CG/q\"uote"

start_agent agent "$TMP/agent.yaml"
run_in_cg burner "$BURN" 3
BURNER=$LAST_PID
for _ in $(seq 50); do [ -s "$FILE" ] && break; sleep 0.1; done
[ -s "$FILE" ] || fail "no textfile written"
[ "$(stat -c %a "$FILE")" = 644 ] || fail "textfile mode $(stat -c %a "$FILE"), node_exporter must read it"

# Read it over and over while the agent replaces it: never a partial file.
python3 - "$FILE" <<'PY' || fail "a reader saw a partial textfile"
import sys, time
path, n, end, held = sys.argv[1], 0, time.time() + 3, 0
while time.time() < end:
    data = open(path, "rb").read()
    if not data.endswith(b"} 1\n"):
        sys.exit("partial read: %d bytes ending %r" % (len(data), data[-40:]))
    n += 1
    for line in data.decode().splitlines():
        if line.startswith("cgperf_csv_rows_held "):
            held = max(held, float(line.split()[1]))
print("# %d complete reads while the agent rewrote the file; at most %d CSV rows held" % (n, held))
# At 1 s, rows are held and appended every 5 s (outputs.csv.flush_interval).
if held < 1:
    sys.exit("cgperf_csv_rows_held never above 0 at a 1 s interval")
PY
lint=$("$PROMTOOL" check metrics <"$FILE" 2>&1) || fail "promtool: $lint"
[ -z "$lint" ] || fail "promtool lint warnings: $lint"
ls "$TMP/textfile" | grep -v '^cgperf.prom$' | grep '\.prom$' && fail "a temporary file ends in .prom"

wait "$BURNER" || fail "burner failed"
sleep 1.5
kill -TERM "$AGENT_PID"; wait "$AGENT_PID" || fail "agent exit status $?"
# Final values now: the file, the CSV rows, node_exporter must all agree.
grep -q '^cgperf_csv_rows_held 0$' "$FILE" || fail "rows still held after the stop: $(grep rows_held "$FILE")"

start_bg "$NODE_EXPORTER" --web.listen-address="127.0.0.1:$NPORT" --collector.disable-defaults \
	--collector.textfile --collector.textfile.directory="$TMP/textfile"
NE_PID=$LAST_PID
wait_http "http://127.0.0.1:$NPORT/metrics" 30
curl -sS -o "$TMP/ne.txt" "http://127.0.0.1:$NPORT/metrics"
grep -q '^node_textfile_scrape_error 0$' "$TMP/ne.txt" || fail "node_exporter reports a textfile error: $(grep textfile "$TMP/ne.txt")"

prom_parse text "$FILE" | grep '^cgperf_' | sort >"$TMP/file.samples"
prom_parse text "$TMP/ne.txt" | grep '^cgperf_' | sort >"$TMP/ne.samples"
[ -s "$TMP/file.samples" ] || fail "no cgperf samples in the textfile"
diff "$TMP/file.samples" "$TMP/ne.samples" >"$TMP/diff" || fail "node_exporter serves other values than the file: $(cat "$TMP/diff")"
log "ok: node_exporter serves the file's $(wc -l <"$TMP/file.samples") cgperf samples unchanged"

declare -A total
for ev in $prom_events; do
	v=$(prom_value "$TMP/ne.txt" text cgperf_events_total "$ev" "$burn_rel")
	sum=$(csv_sum "$TMP/csv" "$burn_rel" "$ev")
	awk -v a="$v" -v b="$sum" 'BEGIN { exit !(a == b && a > 0) }' || fail "$ev: node_exporter $v, CSV rows sum $sum"
	log "ok: $ev total $v = sum of the CSV rows"
	total[$ev]=$v
done
[ -z "${total[$TSC]:-}" ] ||
	assert_tsc "node_exporter's burner" "${total[$TSC]}" "$(awk -v ns="${total[cpu-clock]}" 'BEGIN { print ns / 1e6 }')"
prom_value "$TMP/ne.txt" text cgperf_events_total cpu-clock "$TEST_CG_REL/q\"uote" >/dev/null ||
	fail "a name with a quote did not survive node_exporter"
kill -TERM "$NE_PID"; wait "$NE_PID" 2>/dev/null || true

# The follower's hidden-switch counters (ARCHITECTURE "Switches the
# tracepoint does not show"): exported by the agent that loaded its hub, and
# by the next one, which adopts the pinned session and reads the program's
# .bss by id. Their values depend on the host; their presence does not.
grep -q '^cgperf_unseen_switches_total [0-9]*$' "$FILE" ||
	fail "no cgperf_unseen_switches_total from the agent that loaded its hub"
# Its syncs (bpf/sync_skip.h): some ran (its own CPU is always synced); how
# many idle CPUs were left out depends on the host.
syncs=$(awk '$1 == "cgperf_cpu_syncs_total" { print $2 }' "$FILE")
[ "${syncs:-0}" -gt 0 ] || fail "cgperf_cpu_syncs_total is '${syncs:-}' after several collections"
grep -q '^cgperf_cpu_syncs_skipped_total [0-9]*$' "$FILE" || fail "no cgperf_cpu_syncs_skipped_total"
rm -f "$FILE"
start_agent agent2 "$TMP/agent.yaml"
grep -q "adopted the pinned counting session" "$TMP/agent2.log" ||
	fail "the second agent did not adopt the session: $(cat "$TMP/agent2.log")"
for _ in $(seq 50); do [ -s "$FILE" ] && break; sleep 0.1; done
[ -s "$FILE" ] || fail "no textfile written after the restart"
grep -qE '^cgperf_unseen_switch_seconds_total [0-9.]+(e[-+][0-9]+)?$' "$FILE" ||
	fail "no cgperf_unseen_switch_seconds_total after adoption"
lint=$("$PROMTOOL" check metrics <"$FILE" 2>&1) || fail "promtool after the restart: $lint"
# The adopted session's counters continue: the burner's first value from the
# new agent is its whole total, not the change since the previous agent's
# last row (docs/PROMETHEUS.md, "Counters, restarts, _created").
for ev in $prom_events; do
	v=$(prom_value "$FILE" text cgperf_events_total "$ev" "$burn_rel")
	awk -v a="$v" -v b="${total[$ev]}" 'BEGIN { exit !(a >= b && a > 0) }' ||
		fail "$ev: ${v:-none} after the restart, ${total[$ev]} before: the counter did not continue"
done
kill -TERM "$AGENT_PID"; wait "$AGENT_PID" || fail "second agent exit status $?"
log "ok: the unseen-switch counters before and after adoption, the burner's totals continue"
log "PASS"
