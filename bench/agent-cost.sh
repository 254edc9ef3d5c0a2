#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# agent-cost: what `cgperf agent` itself costs (CPU and memory) at 1000
# cgroups x 4 software events with CSV output, at a 1 s and a 10 s interval,
# and how long its first interval takes at 4096 cgroups.
#
#   sudo build/bench/agent-cost [options]      (also run by run-bench)
#
# Creates <cgroup2 root>/cgperf-agentcost-<pid>/ with sibling cgroups ac-NNNN
# (idle: the agent writes one row per cgroup per interval whatever they do),
# runs the agent on them with CSV files in a temporary directory, and reads
# /proc/PID/stat (utime + stime, clock ticks) and /proc/PID/schedstat (time on
# CPU, ns) over a measuring window after a warm-up; VmRSS/VmHWM from
# /proc/PID/status, and the kernel memory of the BPF maps it holds (memlock
# in /proc/PID/fdinfo, each map once). CGPERF_BEFORE=/path/to/an/older/cgperf
# adds the same rows for that binary, measured in the same run (before/after
# side by side). cgroups.max is the default (4096) unless --max says other:
# memory should follow the live cgroups, not that bound.
# Everything it created is removed on exit; it only kills what it started.
set -euo pipefail

CGPERF=${CGPERF:-@CMAKE_BINARY_DIR@/cgperf}
CGPERF_BEFORE=${CGPERF_BEFORE:-}
EVENTS="[cpu-clock, task-clock, context-switches, page-faults]"
N=1000
N_FIRST=4096
MAX=4096
WINDOW_1S=30
WINDOW_10S=100
INTERVALS="1 10"
PERSIST=1
DO_FIRST=1
ROUNDS=1

usage() {
	cat <<EOF
usage: agent-cost [options]
  -n N            cgroups for the 1 s / 10 s rows (default $N)
  --window-1s S   measuring window at the 1 s interval (default $WINDOW_1S s)
  --window-10s S  measuring window at the 10 s interval (default $WINDOW_10S s)
  --intervals L   which rows, "1 10" (default), "1" or "10"
  --max M         cgroups.max of the agent (default $MAX, the config's default)
  --no-persist    the agent with --no-persist (default: a persistent session, the
                  agent's default, released after each row)
  --no-first      skip the first-interval row at $N_FIRST cgroups
  --rounds R      R rows per binary and interval, the binaries' order reversed
                  every other round (default $ROUNDS): the binary measured first
                  pays for what setting up the cgroups and files left behind
Environment: CGPERF (default: this build), CGPERF_BEFORE (an older binary to compare).
EOF
}
while [ $# -gt 0 ]; do
	case $1 in
	-n) N=$2; shift ;;
	--window-1s) WINDOW_1S=$2; shift ;;
	--window-10s) WINDOW_10S=$2; shift ;;
	--intervals) INTERVALS=$2; shift ;;
	--max) MAX=$2; shift ;;
	--persist) PERSIST=1 ;;
	--no-persist) PERSIST=0 ;;
	--no-first) DO_FIRST=0 ;;
	--rounds) ROUNDS=$2; shift ;;
	-h | --help) usage; exit 0 ;;
	*) echo "agent-cost: unknown option '$1'" >&2; usage >&2; exit 2 ;;
	esac
	shift
done

die() { echo "agent-cost: $*" >&2; exit 1; }
note() { echo "# $*" >&2; }
[ "$(id -u)" = 0 ] || die "needs root (BPF, cgroup creation)"
[ -x "$CGPERF" ] || die "$CGPERF is missing: build the project first"

CG2=$(awk '{ for (i = 7; i <= NF && $i != "-"; i++) ; if ($(i + 1) == "cgroup2") print $5 }' \
	/proc/self/mountinfo | sort | head -n 1)
[ -n "$CG2" ] || die "no cgroup2 hierarchy is mounted"
REL="cgperf-agentcost-$$"
BASE="$CG2/$REL"
TMPD=$(mktemp -d /tmp/cgperf-agentcost.XXXXXX)
AGENT_PID=""
AGENT_BIN=""
INSTANCE="agentcost-$$"

cleanup() {
	set +e
	if [ -n "$AGENT_PID" ]; then
		kill -INT "$AGENT_PID" 2>/dev/null
		wait "$AGENT_PID" 2>/dev/null
		[ "$PERSIST" = 1 ] && release_session "$AGENT_BIN"
	fi
	[ -d "$BASE" ] && find "$BASE" -mindepth 1 -depth -type d -exec rmdir {} + 2>/dev/null
	[ -d "$BASE" ] && rmdir "$BASE"
	rm -rf "$TMPD"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

mkdir "$BASE"
make_cgroups() { # N: ac-0000 .. ac-(N-1)
	local i
	for ((i = 0; i < $1; i++)); do
		[ -d "$BASE/$(printf 'ac-%04d' "$i")" ] || mkdir "$BASE/$(printf 'ac-%04d' "$i")"
	done
}

CLK_TCK=$(getconf CLK_TCK)
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
oncpu_ns() { awk '{ print $1 }' "/proc/$1/schedstat"; }
status_kib() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"; }
# map_kib PID: memlock of the BPF maps PID holds fds of, each map counted once.
map_kib() {
	local f
	for f in /proc/"$1"/fdinfo/*; do
		awk '$1 == "map_id:" { id = $2 } $1 == "memlock:" { m = $2 }
			END { if (id != "") print id, m }' "$f" 2>/dev/null
	done | sort -u -k1,1 | awk '{ s += $2 } END { printf "%d", s / 1024 }'
}

# start_agent BINARY INTERVAL: the agent on our cgroups; waits for its first scan.
start_agent() {
	rm -rf "$TMPD/csv"
	cat >"$TMPD/agent.yaml" <<YAML
interval: $2
events: $EVENTS
cgroups:
  include: ["/$REL/*"]
  max: $MAX
outputs:
  csv:
    directory: $TMPD/csv
YAML
	# A counting session that outlives the agent (newer versions' default)
	# would be left behind: ask for none, where the binary knows the option.
	local extra=(--instance "$INSTANCE")
	[ "$PERSIST" = 1 ] || extra=(--no-persist)
	"$1" agent -v "${extra[@]}" -c "$TMPD/agent.yaml" 2>"$TMPD/agent.log" &
	AGENT_PID=$!
	AGENT_BIN=$1
	for ((i = 0; i < 600; i++)); do
		grep -q "cgroups under" "$TMPD/agent.log" && return 0
		kill -0 "$AGENT_PID" 2>/dev/null || break
		sleep 0.05
	done
	cat "$TMPD/agent.log" >&2
	die "the agent did not start"
}

stop_agent() {
	kill -INT "$AGENT_PID"
	wait "$AGENT_PID" || die "the agent failed: $(tail -3 "$TMPD/agent.log")"
	AGENT_PID=""
	[ "$PERSIST" = 1 ] && release_session "$1"
	return 0
}

# The persistent session outlives the agent: give it back (final rows).
release_session() {
	"$1" release -c "$TMPD/agent.yaml" --instance "$INSTANCE" >>"$TMPD/agent.log" 2>&1 ||
		note "cannot release instance $INSTANCE: $(tail -1 "$TMPD/agent.log")"
}

# wait_files N: until N CSV files exist (at most 60 s).
wait_files() {
	local i
	for ((i = 0; i < 600; i++)); do
		[ "$(find "$TMPD/csv" -name '*.csv' 2>/dev/null | wc -l)" -ge "$1" ] && return 0
		sleep 0.1
	done
	note "only $(find "$TMPD/csv" -name '*.csv' | wc -l) of $1 files after 60 s"
}

# measure BINARY INTERVAL_S WINDOW_S LABEL: one row of the table.
measure() {
	local bin=$1 iv=$2 win=$3 label=$4 t0 t1 c0 c1 w0 w1 rows
	start_agent "$bin" "${iv}s"
	# Warm-up: the first intervals create the files (at most 200 ms of
	# creations per interval, CSV.md "First rows are budgeted"): steady
	# state begins once every cgroup has its file.
	wait_files "$N"
	sleep $((2 * iv + 1)) & wait $!
	t0=$(ticks "$AGENT_PID"); c0=$(oncpu_ns "$AGENT_PID"); w0=$(date +%s%N)
	sleep "$win" & wait $!
	t1=$(ticks "$AGENT_PID"); c1=$(oncpu_ns "$AGENT_PID"); w1=$(date +%s%N)
	rows=$(cat "$TMPD"/csv/*.csv | wc -l)
	printf '%-34s %8s %10.3f %10.3f %9s %9s %9s %8s\n' "$label" "${iv}s" \
		"$(awk -v a="$t0" -v b="$t1" -v hz="$CLK_TCK" -v w0="$w0" -v w1="$w1" \
			'BEGIN { print (b - a) / hz / ((w1 - w0) / 1e9) * 100 }')" \
		"$(awk -v a="$c0" -v b="$c1" -v w0="$w0" -v w1="$w1" 'BEGIN { print (b - a) / (w1 - w0) * 100 }')" \
		"$(status_kib "$AGENT_PID" VmRSS)" "$(status_kib "$AGENT_PID" VmHWM)" \
		"$(map_kib "$AGENT_PID")" "$rows"
	stop_agent "$bin"
}

# first BINARY LABEL: CPU time of the agent from its first scan's end until
# every one of N_FIRST cgroups has a file (the first interval's rows), at a
# 10 s interval (nothing else happens in between).
first() {
	local bin=$1 label=$2 c0 c1 n i
	local max=$MAX
	[ "$max" -ge "$N_FIRST" ] || max=$N_FIRST
	MAX=$max start_agent "$bin" 10s
	c0=$(oncpu_ns "$AGENT_PID")
	for ((i = 0; i < 300; i++)); do
		n=$(find "$TMPD/csv" -name '*.csv' 2>/dev/null | wc -l)
		[ "$n" -ge "$N_FIRST" ] && break
		sleep 0.1
	done
	sleep 0.5 # the tail of the interval's writes
	c1=$(oncpu_ns "$AGENT_PID")
	printf '%-34s first interval at %d cgroups: %.0f ms of CPU (%d files)\n' "$label" \
		"$N_FIRST" "$(awk -v a="$c0" -v b="$c1" 'BEGIN { print (b - a) / 1e6 }')" "$n"
	stop_agent "$bin"
}

make_cgroups "$N"
note "$N cgroups under $BASE; windows ${WINDOW_1S}s (1 s interval), ${WINDOW_10S}s (10 s interval)"
BINS=("$CGPERF")
LABELS=("this build")
if [ -n "$CGPERF_BEFORE" ]; then
	BINS+=("$CGPERF_BEFORE")
	LABELS+=("before ($CGPERF_BEFORE)")
fi
echo
echo "cgperf agent at $N cgroups x 4 software events, CSV on, cgroups.max $MAX," \
	"$([ "$PERSIST" = 1 ] && echo persistent || echo --no-persist) ($(nproc) CPUs, $(uname -r))"
printf '%-34s %8s %10s %10s %9s %9s %9s %8s\n' "binary" interval "cpu% tick" "cpu% sched" \
	"RSS KiB" "HWM KiB" "maps KiB" "rows"
for iv in $INTERVALS; do
	win=$WINDOW_1S
	[ "$iv" = 10 ] && win=$WINDOW_10S
	for ((r = 1; r <= ROUNDS; r++)); do
		order=("${!BINS[@]}")
		((r % 2 == 0)) && order=($(printf '%s\n' "${order[@]}" | tac))
		for k in "${order[@]}"; do
			measure "${BINS[$k]}" "$iv" "$win" "${LABELS[$k]}"
		done
	done
done
echo "cpu% tick: utime+stime (/proc/PID/stat) over the window; cpu% sched: time on CPU"
echo "(/proc/PID/schedstat), the finer of the two. Goal: <= 0.3 % at 1 s, <= 0.05 % at 10 s."
echo "maps KiB: kernel memory of the BPF maps the agent holds (memlock). Goal: RSS + maps <= 16 MiB."
if [ "$DO_FIRST" = 1 ]; then
	make_cgroups "$N_FIRST"
	for k in "${!BINS[@]}"; do
		first "${BINS[$k]}" "${LABELS[$k]}"
	done
	echo "Goal: the first interval at $N_FIRST cgroups takes less than the interval."
fi
