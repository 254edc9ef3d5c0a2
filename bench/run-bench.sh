#!/bin/bash
# run-bench: what per-cgroup counting costs a context-switch-heavy workload.
#
#   sudo build/bench/run-bench [options]
#
# Creates its own cgroup subtree <cgroup2 root>/cgperf-bench-<pid>/ with 1000
# sibling cgroups bcg-0000..bcg-0999, runs `pingpong` (two processes passing a
# byte over pipes) in bcg-0000 and reports the microseconds per round trip
#   (a) with nothing counting,
#   (b) under `cgperf stat -e EVENTS -G ...` counting 1, 100 and 1000 cgroups,
#   (c) under `perf stat -a -e EVENTS --for-each-cgroup ...` over the same sets,
# always including bcg-0000. The configurations are interleaved, in a rotating
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

EVENTS=cpu-clock,task-clock,context-switches,page-faults
NR_EVENTS=4
NR_CGROUPS=1000
SIZES=(1 100 1000)

ROUNDS=5
REPEATS=5
TRIPS=          # per pingpong repeat; empty: calibrate to ~REPEAT_MS
REPEAT_MS=250
PIN=split
PERF_MAX=1000
DO_PERF=1
DO_READCOST=1
DO_AGENT=1

usage() {
	cat <<EOF
usage: run-bench [options]
  -r, --rounds N      rounds over all configurations (default $ROUNDS)
      --repeats N     pingpong repeats per measurement, median taken (default $REPEATS)
  -n, --trips N       round trips per repeat (default: calibrated to ~${REPEAT_MS} ms)
      --pin MODE      split: pingpong's two processes on CPUs 0 and 1 (default; every
                      switch crosses cgroups: task <-> idle); same: both on CPU 0
                      (task <-> task, same cgroup); none: not pinned
      --perf-max N    at most N cgroups for perf (default $PERF_MAX)
      --no-perf       skip the perf configurations
      --no-readcost   skip the sync+read timing
      --no-agent      skip the agent's CPU/memory rows (bench/agent-cost.sh)
  -h, --help
Environment: CGPERF, PINGPONG, READCOST, PERF override the programs used.
EOF
}

while [ $# -gt 0 ]; do
	case $1 in
	-r | --rounds) ROUNDS=$2; shift ;;
	--repeats) REPEATS=$2; shift ;;
	-n | --trips) TRIPS=$2; shift ;;
	--pin) PIN=$2; shift ;;
	--perf-max) PERF_MAX=$2; shift ;;
	--no-perf) DO_PERF=0 ;;
	--no-readcost) DO_READCOST=0 ;;
	--no-agent) DO_AGENT=0 ;;
	-h | --help) usage; exit 0 ;;
	*) echo "run-bench: unknown option '$1'" >&2; usage >&2; exit 2 ;;
	esac
	shift
done
for v in "$ROUNDS" "$REPEATS" "$PERF_MAX" ${TRIPS:+"$TRIPS"}; do
	[[ $v =~ ^[1-9][0-9]*$ ]] || { echo "run-bench: '$v' is not a positive number" >&2; exit 2; }
done
case $PIN in
split) PIN_ARGS=(-c 0,1) ;;
same) PIN_ARGS=(-c 0) ;;
none) PIN_ARGS=() ;;
*) echo "run-bench: --pin takes split, same or none" >&2; exit 2 ;;
esac

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
if [ "$PIN" = split ] && [ "$NR_CPUS" -lt 2 ]; then
	note "one CPU only: pinning both processes to CPU 0"
	PIN=same PIN_ARGS=(-c 0)
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

# ---- calibrate the number of round trips per repeat ----
# pingpong [ARGS]: one measurement; the median us/round trip is left in US.
pingpong() {
	run_fg "$PINGPONG" -g "$PP_CG" -n "$TRIPS" -r "$REPEATS" "${PIN_ARGS[@]}" "$@" \
		>"$TMPD/pingpong.out" || return 1
	US=$(cat "$TMPD/pingpong.out")
}
if [ -z "$TRIPS" ]; then
	run_fg "$PINGPONG" -g "$PP_CG" -n 2000 -r 3 -w 500 "${PIN_ARGS[@]}" >"$TMPD/pingpong.out"
	us=$(cat "$TMPD/pingpong.out")
	TRIPS=$(awk -v us="$us" -v ms="$REPEAT_MS" 'BEGIN {
		n = int(ms * 1000 / us / 1000) * 1000
		print (n < 2000 ? 2000 : n > 500000 ? 500000 : n) }')
	note "calibration: $us us/round trip -> $TRIPS round trips per repeat"
fi

# ---- the configurations ----
CONFIGS=(base)
declare -A LABEL=([base]="(a) nothing counting")
for n in "${SIZES[@]}"; do
	CONFIGS+=("cgperf:$n")
	LABEL[cgperf:$n]="(b) cgperf stat -G, $n cgroup$([ "$n" = 1 ] || echo s)"
done
if [ "$DO_PERF" = 1 ]; then
	for n in "${SIZES[@]}"; do
		[ "$n" -le "$PERF_N" ] || n=$PERF_N
		[ -n "${LABEL[perf:$n]:-}" ] && continue
		CONFIGS+=("perf:$n")
		LABEL[perf:$n]="(c) perf stat -a --for-each-cgroup, $n cgroup$([ "$n" = 1 ] || echo s)"
	done
fi
declare -A RESULTS=()   # config -> "us us ..." (one per round that worked)
FOLLOWER_MODE=""
FAILED=""

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

measure_cgperf() {
	local n=$1 i pid rc=0
	run_bg "$CGPERF" stat -v -e "$EVENTS" -G "$(cg_list "$n" "/$BENCH_REL/")" -x, \
		-o "$TMPD/cgperf.csv" 2>"$TMPD/cgperf.err"
	pid=$BG_PID
	for ((i = 0; i < 600; i++)); do
		grep -q "counting started" "$TMPD/cgperf.err" && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	if ! grep -q "counting started" "$TMPD/cgperf.err"; then
		echo "run-bench: cgperf stat did not start counting ($n cgroups):" >&2
		cat "$TMPD/cgperf.err" >&2
		kill -INT "$pid" 2>/dev/null
		reap "$pid"
		return 1
	fi
	[ -n "$FOLLOWER_MODE" ] || FOLLOWER_MODE=$(sed -n 's/.*follower mode: //p' "$TMPD/cgperf.err" | head -n 1)
	pingpong || rc=1
	kill -INT "$pid"
	if ! reap "$pid"; then
		echo "run-bench: cgperf stat failed ($n cgroups):" >&2
		cat "$TMPD/cgperf.err" >&2
		return 1
	fi
	[ "$rc" = 0 ] && counted_ok "$TMPD/cgperf.csv" "/$BENCH_REL/bcg-0000" "cgperf stat"
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
	US=""
	case $1 in
	base) measure_base ;;
	cgperf:*) measure_cgperf "${1#cgperf:}" ;;
	perf:*) measure_perf "${1#perf:}" ;;
	esac
}

# Every configuration is measured between two baselines, and compared with
# their mean: the host's drift (large on a shared VM) cancels out.
OTHERS=("${CONFIGS[@]:1}")
NO=${#OTHERS[@]}
declare -A RATIOS=() DIFFS=()   # config -> "x x ..." (one per round)

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

note "pingpong: $TRIPS round trips x $REPEATS repeats, pin=$PIN; $ROUNDS rounds of $NO configurations, each between two baselines"
for ((r = 0; r < ROUNDS; r++)); do
	measure_base_into
	line=" base=${BASE_US:-FAILED}"
	for ((k = 0; k < NO; k++)); do
		cfg=${OTHERS[$(((k + r) % NO))]}   # rotate the order every round
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

# ---- the table ----
stats() { # values... -> "median min max"
	printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END {
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%.3f %.3f %.3f\n", m, v[1], v[NR] }'
}
[ -n "${RESULTS[base]:-}" ] || die "the baseline (a) could not be measured"

echo
echo "cgperf benchmark: $(uname -sr), $NR_CPUS CPUs, cgroup2 at $CG2"
echo "events: $EVENTS; cgperf follower: ${FOLLOWER_MODE:-unknown}"
echo "pingpong in bcg-0000, pin=$PIN: $TRIPS round trips x $REPEATS repeats (median of the repeats)"
echo "$ROUNDS rounds; us/trip: median over rounds; +us, ratio: medians over rounds of the"
echo "difference and ratio to the mean of the two baselines (a) measured just before and after"
echo
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
echo "goal: cgperf at 1000 cgroups <= 1.05x"

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
