# cgperf plot on the real agent's CSV logs: a pinned burner container (named
# in its docker metadata, a comma and a quote in the name) and an idle one,
# the agent stopped and restarted in between (a gap) and files rotated
# (max_size), bad files beside them. Checked: PNG signature and size and the
# burner's colour under its line; SVG parsed as XML: the chart data names
# the burner, its line has one point per CSV row, two pieces (the gap), its
# y values are the CSV's cpu-clock per interval in cores (and cpu_cores),
# the drawn path's vertices are those points; one stderr line per bad file;
# exit 1 when nothing is plottable; the HTML report (one inline SVG per
# metric, ids not shared, top table, time range).
source "$CGPERF_SRC/tests/lib/common.sh"

sha() { printf '%s' "$1" | sha256sum | cut -c1-64; }
hot=$(sha plot-hot); idle=$(sha plot-idle)
meta() { # meta ID NAME
	mkdir -p "$TMP/docker/containers/$1"
	printf '{"ID":"%s","Name":"/%s","Config":{"Image":"busybox"}}' "$1" "$2" \
		>"$TMP/docker/containers/$1/config.v2.json"
}
meta "$hot" 'burner, \"one\"'
meta "$idle" 'idle'
HOT_NAME='burner, "one"'
cat >"$TMP/plot.yaml" <<EOF
instance: plot
interval: 1s
events: [cpu-clock, context-switches]
cgroups:
  root: "$TEST_CG_REL"
  include: ["$TEST_CG_REL/system.slice/*"]
metadata:
  docker: "$TMP/docker"
outputs:
  csv:
    directory: $TMP/csv
    derived: [cpu_cores]
    max_size: 1500
EOF
hot_rel="system.slice/docker-$hot.scope"
idle_rel="system.slice/docker-$idle.scope"
mkcg system.slice >/dev/null
hot_cg=$(mkcg "$hot_rel")
idle_cg=$(mkcg "$idle_rel")
run_in_cg "$idle_rel" sleep 600

start_agent a "$TMP/plot.yaml"
wait_counted "$TMP/a.log" "$hot_cg"
burn_pinned "$hot_rel" 3 hot
sleep 1.5
kill -TERM "$AGENT_PID"; wait "$AGENT_PID" || fail "agent failed: $(tail -5 "$TMP/a.log")"
sleep 3 # the agent is down: a gap of 3+ intervals
start_agent b "$TMP/plot.yaml"
wait_counted "$TMP/b.log" "$hot_cg"
burn_pinned "$hot_rel" 2 hot
sleep 1.5
kill -TERM "$AGENT_PID"; wait "$AGENT_PID" || fail "agent failed: $(tail -5 "$TMP/b.log")"
ls "$TMP/csv" | grep -q '\.csv\.1$' || fail "no rotated file: max_size did not rotate ($(ls "$TMP/csv"))"

# The logs plus bad files: an empty one, another header, not a log's name,
# and the idle container's file with a truncated last line.
: >"$TMP/csv/empty_0000000000000000.csv"
printf 'a,b,c\n1,2,3\n' >"$TMP/csv/other_0000000000000000.csv"
echo hello >"$TMP/csv/notes.txt"
idle_file=$(grep -l "docker-$idle" "$TMP"/csv/*.csv | head -1)
[ -n "$idle_file" ] || fail "no CSV file of the idle container"
printf '2026-12-04T12:00:00.000Z,%s,1,contai' "$idle_cg" >>"$idle_file"

plot() { # plot OUT [ARGS...]: stderr in $TMP/err.txt
	local out=$1; shift
	"$CGPERF" plot "$TMP/csv" -o "$TMP/$out" --utc "$@" 2>"$TMP/err.txt" ||
		fail "cgperf plot -o $out failed: $(cat "$TMP/err.txt")"
}
plot out.svg -m cpu-clock,cpu_cores
for what in "empty_0000000000000000.csv: empty file" "other_0000000000000000.csv: not a cgperf CSV log" \
	"notes.txt: not a CSV log" "$(basename "$idle_file"): last line incomplete"; do
	[ "$(grep -c -- "$what" "$TMP/err.txt")" = 1 ] || fail "not one line for '$what': $(cat "$TMP/err.txt")"
done
[ "$(wc -l <"$TMP/err.txt")" = 4 ] || fail "stderr is not one line per bad file: $(cat "$TMP/err.txt")"
plot out.png -m cpu-clock,cpu_cores

python3 - "$TMP" "$hot_cg" "$HOT_NAME" <<'PY' || fail "the charts do not show the CSV (see above)"
import csv, glob, re, struct, sys, zlib
import xml.etree.ElementTree as ET
tmp, cg, name = sys.argv[1:4]
rows = []
for p in glob.glob(tmp + '/csv/*.csv*'):
    with open(p, newline='') as f:
        rd = csv.reader(f)
        if next(rd, None) is None:
            continue
        rows += [r for r in rd if len(r) > 12 and r[1] == cg]
rows.sort()
assert len(rows) >= 6, len(rows)
NS = '{urn:cgperf:plot:1}'
svg = ET.parse(tmp + '/out.svg').getroot()
charts = {c.get('metric'): c for c in svg.iter(NS + 'chart')}
assert set(charts) == {'cpu-clock', 'cpu_cores'}, charts.keys()
def series(chart):
    s = [s for s in chart.iter(NS + 'series') if s.get('path') == cg]
    assert len(s) == 1, [x.attrib for x in chart.iter(NS + 'series')]
    return s[0]
def values(chart, s):
    top, ymax = float(chart.get('top')), float(chart.get('ymax'))
    ax, ay, aw, ah = map(float, chart.get('area').split())
    pts = s.get('points').split()
    ys = [float(p.lstrip('M').split(',')[1]) for p in pts]
    return pts, [ymax * (1 - (y - top - ay) / ah) for y in ys]
# cpu-clock: one point per row, the row's cpu-clock / interval in cores.
c = charts['cpu-clock']
s = series(c)
assert s.get('name') == name, (s.get('name'), name)
assert s.get('rank') == '0', "the burner is not the busiest: %r" % s.attrib
pts, vals = values(c, s)
assert len(pts) == len(rows), (len(pts), len(rows))
want = [int(r[10]) / (int(r[9]) * 1e6) for r in rows]
for got, w in zip(vals, want):
    assert abs(got - w) <= 1e-3, (got, w)
assert max(want) >= 0.9, "no row shows the burner's full CPU: %r" % want
assert sum(p.startswith('M') for p in pts) == 2, "not two pieces (the agent's gap): %r" % pts
# cpu_cores (a derived column): as it is in the CSV.
c2 = charts['cpu_cores']
pts2, vals2 = values(c2, series(c2))
assert len(pts2) == len(rows)
for got, r in zip(vals2, rows):
    assert abs(got - float(r[14])) <= 1e-3, (got, r[14])
# The drawn line: the path in the series' colour; its vertices are points
# of the data (cairo merges collinear segments, so not necessarily all).
col = s.get('color')
rgb = tuple(int(col[i:i + 2], 16) for i in (1, 3, 5))
want_style = 'stroke:rgb(%s)' % ','.join('%f%%' % (v * 100 / 255) for v in rgb)
paths = [p for p in svg.iter('{http://www.w3.org/2000/svg}path')
         if want_style in re.sub(r'\s', '', p.get('style', ''))
         and 'stroke-width:1.5' in p.get('style', '')]
assert paths, "no path in the burner's colour %s" % want_style
xy = [tuple(map(float, p.lstrip('M').split(','))) for p in pts]
first = paths[0] # drawn first: the top chart, cpu-clock
nums = list(map(float, re.findall(r'-?[0-9]+(?:\.[0-9]+)?', first.get('d'))))
verts = list(zip(nums[::2], nums[1::2]))
assert len(verts) >= 4, first.get('d')
for vx, vy in verts:
    assert min(abs(vx - x) + abs(vy - y) for x, y in xy) < 0.02, (vx, vy, xy)
assert len(re.findall('M', first.get('d'))) == 2, first.get('d')
# PNG: signature, size, and the burner's colour under its line's points.
data = open(tmp + '/out.png', 'rb').read()
assert data[:8] == b'\x89PNG\r\n\x1a\n', data[:8]
w, h, depth, ctype = struct.unpack('>IIBB', data[16:26])
assert (w, h, depth, ctype) == (1200, 720, 8, 2), (w, h, depth, ctype)
idat, pos = b'', 8
while pos < len(data):
    n, kind = struct.unpack('>I4s', data[pos:pos + 8])
    if kind == b'IDAT':
        idat += data[pos + 8:pos + 8 + n]
    pos += 12 + n
raw, stride, img, prev = zlib.decompress(idat), w * 3, [], bytearray(w * 3)
for y in range(h):
    f = raw[y * (stride + 1)]
    line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - 3] if i >= 3 else 0
        b, cc = prev[i], (prev[i - 3] if i >= 3 else 0)
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - cc; pa, pb, pc = abs(p - a), abs(p - b), abs(p - cc)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else cc)) & 255
    img.append(line); prev = line
# Antialiased over white, grid or frame (all grey): a pixel shows the line
# when its chroma (minus its grey part) points along the colour's, at least
# 30% of it.
cm = sum(rgb) / 3
ref = [v - cm for v in rgb]
norm = sum(v * v for v in ref)
def shows(px):
    m = sum(px) / 3
    return sum((px[k] - m) * ref[k] for k in range(3)) >= 0.3 * norm
def near(x, y):
    return any(shows(img[int(y) + dy][(int(x) + dx) * 3:(int(x) + dx) * 3 + 3])
               for dy in (-1, 0, 1) for dx in (-1, 0, 1))
misses = [(x, y) for x, y in xy if not near(x, y)]
assert not misses, "the burner's colour is not under its points %r" % misses
print('ok: %d rows, %d points, max %.3f cores' % (len(rows), len(pts), max(want)))
PY

# Only the idle container (a glob on the display name): no burner line.
plot idle.svg --cgroup idle -m cpu-clock
python3 - "$TMP/idle.svg" <<'PY' || fail "--cgroup did not select"
import sys, xml.etree.ElementTree as ET
s = [e.get('name') for e in ET.parse(sys.argv[1]).getroot().iter('{urn:cgperf:plot:1}series')]
assert s == ['idle'], s
PY

# Nothing plottable: an empty directory, a range without rows; usage errors.
mkdir "$TMP/none"
rc=0; "$CGPERF" plot "$TMP/none" -o "$TMP/x.png" 2>"$TMP/err.txt" || rc=$?
[ "$rc" = 1 ] || fail "an empty directory: exit $rc, not 1"
grep -q "none: no CSV logs" "$TMP/err.txt" || fail "empty directory not named: $(cat "$TMP/err.txt")"
[ ! -e "$TMP/x.png" ] || fail "an output written with nothing to plot"
rc=0; "$CGPERF" plot "$TMP/csv" -o "$TMP/x.png" --since 2001-01-01 --until 2001-01-02 2>"$TMP/err.txt" || rc=$?
[ "$rc" = 1 ] && grep -q "nothing to plot" "$TMP/err.txt" || fail "a range without rows: exit $rc: $(cat "$TMP/err.txt")"
rc=0; "$CGPERF" plot "$TMP/csv" -o "$TMP/x.png" -m cycles 2>"$TMP/err.txt" || rc=$?
[ "$rc" = 2 ] && grep -q "no column 'cycles'" "$TMP/err.txt" || fail "-m cycles: exit $rc: $(cat "$TMP/err.txt")"
rc=0; "$CGPERF" plot "$TMP/csv" -o "$TMP/x.jpg" 2>"$TMP/err.txt" || rc=$?
[ "$rc" = 2 ] || fail "-o x.jpg: exit $rc"
log "ok: PNG and SVG show the burner's rows; bad inputs one line each"
