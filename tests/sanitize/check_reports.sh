#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# After the suite in a sanitizer build (ctest fixture "stale"'s cleanup):
# every report any process wrote (the agent, a command, a helper, a unit
# test), whatever that process's exit status made of it. A test that
# ignores its child's status (a SIGTERM'd agent, a command whose output is
# all it reads) would otherwise pass over a leak or a bad read.
# check_reports.sh clear: before the suite, forget an earlier run's.
set -uo pipefail
dir=${CGPERF_SANITIZE_DIR:?not a sanitizer build}
if [ "${1:-}" = clear ]; then
	rm -rf "$dir" && mkdir -p "$dir"
	exit
fi
shopt -s nullglob
reports=("$dir"/*)
if [ ${#reports[@]} = 0 ]; then
	echo "no sanitizer report in $dir"
	exit 0
fi
for f in "${reports[@]}"; do
	echo "==== $f"
	cat "$f"
done
echo "FAIL: ${#reports[@]} sanitizer reports (above; by process: the file name ends in its pid)"
exit 1
