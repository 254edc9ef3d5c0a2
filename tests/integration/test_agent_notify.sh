# SPDX-License-Identifier: GPL-2.0-only
# systemd's notification protocol against a real listener on NOTIFY_SOCKET
# (an AF_UNIX datagram socket, as systemd makes for Type=notify): READY=1
# once counting runs (after the agent's "counting N cgroups" line), STATUS=
# with the cgroups counted and collections, WATCHDOG=1 from the loop (at
# half of WATCHDOG_USEC) that keep coming, and none while the agent is
# stopped (SIGSTOP), RELOADING=1 (with MONOTONIC_USEC) then READY=1 at
# SIGHUP, STOPPING=1 at SIGTERM. The same through an abstract socket name
# ("@..."). Then a loop stalled while the process runs: the node_exporter
# textfile's directory becomes a FUSE mount that never answers (a dead
# network mount; tests/helpers/stuck_fs, in the agent's own mount
# namespace): no ping while the loop waits there, pings again once the
# mount dies. Then the unit: Type=notify and WatchdogSec=.
source "$CGPERF_SRC/tests/lib/common.sh"

agent_yaml "$TMP/agent.yaml" <<YAML
  csv:
    directory: $TMP/csv
    flush_interval: 0
YAML
sed -i 's/^interval: 1s/interval: 2s/' "$TMP/agent.yaml"
mkcg app >/dev/null
run_in_cg app sleep 600

# listen ADDR LOG: record each datagram as "<1 if the agent had said it
# counts, else 0> <text>" (one line, newlines as '|'); ADDR is a path or
# @abstract.
listen() {
	python3 - "$1" "$2" "$TMP/agent.log" <<'PY' &
import socket, sys
addr, log, agent_log = sys.argv[1:4]
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind('\0' + addr[1:] if addr.startswith('@') else addr)
out = open(log, 'w', buffering=1)
while True:
    msg = s.recv(4096).decode()
    try:
        counting = ' cgroups under ' in open(agent_log).read()
    except OSError:
        counting = False
    out.write('%d %s\n' % (counting, msg.replace('\n', '|')))
PY
	LAST_PID=$!
	STARTED_PIDS+=("$LAST_PID")
}
has_line() { grep -q "$2" "$1" 2>/dev/null; }
count() { grep -c "$2" "$1" 2>/dev/null || true; }
bound() { grep -q "$1" /proc/net/unix; } # a socket bound to path or @name
more_than() { [ "$(count "$1" WATCHDOG=1)" -gt "$2" ]; }
# settled LOG: two looks 0.3 s apart see the same pings (what was in flight
# when the agent stopped has been logged).
settled() {
	local a b
	a=$(count "$1" WATCHDOG=1); sleep 0.3; b=$(count "$1" WATCHDOG=1)
	[ "$a" = "$b" ]
}

for addr in "$TMP/notify.sock" "@cgperf-test-notify-$$"; do
	log_file="$TMP/notify.$(basename "$addr").log"
	: >"$TMP/agent.log"
	listen "$addr" "$log_file"; listener=$LAST_PID
	poll 200 0.05 bound "$addr" || fail "the listener did not bind $addr"
	NOTIFY_SOCKET=$addr WATCHDOG_USEC=400000 start_bg "$CGPERF" agent -v -c "$TMP/agent.yaml" --no-persist 2>"$TMP/agent.log"
	agent=$LAST_PID
	poll 600 0.05 has_line "$log_file" 'READY=1' || fail "no READY=1 ($addr): $(cat "$log_file")"
	ready=$(grep -m1 'READY=1' "$log_file")
	[ "${ready%% *}" = 1 ] || fail "READY=1 before the agent counted: $ready"
	grep -q "STATUS=counting [1-9][0-9]* cgroups" <<<"$ready" || fail "no STATUS with READY: $ready"
	# Pings keep coming (three more, however long the machine takes).
	w0=$(count "$log_file" WATCHDOG=1)
	poll 600 0.05 more_than "$log_file" $((w0 + 2)) || fail "watchdog pings stopped ($addr)"
	# None while the agent is stopped.
	kill -STOP "$agent"
	poll 100 0 settled "$log_file" || fail "pings kept coming from a stopped agent"
	w2=$(count "$log_file" WATCHDOG=1)
	sleep 1
	[ "$(count "$log_file" WATCHDOG=1)" = "$w2" ] || fail "watchdog pings while the agent was stopped"
	kill -CONT "$agent"
	poll 600 0.05 more_than "$log_file" "$w2" || fail "no ping after SIGCONT"
	poll 600 0.05 has_line "$log_file" 'STATUS=counting .*; [1-9][0-9]* collections' || fail "no STATUS after a collection"
	kill -HUP "$agent"
	poll 600 0.05 has_line "$log_file" 'RELOADING=1|MONOTONIC_USEC=[0-9]' || fail "no RELOADING=1 with MONOTONIC_USEC at SIGHUP: $(cat "$log_file")"
	poll 600 0.05 eval '[ "$(count "$log_file" "READY=1")" -ge 2 ]' || fail "no READY=1 after the reload: $(cat "$log_file")"
	kill -TERM "$agent"
	wait "$agent" || fail "agent failed: $(tail -3 "$TMP/agent.log")"
	poll 100 0.05 has_line "$log_file" 'STOPPING=1' || fail "no STOPPING=1 at SIGTERM"
	[ "$(count "$log_file" 'READY=1')" = 2 ] || fail "READY=1 not exactly at start and after the reload: $(cat "$log_file")"
	grep -q 'cannot notify' "$TMP/agent.log" && fail "the agent could not notify: $(grep 'cannot notify' "$TMP/agent.log")"
	kill "$listener"; wait "$listener" 2>/dev/null || true
	log "ok ($addr): READY=1 once counting ($ready), pings, none while stopped, RELOADING/READY, STOPPING"
done

# A stalled loop. Skipped with its reason where FUSE cannot be had.
if [ ! -x "$CGPERF_BUILD/tests/stuck_fs" ] || [ ! -w /dev/fuse ]; then
	log "SKIP (stalled loop): no tests/stuck_fs (libfuse3-dev) or no /dev/fuse"
else
	mkdir "$TMP/tf"
	sed -i 's#^outputs:#outputs:\n  textfile:\n    path: '"$TMP"'/tf/cgperf.prom#' "$TMP/agent.yaml"
	log_file="$TMP/notify.stall.log"
	: >"$TMP/agent.log"
	listen "$TMP/stall.sock" "$log_file"; listener=$LAST_PID
	poll 200 0.05 bound "$TMP/stall.sock" || fail "the listener did not bind"
	# unshare execs the agent: the pid is the agent's, the mount its own.
	NOTIFY_SOCKET=$TMP/stall.sock WATCHDOG_USEC=400000 start_bg unshare -m --propagation private \
		"$CGPERF" agent -v -c "$TMP/agent.yaml" --no-persist 2>"$TMP/agent.log"
	agent=$LAST_PID
	poll 600 0.05 has_line "$log_file" 'READY=1' || fail "no READY=1 (stall): $(cat "$TMP/agent.log")"
	poll 600 0.05 test -s "$TMP/tf/cgperf.prom" || fail "no textfile written"
	w0=$(count "$log_file" WATCHDOG=1)
	poll 600 0.05 more_than "$log_file" $((w0 + 2)) || fail "watchdog pings stopped before the stall"
	STUCK_FS_HOLD_LOOKUPS=1 start_bg nsenter -t "$agent" -m "$CGPERF_BUILD/tests/stuck_fs" "$TMP/tf" held x \
		2>"$TMP/stuck_fs.log"
	fs=$LAST_PID
	# The next collection's textfile write waits in a lookup there.
	poll 600 0.05 has_line "$TMP/stuck_fs.log" 'a lookup, held' || fail "the agent never reached the stuck mount: $(cat "$TMP/stuck_fs.log")"
	poll 100 0 settled "$log_file" || fail "pings kept coming from a stalled loop"
	w1=$(count "$log_file" WATCHDOG=1)
	sleep 1.2 # six ping periods
	[ "$(count "$log_file" WATCHDOG=1)" = "$w1" ] || fail "watchdog pings while the loop was stalled"
	! stopped "$agent" || fail "the agent is stopped, not stalled"
	# The mount dies: the write fails (ENOTCONN), the loop goes on.
	kill -KILL "$fs"; wait "$fs" 2>/dev/null || true
	poll 600 0.05 more_than "$log_file" "$w1" || fail "no ping after the stall ended"
	poll 600 0.05 has_line "$TMP/agent.log" 'cannot write the metrics textfile' || fail "the failed write was not said"
	kill -TERM "$agent"
	wait "$agent" || fail "agent failed after the stall: $(tail -3 "$TMP/agent.log")"
	kill "$listener"; wait "$listener" 2>/dev/null || true
	log "ok: no ping while the loop waited on a dead mount ($w1 before, none for 1.2 s), pings after"
fi

# The unit as systemd reads it.
command -v systemd-analyze >/dev/null || fail "systemd-analyze is missing (scripts/install-deps installs systemd)"
for key in Type=notify NotifyAccess=main WatchdogSec=60s; do
	grep -qx "$key" "$CGPERF_SRC/packaging/cgperf.service" || fail "the unit lacks $key"
done
log "ok: the unit is Type=notify with a watchdog (test_unit_caps: systemd-analyze verify and exposure)"
