# SPDX-License-Identifier: GPL-2.0-only
# Watches only where the selection can match (issue 9, item 6): real
# cgroups, the kernel's inotify watch count of the agent (fdinfo), its log
# and summary lines.
# C: a selection that matches nothing in 3300 tenant cgroups adds no watch,
#    and a cgroup it matches is still counted at once;
# D: cgroups.max_watches caps them and says so, in the log and the summary;
# E: a cgroup below a directory without a watch is found by the periodic
#    rescan (cgroups.rescan_interval), and so is its removal.
source "$CGPERF_SRC/tests/lib/common.sh"

watches() { cat /proc/"$1"/fdinfo/* 2>/dev/null | grep -c '^inotify wd:' || true; }
watches_yaml() { # FILE INCLUDE [EXTRA CGROUPS KEYS...]
	local f=$1 inc=$2; shift 2
	{
		echo "interval: 1s"
		echo "events: [cpu-clock]"
		echo "cgroups:"
		echo "  include: [\"$inc\"]"
		for k in "$@"; do echo "  $k"; done
		echo "outputs:"
		echo "  csv:"
		echo "    directory: $TMP/csv-$(basename "$f" .yaml)"
	} >"$f"
	"$CGPERF" check-config "$f" >/dev/null || fail "config rejected: $(cat "$f")"
}

# ---- C: watches only where the selection can match ----
mkcg match >/dev/null
mkcg tenants >/dev/null
watches_yaml "$TMP/c.yaml" "$TEST_CG_REL/match/**"
start_agent c "$TMP/c.yaml"
w0=$(watches "$AGENT_PID")
(cd "$TEST_CG/tenants" && seq -f 'u%g' 1 300 | xargs mkdir &&
	for i in $(seq 1 300); do seq -f "u$i/c%g" 1 10; done | xargs mkdir)
sleep 0.5
w1=$(watches "$AGENT_PID")
[ "$w1" = "$w0" ] || fail "3300 cgroups the selection cannot match raised the watches from $w0 to $w1"
m=$(mkcg match/now)
wait_counted "$TMP/c.log" "$m"
kill -TERM "$AGENT_PID"
wait "$AGENT_PID" || fail "agent C failed"
log "ok: 3300 unmatched cgroups: $w0 -> $w1 inotify watches; a match is still counted at once"

watches_yaml "$TMP/d.yaml" "$TEST_CG_REL/**" "max_watches: 50"
start_agent d "$TMP/d.yaml" --duration 2
w=$(watches "$AGENT_PID")
# The CSV output holds one watch of its own, on its directory (rotation).
[ "$w" -le 51 ] || fail "$w inotify watches with max_watches 50 (+1 for the CSV directory)"
wait "$AGENT_PID" || fail "agent D failed"
grep -q "cgroup directories have no inotify watch: the cap of 50 watches is reached" "$TMP/d.log" ||
	fail "no watch cap line: $(grep -i watch "$TMP/d.log")"
grep -q "summary: .* 50 inotify watches (cap 50), [1-9][0-9]* directories lacking one" "$TMP/d.log" ||
	fail "summary: $(grep summary "$TMP/d.log")"
log "ok: $w watches with max_watches 50, reported: $(grep summary "$TMP/d.log" | sed 's/.*; \([0-9]* inotify\)/\1/')"

# ---- E: the periodic rescan finds what inotify cannot see ----
# max_watches: 2 holds the root's and the test subtree's watch; 'hole' (made
# before the agent starts) has none, so 'hole/late', made later, raises no
# event the agent receives: only the rescan (rescan_interval: 1s) finds it,
# and its removal too. Its rows add up to its cpu.stat.
mkcg hole >/dev/null
watches_yaml "$TMP/e.yaml" "$TEST_CG_REL/**" "max_watches: 2" "rescan_interval: 1s"
start_agent e "$TMP/e.yaml"
grep -q "cgroup directories have no inotify watch: the cap of 2 watches is reached" "$TMP/e.log" ||
	fail "'hole' should lack a watch: $(grep -i watch "$TMP/e.log")"
late=$(mkcg hole/late)
wait_counted "$TMP/e.log" "$late"
burn_pinned hole/late 0.3 late
late_ms=$(($(usage_usec hole/late) / 1000))
rmdir "$TEST_CG/hole/late"
wait_for_line "$TMP/e.log" "stopped counting $late" 10
kill -TERM "$AGENT_PID"
wait "$AGENT_PID" || fail "agent E failed"
assert_cpu_clock "a cgroup only the rescan found" "$(csv_sum "$TMP/csv-e" "$late" cpu-clock | awk '{ print $1 / 1e6 }')" "$late_ms" 5 late
log "ok: $late, below a directory without a watch, was counted from the rescan to its removal"
