# SPDX-License-Identifier: GPL-2.0-only
# A cgroup session's syncs leave out the CPUs that owe it nothing
# (bpf/sync_skip.h): idle, holding nothing any session counts, so no IPI is
# sent there. Both sides are checked: idle CPUs are left out (the `-v`
# summary counts them), and the rows of a cgroup whose burner stopped on a
# CPU, leaving it idle and holding that cgroup's charges, hold the burn
# exactly while the session goes on, and in its total (cpu.stat the oracle).
# A kernel thread waking on that CPU adds what it holds too (within ~100 ms
# here), so these rows alone cannot tell a wrong skip apart: the decision
# itself, case by case on the real hub program, is test_sync_skip's.
source "$CGPERF_SRC/tests/lib/common.sh"
[ "$(nproc)" -ge 2 ] || skip "one CPU: every sync runs where its caller runs, no IPI to leave out"
EV=cpu-clock,context-switches
cg_a=$(mkcg a)
# This shell, what it starts (cgperf, sleep, awk) and so every sync's caller
# stay off the burner's CPU: after the burn nothing of the test runs there,
# so only the sync can bring what that CPU holds into the rows.
HOME_CPU=$(awk -F'[-,]' '{ print $1 }' /sys/devices/system/cpu/online)
[ "$HOME_CPU" != "$BURN_CPU" ] || skip "no CPU apart from the burner's"
taskset -pc "$HOME_CPU" $$ >/dev/null || fail "cannot pin the test to CPU $HOME_CPU"

# left_out LOG: the idle CPUs the session's syncs left out (its -v summary).
left_out() {
	local line
	line=$(grep "syncs ran on" "$1") || fail "no sync summary in $1: $(cat "$1")"
	sed -n 's/.* and left \([0-9]*\) idle.*/\1/p' <<<"$line"
}

# ---- nothing counted runs: idle CPUs are left out -----------------------------
# idle_ticks: "CPU IDLE+IOWAIT" per CPU (/proc/stat, USER_HZ units).
idle_ticks() { awk '$1 ~ /^cpu[0-9]+$/ { sub(/^cpu/, "", $1); print $1, $5 + $6 }' /proc/stat; }
start_cgperf quiet -e "$EV" -G "$cg_a" -I 100
i0=$(idle_ticks); t0=$(date +%s.%N)
sleep 3
i1=$(idle_ticks); t1=$(date +%s.%N)
kill -INT "$CGPERF_PID"; wait "$CGPERF_PID" || fail "the quiet session failed: $(cat "$TMP/quiet.log")"
n=$(left_out "$TMP/quiet.log")
# Only an idle CPU is left out: where the kernel says a CPU other than the
# syncs' own was idle 90 % of the window, some sync must have left it out
# (a host with every CPU busy has none: that part is then skipped).
idlest=$(printf '%s\n%s\n' "$i0" "$i1" | awk -v home="$HOME_CPU" -v secs="$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" \
	-v hz="$(getconf CLK_TCK)" '$1 != home { if ($1 in a) { p = 100 * ($2 - a[$1]) / hz / secs; if (p > m) m = p } else a[$1] = $2 } END { printf "%d", m }')
if [ "$idlest" -ge 90 ]; then
	[ "${n:-0}" -gt 0 ] ||
		fail "30 syncs with nothing counted running left no idle CPU out (a CPU was idle $idlest % of the time): $(grep 'syncs ran' "$TMP/quiet.log")"
	log "ok: $(grep -o 'syncs ran.*' "$TMP/quiet.log") (the idlest other CPU: $idlest % idle)"
else
	log "SKIP (part): no CPU but the syncs' own was idle 90 % of the window (the idlest: $idlest %): $(grep -o 'syncs ran.*' "$TMP/quiet.log")"
fi

# ---- a burner stops on its CPU, which goes idle owing a's charges -------------
# (It stops rather than exits: an exit wakes kernel threads there, whose
# switches would add what is held without any sync.)
start_cgperf burn -e "$EV" -G "$cg_a" -I 50
a0=$(usage_usec a)
steal_begin b1
run_in_cg a taskset -c "$BURN_CPU" "$BURN" 1 1 0 stop
wait_stopped "$LAST_PID"
steal_end b1 "$BURN_CPU"
sleep 0.3 # syncs after the stop (every 50 ms): the CPU is idle, what it holds is a's (a kernel thread there would add it too, within a second or so)
a1=$(usage_usec a)
rows=$(stat_csv_value "$TMP/burn.csv" cpu-clock "$cg_a")
assert_cpu_clock "rows written up to 0.3 s after the burner stopped (session still counting)" \
	"$rows" "$(((a1 - a0) / 1000))" 1 b1
kill -INT "$CGPERF_PID"; wait "$CGPERF_PID" || fail "the burn session failed: $(cat "$TMP/burn.log")"
kill -KILL "$LAST_PID"
assert_cpu_clock "the session's total" "$(stat_csv_value "$TMP/burn.csv" cpu-clock "$cg_a")" \
	"$(((a1 - a0) / 1000))" 1 b1
log "ok: $(grep -o 'syncs ran.*' "$TMP/burn.log")"
