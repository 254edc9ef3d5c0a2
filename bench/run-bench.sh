#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# run-bench: what per-cgroup counting costs a context-switch-heavy workload.
#
#   sudo build/bench/run-bench [options]
#
# Creates its own cgroup subtree <cgroup2 root>/cgperf-bench-<pid>/ with 1000
# sibling cgroups bcg-0000..bcg-0999, runs `pingpong` (two processes passing a
# byte over pipes) in bcg-0000 and reports the microseconds per round trip
#   (a) with nothing counting,
#   (b) under `cgperf stat -e EVENTS -G ...` counting 1, 100 and 1000 cgroups,
#   (b) under K concurrent `cgperf stat` sessions counting 1000 cgroups each
#       (the agent plus a few on-call sessions),
#   (c) under `perf stat -a -e EVENTS --for-each-cgroup ...` over the same sets,
# always including bcg-0000, once per placement of pingpong's two processes
# (--pin: same CPU, then one on each CPU). Then the follower's own run time
# per context switch from the kernel's BPF statistics (cgperf stat -b), for 1
# and K sessions in each placement. The configurations are interleaved, in a rotating
# order, for several rounds, so that drift hits them all alike; each cell is the
# median over the rounds of pingpong's own median of its repeats. Then it times
# one sync + read of 1000 cgroups x 4 events with `readcost`.
# Everything it created is removed on exit; it only kills what it started.
# See docs/PERFORMANCE.md.
set -euo pipefail

# Benchmarks and the test suite disturb each other (a busy machine moves
# cpu.stat, the tests' oracle, and the timings here): both hold this lock
# (docs/TESTING.md). CGPERF_BENCH_LOCK= (empty) runs without it.
if [ -n "${CGPERF_BENCH_LOCK-/tmp/cgperf-ctest.lock}" ] && [ -z "${CGPERF_BENCH_LOCKED:-}" ]; then
	exec env CGPERF_BENCH_LOCKED=1 flock "${CGPERF_BENCH_LOCK-/tmp/cgperf-ctest.lock}" "$0" "$@"
fi

BENCH_BIN_DIR="@CMAKE_CURRENT_BINARY_DIR@"
CGPERF=${CGPERF:-@CMAKE_BINARY_DIR@/cgperf}
PINGPONG=${PINGPONG:-$BENCH_BIN_DIR/pingpong}
READCOST=${READCOST:-$BENCH_BIN_DIR/readcost}
PERF=${PERF:-perf}
# An older cgperf to measure side by side (rows "before", at the largest size).
CGPERF_BEFORE=${CGPERF_BEFORE:-}

EVENTS=cpu-clock,task-clock,context-switches,page-faults
NR_EVENTS=4
NR_CGROUPS=1000
SIZES=(1 100 1000)
SESSIONS=4      # concurrent sessions of the multi-session row (1: no such row)

ROUNDS=5
REPEATS=5
TRIPS=          # per pingpong repeat; empty: calibrate to ~REPEAT_MS
REPEAT_MS=250
PINS=(same split)
PERF_MAX=1000
DO_PERF=1
DO_READCOST=1
DO_AGENT=1
DO_SWITCHCOST=1

usage() {
	cat <<EOF
usage: run-bench [options]
  -r, --rounds N      rounds over all configurations (default $ROUNDS)
      --repeats N     pingpong repeats per measurement, median taken (default $REPEATS)
  -n, --trips N       round trips per repeat (default: calibrated to ~${REPEAT_MS} ms)
      --pin MODE,...  one table per mode (default same,split). same: pingpong's two
                      processes on CPU 0 (task <-> task, same cgroup); split: on CPUs
                      0 and 1 (every switch crosses cgroups: task <-> idle); none:
                      not pinned
      --sizes N,...   cgroup counts of the (b)/(c) rows (default 1,100,1000)
      --sessions K    concurrent cgperf sessions of the multi-session row, at the
                      largest size (default $SESSIONS; 1: no such row)
      --perf-max N    at most N cgroups for perf (default $PERF_MAX)
      --no-perf       skip the perf configurations
      --no-readcost   skip the sync+read timing
      --no-switchcost skip the follower's ns per switch (BPF statistics)
      --no-agent      skip the agent's CPU/memory rows (bench/agent-cost.sh)
  -h, --help
Environment: CGPERF, PINGPONG, READCOST, PERF override the programs used;
CGPERF_BEFORE=/path/to/an/older/cgperf adds its rows at the largest size, in the
same run (also to the agent's rows).
EOF
}

while [ $# -gt 0 ]; do
	case $1 in
	-r | --rounds) ROUNDS=$2; shift ;;
	--repeats) REPEATS=$2; shift ;;
	-n | --trips) TRIPS=$2; shift ;;
	--pin) IFS=, read -r -a PINS <<<"$2"; shift ;;
	--sizes) IFS=, read -r -a SIZES <<<"$2"; shift ;;
	--sessions) SESSIONS=$2; shift ;;
	--perf-max) PERF_MAX=$2; shift ;;
	--no-perf) DO_PERF=0 ;;
	--no-readcost) DO_READCOST=0 ;;
	--no-agent) DO_AGENT=0 ;;
	--no-switchcost) DO_SWITCHCOST=0 ;;
	-h | --help) usage; exit 0 ;;
	*) echo "run-bench: unknown option '$1'" >&2; usage >&2; exit 2 ;;
	esac
	shift
done
# Another session's followers on sched_switch (a pinned agent session of a
# killed test, a forgotten `cgperf stat`) cost every switch measured here:
# the numbers would be of that machine, not of this build. (Ours are started
# below, after this look.)
foreign=$(bpftool prog show 2>/dev/null | grep -cE 'name (on_switch|on_switch_tp)\b' || true)
if [ "${foreign:-0}" -gt 0 ] && [ -z "${CGPERF_BENCH_FOREIGN_OK:-}" ]; then
	echo "run-bench: $foreign sched_switch follower(s) of another session are attached" \
		"(bpftool prog show | grep on_switch); stop them, or set" \
		"CGPERF_BENCH_FOREIGN_OK=1 to measure anyway" >&2
	exit 1
fi
for v in "$ROUNDS" "$REPEATS" "$PERF_MAX" "$SESSIONS" "${SIZES[@]}" ${TRIPS:+"$TRIPS"}; do
	[[ $v =~ ^[1-9][0-9]*$ ]] || { echo "run-bench: '$v' is not a positive number" >&2; exit 2; }
done
for v in "${SIZES[@]}"; do
	[ "$v" -le 1000 ] || { echo "run-bench: at most 1000 cgroups, not $v" >&2; exit 2; }
done
MAX_SIZE=$(printf '%s\n' "${SIZES[@]}" | sort -n | tail -n 1)
# set_pin MODE: pingpong's placement (PIN, PIN_ARGS).
set_pin() {
	PIN=$1
	case $PIN in
	split) PIN_ARGS=(-c 0,1) ;;
	same) PIN_ARGS=(-c 0) ;;
	none) PIN_ARGS=() ;;
	*) echo "run-bench: --pin takes split, same or none" >&2; exit 2 ;;
	esac
}
for p in "${PINS[@]}"; do set_pin "$p"; done

die() { echo "run-bench: $*" >&2; exit 1; }
note() { echo "# $*" >&2; }

[ "$(id -u)" = 0 ] || die "needs root (BPF, perf -a, cgroup creation): sudo $0"
for p in "$CGPERF" "$PINGPONG" "$READCOST"; do
	[ -x "$p" ] || die "$p is missing: build the project first (make -C build)"
done
if [ "$DO_PERF" = 1 ] && ! command -v "$PERF" >/dev/null; then
	note "no '$PERF' in PATH: skipping the perf configurations"
	DO_PERF=0
fi
NR_CPUS=$(nproc)
if [ "$NR_CPUS" -lt 2 ] && [[ " ${PINS[*]} " = *" split "* ]]; then
	note "one CPU only: no split placement"
	PINS=(same)
fi

# The cgroup2 mount, from mountinfo (fields after " - " are fstype, source,
# options); like cgperf, prefer /sys/fs/cgroup, then /sys/fs/cgroup/unified.
cgroup2_root() {
	awk '{
		for (i = 7; i <= NF && $i != "-"; i++) ;
		if ($(i + 1) == "cgroup2") mounts[++n] = $5
	} END {
		for (j = 1; j <= n; j++) if (mounts[j] == "/sys/fs/cgroup") { print mounts[j]; exit }
		for (j = 1; j <= n; j++) if (mounts[j] == "/sys/fs/cgroup/unified") { print mounts[j]; exit }
		if (n) print mounts[1]
	}' /proc/self/mountinfo
}
CG2=$(cgroup2_root)
[ -n "$CG2" ] || die "no cgroup2 hierarchy is mounted"

BENCH_REL="cgperf-bench-$$"           # relative to the cgroup2 root, no leading '/'
BENCH_CG="$CG2/$BENCH_REL"
PP_CG="$BENCH_CG/bcg-0000"
TMPD=$(mktemp -d /tmp/cgperf-bench.XXXXXX)
STARTED=()

# running PID: PID is alive (not gone, not a zombie waiting for us).
running() {
	local st
	st=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null) || return 1
	[ -n "$st" ] && [ "$st" != Z ]
}

cleanup() {
	local pid i
	set +e
	# bash reports the jobs killed here ("Killed ..."): not news, hide it.
	exec 3>&2 2>/dev/null
	# First pingpong (whatever is in our subtree is ours), so that a perf
	# running it as its workload sees it end and can reap it.
	if [ -d "$BENCH_CG" ]; then
		if [ -e "$BENCH_CG/cgroup.kill" ]; then
			echo 1 >"$BENCH_CG/cgroup.kill" 2>/dev/null
		else
			for pid in $(cat "$BENCH_CG"/bcg-*/cgroup.procs 2>/dev/null); do
				kill -KILL "$pid" 2>/dev/null
			done
		fi
	fi
	# Then cgperf/perf: SIGINT lets them tear down and exit; SIGKILL after 3 s.
	for pid in "${STARTED[@]}"; do
		kill -INT "$pid" 2>/dev/null
	done
	for pid in "${STARTED[@]}"; do
		for ((i = 0; i < 30; i++)); do
			running "$pid" || break
			sleep 0.1
		done
		kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
	if [ -d "$BENCH_CG" ]; then
		for ((i = 0; i < 50; i++)); do
			grep -q '^populated 0' "$BENCH_CG/cgroup.events" 2>/dev/null && break
			sleep 0.1
		done
		rmdir "$BENCH_CG"/bcg-* 2>/dev/null
		rmdir "$BENCH_CG" || echo "run-bench: could not remove $BENCH_CG" >&3
	fi
	rm -rf "$TMPD"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Only processes that are still running are in STARTED: a pid is forgotten as
# soon as it has been waited for, so cleanup never signals a recycled pid.
# run_bg CMD...: start CMD in the background, remembered; its pid is in BG_PID.
run_bg() {
	"$@" &
	BG_PID=$!
	STARTED+=("$BG_PID")
}
# reap PID: wait for PID (started by run_bg) and forget it; returns its status.
reap() {
	local rc=0 p keep=()
	wait "$1" || rc=$?
	for p in "${STARTED[@]}"; do
		[ "$p" = "$1" ] || keep+=("$p")
	done
	STARTED=("${keep[@]}")
	return $rc
}
# run_fg CMD...: run CMD and wait for it, returning its status. It runs in the
# background so that a signal reaches our trap at once, not after CMD ends.
# Never call it inside $(...): the subshell's pids would be unknown to cleanup.
run_fg() {
	run_bg "$@"
	reap "$BG_PID"
}

# cg_list N PREFIX: "PREFIXbcg-0000,PREFIXbcg-0001,..." for the first N cgroups.
cg_list() {
	local s
	s=$(printf "$2bcg-%04d," $(seq 0 $(($1 - 1))))
	echo "${s%,}"
}

# csv_count FILE EVENT CGROUP: the value column of a `-x,` row (cgperf and perf alike).
csv_count() {
	awk -F, -v ev="$2" -v cg="$3" '$3 == ev && $4 == cg { print $1; exit }' "$1"
}

START_TS=$SECONDS
declare -A TABLE_TRIPS=()
SESSION_PIDS=()
mkdir "$BENCH_CG"
mkdir "$BENCH_CG"/bcg-{0000..0999}
note "created $NR_CGROUPS cgroups under $BENCH_CG"

# ---- perf: how many cgroups it can take here ----
PERF_N=0
PERF_WHY=""
if [ "$DO_PERF" = 1 ]; then
	PERF_N=$PERF_MAX
	[ "$PERF_N" -le "$NR_CGROUPS" ] || PERF_N=$NR_CGROUPS
	# perf opens one fd per event, cgroup and CPU.
	need=$((NR_EVENTS * PERF_N * NR_CPUS + 256))
	if [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt "$need" ]; then
		ulimit -n "$need" 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
	fi
	nofile=$(ulimit -n)
	if [ "$nofile" != unlimited ] && [ "$nofile" -lt "$need" ]; then
		fit=$(((nofile - 256) / (NR_EVENTS * NR_CPUS)))
		fit=$((fit >= 100 ? fit / 100 * 100 : fit))
		PERF_WHY="open-file limit $nofile (hard $(ulimit -Hn)) fits $fit cgroups x $NR_EVENTS events x $NR_CPUS CPUs, not $PERF_N"
		PERF_N=$fit
	fi
	# Try it for real; halve until perf can open its events.
	while [ "$PERF_N" -ge 1 ]; do
		if run_fg "$PERF" stat -a -x, -o /dev/null -e "$EVENTS" \
			--for-each-cgroup "$(cg_list "$PERF_N" "$BENCH_REL/")" -- true 2>"$TMPD/perf-probe.err"; then
			break
		fi
		PERF_WHY="perf stat failed with $PERF_N cgroups: $(grep -v '^$' "$TMPD/perf-probe.err" | head -n 2 | tr '\n' ' ')"
		PERF_N=$((PERF_N / 2))
	done
	[ "$PERF_N" -ge 1 ] || { note "$PERF_WHY; skipping perf"; DO_PERF=0; }
	[ -z "$PERF_WHY" ] || note "perf limited to $PERF_N cgroups: $PERF_WHY"
fi

# pingpong [ARGS]: one measurement; the median us/round trip is left in US.
pingpong() {
	run_fg "$PINGPONG" -g "$PP_CG" -n "$TRIPS" -r "$REPEATS" "${PIN_ARGS[@]}" "$@" \
		>"$TMPD/pingpong.out" || return 1
	US=$(cat "$TMPD/pingpong.out")
}
# calibrate: the number of round trips per repeat for this placement (TRIPS).
calibrate() {
	local us
	[ -z "$TRIPS_OPT" ] || { TRIPS=$TRIPS_OPT; return 0; }
	TRIPS=2000
	run_fg "$PINGPONG" -g "$PP_CG" -n 2000 -r 3 -w 500 "${PIN_ARGS[@]}" >"$TMPD/pingpong.out"
	us=$(cat "$TMPD/pingpong.out")
	TRIPS=$(awk -v us="$us" -v ms="$REPEAT_MS" 'BEGIN {
		n = int(ms * 1000 / us / 1000) * 1000
		print (n < 2000 ? 2000 : n > 500000 ? 500000 : n) }')
	note "pin=$PIN calibration: $us us/round trip -> $TRIPS round trips per repeat"
}
TRIPS_OPT=$TRIPS

# ---- the configurations ----
CONFIGS=(base)
declare -A LABEL=([base]="(a) nothing counting")
for n in "${SIZES[@]}"; do
	CONFIGS+=("cgperf:$n:1")
	LABEL[cgperf:$n:1]="(b) cgperf stat -G, $n cgroup$([ "$n" = 1 ] || echo s)"
done
if [ "$SESSIONS" -gt 1 ]; then
	CONFIGS+=("cgperf:$MAX_SIZE:$SESSIONS")
	LABEL[cgperf:$MAX_SIZE:$SESSIONS]="(b) $SESSIONS x cgperf stat -G, $MAX_SIZE cgroups"
fi
if [ -n "$CGPERF_BEFORE" ]; then
	for k in 1 $([ "$SESSIONS" -gt 1 ] && echo "$SESSIONS"); do
		CONFIGS+=("before:$MAX_SIZE:$k")
		LABEL[before:$MAX_SIZE:$k]="(b') before: $([ "$k" = 1 ] || echo "$k x ")cgperf -G, $MAX_SIZE cgroups"
	done
fi
if [ "$DO_PERF" = 1 ]; then
	for n in "${SIZES[@]}"; do
		[ "$n" -le "$PERF_N" ] || n=$PERF_N
		[ -n "${LABEL[perf:$n]:-}" ] && continue
		CONFIGS+=("perf:$n")
		LABEL[perf:$n]="(c) perf stat -a --for-each-cgroup, $n cgroup$([ "$n" = 1 ] || echo s)"
	done
fi
FOLLOWER_MODE=""

# counted_ok FILE CGROUP WHO: the counter saw pingpong's context switches
# (each round trip switches each side out at least once).
counted_ok() {
	local cs
	cs=$(csv_count "$1" context-switches "$2")
	if [ -z "$cs" ] || [ "${cs%.*}" -lt "$((TRIPS * REPEATS))" ]; then
		echo "run-bench: $3 counted '$cs' context switches in $2, expected >= $((TRIPS * REPEATS))" >&2
		return 1
	fi
}

# Each measure_* leaves the median us/round trip in US, or fails.
measure_base() {
	pingpong
}

# start_sessions N K [BINARY]: K concurrent `cgperf stat -G` sessions over the
# first N cgroups, each with its own output (cgperf-J.csv); their pids in
# SESSION_PIDS.
start_sessions() {
	local n=$1 k=$2 bin=${3:-$CGPERF} j i pid
	SESSION_PIDS=()
	for ((j = 0; j < k; j++)); do
		run_bg "$bin" stat -v -e "$EVENTS" -G "$(cg_list "$n" "/$BENCH_REL/")" -x, \
			-o "$TMPD/cgperf-$j.csv" 2>"$TMPD/cgperf-$j.err"
		SESSION_PIDS+=("$BG_PID")
	done
	for ((j = 0; j < k; j++)); do
		pid=${SESSION_PIDS[$j]}
		for ((i = 0; i < 600; i++)); do
			grep -q "counting started" "$TMPD/cgperf-$j.err" && break
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.05
		done
		if ! grep -q "counting started" "$TMPD/cgperf-$j.err"; then
			echo "run-bench: cgperf stat did not start counting ($n cgroups):" >&2
			cat "$TMPD/cgperf-$j.err" >&2
			stop_sessions
			return 1
		fi
	done
	[ -n "$FOLLOWER_MODE" ] || FOLLOWER_MODE=$(sed -n 's/.*follower mode: //p' "$TMPD/cgperf-0.err" | head -n 1)
}
# stop_sessions: SIGINT to every session (they print their counts), reaped.
stop_sessions() {
	local pid rc=0
	for pid in "${SESSION_PIDS[@]}"; do
		kill -INT "$pid" 2>/dev/null
	done
	for pid in "${SESSION_PIDS[@]}"; do
		reap "$pid" || rc=1
	done
	SESSION_PIDS=()
	return $rc
}

measure_cgperf() {
	local n=$1 k=$2 bin=${3:-$CGPERF} rc=0 j
	start_sessions "$n" "$k" "$bin" || return 1
	pingpong || rc=1
	if ! stop_sessions; then
		echo "run-bench: cgperf stat failed ($n cgroups):" >&2
		cat "$TMPD"/cgperf-*.err >&2
		return 1
	fi
	[ "$rc" = 0 ] || return 1
	for ((j = 0; j < k; j++)); do
		counted_ok "$TMPD/cgperf-$j.csv" "/$BENCH_REL/bcg-0000" "cgperf stat" || return 1
	done
}

measure_perf() {
	local n=$1
	if ! run_fg "$PERF" stat -a -x, -o "$TMPD/perf.csv" -e "$EVENTS" \
		--for-each-cgroup "$(cg_list "$n" "$BENCH_REL/")" -- \
		"$PINGPONG" -g "$PP_CG" -n "$TRIPS" -r "$REPEATS" "${PIN_ARGS[@]}" \
		>"$TMPD/pingpong.out" 2>"$TMPD/perf.err"; then
		echo "run-bench: perf stat failed ($n cgroups):" >&2
		cat "$TMPD/perf.err" >&2
		return 1
	fi
	US=$(cat "$TMPD/pingpong.out")
	counted_ok "$TMPD/perf.csv" "$BENCH_REL/bcg-0000" "perf stat"
}

measure() {
	local k
	US=""
	case $1 in
	base) measure_base ;;
	cgperf:*)
		k=${1#cgperf:}
		measure_cgperf "${k%:*}" "${k#*:}"
		;;
	before:*)
		k=${1#before:}
		measure_cgperf "${k%:*}" "${k#*:}" "$CGPERF_BEFORE"
		;;
	perf:*) measure_perf "${1#perf:}" ;;
	esac
}

# Every configuration is measured between two baselines, and compared with
# their mean: the host's drift (large on a shared VM) cancels out.
OTHERS=("${CONFIGS[@]:1}")
NO=${#OTHERS[@]}

# measure_base_into: a baseline; appends to RESULTS[base]; value (or "") in BASE_US.
measure_base_into() {
	BASE_US=""
	if measure base && [ -n "$US" ]; then
		BASE_US=$US
		RESULTS[base]+="$US "
	else
		FAILED+=" base"
	fi
}

stats() { # values... -> "median min max"
	printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END {
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%.3f %.3f %.3f\n", m, v[1], v[NR] }'
}

# rounds: every configuration once per round, in a rotated order, each
# between two baselines (RESULTS, RATIOS, DIFFS, FAILED).
rounds() {
	local r k cfg before v line ref
	note "pingpong: $TRIPS round trips x $REPEATS repeats, pin=$PIN; $ROUNDS rounds of $NO configurations, each between two baselines"
	for ((r = 0; r < ROUNDS; r++)); do
		measure_base_into
		line=" base=${BASE_US:-FAILED}"
		for ((k = 0; k < NO; k++)); do
			cfg=${OTHERS[$(((k + r) % NO))]} # rotate the order every round
			before=$BASE_US
			if measure "$cfg" && [ -n "$US" ]; then
				v=$US
			else
				v=""
				FAILED+=" $cfg"
			fi
			measure_base_into
			line+=" $cfg=${v:-FAILED} base=${BASE_US:-FAILED}"
			[ -n "$v" ] || continue
			RESULTS[$cfg]+="$v "
			ref=$(awk -v a="$before" -v b="$BASE_US" 'BEGIN {
				if (a != "" && b != "") print (a + b) / 2; else if (a != "") print a; else if (b != "") print b }')
			[ -n "$ref" ] || continue
			RATIOS[$cfg]+="$(awk -v v="$v" -v b="$ref" 'BEGIN { print v / b }') "
			DIFFS[$cfg]+="$(awk -v v="$v" -v b="$ref" 'BEGIN { print v - b }') "
		done
		note "round $((r + 1))/$ROUNDS:$line"
	done
}

print_table() {
	local cfg med dmed rmed rmin rmax bmed bmin bmax
	if [ -z "${RESULTS[base]:-}" ]; then
		echo "pin=$PIN: the baseline (a) could not be measured"
		return 0
	fi
	echo
	echo "pingpong in bcg-0000, pin=$PIN: $TRIPS round trips x $REPEATS repeats (median of the repeats)"
	printf '%-48s %8s %8s %8s   %s\n' "configuration" "us/trip" "+us" "ratio" "ratio min..max"
	printf '%-48s %8s %8s %8s   %s\n' "-------------" "-------" "---" "-----" "--------------"
	for cfg in "${CONFIGS[@]}"; do
		if [ -z "${RESULTS[$cfg]:-}" ]; then
			printf '%-48s %8s\n' "${LABEL[$cfg]}" FAILED
			continue
		fi
		read -r med _ _ <<<"$(stats ${RESULTS[$cfg]})"
		if [ "$cfg" = base ]; then
			printf '%-48s %8.2f %8s %7.3fx\n' "${LABEL[$cfg]}" "$med" "" 1
			continue
		fi
		if [ -z "${RATIOS[$cfg]:-}" ]; then
			printf '%-48s %8.2f %8s %8s\n' "${LABEL[$cfg]}" "$med" - -
			continue
		fi
		read -r dmed _ _ <<<"$(stats ${DIFFS[$cfg]})"
		read -r rmed rmin rmax <<<"$(stats ${RATIOS[$cfg]})"
		printf '%-48s %8.2f %+8.2f %7.3fx   %.3f..%.3f\n' "${LABEL[$cfg]}" "$med" "$dmed" "$rmed" "$rmin" "$rmax"
	done
	[ -z "$PERF_WHY" ] || echo "perf limited to $PERF_N cgroups: $PERF_WHY"
	[ -z "$FAILED" ] || echo "failed measurements:$FAILED (see the messages above)"
	read -r bmed bmin bmax <<<"$(stats ${RESULTS[base]})"
	awk -v a="$bmin" -v b="$bmax" -v m="$bmed" -v n="$(wc -w <<<"${RESULTS[base]}")" 'BEGIN {
		s = (b - a) / m * 100
		warn = s > 10 ? "; a noisy host: compare the ratio ranges, or use more --rounds" : ""
		printf "baseline (a), all %d measurements: %.2f..%.2f us (spread %.1f%%)%s\n", n, a, b, s, warn }'
}

# switch_cost K: the follower's run time per context switch (kernel BPF
# statistics through `cgperf stat -b`, which holds them on only while it
# runs) with K sessions over MAX_SIZE cgroups, pingpong in the current
# placement. Prints one row: the on_switch programs that ran (one per
# session, or one hub for all), ns per run (mean over them), ns per switch
# summed over them (what a switch costs), runs per round trip per program.
switch_cost() {
	local k=$1 bin=${2:-$CGPERF} label=${3:-} ids=() pid f id bpid i rc=0
	start_sessions "$MAX_SIZE" "$k" "$bin" || return 1
	for pid in "${SESSION_PIDS[@]}"; do
		for f in /proc/"$pid"/fdinfo/*; do
			id=$(awk '$1 == "prog_id:" { print $2 }' "$f" 2>/dev/null) || continue
			if [ -n "$id" ]; then ids+=("$id"); fi
		done
	done
	run_bg "$CGPERF" stat -v -b "$(printf '%s\n' "${ids[@]}" | sort -un | paste -sd,)" \
		-x, -o "$TMPD/bpfstats.csv" 2>"$TMPD/bpfstats.err"
	bpid=$BG_PID
	for ((i = 0; i < 100; i++)); do
		grep -q "counting started" "$TMPD/bpfstats.err" && break
		sleep 0.05
	done
	pingpong || rc=1
	kill -INT "$bpid"
	reap "$bpid" || rc=1
	if [ "$rc" != 0 ]; then
		cat "$TMPD/bpfstats.err" >&2
		stop_sessions
		return 1
	fi
	stop_sessions || return 1
	awk -F, -v k="$k" -v pin="$PIN$label" -v n="$MAX_SIZE" -v trips="$((TRIPS * REPEATS))" '
		$2 == "on_switch" { runs += $5; ns += $6; progs++ }
		END {
			if (!progs || !runs) { print "no on_switch program ran"; exit 1 }
			printf "%-16s %8d %9d %6d %8.0f %10.0f %14.2f\n", pin, k, n, progs, ns / runs,
				ns / runs * progs, runs / progs / trips }' "$TMPD/bpfstats.csv"
}

for p in "${PINS[@]}"; do
	set_pin "$p"
	calibrate
	declare -A RESULTS=() RATIOS=() DIFFS=() # config -> "x x ..." (one per round)
	FAILED=""
	rounds
	print_table >"$TMPD/table-$PIN.txt"
	TABLE_TRIPS[$PIN]=$TRIPS
done
echo
echo "cgperf benchmark: $(uname -sr), $NR_CPUS CPUs, cgroup2 at $CG2"
echo "events: $EVENTS; cgperf follower: ${FOLLOWER_MODE:-unknown}"
echo "$ROUNDS rounds; us/trip: median over rounds; +us, ratio: medians over rounds of the"
echo "difference and ratio to the mean of the two baselines (a) measured just before and after"
for p in "${PINS[@]}"; do
	cat "$TMPD/table-$p.txt"
done
echo "goals at $MAX_SIZE cgroups: cgperf <= 1.05x (1 session), <= 1.10x ($SESSIONS sessions)"

# ---- the follower's run time per switch ----
if [ "$DO_SWITCHCOST" = 1 ]; then
	echo
	echo "follower run time per context switch (kernel BPF statistics, cgperf stat -b):"
	printf '%-16s %8s %9s %6s %8s %10s %14s\n' pin sessions cgroups progs "ns/run" "ns/switch" \
		"runs/trip/prog"
	for p in "${PINS[@]}"; do
		set_pin "$p"
		TRIPS=${TABLE_TRIPS[$PIN]}
		for k in 1 $([ "$SESSIONS" -gt 1 ] && echo "$SESSIONS"); do
			switch_cost "$k" || echo "$PIN, $k session(s): failed"
			[ -z "$CGPERF_BEFORE" ] || switch_cost "$k" "$CGPERF_BEFORE" " before" ||
				echo "$PIN, $k session(s), before: failed"
		done
	done
	echo "ns/switch: ns/run x programs (cgroup sessions of one event set share one hub)."
	echo "goal: <= 150 ns per switch (4 software events). The statistics add their own"
	echo "two clock reads per run: an upper bound."
fi

# ---- sync + read cost ----
if [ "$DO_READCOST" = 1 ]; then
	echo
	echo "cost of one read of $NR_CGROUPS cgroups x $NR_EVENTS events (readcost):"
	run_fg "$READCOST" -e "$EVENTS" -i 500 -r 7 "/$BENCH_REL/bcg-*" || echo "readcost failed"
fi
# ---- the agent's own cost (CPU, memory) with CSV output ----
if [ "$DO_AGENT" = 1 ]; then
	run_fg "$BENCH_BIN_DIR/agent-cost" || echo "agent-cost failed"
fi
echo
echo "total time: $((SECONDS - START_TS)) s"
