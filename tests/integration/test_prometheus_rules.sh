# SPDX-License-Identifier: GPL-2.0-only
# The shipped Prometheus rules (packaging/prometheus/): promtool check rules
# is clean, and promtool test rules runs their unit tests (series in,
# recorded values and alerts out). test_prometheus_server loads them into a
# real Prometheus scraping a real agent.
source "$CGPERF_SRC/tests/lib/common.sh"
source "$CGPERF_SRC/tests/lib/prometheus.sh"

dir="$CGPERF_SRC/packaging/prometheus"
out=$("$PROMTOOL" check rules "$dir/cgperf-rules.yml" 2>&1) || fail "promtool check rules: $out"
grep -q 'SUCCESS: [0-9]* rules found' <<<"$out" || fail "promtool check rules: $out"
out=$(cd "$dir" && "$PROMTOOL" test rules cgperf-rules.test.yml 2>&1) || fail "promtool test rules: $out"
log "ok: $(grep -o 'SUCCESS: [0-9]* rules found' <<<"$(cd "$dir" && "$PROMTOOL" check rules cgperf-rules.yml 2>&1)"), unit tests pass"
