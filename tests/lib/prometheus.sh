# SPDX-License-Identifier: GPL-2.0-only
# Helpers for the Prometheus tests (source after common.sh). The exposition
# is read with real parsers: prometheus_client's (Debian's
# python3-prometheus-client, run by the system python3 it belongs to) for
# both formats, promtool for lint, Prometheus and node_exporter themselves.
SYS_PY=/usr/bin/python3
PROMTOOL=/usr/bin/promtool
PROMETHEUS=/usr/bin/prometheus
NODE_EXPORTER=/usr/bin/prometheus-node-exporter
for b in "$PROMTOOL" "$PROMETHEUS" "$NODE_EXPORTER"; do
	[ -x "$b" ] || fail "$b is missing (scripts/install-deps installs prometheus, prometheus-node-exporter)"
done
"$SYS_PY" -c 'import prometheus_client' 2>/dev/null ||
	fail "python3-prometheus-client is missing (scripts/install-deps)"

# wait_http URL [TIMEOUT_S] [CURL ARGS...]: until URL answers 200.
wait_http() {
	local url=$1 t=${2:-20} i; shift 2 || shift $#
	for ((i = 0; i < t * 10; i++)); do
		[ "$(curl -s -o /dev/null -w '%{http_code}' "$@" "$url" 2>/dev/null)" = 200 ] && return 0
		sleep 0.1
	done
	fail "$url did not answer 200 within ${t}s"
}

# prom_parse FORMAT FILE: parse FILE (text|openmetrics) with prometheus_client
# and print one line per sample: NAME<TAB>LABELS AS JSON<TAB>VALUE. Fails on
# anything the parser refuses.
prom_parse() {
	"$SYS_PY" - "$@" <<'PY'
import json, sys
fmt, path = sys.argv[1], sys.argv[2]
if fmt == "openmetrics":
    from prometheus_client.openmetrics.parser import text_string_to_metric_families
else:
    from prometheus_client.parser import text_string_to_metric_families
text = open(path, encoding="utf-8").read()
for fam in text_string_to_metric_families(text):
    for s in fam.samples:
        print("%s\t%s\t%r" % (s.name, json.dumps(s.labels, sort_keys=True), s.value))
PY
}

# prom_value FILE FORMAT NAME EVENT CGROUP: the value of NAME{event,cgroup}.
# The reader takes the parser's whole output before it answers (leaving at
# the first match would EPIPE the parser under pipefail).
prom_value() {
	prom_parse "$2" "$1" | "$SYS_PY" -c '
import json, sys
name, event, cg = sys.argv[1:4]
found = None
for line in sys.stdin:
    n, labels, v = line.rstrip("\n").split("\t")
    l = json.loads(labels)
    if found is None and n == name and l.get("event") == event and l.get("cgroup") == cg:
        found = v
if found is None:
    sys.exit("no sample %s{event=%r,cgroup=%r}" % (name, event, cg))
print(found)' "$3" "$4" "$5"
}
