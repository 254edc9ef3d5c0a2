# SPDX-License-Identifier: GPL-2.0-only
# A disk that fills up: a 64 KiB tmpfs at $small (unmounted lazily at exit:
# a failing case may leave its agent running until the cleanup's kills).
# fill: take every free page; unfill: give them back. Source after common.sh.
small="$TMP/small"
mkdir -p "$small"
mount -t tmpfs -o size=64k,mode=0755 cgperf-test "$small" || fail "cannot mount a tmpfs"
test_cleanup() { umount -l "$small" 2>/dev/null; }
fill() { dd if=/dev/zero of="$small/filler" bs=4k 2>/dev/null || true; }
unfill() { rm -f "$small/filler"; }
