#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The agent for a long run (not CI; by hand, as root):
#
#   tests/sanitize/soak.sh BUILD_DIR [MINUTES] [OUT_DIR]
#
# Run it on a -DCGPERF_SANITIZE=address,undefined build (scripts/build with
# CGPERF_SANITIZE set) for the sanitizers' reports, and on a release build
# for memory: ASan's quarantine and allocator caches make the sanitized
# agent's RSS a sawtooth tens of MiB high, which would hide a leak of
# kilobytes per cgroup. MINUTES defaults to 32. Results stay in OUT_DIR
# (default /tmp/cgperf-soak.<time>): samples.tsv, the agents' logs, the
# sanitizers' reports, summary.txt.
#
# What runs, the whole time:
#  - cgroup churn: 5 workers, each creates a cgroup under churn/, runs a
#    short burner in it and removes it, about 300 a minute; the names carry
#    tenant-style bytes (quotes, commas, spaces, a tab, a backslash, a
#    leading '=', UTF-8, a control byte);
#  - 4 steady cgroups with a burner waking every 0.3 s;
#  - a Prometheus scrape every second (text and OpenMetrics in turn), and
#    promtool on one scrape a minute where promtool is installed;
#  - syslog to a real rsyslogd over TCP that goes away for 60 s every 5 min;
#  - CSV files at a 64 KiB rotation size (the steady cgroups rotate);
#  - SIGHUP every 90 s: a valid change of events, an invalid file, the same
#    file again (reopen only), in turn;
#  - half-way: kill -9 of the agent and a restart that adopts its session.
# Every 5 min the drivers pause until the churned cgroups are gone and their
# final rows written: the agent's fds and RSS are sampled there, in the same
# state each time ("quiescent" rows of samples.tsv).
#
# Fails (exit 1) on: any sanitizer report (ASan, LeakSanitizer at the final
# exit, UBSan), an agent or `cgperf release` exiting non-zero, quiescent fds
# not equal within one agent's life and event set (each event has its maps;
# the CSV directory, open during a retention pass, is left out; the lists
# are kept: fds.LIFE.N), quiescent
# RSS growing by more than 10 % + 4 MiB from the first to the last sample of
# an agent's life after a 5 min warm-up (a release build only: printed, not
# judged, under ASan), a churned cgroup without a CSV row (but one born and
# gone within 10 s of a valid SIGHUP's restart: reported), a scrape not
# answered 200 while the agent ran, rsyslogd receiving nothing after it
# came back.
set -euo pipefail

if [ -z "${CGPERF_SOAK_INNER:-}" ]; then
	[ $# -ge 1 ] || { sed -n 3,9p "$0" >&2; exit 2; }
	build=$(cd "$1" && pwd)
	src=$(cd "$(dirname "$0")/../.." && pwd)
	[ -x "$build/cgperf" ] || { echo "soak: $build/cgperf is missing" >&2; exit 2; }
	san=0
	grep -q '^CGPERF_SANITIZE:STRING=..*' "$build/CMakeCache.txt" && san=1
	out=${3:-/tmp/cgperf-soak.$(date +%Y%m%d-%H%M%S)}
	mkdir -p "$out/san"
	exec env CGPERF_SOAK_INNER=1 CGPERF="$build/cgperf" CGPERF_BUILD="$build" CGPERF_SRC="$src" \
		SOAK_MINUTES="${2:-32}" SOAK_OUT="$out" SOAK_SANITIZED=$san \
		ASAN_OPTIONS="log_path=$out/san/asan:detect_leaks=1:quarantine_size_mb=32:malloc_context_size=20" \
		LSAN_OPTIONS="suppressions=$src/tests/sanitize/lsan.supp:print_suppressions=0" \
		UBSAN_OPTIONS="log_path=$out/san/ubsan:print_stacktrace=1:halt_on_error=1" \
		CGPERF_SANITIZE_DIR="$out/san" \
		bash "$0"
fi

source "$CGPERF_SRC/tests/lib/common.sh"
OUT=$SOAK_OUT
END=$(($(date +%s) + SOAK_MINUTES * 60))
HALF=$(($(date +%s) + SOAK_MINUTES * 30))
PAUSE="$TMP/pause"
test_cleanup() {
	touch "$PAUSE" "$TMP/stop"
	cp "$TMP"/*.log "$TMP"/*.tsv "$OUT"/ 2>/dev/null || true
	[ -z "${AGENT_PID:-}" ] || "$CGPERF" release -c "$TMP/agent.yaml" >/dev/null 2>&1 || true
}
say() { echo "# $(date +%T) $*" | tee -a "$OUT/summary.txt"; }
bad() { say "FAIL: $*"; FAILED=1; }
FAILED=0

# ---- the receivers ----
rsyslogd_start_tcp
SPORT=$TCP_PORT
messages() { grep -c " cgperf-soak " "$TMP/rs/out.log" 2>/dev/null || true; }
PPORT=$(free_port)

# ---- the config: three versions for the SIGHUPs ----
write_config() { # EVENTS INTERVAL
	cat >"$TMP/agent.yaml" <<YAML
instance: soak-$$
interval: $2
events: [$1]
cgroups:
  root: "$TEST_CG_REL"
  include: ["$TEST_CG_REL/**"]
  max: 512
outputs:
  csv:
    directory: $TMP/csv
    max_size: 64KiB
    max_files: 2
  syslog:
    target: tcp://127.0.0.1:$SPORT
    format: rfc5424
    app_name: cgperf-soak
    queue_max: 2000
  prometheus:
    listen: "127.0.0.1:$PPORT"
YAML
}
EVENTS_A="cpu-clock, task-clock, context-switches, page-faults"
EVENTS_B="cpu-clock, context-switches, page-faults"
write_config "$EVENTS_A" 1s
cp "$TMP/agent.yaml" "$TMP/agent.applied" # what the agent runs (a SIGHUP's valid file)

mkdir -p "$TEST_CG/churn"
for s in 0 1 2 3; do
	mkdir -p "$TEST_CG/steady/s$s"
	run_in_cg "steady/s$s" sh -c "while :; do \"$BURN\" 0.01; sleep 0.3; done"
done

AGENT_LIFE=1
start_agent agent1 "$TMP/agent.yaml"
say "agent 1 (pid $AGENT_PID) counting; ${SOAK_MINUTES} min; out: $OUT"

# ---- the drivers (stop at $TMP/stop, idle while $PAUSE exists) ----
# Tenant-style bytes in names (cgroupfs refuses a newline); the index k<N>-
# stays readable through any escaping.
SUFFIXES=(plain 'sp ace' 'q"uote' 'com,ma' '=cmd' 'ünï' $'ctl\x01x' $'tab\tx' "apo'st" 'back\\slash')
churn_worker() {
	local w=$1 n=0 d
	while [ ! -e "$TMP/stop" ]; do
		if [ -e "$PAUSE" ]; then sleep 0.2; continue; fi
		n=$((n + 1))
		local idx=$((w * 1000000 + n))
		d="$TEST_CG/churn/k$idx-${SUFFIXES[$((n % ${#SUFFIXES[@]}))]}"
		mkdir "$d" || { echo "mkdir $d refused" >>"$TMP/churn-errors"; continue; }
		local born=$(date +%s.%N)
		sh -c 'echo $$ >"$1/cgroup.procs" && exec "$2" 0.02' sh "$d" "$BURN" || true
		sleep 0.4
		for _ in $(seq 50); do rmdir "$d" 2>/dev/null && break; sleep 0.1; done
		echo "$idx $born $(date +%s.%N)" >>"$TMP/churned.$w"
	done
}
for w in 1 2 3 4 5; do churn_worker "$w" & STARTED_PIDS+=($!); done

scraper() {
	local n=0 accept code
	while [ ! -e "$TMP/stop" ]; do
		if [ -e "$PAUSE" ]; then sleep 0.2; continue; fi
		n=$((n + 1))
		if [ $((n % 2)) = 0 ]; then accept='application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5'
		else accept='text/plain;version=0.0.4'; fi
		code=$(curl -s -m 10 -o "$TMP/scrape" -w '%{http_code}' -H "Accept: $accept" "http://127.0.0.1:$PPORT/metrics" || true)
		echo "$code" >>"$TMP/scrapes"
		if [ $((n % 60)) = 0 ] && [ "$code" = 200 ] && command -v promtool >/dev/null &&
			! grep -q '^# EOF' "$TMP/scrape"; then
			promtool check metrics <"$TMP/scrape" >"$TMP/promtool.out" 2>&1 ||
				echo "promtool at scrape $n: $(head -3 "$TMP/promtool.out")" >>"$TMP/promtool.bad"
		fi
		sleep 1
	done
}
scraper & STARTED_PIDS+=($!)

# ---- sampling ----
echo -e "time\tagent\tkind\trss_kib\thwm_kib\tfds\tthreads" >"$TMP/samples.tsv"
sample() { # KIND
	local st rss hwm thr fds
	st=$(cat /proc/"$AGENT_PID"/status) || return 0
	rss=$(awk '/^VmRSS:/ { print $2 }' <<<"$st")
	hwm=$(awk '/^VmHWM:/ { print $2 }' <<<"$st")
	thr=$(awk '/^Threads:/ { print $2 }' <<<"$st")
	fds=$(ls /proc/"$AGENT_PID"/fd | wc -l)
	echo -e "$(date +%s)\t$AGENT_LIFE\t$1\t$rss\t$hwm\t$fds\t$thr" >>"$TMP/samples.tsv"
}
# quiesce: pause the drivers until no churned cgroup is left and the CSV
# flush interval (5 s) and two collections have passed (every final row
# written, every file of a removed cgroup closed), then sample.
NQ=0
quiesce_sample() {
	touch "$PAUSE"
	for _ in $(seq 100); do
		[ -z "$(find "$TEST_CG/churn" -mindepth 1 -maxdepth 1 -type d)" ] && break
		sleep 0.2
	done
	sleep 8
	NQ=$((NQ + 1))
	# The CSV directory is open (twice) while a retention pass runs, over
	# several collections: not counted. The event set decides the maps.
	ls -l /proc/"$AGENT_PID"/fd 2>/dev/null | awk 'NR > 1 { print $NF }' |
		grep -vx "$TMP/csv" | sort >"$TMP/fds.$AGENT_LIFE.$NQ" || true
	echo "$AGENT_LIFE $NQ $(grep -c task-clock "$TMP/agent.applied" 2>/dev/null || echo 0) $(wc -l <"$TMP/fds.$AGENT_LIFE.$NQ")" >>"$TMP/fdsets"
	# The syslog connection is one fd: sample with the receiver up.
	[ -z "$RS_DOWN" ] || say "note: quiescent sample with rsyslogd down"
	sample quiescent
	rm -f "$PAUSE"
}

# ---- the schedule ----
RS_DOWN=
rs_down_since=0
hup_n=0
next_hup=$(($(date +%s) + 90))
next_rs=$(($(date +%s) + 150))
next_q=$(($(date +%s) + 300))
restarted=0
rs_phase_mark=0
sample quiescent
while [ "$(date +%s)" -lt "$END" ]; do
	now=$(date +%s)
	sample running
	if [ "$now" -ge "$next_hup" ]; then
		hup_n=$((hup_n + 1))
		case $((hup_n % 3)) in
		1) if grep -q task-clock "$TMP/agent.yaml"; then write_config "$EVENTS_B" 1s; else write_config "$EVENTS_A" 1s; fi
		   echo "valid $(date +%s.%N)" >>"$TMP/hups" ;;
		2) cp "$TMP/agent.yaml" "$TMP/agent.good"; sed -i 's/^interval: .*/interval: banana/' "$TMP/agent.yaml"
		   echo "invalid $(date +%s.%N)" >>"$TMP/hups" ;;
		0) [ ! -e "$TMP/agent.good" ] || mv "$TMP/agent.good" "$TMP/agent.yaml"
		   echo "same $(date +%s.%N)" >>"$TMP/hups" ;;
		esac
		kill -HUP "$AGENT_PID"
		[ $((hup_n % 3)) != 1 ] || cp "$TMP/agent.yaml" "$TMP/agent.applied"
		next_hup=$((now + 90))
	fi
	if [ -z "$RS_DOWN" ] && [ "$now" -ge "$next_rs" ]; then
		rsyslogd_stop; RS_DOWN=1; rs_down_since=$now
		echo "down $(messages)" >>"$TMP/rs-phases"
	elif [ -n "$RS_DOWN" ] && [ "$now" -ge $((rs_down_since + 60)) ]; then
		rsyslogd_start "$TMP/rs/rsyslog.conf" 1 "$SPORT"; RS_DOWN=
		rs_phase_mark=$(messages); next_rs=$((now + 240))
		echo "up $rs_phase_mark" >>"$TMP/rs-phases"
	fi
	if [ -z "$RS_DOWN" ] && [ "$now" -ge "$next_q" ]; then
		quiesce_sample; next_q=$(($(date +%s) + 300))
	fi
	if [ "$restarted" = 0 ] && [ "$now" -ge "$HALF" ] && [ -z "$RS_DOWN" ]; then
		quiesce_sample
		touch "$PAUSE"
		# A valid file in place (a SIGHUP cycle may have left the invalid one).
		[ ! -e "$TMP/agent.good" ] || mv "$TMP/agent.good" "$TMP/agent.yaml"
		kill -KILL "$AGENT_PID"; wait "$AGENT_PID" 2>/dev/null || true
		say "agent 1 killed (-9)"
		AGENT_LIFE=2
		NQ=0
		start_agent agent2 "$TMP/agent.yaml"
		grep -q "adopted the pinned counting session" "$TMP/agent2.log" || bad "agent 2 did not adopt the session: $(head -5 "$TMP/agent2.log")"
		say "agent 2 (pid $AGENT_PID) counting"
		rm -f "$PAUSE"
		sleep 5
		sample quiescent
		restarted=1
		next_q=$(($(date +%s) + 300))
	fi
	sleep 10
done
[ -z "$RS_DOWN" ] || { rsyslogd_start "$TMP/rs/rsyslog.conf" 1 "$SPORT"; RS_DOWN=; echo "up $(messages)" >>"$TMP/rs-phases"; }
[ ! -e "$TMP/agent.good" ] || mv "$TMP/agent.good" "$TMP/agent.yaml"
quiesce_sample
touch "$TMP/stop"
sleep 2
kill -TERM "$AGENT_PID"
st=0; wait "$AGENT_PID" || st=$?
[ "$st" = 0 ] || bad "agent 2 exited $st: $(tail -5 "$TMP/agent2.log")"
"$CGPERF" release -c "$TMP/agent.yaml" >"$TMP/release.log" 2>&1 || bad "cgperf release failed: $(cat "$TMP/release.log")"
AGENT_PID=
sleep 1
rsyslogd_stop

# ---- the checks ----
reports=$(grep -rlE "ERROR: (Address|Leak)Sanitizer|runtime error:" "$OUT/san" "$TMP"/agent*.log "$TMP/release.log" 2>/dev/null || true)
[ -z "$reports" ] || bad "sanitizer reports: $reports"
python3 - "$TMP/samples.tsv" "$SOAK_SANITIZED" "$TMP/fdsets" <<'PY' | tee -a "$OUT/summary.txt" || FAILED=1
import sys
sanitized = sys.argv[2] == '1'
rows = [l.rstrip('\n').split('\t') for l in open(sys.argv[1])][1:]
fdsets = [l.split() for l in open(sys.argv[3])]
ok = True
for life in sorted({r[1] for r in rows}):
    q = [r for r in rows if r[1] == life and r[2] == 'quiescent']
    t0 = int(q[0][0])
    # Quiescent fd counts, by event set (each event has its maps).
    for ev in sorted({f[2] for f in fdsets if f[0] == life}):
        fds = [int(f[3]) for f in fdsets if f[0] == life and f[2] == ev]
        print(f'# agent {life}: quiescent fds with event set {"A" if ev == "1" else "B"}: {fds}')
        if len(set(fds)) > 1:
            ok = False
            print(f'FAIL: agent {life}: quiescent fds differ: {fds}')
    warm = [r for r in q if int(r[0]) - t0 >= 300]
    rss = [int(r[3]) // 1024 for r in q]
    print(f'# agent {life}: quiescent RSS MiB {rss}; HWM MiB {int(q[-1][4]) // 1024}')
    if len(warm) >= 2:
        a, b = int(warm[0][3]), int(warm[-1][3])
        if b > a * 1.10 + 4 * 1024:
            print(f'{"note (ASan: not judged)" if sanitized else "FAIL"}: agent {life}: '
                  f'RSS grew {a // 1024} -> {b // 1024} MiB after the warm-up')
            ok = ok and sanitized
    run = [int(r[6]) for r in rows if r[1] == life]
    print(f'# agent {life}: threads min {min(run)} max {max(run)}')
sys.exit(0 if ok else 1)
PY
# What differed between a life's consecutive quiescent fd lists.
for f in "$TMP"/fds.*.*; do
	[ -e "$f" ] || continue
	n=${f##*.}; life=${f%.*}; life=${life##*.}
	[ "$n" -ge 2 ] || continue
	d=$(diff "$TMP/fds.$life.$((n - 1))" "$f" | grep '^[<>]' | tr '\n' ' ' || true)
	[ -z "$d" ] || say "agent $life: fds between quiescent samples $((n - 1)) and $n: $d"
done
cp "$TMP"/fds.* "$OUT"/ 2>/dev/null || true
churned=$(cat "$TMP"/churned.* | wc -l)
python3 - "$TMP/csv" "$TMP/hups" "$TMP"/churned.* <<'PY' | tee -a "$OUT/summary.txt" || FAILED=1
import csv, glob, os, re, sys
want, life = set(), {}
for p in sys.argv[3:]:
    for l in open(p):
        idx, born, gone = l.split()
        want.add(int(idx))
        life[int(idx)] = (float(born), float(gone))
# A valid SIGHUP restarts counting (final rows, a new session): a cgroup
# born and gone within the restart is never seen (docs/AGENT.md). Within
# 10 s of one such SIGHUP: reported, not failed.
reloads = [float(l.split()[1]) for l in open(sys.argv[2]) if l.startswith('valid ')]
seen, files, rows = set(), 0, 0
for p in glob.glob(os.path.join(sys.argv[1], '*')):
    files += 1
    with open(p, newline='') as f:
        for r in csv.reader(f):
            rows += 1
            for cell in r:
                m = re.search(r'/churn/k(\d+)-', cell)
                if m:
                    seen.add(int(m.group(1)))
missing = sorted(want - seen)
in_reload = [i for i in missing if any(t <= life[i][0] and life[i][1] <= t + 10 for t in reloads)]
other = [i for i in missing if i not in in_reload]
print(f'# {len(want)} cgroups churned; CSV: {files} files, {rows} rows; churned with rows: '
      f'{len(want & seen)}; born and gone within a reload: {len(in_reload)} without a row')
if other:
    print(f'FAIL: {len(other)} churned cgroups without a row, e.g. {other[:10]}')
    sys.exit(1)
PY
codes=$(sort "$TMP/scrapes" | uniq -c | tr '\n' ' ')
say "scrapes by HTTP code: $codes"
if grep -qv '^200$' "$TMP/scrapes"; then bad "a scrape was not answered 200"; fi
[ ! -e "$TMP/promtool.bad" ] || bad "promtool: $(head -3 "$TMP/promtool.bad")"
say "rsyslogd phases (messages so far): $(tr '\n' ' ' <"$TMP/rs-phases") end $(messages)"
prev=
while read -r what n; do
	if [ "$what" = down ] && [ -n "$prev" ] && [ "$n" -le "$prev" ]; then
		bad "no message arrived after rsyslogd came back (at $prev messages)"
	fi
	if [ "$what" = up ]; then prev=$n; fi
done <"$TMP/rs-phases"
[ -z "$prev" ] || [ "$(messages)" -gt "$prev" ] || bad "no message arrived after rsyslogd's last return"
say "SIGHUPs: $(awk '{ print $1 }' "$TMP/hups" | sort | uniq -c | tr '\n' ' '); refused: $(cat "$TMP"/agent*.log | grep -c 'keeping the running configuration' || true)"
say "syslog drops reported: $(cat "$TMP"/agent*.log | grep -i 'drop' | tail -2 | tr '\n' '|')"
say "$churned cgroups churned in ${SOAK_MINUTES} min ($((churned / SOAK_MINUTES)) a minute)"
cp "$TMP"/*.log "$TMP"/*.tsv "$OUT"/ 2>/dev/null || true
if [ "$FAILED" = 0 ]; then say "soak: PASS"; else say "soak: FAIL"; exit 1; fi
