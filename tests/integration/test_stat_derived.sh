# SPDX-License-Identifier: GPL-2.0-only
# Derived metrics in `cgperf stat`: "CPUs utilized" on the task-clock row is
# task-clock over the time elapsed; IPC ("insn per cycle") on the
# instructions row where cycles and instructions are counted, and absent
# (never 0 or nan) where they are not (no hardware PMU here).
source "$CGPERF_SRC/tests/lib/common.sh"

"$CGPERF" stat -e task-clock,cs,cycles,instructions -- "$BURN" 0.6 2 >"$TMP/out" 2>"$TMP/err" ||
	fail "$(cat "$TMP/err")"
cat "$TMP/out"
python3 - "$TMP/out" <<'PY' || fail "CPUs utilized is not task-clock / elapsed"
import re, sys
text = open(sys.argv[1]).read()
clock = re.search(r'([\d.]+) msec\s+task-clock.*#\s+([\d.]+) CPUs utilized', text)
elapsed = re.search(r'([\d.]+) seconds time elapsed', text)
assert clock and elapsed, text
ms, cores, secs = float(clock.group(1)), float(clock.group(2)), float(elapsed.group(1))
print("# %.1f ms of task-clock in %.3f s: %.2f CPUs utilized (printed %.2f)" % (ms, secs, ms / 1000 / secs, cores))
assert abs(cores - ms / 1000 / secs) <= 0.02 + 0.02 * cores, (cores, ms, secs)
assert 'nan' not in text.lower()
PY
if grep -q "cycles" "$TMP/err"; then
	# cycles skipped as unsupported: no IPC may be printed.
	grep -q "insn per cycle" "$TMP/out" && fail "IPC printed without cycles"
	log "no hardware PMU here: IPC not printed (the PMU part runs where cycles can be counted)"
else
	grep -Eq "instructions .*# +[0-9.]+ insn per cycle" "$TMP/out" || fail "no IPC with cycles counted"
fi
log "ok: derived metrics"
