# SPDX-License-Identifier: GPL-2.0-only
# `-x,` lines field by field against real `perf stat -x,` on the same
# software events: -a, -G (the root cgroup, which both count), -I. Not the
# values (two runs), but every line's number of fields, their positions,
# the units, event and cgroup names and the metric unit (CPUs utilized,
# /sec, K/sec: the prefix follows the value) must be perf's, so scripts written for perf keep working.
source "$CGPERF_SRC/tests/lib/common.sh"
command -v perf >/dev/null || fail "perf is missing (apt-get install linux-perf)"
EV=cpu-clock,cs,page-faults

compare() { # compare NAME ARGS...: perf and cgperf with ARGS, field by field
	local name=$1; shift
	perf stat -x, -o "$TMP/$name.perf" -e "$EV" "$@" -- sleep 0.5 2>"$TMP/$name.perr" ||
		fail "perf stat $*: $(cat "$TMP/$name.perr")"
	"$CGPERF" stat -x, -o "$TMP/$name.cg" -e "$EV" "$@" --duration 0.5 2>"$TMP/$name.err" ||
		fail "cgperf stat $*: $(cat "$TMP/$name.err")"
	python3 - "$TMP/$name.perf" "$TMP/$name.cg" "$name" <<'PY' || fail "$name: cgperf's -x lines are not perf's (see above)"
import csv, re, sys
def lines(path):
    rows = [r for r in csv.reader(open(path, newline='')) if r and not r[0].startswith('#')]
    return [[f.strip() for f in r] for r in rows]
def num(s):
    float(s)
    return '<num>'
def shape(r, interval, cgroup):
    # [time,] value, unit, event, [cgroup,] run-time, pct, metric, metric-unit
    out, i = [], 0
    if interval:
        out.append(num(r[0])); i = 1
    out += [num(r[i]), r[i + 1], r[i + 2]]; i += 3
    if cgroup:
        out.append(r[i]); i += 1
    # A rate's prefix (K/sec, M/sec) follows its value.
    out += [num(r[i]), num(r[i + 1]), num(r[i + 2]) if r[i + 2] else '',
            re.sub(r'^[KMG]/sec$', '/sec', r[i + 3])]
    return len(r), out
perf, cg, name = lines(sys.argv[1]), lines(sys.argv[2]), sys.argv[3]
interval, cgroup = name.endswith('I'), name.startswith('G')
first = lambda rows: {r[3 if interval else 2]: r for r in reversed(rows)}
p, c = first(perf), first(cg)
assert sorted(p) == sorted(c) == ['cpu-clock', 'cs', 'page-faults'], (p, c)
for ev in p:
    sp, sc = shape(p[ev], interval, cgroup), shape(c[ev], interval, cgroup)
    print('# %s %s: perf %s, cgperf %s' % (name, ev, ','.join(p[ev]), ','.join(c[ev])))
    assert sp == sc, (ev, sp, sc)
PY
	log "ok: $name: the same fields as perf"
}
compare a -a
compare aI -a -I 200
compare G -a -G /
compare GI -a -G / -I 200
