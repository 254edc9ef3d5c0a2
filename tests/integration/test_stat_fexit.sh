# SPDX-License-Identifier: GPL-2.0-only
# The follower mechanism is chosen by a real load-and-attach fexit probe.
# Whether this kernel allows trampolines is asked a second time without any
# of cgperf's code (tests/helpers/fexit_probe.c: a two-instruction fexit
# program through the raw bpf syscall). cgperf must agree with it, and where
# the kernel refuses (EPERM/ENOTSUPP/EOPNOTSUPP, this CI machine) cgperf must
# name that same refusal, use sched_switch followers and refuse --follower
# fexit clearly; only then does the fexit-vs-fallback comparison skip. A
# failure of cgperf's own probe (a verifier rejection, say) fails the test.
source "$CGPERF_SRC/tests/lib/common.sh"
cg=$(mkcg f)

"$CGPERF" stat -v -a -e cpu-clock --duration 0.2 >/dev/null 2>"$TMP/probe.log" ||
	fail "cgperf stat -a failed: $(cat "$TMP/probe.log")"
probe=$(grep "fexit probe:" "$TMP/probe.log") || fail "-v does not report the fexit probe"
mode=$(grep "follower mode:" "$TMP/probe.log") || fail "-v does not report the follower mode"
log "$probe"
log "$mode"
krc=0; kernel=$("$CGPERF_BUILD/tests/fexit_probe") || krc=$?
log "independent probe: $kernel"

case $krc in
0) grep -q "trampolines available" <<<"$probe" || fail "the kernel allows trampolines ($kernel) but cgperf: $probe" ;;
3)
	grep -q "trampolines unavailable" <<<"$probe" || fail "the kernel refuses trampolines ($kernel) but cgperf: $probe"
	# The kernel's errno text ends the helper's line and cgperf's reason.
	[ "${probe##*: }" = "${kernel##*: }" ] ||
		fail "cgperf's probe failed with something else than the kernel's refusal ($kernel): $probe"
	grep -q "sched_switch followers" <<<"$mode" || fail "trampolines unavailable but fallback not used"
	rc=0
	"$CGPERF" stat --follower fexit -a -e cpu-clock --duration 0.2 >/dev/null 2>"$TMP/forced.log" || rc=$?
	[ "$rc" = 1 ] || fail "--follower fexit without trampolines should exit 1, got $rc"
	grep -q "fexit followers requested but trampolines unavailable" "$TMP/forced.log" ||
		fail "unclear error for --follower fexit: $(cat "$TMP/forced.log")"
	# Said once, by the code that knows why (not again as "permission
	# denied" or "cannot set up counting").
	[ "$(grep -c . "$TMP/forced.log")" = 1 ] ||
		fail "--follower fexit refused in more than one line: $(cat "$TMP/forced.log")"
	log "ok: fallback in use, --follower fexit refused clearly"
	skip "fexit followers vs fallback comparison needs BPF trampolines; the kernel refused: $kernel"
	;;
*) fail "the independent fexit probe could not run: $kernel" ;;
esac

# Trampolines work here: both mechanisms count the same burn alike.
start_cgperf fexit --follower fexit -e cpu-clock -G "$cg"; p1=$CGPERF_PID
start_cgperf tp --follower tp -e cpu-clock -G "$cg"; p2=$CGPERF_PID
run_in_cg f "$BURN" 1; wait "$LAST_PID"
kill -INT "$p1" "$p2"; wait "$p1"; wait "$p2"
assert_within_pct "fexit vs tp followers" "$(stat_csv_value "$TMP/fexit.csv" cpu-clock "$cg")" \
	"$(stat_csv_value "$TMP/tp.csv" cpu-clock "$cg")" 1
