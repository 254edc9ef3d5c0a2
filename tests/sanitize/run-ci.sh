#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# ctest's sanitize/ci: CI's part of the sanitizer build's suite (ctest -L
# sanitize-ci in $CGPERF_SANITIZE_BUILD, which scripts/test builds), run as
# one test of the release build so that it shares the host's lane (and its
# `cpu` lock) with the other host tests while the VM matrix runs beside.
set -uo pipefail
dir=${CGPERF_SANITIZE_BUILD:-}
if [ -z "$dir" ] || [ ! -f "$dir/CTestTestfile.cmake" ]; then
	echo "SKIP: no sanitizer build named in CGPERF_SANITIZE_BUILD (scripts/test makes one)"
	exit 77
fi
cd "$dir" || exit 1
ctest --output-on-failure --no-tests=error --timeout 600 -L sanitize-ci
