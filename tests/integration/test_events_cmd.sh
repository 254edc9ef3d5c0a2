#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# `cgperf events`: table and JSON output, support status consistent with
# perf(1) on this host, usage errors.
source "$CGPERF_SRC/tests/lib/common.sh"

# json_query EXPR: evaluate a python expression over the parsed JSON array `d`
# (from $TMP/events.json) and print the result.
json_query() {
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
ev = {o["name"]: o for o in d}
print(eval(sys.argv[2]))' "$TMP/events.json" "$1"
}

# table_status FILE EVENT: the STATUS column of EVENT's row ("" if absent).
table_status() {
	awk -v ev="$2" '$1 == ev { $1 = ""; $2 = ""; sub(/^ +/, ""); print; exit }' "$1"
}

# --- plain table -------------------------------------------------------------
rc=0
"$CGPERF" events >"$TMP/table.txt" 2>"$TMP/table.err" || rc=$?
[ "$rc" -eq 0 ] || { cat "$TMP/table.err"; fail "cgperf events exited $rc"; }
head -1 "$TMP/table.txt" | grep -q '^EVENT ' || fail "no table header: $(head -1 "$TMP/table.txt")"
for ev in cpu-clock context-switches task-clock; do
	[ "$(table_status "$TMP/table.txt" "$ev")" = supported ] ||
		fail "$ev not listed as supported in 'cgperf events'"
done
grep -q '^software  *1$' "$TMP/table.txt" || fail "PMU 'software' (type 1) not listed"
# The default table lists supported events only.
if grep -Eq '(not supported|no permission)' "$TMP/table.txt"; then
	fail "default table lists unsupported events"
fi
log "ok: table lists cpu-clock, context-switches as supported"

# --- JSON --------------------------------------------------------------------
rc=0
"$CGPERF" events --json >"$TMP/events.json" 2>"$TMP/json.err" || rc=$?
[ "$rc" -eq 0 ] || { cat "$TMP/json.err"; fail "cgperf events --json exited $rc"; }
python3 -c 'import json,sys; json.load(sys.stdin)' <"$TMP/events.json" || fail "--json output is not valid JSON"
[ "$(json_query 'all(set(o) >= {"name", "kind", "supported", "reason"} for o in d)')" = True ] ||
	fail "JSON objects lack name/kind/supported/reason"
[ "$(json_query 'ev["cpu-clock"]["supported"] and ev["cpu-clock"]["kind"] == "software"')" = True ] ||
	fail "cpu-clock not supported/software in JSON"
[ "$(json_query 'ev["context-switches"]["supported"] and ev["context-switches"]["reason"] is None')" = True ] ||
	fail "context-switches not supported in JSON"
[ "$(json_query 'ev["cycles"]["kind"]')" = hardware ] || fail "cycles kind is not hardware"
[ "$(json_query 'all(o["supported"] or isinstance(o["reason"], str) and o["reason"] for o in d)')" = True ] ||
	fail "an unsupported entry has no reason"
[ "$(json_query 'ev["software"]["kind"] == "pmu" and ev["software"]["type"] == 1')" = True ] ||
	fail "PMU 'software' missing from JSON"
log "ok: --json is valid and agrees on software events"

# --- cycles agrees with perf(1) ----------------------------------------------
"$CGPERF" events --all >"$TMP/all.txt" || fail "cgperf events --all failed"
json_cycles=$(json_query 'ev["cycles"]["supported"]')
all_cycles=$(table_status "$TMP/all.txt" cycles)
default_cycles=$(table_status "$TMP/table.txt" cycles)
# The three views must agree with each other, whatever perf says.
case "$json_cycles" in
True)
	[ "$all_cycles" = supported ] || fail "cycles: JSON supported, --all says '$all_cycles'"
	[ "$default_cycles" = supported ] || fail "cycles: JSON supported, but missing from the default table"
	;;
False)
	[ "$all_cycles" = "not supported" ] || fail "cycles: JSON unsupported, --all says '$all_cycles'"
	[ -z "$default_cycles" ] || fail "cycles: unsupported but shown in the default table"
	json_query 'ev["cycles"]["reason"]' | grep -q 'not supported on this host' ||
		fail "cycles: unexpected reason: $(json_query 'ev["cycles"]["reason"]')"
	;;
*) fail "cycles: unexpected JSON 'supported' value '$json_cycles'" ;;
esac

# perf is the oracle (scripts/install-deps installs it): its verdict, captured
# whole before it is looked at, must exist and agree.
command -v perf >/dev/null || fail "perf is missing (Debian package linux-perf, scripts/install-deps)"
perf_out=$(perf stat -x, -e cycles true 2>&1) || true
log "perf stat -e cycles: $(tail -1 <<<"$perf_out")"
if grep -q '<not supported>' <<<"$perf_out"; then
	[ "$json_cycles" = False ] || fail "perf says cycles is not supported, cgperf says supported"
	log "ok: cycles unsupported according to both perf and cgperf"
elif grep -Eq '^[0-9]+,.*,cycles' <<<"$perf_out"; then
	[ "$json_cycles" = True ] || fail "perf counts cycles, cgperf says unsupported"
	log "ok: cycles supported according to both perf and cgperf"
else
	fail "perf gave no verdict on cycles, so cgperf cannot be checked against it: $perf_out"
fi

# --- PMU-named events: the ones perf list calls Kernel PMU events -------------
# perf list's names against cgperf's, both ways (--all: the unsupported ones
# too); each supported one in JSON (kind pmu-event) where perf counts it.
# (A core PMU's events read "branch-instructions OR cpu/branch-instructions/
# [Kernel PMU event]": the pmu/event/ spelling is the one after OR.)
perf list pmu 2>/dev/null | awk '$NF == "event]" && $(NF-2) == "[Kernel" { print ($2 == "OR" ? $3 : $1) }' |
	sort >"$TMP/perf_pmu.txt"
json_query '"\n".join(sorted(n for n, o in ev.items() if o["kind"] == "pmu-event"))' >"$TMP/cg_pmu.txt"
awk '$2 == "pmu-event" { print $1 }' "$TMP/all.txt" | sort >"$TMP/cg_pmu_table.txt"
log "Kernel PMU events: perf list: $(tr '\n' ' ' <"$TMP/perf_pmu.txt"); cgperf: $(tr '\n' ' ' <"$TMP/cg_pmu.txt")"
diff "$TMP/perf_pmu.txt" "$TMP/cg_pmu.txt" || fail "cgperf events --json lists other PMU events than perf list pmu"
diff "$TMP/perf_pmu.txt" "$TMP/cg_pmu_table.txt" || fail "cgperf events --all lists other PMU events than perf list pmu"
if have_tsc; then
	[ "$(json_query 'ev["msr/tsc/"]["supported"]')" = True ] || fail "msr/tsc/ not supported in JSON: $(json_query 'ev["msr/tsc/"]')"
	[ "$(table_status "$TMP/table.txt" msr/tsc/)" = supported ] || fail "msr/tsc/ not in the default table as supported"
	perf stat -x, -e msr/tsc/ true 2>&1 | grep -Eq '^[0-9]+,.*,msr/tsc/' || fail "perf does not count msr/tsc/ here"
	log "ok: msr/tsc/ listed and supported, as perf counts it"
fi

# --- usage -------------------------------------------------------------------
rc=0
"$CGPERF" events --bogus >"$TMP/bogus.out" 2>"$TMP/bogus.err" || rc=$?
[ "$rc" -eq 2 ] || fail "'events --bogus' exited $rc, want 2"
[ "$(wc -l <"$TMP/bogus.err")" -eq 1 ] || { cat "$TMP/bogus.err"; fail "'events --bogus': want exactly one line on stderr"; }
grep -q "unknown option '--bogus'" "$TMP/bogus.err" || fail "unexpected message: $(cat "$TMP/bogus.err")"
[ ! -s "$TMP/bogus.out" ] || fail "'events --bogus' wrote to stdout"

rc=0
"$CGPERF" events --help >"$TMP/help.out" || rc=$?
[ "$rc" -eq 0 ] || fail "'events --help' exited $rc"
grep -q -- '--json' "$TMP/help.out" || fail "--help does not mention --json"
log "ok: usage errors and --help"
echo "PASS: $TEST_NAME"
