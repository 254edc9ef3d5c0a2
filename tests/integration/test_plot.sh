# SPDX-License-Identifier: GPL-2.0-only
# cgperf plot on the real agent's CSV logs: a pinned burner container (named
# in its docker metadata, a comma and a quote in the name), an idle one and
# one with a hostile name (markup, quotes, a comma, a line break followed by
# a forged row, a control byte), the agent stopped and restarted in between
# (a gap) and files rotated (max_size), bad files beside them. Checked: PNG
# signature and size and the burner's colour under its line; SVG parsed as
# XML: the chart data names the burner, its line has one point per CSV row,
# two pieces (the gap), its y values are the CSV's cpu-clock per interval in
# cores (and cpu_cores), the drawn path's vertices are those points, one
# drawn path per container and chart; one stderr line per bad file; exit 1
# when nothing is plottable; the HTML report opened in headless Chromium:
# no console message, no error, no request but the page, a screenshot that
# is not blank and shows the burner's colour, one inline SVG per metric, ids
# not shared, the busiest first in the top table, the time range; the
# hostile name escaped everywhere (no element, no forged series or row);
# local time: --since and the page's range in TZ=Asia/Kolkata (UTC+5:30).
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
# The hostile name: what a tenant may choose (docker takes any name in its
# config file; Kubernetes labels and annotations as well).
evil=$(sha plot-evil)
EVIL_NAME=$'<img src=x onerror=alert(1)>,"q"\n2026-12-04T00:00:00.000Z,/forged,1,container\x01</svg><script>'
mkdir -p "$TMP/docker/containers/$evil"
python3 -c 'import json, sys; print(json.dumps({"ID": sys.argv[1], "Name": "/" + sys.argv[2]}))' \
	"$evil" "$EVIL_NAME" >"$TMP/docker/containers/$evil/config.v2.json"
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
    flush_interval: 0 # stop_agent times the stop after a row in the file
EOF
hot_rel="system.slice/docker-$hot.scope"
idle_rel="system.slice/docker-$idle.scope"
mkcg system.slice >/dev/null
hot_cg=$(mkcg "$hot_rel")
idle_cg=$(mkcg "$idle_rel")
evil_cg=$(mkcg "system.slice/docker-$evil.scope")
run_in_cg "$idle_rel" sleep 600

# stop_agent LOG: SIGTERM 0.4 s after a row of the burner, so the final row
# is not in the pixel column of the one before (the same value there would
# be one point of the line, not two).
hot_rows() { cat "$TMP"/csv/* 2>/dev/null | grep -c "docker-$hot" || true; }
stop_agent() {
	local n k
	n=$(hot_rows)
	for ((k = 0; k < 300; k++)); do
		[ "$(hot_rows)" -gt "$n" ] && break
		sleep 0.01
	done
	sleep 0.4
	kill -TERM "$AGENT_PID"; wait "$AGENT_PID" || fail "agent failed: $(tail -5 "$1")"
}
start_agent a "$TMP/plot.yaml"
wait_counted "$TMP/a.log" "$hot_cg"
burn_pinned "$hot_rel" 3 hot
sleep 1.5
stop_agent "$TMP/a.log"
sleep 3 # the agent is down: a gap of 3+ intervals
start_agent b "$TMP/plot.yaml"
wait_counted "$TMP/b.log" "$hot_cg"
burn_pinned "$hot_rel" 2 hot
sleep 1.5
stop_agent "$TMP/b.log"
ls "$TMP/csv" | grep -q '\.csv\.1$' || fail "no rotated file: max_size did not rotate ($(ls "$TMP/csv"))"

# The logs plus bad files: an empty one, another header, not a log's name,
# and the idle container's file with a truncated last line.
: >"$TMP/csv/empty_0000000000000000.csv"
printf 'a,b,c\n1,2,3\n' >"$TMP/csv/other_0000000000000000.csv"
echo hello >"$TMP/csv/notes.txt"
# (any of its files: the current one may have just been rotated)
idle_file=$(grep -l "docker-$idle" "$TMP"/csv/*.csv* || true)
idle_file=${idle_file%%$'\n'*}
[ -n "$idle_file" ] || fail "no CSV file of the idle container"
printf '2026-12-04T12:00:00.000Z,%s,1,contai' "$idle_cg" >>"$idle_file"

# From here on only cgperf plot runs: in a sanitizer build, with whole
# stacks, which tests/sanitize/lsan.supp's entries for cairo's and
# fontconfig's process-long caches need (ASan's fast unwinder stops one
# frame into fontconfig), and 64 frames of them (FcInitLoadConfigAndFonts is
# 20 deep below /etc/fonts' nested XML includes; 30 by default).
[ -z "${ASAN_OPTIONS:-}" ] || export ASAN_OPTIONS="$ASAN_OPTIONS:fast_unwind_on_malloc=0:malloc_context_size=64"
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

python3 - "$TMP" "$hot_cg" "$HOT_NAME" "$CGPERF_SRC/tests/lib" "$evil_cg" <<'PY' || fail "the charts do not show the CSV (see above)"
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
# However much of a CPU a busy host gives it (0.5 with two hogs).
assert max(want) >= 0.1, "no row shows the burner's CPU: %r" % want
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
# The hostile name: one series, its own path, escaped (no line break, no
# control byte), no markup in the document; no series of the forged row.
evil_cg = sys.argv[5]
evil = [x for x in c.iter(NS + 'series') if x.get('path') == evil_cg]
assert len(evil) == 1, [x.attrib for x in c.iter(NS + 'series')]
en = evil[0].get('name')
assert en.startswith('<img src=x onerror=alert(1)>,"q"\\n2026-'), en
assert not any(ord(ch) < 0x20 for ch in en), en
assert not [x for x in svg.iter(NS + 'series') if 'forged' in x.get('path')]
raw_svg = open(tmp + '/out.svg', 'rb').read()
assert b'<img' not in raw_svg and b'<script' not in raw_svg and b'</svg><' not in raw_svg
# One drawn path per container and chart: the line paths (their width)
# fall into the charts by their first vertex; each series' colour once.
lines = [p for p in svg.iter('{http://www.w3.org/2000/svg}path')
         if 'stroke-width:1.5' in re.sub(r'\s', '', p.get('style', ''))]
def colour_of(p):
    m = re.search(r'stroke:rgb\(([0-9.]+)%,([0-9.]+)%,([0-9.]+)%\)', re.sub(r'\s', '', p.get('style')))
    return '#%02x%02x%02x' % tuple(round(float(v) * 255 / 100) for v in m.groups())
for metric, chart in charts.items():
    top = float(chart.get('top'))
    drawn = sorted(colour_of(p) for p in lines
                   if top <= float(re.findall(r'-?[0-9.]+', p.get('d'))[1]) < top + 360)
    want_cols = sorted(x.get('color') for x in chart.iter(NS + 'series'))
    assert len(want_cols) == int(chart.get('series')) == 3, (metric, want_cols)
    assert drawn == want_cols, (metric, drawn, want_cols)
# PNG: signature, size, and the burner's colour under its line's points.
sys.path.insert(0, sys.argv[4])
import png_decode
w, h, bpp, img = png_decode.decode(tmp + '/out.png')
assert (w, h) == (1200, 720), (w, h)
def near(x, y):
    return any(png_decode.shows(img[int(y) + dy][(int(x) + dx) * bpp:(int(x) + dx + 1) * bpp], rgb)
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

# The HTML report in headless Chromium: loaded without a console message,
# an error or a request but the page's own; the screenshot is not blank and
# shows the burner's colour; the DOM: one inline SVG per metric, ids unique,
# no script or img element (the hostile name is text), the burner first in
# the cpu-clock table, the range the CSV's.
plot report.html
python3 "$CGPERF_SRC/tests/lib/chromium_page.py" "$TMP/report.html" "$TMP/shot.png" '(() => {
	const ids = [...document.querySelectorAll("[id]")].map(e => e.id);
	return {
		sections: [...document.querySelectorAll("section.metric")].map(s =>
			({ metric: s.dataset.metric, svgs: s.querySelectorAll(":scope > svg").length,
			   top: [...s.querySelectorAll("table.top tr")].slice(1).map(r => r.cells[1].textContent.trim()) })),
		svgs: document.querySelectorAll("svg").length,
		dup_ids: ids.filter((x, i) => ids.indexOf(x) !== i),
		scripts: document.querySelectorAll("script").length,
		imgs: document.querySelectorAll("img").length,
		range: [document.getElementById("range").dataset.startMs, document.getElementById("range").dataset.endMs],
		title: document.title };
})()' >"$TMP/chromium.json" || fail "chromium did not load the report (see above)"
python3 - "$TMP" "$HOT_NAME" "$CGPERF_SRC/tests/lib" <<'PY' || fail "the HTML report in Chromium (see above; $TMP/shot.png)"
import csv, glob, json, sys
from datetime import datetime, timezone
tmp, hot, lib = sys.argv[1:4]
sys.path.insert(0, lib)
import png_decode
r = json.load(open(tmp + '/chromium.json'))
assert not r['console'], r['console']
assert not r['errors'], r['errors']
assert r['requests'] == ['file://' + tmp + '/report.html'], r['requests']
v = r['value']
metrics = [x['metric'] for x in v['sections']]
assert metrics == ['cpu-clock', 'context-switches', 'cpu_cores'], metrics
assert all(x['svgs'] == 1 for x in v['sections']) and v['svgs'] == 3, v
assert not v['dup_ids'], v['dup_ids'][:10]
assert v['scripts'] == 0 and v['imgs'] == 0, v
cpu = v['sections'][0]['top']
assert cpu[0] == hot, cpu
assert len(cpu) == 3 and any(n.startswith('<img src=x onerror=alert(1)>,"q"\\n') for n in cpu), cpu
# The range: the CSV's first and last rows (every file, header skipped).
times = []
for p in glob.glob(tmp + '/csv/*.csv*'):
    with open(p, newline='') as f:
        times += [row[0] for row in csv.reader(f) if row and row[0].endswith('Z') and len(row) > 12]
ms = lambda t: int(datetime.strptime(t, '%Y-%m-%dT%H:%M:%S.%fZ').replace(tzinfo=timezone.utc).timestamp() * 1000)
assert [int(x) for x in v['range']] == [ms(min(times)), ms(max(times))], (v['range'], min(times), max(times))
# The screenshot: the page's size, mostly white but not blank, lines in the
# burner's colour (the palette's first; the swatches are 720 pixels).
w, h, bpp, img = png_decode.decode(tmp + '/shot.png')
assert (w, h) == (int(r['width']), int(r['height'])), (w, h, r['width'], r['height'])
ink = sum(1 for row in img for x in range(0, w * bpp, bpp) if sum(row[x:x + 3]) < 600)
assert ink > w * h // 200, "the screenshot is blank: %d dark pixels" % ink
blue = sum(1 for row in img for x in range(0, w * bpp, bpp) if png_decode.shows(row[x:x + 3], (0x1f, 0x77, 0xb4), 0.6))
assert blue > 2000, "no line of the burner's colour in the screenshot: %d pixels" % blue
print('ok: report in Chromium: %d sections, %dx%d, %d dark and %d burner pixels' % (len(metrics), w, h, ink, blue))
PY

# Local time (no --utc) in a zone off UTC by 5:30: the page's range and
# --since are local times, the data attributes stay UTC ms.
python3 - "$TMP" "$CGPERF" <<'PY' || fail "local time (TZ=Asia/Kolkata) (see above)"
import csv, glob, os, re, subprocess, sys
from datetime import datetime, timedelta, timezone
tmp, cgperf = sys.argv[1:3]
times = []
for p in glob.glob(tmp + '/csv/*.csv*'):
    with open(p, newline='') as f:
        times += [row[0] for row in csv.reader(f) if row and row[0].endswith('Z') and len(row) > 12]
first = datetime.strptime(min(times), '%Y-%m-%dT%H:%M:%S.%fZ').replace(tzinfo=timezone.utc)
since = first.replace(microsecond=0) + timedelta(seconds=1)
local = (since + timedelta(hours=5, minutes=30)).strftime('%Y-%m-%d %H:%M:%S')
subprocess.run([cgperf, 'plot', tmp + '/csv', '-m', 'cpu-clock', '--since', local, '-o', tmp + '/tz.html'],
               env=dict(os.environ, TZ='Asia/Kolkata'), check=True, stderr=subprocess.DEVNULL)
page = open(tmp + '/tz.html').read()
m = re.search(r'<p id="range" data-start-ms="(\d+)" data-end-ms="\d+">From <time>([^<]*)</time>', page)
assert m, page[:2000]
assert int(m.group(1)) == int(since.timestamp()) * 1000, (m.group(1), since)
assert m.group(2) == local, (m.group(2), local)
print('ok: --since %s (Asia/Kolkata) = %s' % (local, since.isoformat()))
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
# cairo not installed (a Recommends; the slim image has none): one clear line,
# exit 1, nothing written; every output kind.
for out in nocairo.png nocairo.svg nocairo.html; do
	rc=0; without_lib libcairo.so.2 "$CGPERF" plot "$TMP/csv" -o "$TMP/$out" 2>"$TMP/err.txt" || rc=$?
	[ "$rc" = 1 ] && grep -q "cannot draw: libcairo.so.2 cannot be loaded: " "$TMP/err.txt" ||
		fail "-o $out without cairo: exit $rc: $(cat "$TMP/err.txt")"
	[ ! -e "$TMP/$out" ] || fail "-o $out without cairo: an output was written"
done
log "ok: PNG, SVG and the HTML report show the burner's rows; the hostile name escaped; bad inputs one line each; no cairo said"
