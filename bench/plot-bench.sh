#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# plot-bench: how fast `cgperf plot` draws real-sized logs: 1000 containers x
# a day at 10 s (8.64 M rows, about 1.7 GB of CSV), to PNG and to an HTML
# report. Prints the time, rows/s and the peak RSS of each (docs/PERFORMANCE.md).
#
#   build/bench/plot-bench [options]     (no root needed)
#
# The logs are generated once into DIR (default /tmp/cgperf-plot-bench, kept
# for the next run; a stamp file says for which parameters): the agent's
# header and rows (cycles, instructions, cpu-clock, context-switches with
# their _running_pct, cpu_cores), each container's day in two files (the
# first half rotated to NAME.csv.1) and a 10-minute gap (the agent down) in
# the afternoon. Each `cgperf plot` runs --runs times (default 3); printed:
# the best elapsed time and its CPU time (user + system), the first run's
# elapsed time (the files may not all be in the page cache yet), rows/s at
# the best time, the largest RSS and the output's size.
set -euo pipefail

CGPERF=${CGPERF:-@CMAKE_BINARY_DIR@/cgperf}
N=1000
HOURS=24
INTERVAL=10
RUNS=3
DIR=/tmp/cgperf-plot-bench

usage() {
	cat <<EOF
usage: plot-bench [options]
  -n N            containers (default $N)
  --hours H       hours of rows (default $HOURS)
  --interval S    seconds between rows (default $INTERVAL)
  --runs R        runs of each plot (default $RUNS)
  --dir DIR       where the logs are (generated when missing; default $DIR)
EOF
}

while [ $# -gt 0 ]; do
	case $1 in
	-n) N=$2; shift 2 ;;
	--hours) HOURS=$2; shift 2 ;;
	--interval) INTERVAL=$2; shift 2 ;;
	--runs) RUNS=$2; shift 2 ;;
	--dir) DIR=$2; shift 2 ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done

generate() {
	rm -rf "$DIR"
	mkdir -p "$DIR/csv"
	python3 - "$DIR/csv" "$N" "$HOURS" "$INTERVAL" <<'PY'
import hashlib, math, os, sys, time
out, n, hours, step = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
start = 1796342400  # 2026-12-04T00:00:00Z
rows = int(hours * 3600 // step)
gap = range(int(rows * 0.6), int(rows * 0.6) + 600 // step)  # the agent down 10 min
hdr = ('timestamp,cgroup,cgroup_id,kind,runtime,container_id,container_name,pod,namespace,'
       'interval_ms,cycles,cycles_running_pct,instructions,instructions_running_pct,'
       'cpu-clock,cpu-clock_running_pct,context-switches,context-switches_running_pct,'
       'cpu_cores\n')
stamps = [time.strftime('%Y-%m-%dT%H:%M:%S.000Z', time.gmtime(start + k * step))
          for k in range(rows)]
ms = step * 1000
for i in range(n):
    cid = hashlib.sha256(b'plot-bench-%d' % i).hexdigest()
    cg = '/system.slice/docker-%s.scope' % cid
    name = 'web-%04d' % i
    pre = '%s,%d,container,docker,%s,%s,,,' % (cg, 100000 + i, cid[:12], name)
    base = (i % 40) / 40.0  # cores
    per = 2 * math.pi / (600 + 37 * (i % 17))
    lines = []
    last = -1
    for k in range(rows):
        if k in gap:
            continue
        iv = ms * (k - last) if last >= 0 and k - last > 1 else ms
        cores = base * (0.6 + 0.4 * math.sin(k * per + i))
        ns = int(cores * iv * 1e6)
        cyc = ns * 3
        lines.append('%s,%s%d,%d,100.00,%d,100.00,%d,100.00,%d,100.00,%.3f\n' % (
            stamps[k], pre, iv, cyc, cyc * 2, ns, int(cores * 1000) + 5, ns / (iv * 1e6)))
        last = k
    stem = '%s_%s_%s' % (name, cid[:12], hashlib.sha256(cg[1:].encode()).hexdigest()[:16])
    half = len(lines) // 2
    with open(os.path.join(out, stem + '.csv.1'), 'w') as f:
        f.write(hdr + ''.join(lines[:half]))
    with open(os.path.join(out, stem + '.csv'), 'w') as f:
        f.write(hdr + ''.join(lines[half:]))
PY
	wc -l "$DIR"/csv/* | tail -1 | awk -v h="$N" '{ print $1 - 2 * h }' >"$DIR/rows"
	echo "$N $HOURS $INTERVAL" >"$DIR/stamp"
}

if [ "$(cat "$DIR/stamp" 2>/dev/null)" != "$N $HOURS $INTERVAL" ]; then
	echo "generating $N containers x ${HOURS} h at ${INTERVAL} s into $DIR ..."
	t0=$(date +%s.%N)
	generate
	echo "generated in $(echo "$(date +%s.%N) - $t0" | bc) s: $(du -sh "$DIR/csv" | cut -f1)"
fi
rows=$(cat "$DIR/rows")

# measure OUT: the best elapsed time and the largest max RSS of RUNS runs.
measure() {
	local out=$1 best="" cpu="" rss=0 first="" e u s k i
	for ((i = 0; i < RUNS; i++)); do
		/usr/bin/time -f '%e %U %S %M' -o "$DIR/time.txt" \
			"$CGPERF" plot "$DIR/csv" --utc -o "$DIR/$out" 2>"$DIR/err.txt" ||
			{ cat "$DIR/err.txt" >&2; exit 1; }
		read -r e u s k <"$DIR/time.txt"
		[ -n "$first" ] || first=$e
		if [ -z "$best" ] || [ "$(echo "$e < $best" | bc)" = 1 ]; then
			best=$e
			cpu=$(echo "$u + $s" | bc)
		fi
		[ "$k" -gt "$rss" ] && rss=$k
	done
	printf '%-12s %8s s %8s s %8s s %12.0f rows/s %8.1f MiB  %s\n' "$out" "$best" "$cpu" \
		"$first" "$(echo "$rows / $best" | bc -l)" "$(echo "$rss / 1024" | bc -l)" \
		"$(du -h "$DIR/$out" | cut -f1)"
}

echo "$rows rows in $(ls "$DIR/csv" | wc -l) files ($N containers)"
printf '%-12s %10s %10s %10s %19s %12s  %s\n' output best "CPU (best)" first "rate (best)" "max RSS" size
measure plot.png
measure report.html
