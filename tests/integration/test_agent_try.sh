# SPDX-License-Identifier: GPL-2.0-only
# Trying the agent leaves nothing behind, and says why it counts nothing.
# persist: auto (the default): an agent started in a terminal (a real
# pseudo-terminal from script(1)) says so at start and leaves no session
# pinned when it ends; the same run without a terminal (a service: standard
# input /dev/null) leaves its session counting for the next agent;
# --persist in a terminal does too; check-config shows auto. A selection
# that matches nothing says so in one line, with how many cgroups there are
# and how to see them. The embedded default on a systemd-shaped tree
# without containers shows its services and sessions.
source "$CGPERF_SRC/tests/lib/common.sh"

agent_yaml "$TMP/agent.yaml" <<YAML
  csv:
    directory: $TMP/csv
YAML
mkcg app >/dev/null
run_in_cg app sleep 600
SESSION="$CGPERF_BPFFS_DIR/instances/default/session"
"$CGPERF" check-config --print "$TMP/agent.yaml" >"$TMP/check.out" || fail "check-config failed"
grep -qx 'persist: auto' "$TMP/check.out" || fail "check-config does not show persist: auto: $(grep persist "$TMP/check.out")"

# tty CMD...: CMD with a pseudo-terminal as its standard input, output and
# error; what it printed in $TMP/tty.out.
tty() {
	local cmd
	printf -v cmd '%q ' "$@"
	script -qefc "$cmd" "$TMP/tty.out" </dev/null >/dev/null || fail "$* in a terminal failed: $(cat "$TMP/tty.out")"
}
in_terminal() { tty "$CGPERF" agent -c "$TMP/agent.yaml" --duration 2 "$@"; }

in_terminal
grep -q 'run from a terminal: counting ends with this run' "$TMP/tty.out" ||
	fail "no line about the terminal: $(cat "$TMP/tty.out")"
[ ! -e "$SESSION" ] || fail "a run in a terminal left its session pinned"
[ -n "$(ls "$TMP"/csv/*.csv 2>/dev/null)" ] || fail "the run in a terminal wrote no rows"
log "ok: in a terminal: said so, counted, left nothing pinned"

"$CGPERF" agent -c "$TMP/agent.yaml" --duration 2 </dev/null 2>"$TMP/service.log" || fail "agent failed: $(cat "$TMP/service.log")"
grep -q 'run from a terminal' "$TMP/service.log" && fail "a run without a terminal says it is in one"
[ -e "$SESSION" ] || fail "a run without a terminal left no session for the next agent"
grep -q "counting goes on in the kernel" "$TMP/service.log" || fail "no line about the kept session: $(cat "$TMP/service.log")"
# Ended for good from a terminal, as an operator (or apt's prerm) does.
tty "$CGPERF" release -c "$TMP/agent.yaml"
[ ! -e "$SESSION" ] || fail "cgperf release in a terminal left the session pinned: $(cat "$TMP/tty.out")"
log "ok: without a terminal (a service): the session stays for the next agent; release in a terminal ends it"

in_terminal --persist
grep -q 'run from a terminal' "$TMP/tty.out" && fail "--persist in a terminal still ends counting"
[ -e "$SESSION" ] || fail "--persist in a terminal left no session"
"$CGPERF" release -c "$TMP/agent.yaml" </dev/null 2>/dev/null || fail "release failed"
log "ok: --persist in a terminal keeps the session"

# ---- a selection that matches nothing ----
cat >"$TMP/none.yaml" <<YAML
interval: 1s
events: [cpu-clock]
cgroups:
  include: ["$TEST_CG_REL/no-such-cgroup/**"]
outputs:
  csv:
    directory: $TMP/csv-none
YAML
"$CGPERF" agent -c "$TMP/none.yaml" --no-persist --duration 1 2>"$TMP/none.log" || fail "agent failed: $(cat "$TMP/none.log")"
n=$(find "$CG2" -mindepth 1 -type d | wc -l)
line=$(grep 'nothing to count yet' "$TMP/none.log") || fail "no line about an empty selection: $(cat "$TMP/none.log")"
[ "$(grep -c 'nothing to count yet' "$TMP/none.log")" = 1 ] || fail "more than one line: $(cat "$TMP/none.log")"
grep -q "none of the [0-9]* cgroups under $CG2 matches the selection" <<<"$line" || fail "unclear: $line"
grep -q "cgperf list --all" <<<"$line" || fail "does not say how to see them: $line"
log "ok: an empty selection says so once ($n cgroups under $CG2 now): $line"

# ---- a host without containers: its services and sessions ----
# The embedded default (only its root and directory moved into this test's
# tree) on a systemd-shaped tree: services, sessions and slices are rows,
# infrastructure (init.scope, *.mount, *.socket) is not.
"$CGPERF" check-config --default >"$TMP/default.yaml" || fail "check-config --default failed"
python3 - "$TMP/default.yaml" "$TEST_CG_REL" "$TMP/csv-default" <<'PY' || fail "cannot move the default into the test tree"
import re, sys
path, root, csv = sys.argv[1:4]
t = open(path).read()
t, n1 = re.subn(r'(?m)^(  root: )\S+', r'\g<1>"%s"' % root, t)
t, n2 = re.subn(r'(?m)^(  include: )\[.*?\]', r'\g<1>["%s/**"]' % root, t)
t, n3 = re.subn(r'(?m)^(    directory: )\S+', r'\g<1>%s' % csv, t)
t, n4 = re.subn(r'(?m)^interval: \S+', 'interval: 1s', t)
if (n1, n2, n3, n4) != (1, 1, 1, 1):
    sys.exit("default config changed shape: %s" % ((n1, n2, n3, n4),))
open(path, 'w').write(t)
PY
for c in system.slice/cron.service system.slice/ssh.service user.slice/user-1000.slice/session-3.scope \
	init.scope system.slice/var-lib.mount system.slice/dbus.socket; do
	mkcg "$c" >/dev/null
done
run_in_cg system.slice/cron.service sleep 600
"$CGPERF" agent -c "$TMP/default.yaml" --no-persist --duration 2 </dev/null 2>"$TMP/default.log" ||
	fail "the default failed: $(cat "$TMP/default.log")"
rows=$(python3 - "$TMP/csv-default" "$TEST_CG_REL" <<'PY'
import csv, glob, sys
seen = set()
for f in glob.glob(sys.argv[1] + '/*.csv'):
    for r in csv.DictReader(open(f, encoding='utf-8')):
        seen.add(r['cgroup'][len(sys.argv[2]):])
print(' '.join(sorted(seen)))
PY
)
for want in /system.slice/cron.service /system.slice/ssh.service /user.slice/user-1000.slice/session-3.scope; do
	grep -qw -- "$want" <<<"$rows" || fail "the default did not show $want: $rows"
done
for not in /init.scope /system.slice/var-lib.mount /system.slice/dbus.socket; do
	! grep -qw -- "$not" <<<"$rows" || fail "the default showed infrastructure $not: $rows"
done
log "ok: the embedded default on a host without containers shows its services and sessions: $rows"
