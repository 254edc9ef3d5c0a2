# SPDX-License-Identifier: GPL-2.0-only
# `-- CMD` and -p count the process and every child it forks; CPU (-C) and
# GLOBAL (-a) filters checked on known workloads; a target plus a command.
# Where the msr PMU has its tsc event, `-- CMD` and -p count msr/tsc/ too
# (the PMU branch with the TGID/PID filters): cpu-clock x the TSC rate.
source "$CGPERF_SRC/tests/lib/common.sh"
mkcg w >/dev/null
tsc_ev=
! have_tsc || tsc_ev=",$TSC"

# settled PID N: PID has N tasks or more, all asleep (S).
settled() {
	[ "$(ls "/proc/$1/task" | wc -l)" -ge "$2" ] &&
		! awk '{ sub(/.*\) /, ""); print $1 }' /proc/"$1"/task/*/stat | grep -qv '^S$'
}

# -- CMD: 3 children x 0.4 s of CPU (task clock), the parent burns nothing;
# the oracle is the CPU time the kernel gave the forker and its children.
steal_begin cmd
FORKER_CPU_OUT=$TMP/cmd.cpu "$CGPERF" stat -v -x, -o "$TMP/cmd.csv" -e "cpu-clock,task-clock$tsc_ev" \
	-- "$FORKER" 3 0.4 2>"$TMP/cmd.log" || fail "cgperf stat -- forker failed: $(cat "$TMP/cmd.log")"
steal_end cmd
cmd_ms=$(stat_csv_value "$TMP/cmd.csv" cpu-clock)
allow_unseen cmd "$TMP/cmd.log" "$(cat "$TMP/cmd.cpu")"
assert_cpu_clock "-- CMD counts forked children" "$cmd_ms" "$(cat "$TMP/cmd.cpu")" 3 cmd
[ -z "$tsc_ev" ] || assert_tsc "-- CMD" "$(stat_csv_value "$TMP/cmd.csv" "$TSC")" "$cmd_ms"

# -p: attach to a process before it forks: a shell waiting at a FIFO that,
# once cgperf counts (however long its attach took), execs the forker (same
# pid).
mkfifo "$TMP/p.go"
steal_begin p
run_in_cg w sh -c 'read -r _ <"$1"; shift; exec "$@"' sh "$TMP/p.go" "$FORKER" 2 0.5; fpid=$LAST_PID
wait_at_fifo "$fpid"
before=$(usage_usec w)
start_cgperf pid -e "cpu-clock$tsc_ev" -p "$fpid"
echo go >"$TMP/p.go"
wait "$fpid"
after=$(usage_usec w)
steal_end p
kill -INT "$CGPERF_PID"; wait "$CGPERF_PID" || fail "cgperf stat -p failed"
pid_ms=$(stat_csv_value "$TMP/pid.csv" cpu-clock)
allow_unseen p "$TMP/pid.log" "$(awk -v a="$before" -v b="$after" 'BEGIN { print (b - a) / 1000 }')"
assert_cpu_clock "-p counts children forked after attach" "$pid_ms" \
	"$(awk -v a="$before" -v b="$after" 'BEGIN { print (b - a) / 1000 }')" 3 p
[ -z "$tsc_ev" ] || assert_tsc "-p" "$(stat_csv_value "$TMP/pid.csv" "$TSC")" "$pid_ms"

# burn_p NAME WHAT CPUS target|child BURN-ARGS...: a burner on CPUS in w (a target: SECONDS THREADS),
# counted with -p from start to end: the target itself, or the child of a
# shell that is the target (forked once counting runs: the followers keep
# children's thread counts, targets are forgotten when freed). The count is
# w's cpu.stat over that time.
burn_p() {
	local name=$1 what=$2 cpus=$3 how=$4 tpid before after
	shift 4
	# Both wait in open(2) of a FIFO (the burner's threads made): they run
	# nothing until cgperf counts, however long its attach took.
	mkfifo "$TMP/$name.go"
	if [ "$how" = target ]; then
		run_in_cg w taskset -c "$cpus" "$BURN" "$1" "$2" "$TMP/$name.go"
	else
		run_in_cg w taskset -c "$cpus" sh -c 'read -r _ <"$1"; shift; "$@"; true' \
			sh "$TMP/$name.go" "$BURN" "$@"
	fi
	tpid=$LAST_PID
	# w's cpu.stat from when the target sleeps (its threads made, or the
	# shell at its FIFO), as cgperf counts from its attach: the exec and
	# start-up before that ran unseen (60 ms of an emulated guest's time).
	poll 3000 0.01 settled "$tpid" "$([ "$how" = target ] && echo "$2" || echo 1)" ||
		fail "$name: the target did not settle asleep"
	steal_begin "$name"
	before=$(usage_usec w)
	start_cgperf "$name" -e cpu-clock -p "$tpid"
	echo go >"$TMP/$name.go"
	wait "$tpid"
	after=$(usage_usec w)
	# Steal on that CPU, or on all for a range.
	steal_end "$name" "$([[ $cpus =~ ^[0-9]+$ ]] && echo "$cpus")"
	kill -INT "$CGPERF_PID"; wait "$CGPERF_PID" || fail "cgperf stat -p ($name) failed"
	allow_unseen "$name" "$TMP/$name.log" "$(awk -v a="$before" -v b="$after" 'BEGIN { print (b - a) / 1000 }')"
	assert_cpu_clock "$what" "$(stat_csv_value "$TMP/$name.csv" cpu-clock)" \
		"$(awk -v a="$before" -v b="$after" 'BEGIN { print (b - a) / 1000 }')" 3 "$name"
}
# -p on a multi-threaded process counts every thread (TGID filter): three
# threads wait for the FIFO, then burn 0.3 s each.
burn_p threads "-p counts every thread of a process" "$BURN_CPU" target 0.3 3
# A child whose main thread ends first (pthread_exit 0.2 s in, while two
# threads burn 0.3 s each): counted until its last thread is gone, not only
# until its leader is.
burn_p leader "-p counts a child's threads left after its main thread ended" "$BURN_CPU" child \
	0.3 3 0.1 leader-exits
# A child ended (exit) while two threads, created 0.1 s in, burn on two
# CPUs: each is charged at its last switch out, which may come after the
# main thread's, or after it was released; the child is forgotten after the
# last one (on_new_thread counted the threads created).
burn_p group "-p counts every thread of a child that exits at once" "0-$(($(nproc) - 1))" child \
	0.4 3 0.1 exit-group

# -C: a ping-pong pinned to CPU 0 switches only there, so -C 0 counts all
# of its context switches (read from CPU 0's perf_event) and -C of another
# CPU, over the same window, only that CPU's own background. The time of -C
# and -a is one CPU and every CPU, per interval.
ncpu=$(nproc)
other=$BURN_CPU
[ "$other" != 0 ] || fail "this test needs two CPUs"
start_cgperf c0 -e context-switches,cpu-clock -C 0 -I 300; c0_pid=$CGPERF_PID
# perf counts the other CPU's switches over a window holding cgperf's.
start_perf_stat -x, -o "$TMP/perf_cx.csv" -e context-switches -C "$other"
start_cgperf cx -e context-switches,cpu-clock -C "$other" -I 300; cx_pid=$CGPERF_PID
start_cgperf all -e cpu-clock -a -I 300; all_pid=$CGPERF_PID
run_in_cg w taskset -c 0 "$KNOWN" switches 20000; k=$LAST_PID
wait_stopped "$k"
oracle=$(task_switches $(cg_pids w))
kill -CONT "$k"; wait "$k" || fail "known switches failed"
for f in c0 cx all; do wait_interval_rows "$TMP/$f.csv" cpu-clock 3; done
kill -INT "$c0_pid" "$cx_pid" "$all_pid"
wait "$c0_pid" && wait "$cx_pid" && wait "$all_pid" || fail "a -C/-a session failed"
pkill -INT -P "$PERF_PID" sleep
wait "$PERF_PID" || fail "perf stat -C $other failed: $(cat "$TMP/perf_cx.csv")"
perf_cx=$(awk -F, '$3 == "context-switches" { print $1 }' "$TMP/perf_cx.csv")
c0_cs=$(stat_csv_value "$TMP/c0.csv" context-switches)
cx_cs=$(stat_csv_value "$TMP/cx.csv" context-switches)
log "context-switches: -C 0 $c0_cs, -C $other $cx_cs (perf over a longer window: $perf_cx), the ping-pong on CPU 0 $oracle"
awk -v c="$c0_cs" -v k="$oracle" 'BEGIN { exit !(c >= k * 0.99 - 50) }' ||
	fail "-C 0 counted $c0_cs context switches, the ping-pong on CPU 0 alone made $oracle"
# CPU $other's own switches at most (however busy the machine): CPU 0's
# ping-pong counted there would put it over what perf saw on that CPU.
awk -v c="$cx_cs" -v p="$perf_cx" 'BEGIN { exit !(p != "" && c <= p) }' ||
	fail "-C $other counted $cx_cs context switches, perf saw $perf_cx there over a longer window: CPU 0's ping-pong ($oracle) was counted there"
assert_cpus_per_interval "$TMP/c0.csv" cpu-clock 1
assert_cpus_per_interval "$TMP/cx.csv" cpu-clock 1
assert_cpus_per_interval "$TMP/all.csv" cpu-clock "$ncpu"

# -a and -G at once on the same burn (two filter types on one leader): the
# cgroup's count is its cpu.stat; the global one every CPU's time.
start_cgperf g -e cpu-clock -G "$TEST_CG_REL/w"; g_pid=$CGPERF_PID
start_cgperf a -e cpu-clock -a -I 300; a_pid=$CGPERF_PID
before=$(usage_usec w)
burn_pinned w 0.5 g
after=$(usage_usec w)
wait_interval_rows "$TMP/a.csv" cpu-clock 3
kill -INT "$a_pid" "$g_pid"
wait "$a_pid" && wait "$g_pid" || fail "the -a/-G sessions failed"
allow_unseen g "$TMP/g.log" "$(awk -v a="$before" -v b="$after" 'BEGIN { print (b - a) / 1000 }')"
assert_cpu_clock "-G next to -a" "$(stat_csv_value "$TMP/g.csv" cpu-clock)" \
	"$(awk -v a="$before" -v b="$after" 'BEGIN { print (b - a) / 1000 }')" 3 g
assert_cpus_per_interval "$TMP/a.csv" cpu-clock "$ncpu"

# A target plus a command: -G counts the cgroup for as long as the command
# runs, and cgperf ends with it. The command moves itself into the cgroup and
# makes 20000 page faults there (plus a few hundred to start the program).
"$CGPERF" stat -x, -o "$TMP/tc.csv" -e page-faults -G "$TEST_CG_REL/w" -- \
	sh -c 'echo $$ >"$1/cgroup.procs" && exec "$2" faults 20000 --no-stop' sh "$TEST_CG/w" "$KNOWN" \
	2>"$TMP/tc.log" || fail "-G with a command failed: $(cat "$TMP/tc.log")"
assert_count "-G with a command: page-faults" "$(stat_csv_value "$TMP/tc.csv" page-faults "$TEST_CG_REL/w")" 20000 1 400

# Children are forgotten once they are gone (a reused pid must not be
# counted, and the filter map must not fill up), at their last switch out:
# a -p target forks 20 children that exit at once and leaves them zombies
# (not reaped, so the kernel has not freed them: on_free, the fallback,
# cannot have run); the filter holds the target alone, threads_left nothing.
# The target forks once counting has started (it waits for a file).
start_bg python3 -c '
import os, sys, time
while not os.path.exists(sys.argv[1]):
    time.sleep(0.02)
for i in range(20):
    if os.fork() == 0:
        os._exit(0)
time.sleep(8)' "$TMP/forget.go"
spid=$LAST_PID
start_cgperf forget -e cpu-clock -p "$spid"
# session_maps: "NAME ID" of each BPF map the session holds an fd to.
session_maps() {
	local ids
	ids=$(grep -h "^map_id:" /proc/"$CGPERF_PID"/fdinfo/* 2>/dev/null | awk '{ print $2 }' | sort -u)
	bpftool map show -j | python3 -c '
import json, sys
for m in json.load(sys.stdin):
    if str(m["id"]) in sys.argv[1:]:
        print(m.get("name", "-"), m["id"])' $ids
}
# map_keys [values] <DUMP: a map's keys (from bpftool's JSON dump) as
# numbers, one per line (key:value with "values", for numbers as values).
map_keys() {
	python3 -c '
import json, sys
num = lambda v: int.from_bytes(bytes(int(b, 16) for b in v), "little") if isinstance(v, list) else v
for e in json.load(sys.stdin):
    print(num(e["key"]), *([num(e["value"])] if len(sys.argv) > 1 else []), sep=":")' "$@"
}
maps=$(session_maps)
filter_id=$(awk '$1 == "filter" { print $2 }' <<<"$maps")
threads_id=$(awk '$1 == "threads_left" { print $2 }' <<<"$maps")
[ "$(wc -w <<<"$filter_id $threads_id")" = 2 ] ||
	fail "expected one filter and one threads_left map in cgperf, found: '$filter_id' '$threads_id'"
# The maps are found first: the check below comes right after the exits.
touch "$TMP/forget.go"
zombies() { [ "$(ps -o stat= --ppid "$spid" | grep -c '^Z')" = 20 ]; }
poll 200 0.02 zombies || fail "the -p target did not leave 20 zombie children within 4 s"
# The target itself is forgotten when freed: it has no thread count.
filter_dump=$(bpftool map dump id "$filter_id" -j); threads_dump=$(bpftool map dump id "$threads_id" -j)
filter_keys=$(map_keys <<<"$filter_dump"); threads_keys=$(map_keys values <<<"$threads_dump")
if [ "$filter_keys" != "$spid" ] || [ -n "$threads_keys" ]; then
	for pid in $filter_keys; do
		if [ -r /proc/"$pid"/stat ]; then
			echo "filter key pid $pid: alive: $(cat /proc/"$pid"/stat)"
		else
			echo "filter key pid $pid: gone"
		fi
	done >&2
	fail "with 20 children exited (zombies) the filter holds $(echo $filter_keys), threads_left" \
		"$(echo $threads_keys), expected $spid alone and nothing"
fi
kill -INT "$CGPERF_PID"; wait "$CGPERF_PID" || true
log "ok: exited children (zombies, not yet freed) were removed from the filter"
