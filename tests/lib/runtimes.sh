# SPDX-License-Identifier: GPL-2.0-only
# Real container runtimes for integration tests: docker (dockerd), podman
# (runc, cgroupfs manager) and containerd (ctr), each with private roots,
# sockets and state under $RT, cgroups only under this test's subtree, an
# image made from busybox-static (no registry). Source after common.sh;
# stop everything with rt_stop_all (a test that defines test_cleanup calls it
# there; otherwise this file defines test_cleanup to do so).
#
#   rt_need CMD...           skip (77) with a reason unless CMD... exist
#   rt_rootfs DIR            busybox rootfs (applets, /bin/pause) in DIR
#   rt_start_dockerd         dockerd on $RT/docker.sock, containers at
#                            $TEST_CG_REL/docker/<id>; sets DOCKER (command),
#                            DOCKER_DATA (its --data-root), image "cgperf-bb:1"
#   rt_podman_setup          podman with its own --root/--runroot, runc, cgroupfs;
#                            sets PODMAN (command), PODMAN_ROOT; image
#                            "localhost/cgperf-bb:1"; PODMAN_PARENT is the cgroup
#                            parent to pass (--cgroup-parent)
#   rt_start_containerd      containerd on $RT/containerd.sock; sets CTR
#                            (command), CONTAINERD_TASKS (its task state dir)
#
# Daemons are stopped by pid (SIGTERM, then SIGKILL), containers removed
# first; the v1 cgroups the runtimes made for this test's paths (hybrid
# hosts) are removed too.
: "${TEST_CG_REL:?source tests/lib/common.sh first}"
RT="$TMP/rt"
mkdir -p "$RT"
RT_DAEMON_PIDS=()
RT_STOPS=()
RT_SHORT=

rt_need() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || skip "$c is not installed (scripts/install-deps installs it)"
	done
}

# rt_wait_for WHAT SECONDS CMD...: retry CMD until it succeeds.
rt_wait_for() {
	local what=$1 t=$2 i; shift 2
	for ((i = 0; i < t * 10; i++)); do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	fail "$what did not come up in ${t}s"
}

rt_rootfs() {
	local d=$1 a
	mkdir -p "$d/bin" "$d/proc" "$d/sys" "$d/dev" "$d/etc" "$d/tmp"
	cp /bin/busybox "$d/bin/busybox"
	for a in sh sleep cat true echo; do ln -sf busybox "$d/bin/$a"; done
	# A pod's infra process: sleeps until it is stopped.
	printf '#!/bin/sh\nexec sleep 2147483647\n' >"$d/bin/pause"
	chmod 755 "$d/bin/pause"
}

rt_image_tar() {
	[ -f "$RT/image.tar" ] && return 0
	rt_rootfs "$RT/image"
	tar -C "$RT/image" -cf "$RT/image.tar" .
}

# rt_start_daemon NAME SOCKET CMD...: start CMD, remember its pid, wait for SOCKET.
rt_start_daemon() {
	local name=$1 sock=$2; shift 2
	"$@" >"$RT/$name.log" 2>&1 &
	RT_DAEMON_PIDS+=("$!")
	rt_wait_for "$name ($(tail -3 "$RT/$name.log" 2>/dev/null))" 30 test -S "$sock"
}

rt_start_dockerd() {
	rt_need dockerd /usr/bin/docker
	rt_image_tar
	DOCKER_DATA="$RT/docker-data"
	# The docker.io client (not another docker on PATH), on our socket only.
	DOCKER="/usr/bin/docker -H unix://$RT/docker.sock"
	rt_start_daemon dockerd "$RT/docker.sock" dockerd --iptables=false --ip6tables=false --bridge=none \
		--data-root "$DOCKER_DATA" --exec-root "$RT/docker-exec" -H "unix://$RT/docker.sock" \
		--pidfile "$RT/dockerd.pid" --exec-opt native.cgroupdriver=cgroupfs \
		--cgroup-parent "$TEST_CG_REL/docker" --storage-driver vfs --log-level warn
	rt_wait_for "dockerd API" 30 $DOCKER version
	$DOCKER import "$RT/image.tar" cgperf-bb:1 >/dev/null || fail "docker import failed"
	RT_STOPS+=("rt_docker_rm")
}

rt_docker_rm() {
	local ids
	ids=$($DOCKER ps -aq 2>/dev/null) || return 0
	[ -z "$ids" ] || $DOCKER rm -f $ids >/dev/null 2>&1 || true
}

rt_podman_setup() {
	rt_need podman runc conmon
	rt_image_tar
	PODMAN_ROOT="$RT/podman-root"
	PODMAN_PARENT="$TEST_CG_REL/libpod_parent"
	# runc: crun refuses hybrid cgroups. The VM refuses podman's default
	# rlimits, so ask for ones it allows.
	cat >"$RT/containers.conf" <<-EOF
	[containers]
	default_ulimits = ["nofile=20000:20000", "nproc=32768:32768"]
	[engine]
	runtime = "runc"
	cgroup_manager = "cgroupfs"
	events_logger = "file"
	events_logfile_path = "$RT/podman-events.log"
	EOF
	export CONTAINERS_CONF="$RT/containers.conf"
	# podman refuses a runroot longer than 50 characters: a short one of its own.
	RT_SHORT=$(mktemp -d /tmp/cgperf-rt.XXXXXX)
	PODMAN="podman --root $PODMAN_ROOT --runroot $RT_SHORT/run --tmpdir $RT/podman-tmp --storage-driver vfs"
	$PODMAN import "$RT/image.tar" localhost/cgperf-bb:1 >"$RT/podman-import.log" 2>&1 ||
		fail "podman import failed: $(tail -3 "$RT/podman-import.log")"
	RT_STOPS+=("rt_podman_rm")
}

rt_podman_rm() {
	$PODMAN pod rm -f -t 0 -a >/dev/null 2>&1 || true
	$PODMAN rm -f -t 0 -a >/dev/null 2>&1 || true
}

rt_start_containerd() {
	rt_need containerd ctr runc
	cat >"$RT/containerd.toml" <<-EOF
	version = 2
	root = "$RT/containerd-root"
	state = "$RT/containerd-state"
	disabled_plugins = ["io.containerd.grpc.v1.cri"]
	[grpc]
	  address = "$RT/containerd.sock"
	[ttrpc]
	  address = "$RT/containerd.sock.ttrpc"
	[debug]
	  address = ""
	[metrics]
	  address = ""
	EOF
	CONTAINERD_TASKS="$RT/containerd-state/io.containerd.runtime.v2.task"
	CTR="ctr --address $RT/containerd.sock"
	rt_start_daemon containerd "$RT/containerd.sock" containerd --config "$RT/containerd.toml"
	rt_wait_for "containerd API" 30 $CTR version
	RT_STOPS+=("rt_ctr_rm")
}

rt_ctr_rm() {
	local ns id
	for ns in $($CTR namespaces ls -q 2>/dev/null); do
		for id in $($CTR -n "$ns" tasks ls -q 2>/dev/null); do
			$CTR -n "$ns" tasks kill -s KILL "$id" >/dev/null 2>&1 || true
		done
		sleep 0.2
		for id in $($CTR -n "$ns" tasks ls -q 2>/dev/null); do
			$CTR -n "$ns" tasks rm -f "$id" >/dev/null 2>&1 || true
		done
		for id in $($CTR -n "$ns" containers ls -q 2>/dev/null); do
			$CTR -n "$ns" containers rm "$id" >/dev/null 2>&1 || true
		done
	done
}

# The v1 cgroups (hybrid hosts) that runc made for this test's paths.
rt_rm_v1_cgroups() {
	local m
	for m in $(mounts_of cgroup); do
		[ -d "$m$TEST_CG_REL" ] && find "$m$TEST_CG_REL" -depth -type d -exec rmdir {} + 2>/dev/null
	done
	return 0
}

rt_stop_all() {
	local f pid i
	for f in "${RT_STOPS[@]}"; do "$f"; done
	for pid in "${RT_DAEMON_PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
	for pid in "${RT_DAEMON_PIDS[@]}"; do
		for ((i = 0; i < 100; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	RT_STOPS=() RT_DAEMON_PIDS=()
	rt_rm_v1_cgroups
	# Mounts the runtimes left under their directories, then the short one
	# ($RT goes with $TMP).
	for d in "$RT" ${RT_SHORT:+"$RT_SHORT"}; do
		awk -v r="$d" 'index($5, r) == 1 { print $5 }' /proc/self/mountinfo | sort -r |
			while read -r m; do umount -l "$m" 2>/dev/null || true; done
	done
	[ -z "$RT_SHORT" ] || rm -rf "$RT_SHORT"
}

declare -F test_cleanup >/dev/null || test_cleanup() { rt_stop_all; }
