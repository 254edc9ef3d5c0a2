# SPDX-License-Identifier: GPL-2.0-only
# Two concurrent sessions on the same event share one leader: one perf_event
# array holding one perf_event per CPU. SIGKILL of one leaves the other
# counting correctly; when both are gone the kernel frees the leader (its
# perf_events closed) and the next session makes a new one. Nothing but the
# attr map and the hub map stay pinned. Where the msr PMU has its tsc event,
# both count msr/tsc/ too (a PMU event's leader, shared): b's count of the
# burn after a's SIGKILL is its cpu-clock x the TSC rate.
source "$CGPERF_SRC/tests/lib/common.sh"
command -v bpftool >/dev/null || fail "bpftool is needed (apt-get install bpftool)"
cg=$(mkcg c)
mkcg k >/dev/null # not counted by a or b
# Other cgperf processes may run on this host (the leaders are shared with
# them by design): programs are told apart by who holds them (held_progs).

tsc_ev=
! have_tsc || tsc_ev=",$TSC"
start_cgperf a -e "cpu-clock,page-faults$tsc_ev" -G "$cg"; pid_a=$CGPERF_PID
start_cgperf b -e "cpu-clock$tsc_ev" -G "$cg"; pid_b=$CGPERF_PID
# Every program this test's sessions held: all gone at the end.
ours_all="$(held_progs "$pid_a" "$pid_b")"
id_a=$(leader_id "$TMP/a.log" cpu-clock)
id_b=$(leader_id "$TMP/b.log" cpu-clock)
[ -n "$id_a" ] || fail "session a did not report its cpu-clock leader: $(cat "$TMP/a.log")"
[ "$id_a" = "$id_b" ] || fail "sessions use different leaders for cpu-clock: $id_a vs $id_b"
grep -q "sharing the leader" "$TMP/b.log" || fail "session b did not share: $(cat "$TMP/b.log")"
log "both sessions use perf_event array $id_a"

# One array, one perf_event per online CPU in it, referenced by both programs.
ncpu=$(nproc)
nkeys=$(bpftool map dump id "$id_a" | grep -c '^key:' || true)
[ "$nkeys" = "$ncpu" ] || fail "leader $id_a holds $nkeys perf_events, expected $ncpu"
ours=$(held_progs "$pid_a" "$pid_b" | paste -sd,)
users=$(bpftool prog show -j | python3 -c "
import json, sys
ours = {int(i) for i in '$ours'.split(',') if i}
print(sum(1 for p in json.load(sys.stdin) if p['id'] in ours and $id_a in p.get('map_ids', [])
          and p.get('name') == 'on_switch'))")
# (A tp follower is two programs, on_switch and on_sync; counted: the one on switches.)
[ "$users" = 2 ] || fail "expected 2 follower programs of a and b on leader $id_a, found $users"
pf_id=$(leader_id "$TMP/a.log" page-faults)
want_arrays="$id_a $pf_id"
if [ -n "$tsc_ev" ]; then
	tsc_id=$(leader_id "$TMP/a.log" "$TSC")
	[ -n "$tsc_id" ] && [ "$tsc_id" = "$(leader_id "$TMP/b.log" "$TSC")" ] ||
		fail "sessions do not share one $TSC leader: $(grep "$TSC" "$TMP/a.log" "$TMP/b.log")"
	want_arrays+=" $tsc_id"
fi
want_arrays=$(tr ' ' '\n' <<<"$want_arrays" | sort -n | paste -sd,)
# The perf_event arrays a's and b's programs read: the two leaders, no more.
arrays=$(bpftool prog show -j | python3 -c "
import json, sys, subprocess
ours = {int(i) for i in '$ours'.split(',') if i}
maps = {m for p in json.load(sys.stdin) if p['id'] in ours for m in p.get('map_ids', [])}
kinds = json.loads(subprocess.run(['bpftool', 'map', 'show', '-j'], capture_output=True).stdout)
print(sorted(m['id'] for m in kinds if m['id'] in maps and m.get('type') == 'perf_event_array'))")
log "perf_event arrays a and b read: $arrays (cpu-clock $id_a, page-faults $pf_id${tsc_id:+, $TSC $tsc_id})"
[ "$arrays" = "[${want_arrays//,/, }]" ] || fail "expected exactly the leaders' arrays [$want_arrays], found $arrays"

# Every slot of the shared page-faults array holds a live perf_event
# (bpftool cannot read a perf_event array's values, so count through it): a
# session sharing it counts the faults of a task pinned to each CPU, which
# only that CPU's perf_event sees.
for cpu in $(seq 0 $((ncpu - 1))); do
	start_cgperf pf$cpu -e page-faults -C "$cpu"; pf_pid=$CGPERF_PID
	ours_all+=" $(held_progs "$pf_pid")"
	[ "$(leader_id "$TMP/pf$cpu.log" page-faults)" = "$pf_id" ] ||
		fail "a -C $cpu session did not share leader $pf_id: $(cat "$TMP/pf$cpu.log")"
	run_in_cg k taskset -c "$cpu" "$KNOWN" faults 20000; k=$LAST_PID
	wait_stopped "$k"
	oracle=$(proc_minflt $(cg_pids k))
	kill -CONT "$k"; wait "$k" || fail "known faults failed"
	kill -INT "$pf_pid"; wait "$pf_pid" || fail "the -C $cpu session failed"
	got=$(stat_csv_value "$TMP/pf$cpu.csv" page-faults)
	awk -v c="$got" -v k="$oracle" 'BEGIN { exit !(c >= k * 0.99 - 50) }' ||
		fail "slot $cpu of leader $pf_id: counted $got faults on CPU $cpu, the task there made $oracle"
	log "ok: slot $cpu of leader $pf_id counts (CPU $cpu: $got faults, the task's $oracle)"
done

# Kill a without warning; b keeps counting the burn correctly.
kill -KILL "$pid_a"; wait "$pid_a" 2>/dev/null || true
before=$(usage_usec c)
burn_pinned c 1 c
after=$(usage_usec c)
kill -INT "$pid_b"; wait "$pid_b" || fail "session b failed after a was killed"
b_ms=$(stat_csv_value "$TMP/b.csv" cpu-clock "$cg")
# b started before the burn; the cgroup ran nothing else.
assert_cpu_clock "after SIGKILL of a, b's count of the burn" "$b_ms" "$(( (after - before) / 1000 ))" 3 c
[ -z "$tsc_ev" ] || assert_tsc "after SIGKILL of a, b's count of the burn" \
	"$(stat_csv_value "$TMP/b.csv" "$TSC" "$cg")" "$b_ms"

# Both gone: the leaders are freed (and with them the perf_events).
wait_map_gone "$id_a"
wait_map_gone "$pf_id"
[ -z "$tsc_ev" ] || wait_map_gone "$tsc_id"
start_cgperf c -e cpu-clock -G "$cg"; pid_c=$CGPERF_PID
ours_all+=" $(held_progs "$pid_c")"
grep -q "created the leader" "$TMP/c.log" || fail "a later session did not reload the leader: $(cat "$TMP/c.log")"
id_c=$(leader_id "$TMP/c.log" cpu-clock)
[ "$id_c" != "$id_a" ] || fail "reused a dead leader id"
kill -INT "$pid_c"; wait "$pid_c" || true
wait_map_gone "$id_c"

# Nothing leaks: every program this test's sessions held is gone once they
# exited (a grace period after the last holder; the host's other programs,
# another cgperf's too, are not this test's), only the attr map and the hub
# map pinned.
poll 100 0.1 progs_gone $ours_all || fail "programs of this test's sessions still loaded after every session exited: $(for id in $ours_all; do bpftool prog show id "$id" 2>/dev/null | head -1; done)"
pinned=$(ls "$CGPERF_BPFFS_DIR" | paste -sd' ')
[ "$pinned" = "attr_map hub_map" ] || fail "unexpected pinned objects: $pinned"
log "ok: no programs left, pinned: $pinned"

# An unrelated process holding a flock on an anonymous-inode fd (eventfd: the
# same inode as every BPF map fd) must not block cgperf's leader lookup.
start_bg python3 -c 'import fcntl, os, time; fd = os.eventfd(0); fcntl.flock(fd, fcntl.LOCK_EX); time.sleep(30)'
sleep 0.5
timeout 8 "$CGPERF" stat -e cpu-clock -a --duration 0.2 >/dev/null 2>"$TMP/flock.err" ||
	fail "cgperf blocked by an unrelated flock on an anonymous inode: $(cat "$TMP/flock.err")"
log "ok: an unrelated anon-inode flock does not block cgperf"
