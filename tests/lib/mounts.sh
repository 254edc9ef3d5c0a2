# SPDX-License-Identifier: GPL-2.0-only
# mounts_of TYPE: the mount points of filesystems of TYPE, one a line, from
# /proc/self/mountinfo. The fs type is the field after the lone "-", since the
# optional fields before it vary in number (none under private propagation:
# containers, hosts without systemd; one or more with shared mounts).
# Mount points come unescaped (mountinfo writes ' ' as \040).
mounts_of() {
	awk -v want="$1" '{
		for (i = 7; i <= NF; i++) if ($i == "-") {
			if ($(i + 1) == want) print $5
			break
		}
	}' /proc/self/mountinfo | while IFS= read -r m; do printf '%b\n' "$m"; done
}
