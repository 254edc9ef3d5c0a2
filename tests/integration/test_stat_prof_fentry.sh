# SPDX-License-Identifier: GPL-2.0-only
# cgperf stat -b with events counted inside the programs (fentry/fexit on
# each target, bpf/prog_profiler.c). Targets: N, a program without BTF
# function info, and T, one with it (tests/helpers/prog_runner.c "btf"),
# run 1000 times with BPF_PROG_TEST_RUN while `-e cpu-clock,cs` is counted.
# Everywhere: the runs from the kernel's statistics are exact and N is named
# with its reason. Whether the kernel allows trampolines is asked a second
# time without cgperf's code (tests/helpers/fexit_probe.c, as in
# test_stat_fexit):
# * refused (this CI machine): cgperf found T's function in its BTF and
#   loaded its own profiler up to the kernel's refusal, whose errno text is
#   the helper's; no event columns; then SKIP with the kernel's reason;
# * allowed: the fentry/fexit pair counted exactly 1000 runs, no context
#   switch inside them (a test run never switches), and a cpu-clock total
#   above 0 and at most the run time the kernel measured around the same
#   runs (which includes the trampoline): a diff taken wrong (the exit's
#   totals, or a stale entry) is far above it.
source "$CGPERF_SRC/tests/lib/common.sh"
source "$CGPERF_SRC/tests/lib/prog_runner.sh"

runner_start N cgperf_tnobtf
runner_start T cgperf_tbtf btf
start_bg "$CGPERF" stat -v -b "$N_ID,$T_ID" -e cpu-clock,cs -I 200 -x, -o "$TMP/b.csv" 2>"$TMP/b.log"
wait_for_line "$TMP/b.log" "counting started" 10
runner T 1000
kill -INT "$LAST_PID"; wait "$LAST_PID" || fail "cgperf stat -b failed: $(cat "$TMP/b.log")"
cat "$TMP/b.log"

# sums FILE ID COLUMN...: the sums of these columns over ID's lines.
sums() {
	python3 - "$@" <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r['prog_id'] == sys.argv[2]]
print(*(sum(float(r[c] or 0) for r in rows) for c in sys.argv[3:]))
PY
}
read -r runs run_ns <<<"$(sums "$TMP/b.csv" "$T_ID" runs run_ns)"
[ "${runs%.*}" = 1000 ] || fail "the kernel's statistics: $runs runs of 1000"
grep -q "BPF program $N_ID (cgperf_tnobtf): no event counts inside it: no BTF function info" "$TMP/b.log" ||
	fail "the program without BTF is not named with its reason"

krc=0; kernel=$("$CGPERF_BUILD/tests/fexit_probe") || krc=$?
log "independent probe: $kernel"
case $krc in
3)
	line=$(grep "need BPF trampolines" "$TMP/b.log") || fail "no line on event counts"
	# As far as loading its profiler on T's function, found in its BTF.
	grep -q "trampolines unavailable: loading fentry/fexit on its function 'cgperf_tbtf' failed: " <<<"$line" ||
		fail "the line does not name the refusal of cgperf's own profiler on T's function: $line"
	# The kernel's errno text ends the helper's line and cgperf's reason.
	errtext=${line#*"'cgperf_tbtf' failed: "}
	[ "${errtext%%; counting*}" = "${kernel##*: }" ] ||
		fail "cgperf's profiler failed with something else than the kernel's refusal ($kernel): $line"
	! head -1 "$TMP/b.csv" | grep -q counted_runs || fail "event columns without event counts"
	skip "events inside BPF programs need BPF trampolines; the kernel refused: $kernel"
	;;
0) ;;
*) fail "the independent fexit probe could not run: $kernel" ;;
esac

read -r counted cs clock <<<"$(sums "$TMP/b.csv" "$T_ID" counted_runs cs cpu-clock)"
log "T: $counted runs counted, cs $cs, cpu-clock $clock ns, run time $run_ns ns"
[ "${counted%.*}" = 1000 ] || fail "fentry/fexit counted $counted runs of 1000"
# PREEMPT_RT runs BPF programs preemptible (migrate_disable only): a run
# may be switched out there, at most once a run here; elsewhere never.
if [ "$(cat /sys/kernel/realtime 2>/dev/null)" = 1 ]; then
	[ "${cs%.*}" -le "${counted%.*}" ] || fail "$cs context switches inside $counted test runs"
else
	[ "${cs%.*}" = 0 ] || fail "$cs context switches inside a test run"
fi
python3 -c "import sys; sys.exit(0 if 0 < $clock <= $run_ns else 1)" ||
	fail "cpu-clock inside the runs ($clock ns) is not within the run time ($run_ns ns)"
log "ok: exact runs, the program without BTF named, events counted inside T"
