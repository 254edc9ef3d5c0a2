# SPDX-License-Identifier: GPL-2.0-only
# cgperf stat --json against perf stat --json (the oracle for the form): one
# object per count and line, perf's keys in perf's order with perf's value
# types, with and without -I; per cgroup with a "cgroup" key that carries
# tenant-chosen names (quotes, backslashes, a tab, bytes that are not
# UTF-8) as valid JSON strings; the BPF program statistics (-b) as objects
# too; -x and --json together refused.
source "$CGPERF_SRC/tests/lib/common.sh"

# json_form FILE: each line's keys and value types ("counter-value:str ..."),
# one line per object; fails unless every line is one JSON object.
json_form() {
	python3 - "$1" <<'PY'
import json, sys
for line in open(sys.argv[1], encoding='utf-8'):
    o = json.loads(line)
    assert isinstance(o, dict), line
    print(' '.join('%s:%s' % (k, type(v).__name__.replace('int', 'num').replace('float', 'num'))
                   for k, v in o.items()))
PY
}

# Totals, then -I: the same keys and types as perf's for the same events.
for interval in "" "-I 100"; do
	# shellcheck disable=SC2086
	"$CGPERF" stat -j $interval -e cpu-clock,context-switches -a --duration 0.35 >"$TMP/cg.json" 2>"$TMP/cg.err" ||
		fail "cgperf stat -j $interval failed: $(cat "$TMP/cg.err")"
	# shellcheck disable=SC2086
	perf stat -j $interval -e cpu-clock,context-switches -a -o "$TMP/perf.json" -- sleep 0.35 ||
		fail "perf stat -j $interval failed"
	grep '^{' "$TMP/perf.json" >"$TMP/perf.lines"
	json_form "$TMP/cg.json" | sort -u >"$TMP/cg.form" || fail "cgperf's -j $interval output is not JSON lines: $(cat "$TMP/cg.json")"
	json_form "$TMP/perf.lines" | sort -u >"$TMP/perf.form" || fail "perf's -j output did not parse"
	diff "$TMP/perf.form" "$TMP/cg.form" >&2 || fail "cgperf stat -j $interval differs from perf stat -j in keys or types"
	[ "$(wc -l <"$TMP/cg.json")" -ge 2 ] || fail "fewer objects than events: $(cat "$TMP/cg.json")"
	log "ok: -j ${interval:-(totals)}: $(head -1 "$TMP/cg.form")"
done

# Per cgroup, with names a tenant chooses: each is the "cgroup" string.
names=('q"uote' 'back\slash' $'tab\there' $'bad\xffbyte' $'caf\xc3\xa9')
args=()
for n in "${names[@]}"; do mkdir "$TEST_CG/$n"; args+=(-G "$TEST_CG_REL/$n"); done
"$CGPERF" stat -j -e cpu-clock "${args[@]}" --duration 0.2 >"$TMP/cgroups.json" 2>"$TMP/cgroups.err" ||
	fail "cgperf stat -j -G failed: $(cat "$TMP/cgroups.err")"
python3 - "$TMP/cgroups.json" "$TEST_CG_REL" <<'PY' || fail "cgroup names in -j: $(cat "$TMP/cgroups.json")"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1], encoding='utf-8')]
base = sys.argv[2]
want = {base + '/' + n for n in ['q"uote', 'back\\slash', 'tab\there', 'bad\ufffdbyte', 'caf\u00e9']}
got = {r['cgroup'] for r in rows}
assert got == want, (sorted(got), sorted(want))
assert all(r['event'] == 'cpu-clock' and r['unit'] == 'msec' for r in rows), rows
print('# ok: %d cgroups, their names as JSON strings' % len(rows))
PY

# -b: the statistics of a BPF program (a stat session's switch program).
start_cgperf held -e cpu-clock -G "$TEST_CG_REL/q\"uote"
"$CGPERF" stat -j --bpf-prog 'on_switch' -I 100 --duration 0.35 >"$TMP/prog.json" 2>"$TMP/prog.err" ||
	fail "cgperf stat -j --bpf-prog failed: $(cat "$TMP/prog.err")"
python3 - "$TMP/prog.json" <<'PY' || fail "-b -j: $(cat "$TMP/prog.json")"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1], encoding='utf-8')]
assert rows, 'no objects'
for r in rows:
    assert list(r)[:10] == ['interval', 'prog-id', 'prog-name', 'prog-tag', 'prog-type', 'runs',
                            'run-ns', 'ns-per-run', 'cpu-pct', 'state'], r
    assert r['prog-name'] == 'on_switch' and isinstance(r['runs'], int), r
print('# ok: -b -j: %d objects' % len(rows))
PY
kill -INT "$CGPERF_PID"; wait "$CGPERF_PID" || fail "the held session failed"

rc=0; "$CGPERF" stat -j -x, -e cpu-clock -a --duration 0.1 >/dev/null 2>"$TMP/both.err" || rc=$?
[ "$rc" = 2 ] || fail "-x with --json exited $rc, not 2"
grep -q -- "-x and --json cannot be combined" "$TMP/both.err" || fail "unclear: $(cat "$TMP/both.err")"
log "ok: -x with --json refused"
