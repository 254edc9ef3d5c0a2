# SPDX-License-Identifier: GPL-2.0-only
# Tenant-chosen cgroup names with CR, ESC, an OSC title sequence, a C1 CSI,
# a bidirectional override and bytes that are not UTF-8 never reach stderr
# (or the tables on stdout) raw: agent (debug lines), list,
# stat (table, -x rows, errors, usage errors). Every line shows the escaped name instead.
source "$CGPERF_SRC/tests/lib/common.sh"

evil=$'evil\r\e]0;pwned\a\e[31m\xff\xfe\xc2\x9b2J\xe2\x80\xaeraw'
evil_rel=$(mkcg "$evil")
mkcg "$evil/child" >/dev/null

# No control byte but newline, no DEL, valid UTF-8, no C1 control or
# bidirectional override anywhere in FILE.
assert_clean() {
	python3 - "$1" <<'PY' || fail "$2: raw bytes from a cgroup name in the output ($(od -c "$1" | head -20))"
import sys
data = open(sys.argv[1], 'rb').read()
bad = [b for b in data if (b < 0x20 and b != 0x0a) or b == 0x7f]
if bad:
    sys.exit("control bytes %r" % sorted(set(bad)))
text = data.decode('utf-8')  # raises on invalid UTF-8
for ch in text:
    if '\x80' <= ch <= '\x9f' or '\u202a' <= ch <= '\u202e' or '\u2066' <= ch <= '\u2069':
        sys.exit("control character U+%04X" % ord(ch))
PY
}
escaped='evil\\r\\x1b]0;pwned\\x07\\x1b\[31m\\xff\\xfe\\u009b2J\\u202eraw'

# Agent: debug lines name the cgroup as it is counted and stopped.
cat >"$TMP/agent.yaml" <<YAML
interval: 1s
events: [cpu-clock]
cgroups:
  include: ["$TEST_CG_REL/**"]
outputs:
  csv:
    directory: $TMP/csv
YAML
start_bg "$CGPERF" agent -vv -c "$TMP/agent.yaml" 2>"$TMP/agent.log"
AGENT_PID=$LAST_PID
wait_for_line "$TMP/agent.log" "cgroups under" 30
rmdir "$TEST_CG/$evil/child"
sleep 1.2
kill -TERM "$AGENT_PID"
wait "$AGENT_PID" || fail "agent failed"
assert_clean "$TMP/agent.log" agent
grep -q "counting $TEST_CG_REL/$escaped (" "$TMP/agent.log" || fail "no escaped 'counting' line: $(cat "$TMP/agent.log")"
grep -q "stopped counting $TEST_CG_REL/$escaped/child" "$TMP/agent.log" || fail "no escaped 'stopped' line"
log "ok: agent: $(grep -c "$escaped" "$TMP/agent.log") log lines name the cgroup, all escaped"

# list: table (stdout) and errors.
"$CGPERF" list --include "$TEST_CG_REL/**" >"$TMP/list.out" 2>"$TMP/list.err" || fail "list failed"
grep -q "$escaped" "$TMP/list.out" || fail "list does not show the cgroup: $(cat "$TMP/list.out")"
assert_clean "$TMP/list.out" "list (table)"
"$CGPERF" list "--$evil" >"$TMP/list2.out" 2>"$TMP/list2.err" && fail "list took an unknown option"
assert_clean "$TMP/list2.err" "list (error)"
log "ok: list"

# stat: table and -x rows (stdout), its log lines and a missing cgroup's
# error (stderr).
"$CGPERF" stat -v -e cpu-clock -G "$evil_rel" -- sleep 0.2 >"$TMP/stat.out" 2>"$TMP/stat.err" ||
	fail "stat failed: $(cat "$TMP/stat.err")"
grep -q "$escaped" "$TMP/stat.out" || fail "stat does not name the cgroup: $(cat "$TMP/stat.out")"
assert_clean "$TMP/stat.out" "stat (table)"
assert_clean "$TMP/stat.err" "stat (log)"
"$CGPERF" stat -x, -e cpu-clock -G "$evil_rel" -- sleep 0.2 >"$TMP/statx.out" 2>&1 || fail "stat -x failed"
grep -q "$escaped" "$TMP/statx.out" || fail "stat -x does not name the cgroup: $(cat "$TMP/statx.out")"
assert_clean "$TMP/statx.out" "stat -x"
"$CGPERF" stat -e cpu-clock -G "$evil_rel/missing" -- true >"$TMP/stat2.out" 2>&1 && fail "stat took a missing cgroup"
grep -q "$escaped/missing' does not exist" "$TMP/stat2.out" || fail "stat error: $(cat "$TMP/stat2.out")"
assert_clean "$TMP/stat2.out" "stat (error)"
# Usage errors name what was typed escaped, like every command's (cmd/cli.c).
rc=0; "$CGPERF" stat -a "--$evil" >"$TMP/stat3.out" 2>&1 || rc=$?
[ "$rc" = 2 ] || fail "stat with an unknown option: exit $rc: $(cat "$TMP/stat3.out")"
grep -q "unknown option '--$escaped'" "$TMP/stat3.out" || fail "stat usage error: $(cat "$TMP/stat3.out")"
assert_clean "$TMP/stat3.out" "stat (usage error)"
log "ok: stat"
