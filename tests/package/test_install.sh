#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The package on this machine: dpkg -i, what it installed works (version, man
# pages, conffile, unit, completion, one agent run), an upgrade keeps the
# pinned state, remove keeps the conffile, purge leaves nothing behind.
# The agent runs are the installed binary's.
CGPERF=/usr/sbin/cgperf
. "$(dirname "$0")/../lib/common.sh"

env_file="$CGPERF_BUILD/package/deb.env"
[ -f "$env_file" ] || fail "no $env_file: the package/build fixture did not run or failed"
. "$env_file"
if dpkg-query -W -f='${Status}' cgperf 2>/dev/null | grep -q "installed"; then
	skip "a cgperf package is already installed on this host; not replacing it"
fi
# cgperf's bpffs directory of this test (common.sh exports it; the installed
# agent and the maintainer scripts run by dpkg inherit it).
PINS=$CGPERF_BPFFS_DIR
test_cleanup() {
	[ -z "${AGENT_PID:-}" ] || kill -TERM "$AGENT_PID" 2>/dev/null || true
	dpkg --purge cgperf >/dev/null 2>&1 || true
}

log "dpkg -i $(basename "$DEB")"
dpkg -i "$DEB" >"$TMP/dpkg.log" 2>&1 || { cat "$TMP/dpkg.log"; fail "dpkg -i failed"; }
dpkg-query -W -f='${Status}\n' cgperf | grep -q "install ok installed" || fail "not installed"
dpkg -L cgperf | sort >"$TMP/files"

# The version: CMake's project version and the clone's git description.
want="cgperf $DEB_VERSION (git $(git -C "$DEB_SRC" describe --always --tags))"
got=$(cgperf --version)
[ "$got" = "$want" ] || fail "cgperf --version: '$got', expected '$want'"
[ "$(command -v cgperf)" = /usr/sbin/cgperf ] || fail "cgperf is $(command -v cgperf), not /usr/sbin/cgperf"
log "ok: $got"

for page in cgperf cgperf-agent cgperf-stat cgperf-list cgperf-events cgperf-check-config; do
	man -w 8 "$page" >/dev/null || fail "man page $page(8) not found"
done
man -w 5 cgperf.yaml >/dev/null || fail "man page cgperf.yaml(5) not found"
# Rendered without troff warnings.
for f in $(grep '/usr/share/man/.*\.gz$' "$TMP/files"); do
	w=$(LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=80 man --warnings -E UTF-8 -l "$f" 2>&1 >/dev/null) || true
	[ -z "$w" ] || fail "$f: troff warnings: $w"
done
log "ok: man pages"

# The Prometheus rules, as examples a fleet copies: where the docs say, and
# valid for the promtool of this host.
rules=$(grep -E '/usr/share/doc/cgperf/examples/prometheus/cgperf-rules\.yml(\.gz)?$' "$TMP/files") ||
	fail "the Prometheus rules are not installed: $(grep examples "$TMP/files")"
case $rules in *.gz) zcat "$rules" >"$TMP/rules.yml" ;; *) cp "$rules" "$TMP/rules.yml" ;; esac
promtool check rules "$TMP/rules.yml" >"$TMP/promtool.log" 2>&1 || fail "promtool refused the installed rules: $(cat "$TMP/promtool.log")"
log "ok: $rules installed, promtool check rules clean"

cgperf check-config /etc/cgperf/cgperf.yaml | grep -qx "/etc/cgperf/cgperf.yaml: OK" ||
	fail "check-config /etc/cgperf/cgperf.yaml"
cgperf check-config --default | cmp -s - /etc/cgperf/cgperf.yaml ||
	fail "/etc/cgperf/cgperf.yaml is not the embedded default"
dpkg-query -W -f='${Conffiles}\n' cgperf | grep -q "^ /etc/cgperf/cgperf.yaml " ||
	fail "/etc/cgperf/cgperf.yaml is not a conffile"
log "ok: conffile is the embedded default and passes check-config"

unit=/lib/systemd/system/cgperf.service
[ -f "$unit" ] || fail "no $unit"
out=$(systemd-analyze verify "$unit" 2>&1) || fail "systemd-analyze verify: $out"
[ -z "$out" ] || fail "systemd-analyze verify is not clean: $out"
# dh_installsystemd enabled it (the symlink exists even where PID 1 is not systemd).
[ -L /etc/systemd/system/multi-user.target.wants/cgperf.service ] || fail "cgperf.service not enabled"
log "ok: unit installed, enabled, verify clean"

comp=$(bash -c '. /usr/share/bash-completion/completions/cgperf
	COMP_WORDS=(cgperf check-c); COMP_CWORD=1; _cgperf; echo "${COMPREPLY[*]}"
	COMP_WORDS=(cgperf stat --for-each); COMP_CWORD=2; _cgperf; echo "${COMPREPLY[*]}"')
[ "$comp" = $'check-config\n--for-each-cgroup' ] || fail "bash completion gave: $comp"
log "ok: bash completion"

for d in README.md AGENT.md; do
	[ -f "/usr/share/doc/cgperf/$d" ] || [ -f "/usr/share/doc/cgperf/$d.gz" ] || fail "no /usr/share/doc/cgperf/$d"
done

# The installed binary, once, on the installed configuration: it counts a
# cgroup burning CPU and writes its rows.
start_agent agent /etc/cgperf/cgperf.yaml --csv-dir "$TMP/csv" --interval 1s
c=$(mkcg work)
wait_counted "$TMP/agent.log" "$c"
run_in_cg work "$BURN" 0.5
wait "$LAST_PID"
kill -TERM "$AGENT_PID"
wait "$AGENT_PID" || { cat "$TMP/agent.log"; fail "the installed agent exited with $?"; }
AGENT_PID=
got=$(csv_sum "$TMP/csv" "$c" cpu-clock | awk '{ print $1 / 1e3 }')
assert_within_pct "installed agent: cpu-clock of $c vs cpu.stat (us)" "$got" "$(usage_usec work)" 10
[ -d "$PINS" ] || fail "the agent left no pinned state in $PINS to check removal against"

# An upgrade (the same version again) keeps the pinned state.
dpkg -i "$DEB" >"$TMP/dpkg.log" 2>&1 || { cat "$TMP/dpkg.log"; fail "reinstall failed"; }
[ -d "$PINS" ] || fail "an upgrade released the pinned state"
log "ok: upgrade keeps $PINS"

# Remove: binary gone, conffile kept, pins released.
dpkg --remove cgperf >"$TMP/dpkg.log" 2>&1 || { cat "$TMP/dpkg.log"; fail "dpkg --remove failed"; }
[ ! -e /usr/sbin/cgperf ] || fail "/usr/sbin/cgperf left after remove"
[ -f /etc/cgperf/cgperf.yaml ] || fail "remove deleted the conffile (only purge may)"
if [ -e "$PINS" ]; then
	ls -la "$PINS"
	fail "pinned state left in $PINS after remove"
fi
log "ok: remove released the pins and kept the conffile"

mkdir -p /var/log/cgperf && echo x >/var/log/cgperf/planted.csv
dpkg --purge cgperf >"$TMP/dpkg.log" 2>&1 || { cat "$TMP/dpkg.log"; fail "dpkg --purge failed"; }
left=()
while read -r f; do
	[ -e "$f" ] || continue
	[ -d "$f" ] && [ -n "$(dpkg -S "$f" 2>/dev/null)" ] && continue   # a directory other packages own
	case $f in /. | /etc | /lib | /lib/systemd | /lib/systemd/system | /usr | /usr/sbin | /usr/share | /usr/share/doc | /usr/share/man | /usr/share/man/man5 | /usr/share/man/man8 | /usr/share/bash-completion | /usr/share/bash-completion/completions) continue ;; esac
	left+=("$f")
done <"$TMP/files"
for f in /etc/cgperf /var/log/cgperf /etc/systemd/system/multi-user.target.wants/cgperf.service "$PINS"; do
	[ -e "$f" ] && left+=("$f")
done
[ ${#left[@]} -eq 0 ] || fail "left after purge: ${left[*]}"
dpkg-query -W cgperf >/dev/null 2>&1 && dpkg-query -W -f='${Status}\n' cgperf | grep -qv "not-installed" &&
	fail "dpkg still knows cgperf: $(dpkg-query -W -f='${Status}' cgperf)"
echo "ok: installed, used, upgraded, removed and purged without leftovers"
