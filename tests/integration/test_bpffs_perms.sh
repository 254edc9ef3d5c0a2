# SPDX-License-Identifier: GPL-2.0-only
# cgperf's bpffs directory is trusted only when it is root's and not a
# symlink (bpffs mounted without mode= lets anyone make it first; its owner
# could then hold the lock or swap the attr map); the same for the attr map
# pin. Each refusal is one line naming the path, exit 1.
source "$CGPERF_SRC/tests/lib/common.sh"

try_stat() { # try_stat WHAT: cgperf stat must refuse, saying WHAT
	if "$CGPERF" stat -a -e cpu-clock --duration 0.2 >"$TMP/out" 2>"$TMP/err"; then
		fail "cgperf stat used $CGPERF_BPFFS_DIR ($1)"
	fi
	grep -q "$1" "$TMP/err" || fail "no line saying '$1': $(cat "$TMP/err")"
	log "refused: $(grep -m1 "$1" "$TMP/err")"
}

# Sanity: it works with a directory of root's.
"$CGPERF" stat -a -e cpu-clock --duration 0.2 >/dev/null 2>"$TMP/err" || fail "$(cat "$TMP/err")"

# The attr map pin replaced by someone else's.
chown 65534:65534 "$CGPERF_BPFFS_DIR/attr_map"
try_stat "is not a pin of root's"
rm -f "$CGPERF_BPFFS_DIR/attr_map"

# The directory made by another user.
chown 65534:65534 "$CGPERF_BPFFS_DIR"
try_stat "not owned by root"
chown 0:0 "$CGPERF_BPFFS_DIR"

# A symlink to a directory elsewhere in bpffs.
real="$CGPERF_BPFFS_DIR-real"
mkdir "$real"
rmdir "$CGPERF_BPFFS_DIR"
if ln -s "$real" "$CGPERF_BPFFS_DIR" 2>/dev/null; then
	try_stat "a symlink"
	rm -f "$CGPERF_BPFFS_DIR"
else
	log "bpffs takes no symlinks here: that case cannot be made"
fi
rmdir "$real"
log "ok: foreign owners and symlinks refused"
