# SPDX-License-Identifier: GPL-2.0-only
# The metrics endpoint never answers with a format the client did not
# accept: the Accept headers of Prometheus 2.x (OpenMetrics first, text as a
# fallback), an older Prometheus (OpenMetrics 0.0.1, which is not served),
# curl (*/*), a text-only client and an OpenMetrics-only one, in every
# order, across collections. Text bodies lint clean with promtool,
# OpenMetrics ones parse with prometheus_client's OpenMetrics parser; a
# client that accepts neither gets 406; an OpenMetrics-only client before
# any OpenMetrics body exists gets 503 with Retry-After, and OpenMetrics from
# the next collection on.
source "$CGPERF_SRC/tests/lib/common.sh"
source "$CGPERF_SRC/tests/lib/prometheus.sh"

PORT=$(free_port)
URL="http://127.0.0.1:$PORT/metrics"
agent_yaml "$TMP/agent.yaml" <<YAML
  csv:
    directory: $TMP/csv
    flush_interval: 0 # a row per collection, in the file at once
  prometheus:
    listen: "127.0.0.1:$PORT"
YAML
mkcg app >/dev/null
run_in_cg app sleep 600
start_agent agent "$TMP/agent.yaml"

TEXT_TYPE='text/plain; version=0.0.4; charset=utf-8'
OM_TYPE='application/openmetrics-text; version=1.0.0; charset=utf-8'
declare -A ACCEPT=(
	[prometheus]='application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1'
	[old_prometheus]='application/openmetrics-text; version=0.0.1,text/plain;version=0.0.4;q=0.5,*/*;q=0.1'
	[curl]='' # curl's own: Accept: */*
	[text_only]='text/plain;version=0.0.4'
	[om_only]='application/openmetrics-text;version=1.0.0'
)
# What each may get, once OpenMetrics bodies exist.
declare -A EXPECT=(
	[prometheus]=$OM_TYPE [old_prometheus]=$TEXT_TYPE [curl]=$TEXT_TYPE
	[text_only]=$TEXT_TYPE [om_only]=$OM_TYPE
)

# rows: the CSV rows written so far (one per cgroup and collection).
rows() { cat "$TMP"/csv/*.csv 2>/dev/null | grep -c . || true; }
# next_collection: until the agent has written the rows of another one.
more_rows() { [ "$(rows)" -gt "$1" ]; }
next_collection() {
	local n
	n=$(rows)
	poll 600 0.05 more_rows "$n" || fail "no collection within 30 s"
}

# scrape CLIENT N: one request as CLIENT; its status, Content-Type and body
# into $TMP/N.*; prints the status.
scrape() {
	local client=$1 n=$2 args=()
	[ -z "${ACCEPT[$client]}" ] || args=(-H "Accept: ${ACCEPT[$client]}")
	curl -sS -D "$TMP/$n.hdr" -o "$TMP/$n.body" -w '%{http_code}' "${args[@]}" "$URL"
}
content_type() { sed -n 's/^[Cc]ontent-[Tt]ype: \(.*\)\r$/\1/p' "$TMP/$1.hdr"; }

# check CLIENT N: a 200 in the type CLIENT should get, a body its parser takes.
check() {
	local client=$1 n=$2 code type lint
	code=$(scrape "$client" "$n")
	type=$(content_type "$n")
	[ "$code" = 200 ] || fail "$client: HTTP $code: $(cat "$TMP/$n.body")"
	[ "$type" = "${EXPECT[$client]}" ] || fail "$client (Accept: ${ACCEPT[$client]:-*/*}) got '$type', not '${EXPECT[$client]}'"
	if [ "$type" = "$TEXT_TYPE" ]; then
		lint=$("$PROMTOOL" check metrics <"$TMP/$n.body" 2>&1) || fail "$client: promtool check metrics: $lint"
		[ -z "$lint" ] || fail "$client: promtool lint: $lint"
	else
		[ "$(tail -n1 "$TMP/$n.body")" = "# EOF" ] || fail "$client: OpenMetrics body without # EOF"
		prom_parse openmetrics "$TMP/$n.body" >/dev/null || fail "$client: the OpenMetrics parser refused the body"
	fi
	grep -qi '^Vary: Accept, Accept-Encoding' "$TMP/$n.hdr" || fail "$client: no Vary: Accept"
}

# ---- an OpenMetrics-only client first: no OpenMetrics body yet ----
# Its first requests are the readiness probe: 503 before the first
# collection ("No collection yet"), then 503 because no scrape has
# preferred OpenMetrics before (this one does). Nothing else has asked for
# anything yet.
om_pending() {
	[ "$(scrape om_only first)" = 503 ] && grep -q 'comes with the next collection' "$TMP/first.body"
}
poll 600 0.05 om_pending || fail "no 503 for an OpenMetrics-only client before any OpenMetrics body: $(cat "$TMP/first.hdr" "$TMP/first.body")"
grep -qi '^Retry-After: ' "$TMP/first.hdr" || fail "503 without Retry-After"
log "ok: OpenMetrics-only before any OpenMetrics body: 503, Retry-After"
# Once a collection built it (the CSV rows come before the body is
# published: poll the scrape itself).
om_ready() { [ "$(scrape om_only om1)" = 200 ]; }
poll 600 0.05 om_ready || fail "the OpenMetrics-only client still not served 30 s later: $(cat "$TMP/om1.body")"
check om_only om1
# The first text-only request ever, after a collection that built
# OpenMetrics for Prometheus: text (it once got OpenMetrics here, as only
# the formats asked for were built).
check text_only t0
check curl c0
log "ok: OpenMetrics from the next collection; a text-only client's first request after it gets text"

# ---- every order of three clients, each in a collection of its own ----
i=0
for order in "prometheus curl text_only" "prometheus text_only curl" "curl prometheus text_only" \
	"curl text_only prometheus" "text_only prometheus curl" "text_only curl prometheus"; do
	for client in $order old_prometheus om_only; do
		check "$client" "o$((i++))"
	done
	next_collection
done
log "ok: $i scrapes, every order of Prometheus, curl and a text-only client across collections: each got a format it accepted"

# ---- nothing acceptable: 406, and what is served ----
for accept in 'application/json' 'text/plain;version=0.0.3' 'application/openmetrics-text;version=2.0.0' \
	'application/openmetrics-text;q=0, text/plain;q=0'; do
	code=$(curl -sS -D "$TMP/na.hdr" -o "$TMP/na.body" -w '%{http_code}' -H "Accept: $accept" "$URL")
	[ "$code" = 406 ] || fail "Accept: $accept: HTTP $code, not 406 ($(content_type na))"
	grep -q 'text/plain; version=0.0.4' "$TMP/na.body" || fail "406 does not say what is served: $(cat "$TMP/na.body")"
done
log "ok: 406 for four Accept headers that accept neither format"

# The agent kept collecting through all of it.
kill -0 "$AGENT_PID" || fail "the agent died"
