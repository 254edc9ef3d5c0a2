# SPDX-License-Identifier: GPL-2.0-only
# systemd's notification protocol against a real listener on NOTIFY_SOCKET
# (an AF_UNIX datagram socket, as systemd makes for Type=notify): READY=1
# only once the first collection's rows are written, STATUS= with the
# cgroups counted, WATCHDOG=1 from the loop at half of WATCHDOG_USEC, and
# none while the loop is stopped (SIGSTOP: what systemd's watchdog would
# restart), RELOADING=1 then READY=1 at SIGHUP, STOPPING=1 at SIGTERM. The
# same through an abstract socket name ("@..."). Then the unit: Type=notify
# and WatchdogSec= as systemd-analyze reads them.
source "$CGPERF_SRC/tests/lib/common.sh"

agent_yaml "$TMP/agent.yaml" <<YAML
  csv:
    directory: $TMP/csv
    flush_interval: 0
YAML
sed -i 's/^interval: 1s/interval: 2s/' "$TMP/agent.yaml"
mkcg app >/dev/null
run_in_cg app sleep 600

# listen ADDR LOG: record each datagram as "<rows written then> <text>" (one
# line, newlines as '|'); ADDR is a path or @abstract.
listen() {
	python3 - "$1" "$2" "$TMP/csv" <<'PY' &
import glob, socket, sys
addr, log, csv = sys.argv[1:4]
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind('\0' + addr[1:] if addr.startswith('@') else addr)
out = open(log, 'w', buffering=1)
while True:
    msg = s.recv(4096).decode()
    rows = sum(max(0, sum(1 for _ in open(p)) - 1) for p in glob.glob(csv + '/*.csv'))
    out.write('%d %s\n' % (rows, msg.replace('\n', '|')))
PY
	LAST_PID=$!
	STARTED_PIDS+=("$LAST_PID")
}
has_line() { grep -q "$2" "$1" 2>/dev/null; }
count() { grep -c "$2" "$1" 2>/dev/null || true; }

for addr in "$TMP/notify.sock" "@cgperf-test-notify-$$"; do
	log_file="$TMP/notify.$(basename "$addr").log"
	rm -rf "$TMP/csv"
	listen "$addr" "$log_file"; listener=$LAST_PID
	for _ in $(seq 100); do
		{ [ "${addr:0:1}" = @ ] || [ -S "$addr" ]; } && break
		sleep 0.05
	done
	[ "${addr:0:1}" = @ ] && sleep 0.3 # nothing to look at for an abstract name
	NOTIFY_SOCKET=$addr WATCHDOG_USEC=400000 start_bg "$CGPERF" agent -v -c "$TMP/agent.yaml" --no-persist 2>"$TMP/agent.log"
	agent=$LAST_PID
	poll 600 0.05 has_line "$log_file" 'READY=1' || fail "no READY=1 ($addr): $(cat "$log_file")"
	ready=$(grep -m1 'READY=1' "$log_file")
	[ "${ready%% *}" -gt 0 ] || fail "READY=1 before the first collection's rows: $ready"
	grep -q "STATUS=counting [1-9][0-9]* cgroups" <<<"$ready" || fail "no STATUS with READY: $ready"
	# Watchdog pings every 0.2 s: more than a handful in 2 s, none stopped.
	w0=$(count "$log_file" WATCHDOG=1)
	sleep 2
	w1=$(count "$log_file" WATCHDOG=1)
	[ $((w1 - w0)) -ge 3 ] || fail "$((w1 - w0)) watchdog pings in 2 s at WATCHDOG_USEC=400000"
	kill -STOP "$agent"
	sleep 0.2
	w2=$(count "$log_file" WATCHDOG=1)
	sleep 1.5
	[ "$(count "$log_file" WATCHDOG=1)" = "$w2" ] || fail "watchdog pings while the agent was stopped"
	kill -CONT "$agent"
	poll 200 0.05 eval '[ "$(count "$log_file" WATCHDOG=1)" -gt "$w2" ]' || fail "no ping after SIGCONT"
	kill -HUP "$agent"
	poll 600 0.05 has_line "$log_file" 'RELOADING=1' || fail "no RELOADING=1 at SIGHUP"
	poll 600 0.05 eval '[ "$(count "$log_file" "^[0-9]* READY=1$")" -ge 1 ]' || fail "no READY=1 after the reload: $(cat "$log_file")"
	kill -TERM "$agent"
	wait "$agent" || fail "agent failed: $(tail -3 "$TMP/agent.log")"
	poll 100 0.05 has_line "$log_file" 'STOPPING=1' || fail "no STOPPING=1 at SIGTERM"
	[ "$(grep -c 'READY=1' "$log_file")" = 2 ] || fail "READY=1 not exactly at start and after the reload: $(cat "$log_file")"
	kill "$listener"; wait "$listener" 2>/dev/null || true
	log "ok ($addr): READY=1 after rows ($ready), $((w1 - w0)) pings in 2 s, none while stopped, RELOADING/READY, STOPPING"
done

# The unit as systemd reads it.
command -v systemd-analyze >/dev/null || fail "systemd-analyze is missing (scripts/install-deps installs systemd)"
for key in Type=notify NotifyAccess=main WatchdogSec=60s; do
	grep -qx "$key" "$CGPERF_SRC/packaging/cgperf.service" || fail "the unit lacks $key"
done
log "ok: the unit is Type=notify with a watchdog (test_unit_caps: systemd-analyze verify and exposure)"
