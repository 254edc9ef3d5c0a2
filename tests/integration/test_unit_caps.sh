#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The systemd unit, checked without systemd as PID 1: systemd-analyze verify
# is clean, the exposure score is at most 4.0, and the agent run with exactly
# the unit's capabilities (bounding and ambient sets, via setpriv, as systemd
# sets them for a root service) counts a cgroup and writes its CSV, also when
# it has to join the counters another cgperf session opened. With any one of
# those capabilities fewer it fails with a line naming the missing one.
# Every system call it makes is one the unit's SystemCallFilter admits.
. "$(dirname "$0")/../lib/common.sh"

UNIT="$CGPERF_SRC/packaging/cgperf.service"
for t in systemd-analyze setpriv strace; do
	command -v "$t" >/dev/null || fail "$t is missing (scripts/install-deps installs it)"
done
unit_value() { sed -n "s/^$1=//p" "$UNIT" | tr '\n' ' '; }

# --- verify and exposure (ExecStart pointed at this build's binary) ---
sed "s|^ExecStart=/usr/sbin/cgperf|ExecStart=$CGPERF|" "$UNIT" >"$TMP/cgperf.service"
out=$(systemd-analyze verify --man=no "$TMP/cgperf.service" 2>&1) || fail "systemd-analyze verify: $out"
[ -z "$out" ] || fail "systemd-analyze verify is not clean: $out"
exposure=$(systemd-analyze security --offline=yes "$TMP/cgperf.service" 2>&1 |
	sed -n 's/.*Overall exposure level for cgperf.service: \([0-9.]*\).*/\1/p')
[ -n "$exposure" ] || fail "no exposure level from systemd-analyze security"
awk -v e="$exposure" 'BEGIN { exit !(e <= 4.0) }' || fail "exposure $exposure > 4.0"
log "ok: verify clean, exposure $exposure"

# --- the capability set, as the unit gives it ---
bounding=$(unit_value CapabilityBoundingSet)
ambient=$(unit_value AmbientCapabilities)
[ -n "$bounding" ] || fail "the unit has no CapabilityBoundingSet"
[ "$(echo $bounding | tr ' ' '\n' | sort)" = "$(echo $ambient | tr ' ' '\n' | sort)" ] ||
	fail "bounding ($bounding) and ambient ($ambient) sets differ; this test assumes a root service granting both"
caps=($bounding)
# set_caps CAP...: SETPRIV runs a command as root with exactly these
# capabilities in its bounding, inheritable and ambient sets.
set_caps() {
	local list=-all c
	for c in "$@"; do list="$list,+$(echo "${c#CAP_}" | tr A-Z a-z)"; done
	SETPRIV=(setpriv --bounding-set="$list" --inh-caps="$list" --ambient-caps="$list" --)
}

cat >"$TMP/agent.yaml" <<YAML
interval: 1s
events: [cpu-clock]
cgroups:
  include: ["$TEST_CG_REL/**"]
outputs:
  csv: {directory: "$TMP/csv"}
YAML
# Another session, with every capability, opens the shared counters first:
# the agent has to join them (get-fd-by-id), as on a host where an admin
# runs 'cgperf stat' while the service restarts.
start_bg "$CGPERF" stat -v -a -e cpu-clock -x, -o "$TMP/stat.csv" 2>"$TMP/stat.log"
STAT_PID=$LAST_PID
wait_for_line "$TMP/stat.log" "counting started" 30

set_caps "${caps[@]}"
log "agent with exactly the unit's capabilities: ${caps[*]}"
start_bg "${SETPRIV[@]}" "$CGPERF" agent -v -c "$TMP/agent.yaml" 2>"$TMP/agent.log"
AGENT_PID=$LAST_PID
wait_for_line "$TMP/agent.log" "cgroups under" 30
# The process really has those and no others.
got=$(capsh --decode="$(awk '/^CapEff:/ { print $2 }' "/proc/$AGENT_PID/status")" | sed 's/.*=//')
want=$(echo "${caps[*]}" | tr 'A-Z ' 'a-z,')
[ "$got" = "$want" ] || fail "the agent's effective capabilities are '$got', the unit's '$want'"
grep -q "event 'cpu-clock': sharing the leader" "$TMP/agent.log" ||
	{ cat "$TMP/agent.log"; fail "the agent did not join the other session's counters"; }
c=$(mkcg work)
wait_counted "$TMP/agent.log" "$c"
run_in_cg work "$BURN" 0.5
wait "$LAST_PID"
kill -TERM "$AGENT_PID"
wait "$AGENT_PID" || { cat "$TMP/agent.log"; fail "the agent exited with $?"; }
got=$(csv_sum "$TMP/csv" "$c" cpu-clock | awk '{ print $1 / 1e3 }')
assert_within_pct "cpu-clock of $c with the unit's capabilities vs cpu.stat (us)" "$got" "$(usage_usec work)" 10

# --- one capability fewer: a clear failure naming it ---
for drop in "${caps[@]}"; do
	fewer=()
	for c in "${caps[@]}"; do [ "$c" = "$drop" ] || fewer+=("$c"); done
	set_caps "${fewer[@]}"
	rc=0
	"${SETPRIV[@]}" "$CGPERF" agent -c "$TMP/agent.yaml" --duration 2 >"$TMP/fewer.log" 2>&1 || rc=$?
	[ "$rc" -ne 0 ] || { cat "$TMP/fewer.log"; fail "the agent ran without $drop"; }
	line=$(grep -m1 "$drop" "$TMP/fewer.log") || { cat "$TMP/fewer.log"; fail "without $drop: no line names it"; }
	log "ok: without $drop: exit $rc: $line"
done

# --- every system call is one SystemCallFilter= admits ---
expand() {   # a group or syscall name -> syscall names, groups expanded
	local n=$1
	case $n in
	@*) systemd-analyze syscall-filter "$n" 2>/dev/null | awk 'NR > 1 && $1 !~ /^#/ { print $1 }' |
		while read -r m; do expand "$m"; done ;;
	*) echo "$n" ;;
	esac
}
for n in $(unit_value SystemCallFilter); do expand "$n"; done | sort -u >"$TMP/allowed"
set_caps "${caps[@]}"
# (LeakSanitizer cannot run under ptrace: off there in a sanitizer build.)
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:detect_leaks=0} \
	strace -f -qq -o "$TMP/strace" "${SETPRIV[@]}" "$CGPERF" agent -c "$TMP/agent.yaml" --duration 2 >/dev/null 2>&1 || fail "the agent failed under strace"
# System calls after the exec of cgperf (not setpriv's own).
awk -v bin="$CGPERF" 'index($0, "execve(\"" bin "\"") { on = 1; next } on' "$TMP/strace" |
	sed -nE 's/^[0-9]+ +([a-z_0-9]+)\(.*/\1/p; s/^[0-9]+ +<\.\.\. ([a-z_0-9]+) resumed.*/\1/p' |
	sort -u >"$TMP/used"
[ -s "$TMP/used" ] || fail "no system calls seen under strace"
denied=$(comm -23 "$TMP/used" "$TMP/allowed" | tr '\n' ' ')
[ -z "$denied" ] || fail "system calls the unit's SystemCallFilter denies: $denied"
log "ok: $(wc -l <"$TMP/used") distinct system calls, all admitted by SystemCallFilter"
kill -TERM "$STAT_PID"
echo "ok: the unit's capabilities and system calls are exactly what the agent needs"
