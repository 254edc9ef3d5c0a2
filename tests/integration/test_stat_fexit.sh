# The follower mechanism is chosen by a real load-and-attach fexit probe.
# Where the kernel refuses trampolines (this CI machine), cgperf says so in -v,
# uses sched_switch followers, and refuses --follower fexit with a clear
# error; the fexit-vs-fallback comparison then skips with that reason.
source "$CGPERF_SRC/tests/lib/common.sh"
cg=$(mkcg f)

"$CGPERF" stat -v -a -e cpu-clock --duration 0.2 >/dev/null 2>"$TMP/probe.log" ||
	fail "cgperf stat -a failed: $(cat "$TMP/probe.log")"
probe=$(grep "fexit probe:" "$TMP/probe.log") || fail "-v does not report the fexit probe"
mode=$(grep "follower mode:" "$TMP/probe.log") || fail "-v does not report the follower mode"
log "$probe"
log "$mode"

if grep -q "trampolines unavailable" <<<"$probe"; then
	grep -q "sched_switch followers" <<<"$mode" || fail "trampolines unavailable but fallback not used"
	rc=0
	"$CGPERF" stat --follower fexit -a -e cpu-clock --duration 0.2 >/dev/null 2>"$TMP/forced.log" || rc=$?
	[ "$rc" = 1 ] || fail "--follower fexit without trampolines should exit 1, got $rc"
	grep -q "fexit followers requested but trampolines unavailable" "$TMP/forced.log" ||
		fail "unclear error for --follower fexit: $(cat "$TMP/forced.log")"
	log "ok: fallback in use, --follower fexit refused clearly"
	skip "fexit followers vs fallback comparison needs BPF trampolines: ${probe#*fexit probe: }"
fi

# Trampolines work here: both mechanisms count the same burn alike.
start_cgperf fexit --follower fexit -e cpu-clock -G "$cg"; p1=$CGPERF_PID
start_cgperf tp --follower tp -e cpu-clock -G "$cg"; p2=$CGPERF_PID
run_in_cg f "$BURN" 1; wait "$LAST_PID"
kill -INT "$p1" "$p2"; wait "$p1"; wait "$p2"
assert_within_pct "fexit vs tp followers" "$(stat_csv_value "$TMP/fexit.csv" cpu-clock "$cg")" \
	"$(stat_csv_value "$TMP/tp.csv" cpu-clock "$cg")" 1
