# SPDX-License-Identifier: GPL-2.0-only
# The agent across CPU hotplug, without reading the online CPU list every
# second: a BPF program on the cpuhp_exit raw tracepoint wakes it
# (bpf/cpuhp_notify.bpf.c), so an idle agent at a 10 s interval sleeps
# between intervals, yet a CPU that comes back is counted within a second:
# its perf_events are reopened, and page faults taken on it (read from the
# reopened perf_event) are in the cgroup's rows. Where the notification
# cannot load, the agent says so and checks every second instead: the
# hotplug part still runs, the idle part is skipped with that reason.
source "$CGPERF_SRC/tests/lib/common.sh"
ONLINE=/sys/devices/system/cpu/cpu1/online
[ -w "$ONLINE" ] || skip "CPU 1 cannot be taken offline on this machine ($ONLINE missing)"
[ "$(cat "$ONLINE")" = 1 ] || skip "CPU 1 is offline already"
test_cleanup() { echo 1 >"$ONLINE"; }
c=$(mkcg hp)
cat >"$TMP/agent.yaml" <<YAML
interval: 10s
events: [cpu-clock, page-faults]
cgroups:
  include: ["$c"]
outputs:
  csv:
    directory: $TMP/csv
YAML
start_agent agent "$TMP/agent.yaml"
wait_counted "$TMP/agent.log" "$c"

# 1. Idle: between intervals nothing wakes the agent (the main thread's
#    voluntary switches over 4 s, right after its first collection wrote a
#    row: the next is 10 s later; a collection's file I/O can sleep, on a
#    guest's root over 9p at every open).
first_row() { compgen -G "$TMP/csv/*.csv" >/dev/null; }
poll 300 0.1 first_row || fail "no row after the first interval"
assert_idle_wakeups agent "$AGENT_PID" "$TMP/agent.log" 4 2

# 2. Hotplug: offline, then online; the agent reopens the perf_events of
#    the CPU that came back well before its next interval.
echo 0 >"$ONLINE"
sleep 1
echo 1 >"$ONLINE"
wait_for_line "$TMP/agent.log" "event 'page-faults': 1 CPU(s) came online; their perf_events were reopened" 3

# 3. Page faults on the returned CPU are counted for the cgroup.
run_in_cg hp taskset -c 1 "$KNOWN" faults 20000; k=$LAST_PID
wait_stopped "$k"
faults=$(proc_minflt "$k")
kill -CONT "$k"; wait "$k" || fail "known faults failed"
kill -TERM "$AGENT_PID"; wait "$AGENT_PID" || fail "agent failed: $(tail -5 "$TMP/agent.log")"
# At 10 s no row is held (csv.flush_interval 5s): the configured interval
# decides, not the first one, shorter (the collection at start is off the
# timer's grid).
grep -q "summary: .*CSV: [0-9]* rows written, 0 failed, 0 held first" "$TMP/agent.log" ||
	fail "rows held at a 10 s interval: $(grep summary "$TMP/agent.log")"
got=$(csv_sum "$TMP/csv" "$c" page-faults)
assert_count "page-faults on the returned CPU vs the task's minflt" "${got%.*}" "$faults" 1 50
log "ok: notified of hotplug, counted on the returned CPU"
