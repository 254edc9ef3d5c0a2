#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The man pages (docs/man/*.scd, built by scdoc) and the binary agree: every
# command of 'cgperf --help' has its page, every option a command's --help
# lists is documented in that page, and every option the page documents is
# one the command accepts. Pages render without troff warnings.
. "$(dirname "$0")/../lib/common.sh"

MAN="$CGPERF_BUILD/man"
[ -d "$MAN" ] || skip "no man pages in the build (scdoc missing; scripts/install-deps installs it)"
SCD="$CGPERF_SRC/docs/man"

# Options in the option column of a --help text ("  -c, --config FILE  text").
help_options() {
	awk '/^ +-/ { for (i = 1; i <= NF; i++) { w = $i; sub(/,$/, "", w); if (w !~ /^--?[A-Za-z]/) break; print w } }' | sort -u
}
# Options a page documents: "*-c*, *--config* _FILE_" lines of OPTIONS.
page_options() {
	awk '/^# OPTIONS/ { on = 1; next } /^# / { on = 0 } on && /^\*-/' "$1" |
		grep -oE '\*--?[A-Za-z][A-Za-z0-9-]*\*' | tr -d '*' | sort -u
}

commands=$("$CGPERF" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }')
[ -n "$commands" ] || fail "no commands in cgperf --help"
for page in cgperf.8 cgperf.yaml.5 $(printf 'cgperf-%s.8 ' $commands); do
	[ -f "$SCD/$page.scd" ] || fail "no man page source docs/man/$page.scd"
	[ -f "$MAN/$page" ] || fail "$page not built"
	w=$(MANWIDTH=80 man --warnings -l "$MAN/$page" 2>&1 >/dev/null) || true
	[ -z "$w" ] || fail "$page: troff warnings: $w"
done
for cmd in $commands; do
	page="$SCD/cgperf-$cmd.8.scd"
	"$CGPERF" "$cmd" --help 2>&1 | help_options >"$TMP/help"
	page_options "$page" >"$TMP/page"
	missing=$(comm -23 "$TMP/help" "$TMP/page" | tr '\n' ' ')
	extra=$(comm -13 "$TMP/help" "$TMP/page" | grep -vxE -- '-h|--help' | tr '\n' ' ') || true
	[ -z "$missing" ] || fail "cgperf $cmd --help has options its man page lacks: $missing"
	[ -z "$extra" ] || fail "cgperf-$cmd(8) documents options cgperf $cmd --help does not list: $extra"
	log "ok: cgperf-$cmd(8) documents $(wc -l <"$TMP/help") options"
done
"$CGPERF" --version | grep -qE '^cgperf [0-9]+\.[0-9]+\.[0-9]+( \(git [^)]+\))?$' ||
	fail "cgperf --version: $("$CGPERF" --version)"
echo "ok: man pages match the commands and their options"
