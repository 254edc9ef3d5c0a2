#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Before the suite (ctest fixture "stale"): state left by a test that was
# killed (ctest's timeout, a lost machine) before its own cleanup ran. Such a
# test's bpffs directory can hold a pinned agent session whose programs keep
# running at every context switch, and its cgroups burners; both disturb
# every later accuracy test and benchmark. Only cgperf's test and benchmark
# names are looked at (cgperf-test-<name>-<pid>, cgperf-unit-<name>-<pid>,
# cgperf-agentcost-<pid>, cgperf-test-rescan-<pid>), and only those whose
# <pid> is no longer alive: a running suite's state is never touched. A
# cgroup's processes are the killed test's own workers, ended by pid.
set -uo pipefail

# stale NAME: NAME ends in -<pid> of a process that is gone.
stale() {
	local pid=${1##*-}
	[[ $pid =~ ^[0-9]+$ ]] && ! kill -0 "$pid" 2>/dev/null
}

reaped=0
for d in /sys/fs/bpf/cgperf-test-*; do
	[ -d "$d" ] && stale "$d" || continue
	echo "# removing $d (its test, pid ${d##*-}, is gone)"
	rm -rf "$d" && reaped=$((reaped + 1))
done

source "$(dirname "$0")/mounts.sh"
cg2=$(mounts_of cgroup2 | grep -x /sys/fs/cgroup || mounts_of cgroup2 | head -1)
for d in "$cg2"/cgperf-test-* "$cg2"/cgperf-unit-* "$cg2"/cgperf-agentcost-*; do
	[ -d "$d" ] && stale "$d" || continue
	echo "# removing $d (its test, pid ${d##*-}, is gone)"
	for pid in $(find "$d" -name cgroup.procs -exec cat {} + 2>/dev/null); do
		kill -KILL "$pid" 2>/dev/null
	done
	sleep 0.1
	find "$d" -depth -type d -exec rmdir {} + 2>/dev/null
	[ -d "$d" ] || reaped=$((reaped + 1))
done
echo "# $reaped stale directories removed"
