# SPDX-License-Identifier: GPL-2.0-only
# The agent's CSV file management, end to end: outputs.csv.max_size and
# max_files reach the sink (rotation past max_size, at most max_files rotated
# files, .1 the newest), keep_removed and max_total_size delete files nobody
# writes (counted in the summary line), and an existing directory with a
# loose mode is tightened to 0750.
source "$CGPERF_SRC/tests/lib/common.sh"

c=$(mkcg rot)
csv="$TMP/csv"
mkdir -m 0755 "$csv"
# Left by earlier runs: a file of a cgroup removed three days ago (past
# keep_removed), and a recent big rotated file of another removed cgroup
# (kept by age, but over max_total_size).
printf 'timestamp\n' >"$csv/old.service.csv"
touch -d '3 days ago' "$csv/old.service.csv"
head -c 40000 /dev/zero | tr '\0' 'x' >"$csv/big_0123456789abcdef.csv.1"
printf 'notes\n' >"$csv/README"
touch -d '30 days ago' "$csv/README"
cat >"$TMP/agent.yaml" <<YAML
interval: 1s
events: [cpu-clock]
cgroups:
  include: ["$c"]
outputs:
  csv:
    directory: $csv
    max_size: 400
    max_files: 2
    keep_removed: 2d
    max_total_size: 20KiB
YAML
start_agent agent "$TMP/agent.yaml"
wait_counted "$TMP/agent.log" "$c"
run_in_cg rot "$BURN" 9
wait_for_line "$TMP/agent.log" "tightened to 0750" 5
# Rows of about 110 bytes, a header of about 100: rotated every 3 rows.
sleep 10
kill -TERM "$AGENT_PID"; wait "$AGENT_PID" || fail "agent failed: $(tail -5 "$TMP/agent.log")"

[ "$(stat -c %a "$csv")" = 750 ] || fail "directory mode $(stat -c %a "$csv"), expected 750"
summary=$(grep "summary:" "$TMP/agent.log")
log "$summary"
echo "$summary" | grep -q "2 files deleted (1 of removed cgroups, 1 for max_total_size)" ||
	fail "retention not in the summary: $summary"
[ ! -e "$csv/old.service.csv" ] || fail "a removed cgroup's file past keep_removed was kept"
[ ! -e "$csv/big_0123456789abcdef.csv.1" ] || fail "max_total_size was not enforced"
[ -e "$csv/README" ] || fail "a file that is not the sink's was deleted"

python3 - "$csv" "$c" <<'PY' || fail "rotation by the agent's max_size/max_files is wrong"
import csv, glob, os, sys
d, cg = sys.argv[1], sys.argv[2]
mine = {p.split(".csv")[0] for p in glob.glob(d + "/*.csv*") if cg in open(p, errors="replace").read()}
assert len(mine) == 1, mine
base = mine.pop() + ".csv"
files = [base + ".2", base + ".1"] + ([base] if os.path.exists(base) else [])  # oldest first
assert os.path.exists(base + ".1") and os.path.exists(base + ".2"), os.listdir(d)
assert not os.path.exists(base + ".3"), "more than max_files rotated files"
prev = ""
for p in files:
    rows = list(csv.DictReader(open(p, newline='')))
    if p != base:
        size = os.path.getsize(p)
        assert 400 < size < 400 + 200, (p, size)  # rotated right after passing max_size
    assert rows, p
    first, last = rows[0]["timestamp"], rows[-1]["timestamp"]
    assert first > prev, (p, first, prev)       # .2 older than .1 older than current
    prev = last
    print("#", os.path.basename(p), len(rows), "rows", first, "..", last)
PY
log "ok: max_size/max_files rotation, .1 newest; retention and directory mode"
