# Shared helpers for integration tests. Source it; it sets `set -euo pipefail`.
# Every test gets its own cgroup2 subtree (cgperf-test-<name>-<pid>) that is
# removed on exit, and only processes the test started are ever killed.
set -euo pipefail

: "${CGPERF:?CGPERF must point at the cgperf binary (run through ctest)}"
: "${CGPERF_BUILD:?}"
TEST_NAME=$(basename "$0" .sh)
BURN="$CGPERF_BUILD/tests/burn"
FORKER="$CGPERF_BUILD/tests/forker"
STARTED_PIDS=()
TMP=$(mktemp -d "/tmp/cgperf-$TEST_NAME.XXXXXX")

cgroup2_root() {
	awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo
}
CG2=$(cgroup2_root)
[ -n "$CG2" ] || { echo "FAIL: no cgroup2 mount on this host"; exit 1; }
# Relative (to the cgroup2 root) and absolute paths of this test's subtree.
TEST_CG_REL="/cgperf-test-$TEST_NAME-$$"
TEST_CG="$CG2$TEST_CG_REL"

# Each test keeps cgperf's bpffs state (shared leaders' attr map, persistent
# agent sessions) in a directory of its own, removed on exit: pins left by one
# test are never adopted by another.
mountpoint -q /sys/fs/bpf || mount -t bpf -o mode=0700 bpf /sys/fs/bpf
export CGPERF_BPFFS_DIR="/sys/fs/bpf/cgperf-test-$TEST_NAME-$$"

fail() { echo "FAIL: $*" >&2; exit 1; }
# A loopback TCP port free right now (for servers the test starts).
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
skip() { echo "SKIP: $*"; exit 77; }
log() { echo "# $*"; }

# mkcg REL: create $TEST_CG/REL (parents too); prints the relative path from the root.
mkcg() {
	mkdir -p "$TEST_CG/$1"
	echo "$TEST_CG_REL/$1"
}

# run_in_cg REL CMD...: start CMD inside cgroup REL (relative to the test subtree), in
# the background; its pid is in $LAST_PID and remembered for cleanup.
# The child is moved from outside while it waits at a fifo, the way container
# runtimes place a container's first process; see docs/ARCHITECTURE.md on why
# a process that moves itself is charged a few ms of its old cgroup's time.
run_in_cg() {
	local cg=$1 gate="$TMP/gate.$BASHPID.$RANDOM"; shift
	mkfifo "$gate"
	( read -r _ <"$gate"; exec "$@" ) &
	LAST_PID=$!
	STARTED_PIDS+=("$LAST_PID")
	echo "$LAST_PID" >"$TEST_CG/$cg/cgroup.procs"
	echo go >"$gate"
	rm -f "$gate"
}

# start_bg CMD...: start a background process, remember it.
start_bg() {
	"$@" &
	LAST_PID=$!
	STARTED_PIDS+=("$LAST_PID")
}

usage_usec() { awk '$1 == "usage_usec" { print $2 }' "$TEST_CG/$1/cpu.stat"; }

# wait_for_line FILE PATTERN TIMEOUT_S: wait until FILE has a line matching PATTERN.
wait_for_line() {
	local file=$1 pat=$2 t=${3:-20} i
	for ((i = 0; i < t * 10; i++)); do
		grep -q -- "$pat" "$file" 2>/dev/null && return 0
		sleep 0.1
	done
	echo "--- $file:"; cat "$file" || true
	fail "timed out waiting for '$pat' in $file"
}

# within_pct A B PCT: succeed when |A-B| <= PCT% of B.
within_pct() {
	awk -v a="$1" -v b="$2" -v p="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && d <= b * p / 100) }'
}
assert_within_pct() {
	local what=$1 a=$2 b=$3 p=$4
	if within_pct "$a" "$b" "$p"; then
		log "ok: $what: $a vs $b (within $p%)"
	else
		fail "$what: $a vs $b differ by more than $p%"
	fi
}

cleanup() {
	local pid
	# A test may define test_cleanup (unmount what it mounted, ...).
	if declare -F test_cleanup >/dev/null; then test_cleanup || true; fi
	for pid in "${STARTED_PIDS[@]}"; do
		kill -KILL "$pid" 2>/dev/null || true
	done
	# Descendants of what we started (forked workers) that sit in our subtree.
	if [ -d "$TEST_CG" ]; then
		for pid in $(find "$TEST_CG" -name cgroup.procs -exec cat {} + 2>/dev/null); do
			kill -KILL "$pid" 2>/dev/null || true
		done
	fi
	wait 2>/dev/null || true
	sleep 0.1
	# Remove the subtree bottom-up; processes are gone so rmdir succeeds.
	if [ -d "$TEST_CG" ]; then
		find "$TEST_CG" -depth -type d -exec rmdir {} + 2>/dev/null || true
	fi
	rm -rf "$TMP" "$CGPERF_BPFFS_DIR"
}
trap cleanup EXIT

mkdir -p "$TEST_CG"

# stat_csv_value FILE EVENT [CGROUP]: the value column of cgperf/perf `-x,`
# output for EVENT (and CGROUP), parsed with a real CSV parser. Sums rows
# when there are several (per-interval output).
stat_csv_value() {
	python3 - "$@" <<'PY'
import csv, sys
path, event = sys.argv[1], sys.argv[2]
cg = sys.argv[3] if len(sys.argv) > 3 else None
total, found = 0.0, False
with open(path, newline='') as f:
    for row in csv.reader(f):
        if len(row) < 6 or row[2] != event:
            continue
        if cg is not None and row[3].strip('/') != cg.strip('/'):
            continue
        if row[0].startswith('<'):
            continue
        total += float(row[0]); found = True
if not found:
    sys.exit("no row for %s %s in %s" % (event, cg, path))
print("%.3f" % total)
PY
}

# Start `cgperf stat -v ARGS` in the background writing CSV to $TMP/NAME.csv
# and its log to $TMP/NAME.log; returns once it is counting.
start_cgperf() {
	local name=$1; shift
	start_bg "$CGPERF" stat -v -x, -o "$TMP/$name.csv" "$@" 2>"$TMP/$name.log"
	CGPERF_PID=$LAST_PID
	wait_for_line "$TMP/$name.log" "counting started" 30
}

# leader_id LOG EVENT: the perf_event array id cgperf -v reported for EVENT.
leader_id() {
	sed -n "s/.*event '$2': .* leader (perf_event array id \([0-9]*\)).*/\1/p" "$1" | head -1
}

# wait_map_gone ID: the kernel frees a leader once its last holder is gone
# (program frees are deferred by an RCU grace period); wait for that.
wait_map_gone() {
	local i
	for ((i = 0; i < 100; i++)); do
		bpftool map show id "$1" >/dev/null 2>&1 || return 0
		sleep 0.1
	done
	fail "BPF map $1 still exists 10 s after its last user exited"
}

# csv_sum DIR CGROUP COLUMN: sum of COLUMN over every row whose `cgroup`
# column is CGROUP, in every *.csv file of the agent's CSV directory.
csv_sum() {
	python3 - "$@" <<'PY'
import csv, glob, sys
d, cg, col = sys.argv[1], sys.argv[2], sys.argv[3]
total, rows = 0.0, 0
for path in glob.glob(d + "/*.csv"):
    with open(path, newline='', encoding='utf-8', errors='surrogateescape') as f:
        for row in csv.DictReader(f):
            if row.get('cgroup') == cg and row.get(col, '') != '':
                total += float(row[col]); rows += 1
if rows == 0:
    sys.exit("no rows for %r in %s" % (cg, d))
print("%.3f" % total)
PY
}

# start_agent NAME CONFIG [ARGS...]: run `cgperf agent -v` in the background,
# log in $TMP/NAME.log; returns once its first scan is done.
start_agent() {
	local name=$1 conf=$2; shift 2
	start_bg "$CGPERF" agent -v -c "$conf" "$@" 2>"$TMP/$name.log"
	AGENT_PID=$LAST_PID
	wait_for_line "$TMP/$name.log" "cgroups under" 30
}

# wait_counted LOG PATH: the agent (-v) says it counts the cgroup PATH.
wait_counted() {
	wait_for_line "$1" "counting $2 (" 10
}

# agent_yaml FILE CSV_DIR [SYSLOG_TARGET [APP [QUEUE_MAX]]]: an agent config
# with 1 s intervals, cpu-clock and context-switches of the cgroups under
# $TEST_CG_REL/system.slice/ (the test's tree as cgroups.root, so runtime
# layouts are recognised in it), CSV files in CSV_DIR (none if empty) and RFC 5424
# syslog to SYSLOG_TARGET as APP (none if no target). The instance is the
# file's name: each config counts in a session of its own, none adopts
# another's.
agent_yaml() {
	local file=$1 csv_dir=$2 target=${3:-} app=${4:-cgperf} queue=${5:-1000}
	{
		printf 'instance: %s\ninterval: 1s\nevents: [cpu-clock, context-switches]\n' "$(basename "$file" .yaml)"
		printf 'cgroups:\n  root: "%s"\n  include: ["%s/system.slice/*"]\noutputs:\n' "$TEST_CG_REL" "$TEST_CG_REL"
		[ -z "$csv_dir" ] || printf '  csv:\n    directory: %s\n' "$csv_dir"
		[ -z "$target" ] || printf '  syslog:\n    target: %s\n    format: rfc5424\n    app_name: %s\n    queue_max: %s\n' \
			"$target" "$app" "$queue"
	} >"$file"
}
