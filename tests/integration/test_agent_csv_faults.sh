# SPDX-License-Identifier: GPL-2.0-only
# The agent's CSV output under faults: a full filesystem (tiny tmpfs) makes
# writes fail, they are reported, and once space is back the next rows hold
# every count (nothing lost); logrotate-style rename + SIGHUP and copytruncate
# are both followed; an invalid config on SIGHUP is reported and the running
# one kept.
source "$CGPERF_SRC/tests/lib/common.sh"

small="$TMP/small"
mkdir -p "$small"
mount -t tmpfs -o size=64k,mode=0755 cgperf-test "$small" || fail "cannot mount a tmpfs"
test_cleanup() { umount "$small" 2>/dev/null; }

c_rel="system.slice/docker-$(printf '%064x' 7).scope"
mkcg system.slice >/dev/null
cat >"$TMP/agent.yaml" <<YAML
interval: 1s
events: [cpu-clock]
cgroups:
  root: "$TEST_CG_REL"
  include: ["$TEST_CG_REL/system.slice/*"]
outputs:
  csv:
    directory: $small/csv
    flush_interval: 0 # files read mid-run: each row in them at once (held rows
                      # under faults: unit/test_csv_sink test_hold_*)
YAML
start_agent agent "$TMP/agent.yaml"

# 1. Full disk: fill the tmpfs, then a new container appears and burns. Its
#    file cannot even be created (tmpfs allocates whole pages); once space is
#    back its rows must hold every count.
dd if=/dev/zero of="$small/filler" bs=4k 2>/dev/null || true
c=$(mkcg "$c_rel"); wait_counted "$TMP/agent.log" "$c"
burn_pinned "$c_rel" 0.6 c
wait_for_line "$TMP/agent.log" "No space left on device" 10
sleep 1.1
rm -f "$small/filler"
# The burn is over: once space is back, rows come that hold all of it
# (waited for by their sum, however loaded the machine).
usage1=$(usage_usec "$c_rel")
rows_hold() {
	got1=$(csv_sum "$small/csv" "$c" cpu-clock 2>/dev/null | awk '{ print $1 / 1e6 }') &&
		awk -v g="$got1" -v u="$usage1" 'BEGIN { exit !(g >= u / 1000 * 0.97) }'
}
poll $((600 * ${CGPERF_SLOW_FACTOR:-1})) 0.1 rows_hold || true
file=$(ls "$small"/csv/*.csv | head -1)
[ -n "$file" ] || fail "no CSV file once space was back"
got1=$(csv_sum "$small/csv" "$c" cpu-clock | awk '{ print $1 / 1e6 }')
assert_cpu_clock "after a full disk, rows hold every count" "$got1" "$((usage1 / 1000))" 3 c

# 2. logrotate: rename, SIGHUP, keep counting into a fresh file.
mv "$file" "$small/rotated.1"
kill -HUP "$AGENT_PID"
wait_for_line "$TMP/agent.log" "SIGHUP" 5
burn_pinned "$c_rel" 0.3 c
poll $((600 * ${CGPERF_SLOW_FACTOR:-1})) 0.1 test -s "$file" || fail "no new file after rename + SIGHUP"
head -1 "$file" | grep -q '^timestamp,' || fail "new file lacks the header"

# 3. copytruncate by logrotate itself: copy away, truncate in place, no
#    signal. The agent sees the truncation by the close of logrotate's
#    descriptor (its own looks are only every 160 s).
cat >"$TMP/logrotate.conf" <<LR
$file {
	copytruncate
	rotate 1
	nocompress
}
LR
logrotate -f -s "$TMP/logrotate.state" "$TMP/logrotate.conf" || fail "logrotate failed"
[ -s "$file.1" ] || fail "logrotate did not copy $file"
burn_pinned "$c_rel" 0.3 c
# The header and a row after it (a second header would come with a row).
header_again() { head -1 "$file" | grep -q '^timestamp,' && [ "$(grep -c . "$file")" -ge 2 ]; }
poll $((600 * ${CGPERF_SLOW_FACTOR:-1})) 0.1 header_again || fail "truncated file did not get a header again"
[ "$(grep -c '^timestamp,' "$file")" = 1 ] || fail "truncated file has more than one header"

# 4. An invalid config on SIGHUP is reported; counting goes on unchanged.
cp "$TMP/agent.yaml" "$TMP/good.yaml"
printf 'interval: -5s\n' >"$TMP/agent.yaml"
kill -HUP "$AGENT_PID"
wait_for_line "$TMP/agent.log" "agent.yaml:1:11" 5
wait_for_line "$TMP/agent.log" "keeping the running configuration" 5
burn_pinned "$c_rel" 0.2 c
sleep 1.5

# 5. A config that is valid but cannot run (unwritable CSV directory): the
#    agent goes back to the previous one and keeps counting into the same files.
sed "s|directory: .*|directory: /proc/cgperf-nope/csv|" "$TMP/good.yaml" >"$TMP/agent.yaml"
"$CGPERF" check-config "$TMP/agent.yaml" >/dev/null || fail "the unrunnable config should pass check-config"
kill -HUP "$AGENT_PID"
wait_for_line "$TMP/agent.log" "going back to the previous one" 10
# Going back restarts counting (docs/CSV.md: a reload with a changed
# configuration does): burn once the cgroup is counted again.
wait_for_line "$TMP/agent.log" "counting 1 cgroups under" 10
burn_pinned "$c_rel" 0.2 c
sleep 1.5
kill -0 "$AGENT_PID" || fail "agent died on a config it could not run: $(tail -5 "$TMP/agent.log")"
kill -TERM "$AGENT_PID"; wait "$AGENT_PID" || fail "agent failed: $(tail -5 "$TMP/agent.log")"

usage=$(usage_usec "$c_rel")
total=$(python3 - "$small" "$c" <<'PY'
import csv, glob, sys
d, cg = sys.argv[1], sys.argv[2]
t = 0
for p in glob.glob(d + "/csv/*.csv") + glob.glob(d + "/csv/*.csv.1") + [d + "/rotated.1"]:
    for row in csv.DictReader(open(p, newline='')):
        if row['cgroup'] == cg:
            t += int(row['cpu-clock'])
print(t / 1e6)
PY
)
assert_cpu_clock "all rows over rename, truncate and reload" "$total" "$((usage / 1000))" 3 c
