#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# ctest fixture "deb": build the Debian package from a clean clone of the
# source tree's HEAD (what was committed, as CI sees it), then lintian.
# Output: $CGPERF_BUILD/package/cgperf_<version>_<arch>.deb (and deb.env
# naming it for the tests that need it). Nothing is kept outside the build tree.
set -euo pipefail
: "${CGPERF_SRC:?}" "${CGPERF_BUILD:?}"
fail() { echo "FAIL: $*" >&2; exit 1; }
log() { echo "# $*"; }

for tool in git dpkg-buildpackage lintian dh scdoc; do
	command -v "$tool" >/dev/null || fail "$tool is missing (scripts/install-deps installs it)"
done
OUT="$CGPERF_BUILD/package"
rm -rf "$OUT"
mkdir -p "$OUT"
git clone -q "$CGPERF_SRC" "$OUT/cgperf"
if [ -n "$(git -C "$CGPERF_SRC" status --porcelain --untracked-files=no 2>/dev/null)" ]; then
	log "note: the source tree has uncommitted changes; the package is built from HEAD"
fi

version=$(sed -n '/^project/s/.* VERSION \([0-9.]*\).*/\1/p' "$CGPERF_SRC/CMakeLists.txt")
arch=$(dpkg --print-architecture)
[ -n "$version" ] || fail "no project VERSION in CMakeLists.txt"
log "dpkg-buildpackage -us -uc -b (version $version)"
(cd "$OUT/cgperf" && DEB_BUILD_OPTIONS="parallel=$(nproc)" dpkg-buildpackage -us -uc -b) \
	>"$OUT/build.log" 2>&1 || { tail -40 "$OUT/build.log"; fail "dpkg-buildpackage failed"; }
deb="$OUT/cgperf_${version}_${arch}.deb"
[ -f "$deb" ] || { ls -l "$OUT"; fail "no $deb"; }
log "built $(basename "$deb")"

# Errors and warnings fail; pedantic/info tags are shown, not fatal.
if ! lintian --fail-on error,warning --pedantic -I "$OUT/cgperf_${version}_${arch}.changes" \
	>"$OUT/lintian.log" 2>&1; then
	cat "$OUT/lintian.log"
	fail "lintian reports errors or warnings"
fi
sed 's/^/# lintian: /' "$OUT/lintian.log"
grep -E '^[EW]: ' "$OUT/lintian.log" && fail "lintian output has E:/W: tags"
printf 'DEB=%q\nDEB_VERSION=%q\nDEB_SRC=%q\n' "$deb" "$version" "$OUT/cgperf" >"$OUT/deb.env"
echo "ok: package built and lintian clean"
