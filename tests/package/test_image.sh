#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The container image and the DaemonSet (docs/PACKAGING.md): the image built
# from packaging/Containerfile (the package/build fixture's .deb on a Debian
# 12 minbase made here with debootstrap and `docker import`ed: no registry)
# in a private dockerd, its containers run with exactly what
# packaging/daemonset.yaml says (tests/package/daemonset_run.py turns the
# manifest into `docker run` arguments; hostPaths outside /sys go under $TMP,
# /sys/fs/bpf is a bpffs instance of the test's own, the configMap is a
# directory with the test's cgperf.yaml). Checked: the
# init container makes the log directory 0750; the agent runs as uid 0 with
# only the manifest's capabilities (CapEff/CapBnd of its process), on a
# read-only root; it counts a burner cgroup of the test's subtree (CSV rows
# in the host directory, cpu-clock against cpu.stat) and a host container of
# that dockerd (kind container, runtime docker, its id); the liveness probe
# passes; `docker stop` ends it with exit code 0, its last rows and a summary
# with no final row lost.
. "$(dirname "$0")/../lib/common.sh"
. "$CGPERF_SRC/tests/lib/runtimes.sh"

env_file="$CGPERF_BUILD/package/deb.env"
[ -f "$env_file" ] || fail "no $env_file: the package/build fixture did not run or failed"
. "$env_file"
rt_need debootstrap capsh python3
MANIFEST=${CGPERF_MANIFEST:-$CGPERF_SRC/packaging/daemonset.yaml}
# ds_read ARRAY CONTAINER ARGS...: daemonset_run.py's output into ARRAY.
ds_read() {
	local -n arr=$1
	shift
	python3 "$CGPERF_SRC/tests/package/daemonset_run.py" "$MANIFEST" "$@" >"$TMP/ds.args" ||
		fail "cannot mirror container $1 of $MANIFEST"
	mapfile -d '' arr <"$TMP/ds.args"
}

# The base image: a Debian 12 minbase from Debian's archive, kept in the
# build tree (about 45 s to make, then reused).
CACHE="$CGPERF_BUILD/image-cache"
BASE_TAR="$CACHE/debian-bookworm-minbase.tar"
if [ ! -s "$BASE_TAR" ]; then
	mkdir -p "$CACHE"
	log "debootstrap --variant=minbase bookworm (cached in $CACHE)"
	debootstrap --variant=minbase bookworm "$TMP/base" http://deb.debian.org/debian \
		>"$TMP/debootstrap.log" 2>&1 || { tail -20 "$TMP/debootstrap.log"; fail "debootstrap failed"; }
	tar -C "$TMP/base" -cf "$BASE_TAR.tmp" . && mv "$BASE_TAR.tmp" "$BASE_TAR"
	rm -rf "$TMP/base"
fi

rt_start_dockerd
$DOCKER import "$BASE_TAR" cgperf-base:bookworm >/dev/null || fail "docker import of the base failed"
mkdir -p "$TMP/ctx"
cp "$CGPERF_SRC/packaging/Containerfile" "$DEB" "$TMP/ctx/"
log "docker build -f packaging/Containerfile --build-arg BASE=cgperf-base:bookworm"
DOCKER_BUILDKIT=0 $DOCKER build --network=host --build-arg BASE=cgperf-base:bookworm \
	-t cgperf:latest -f "$TMP/ctx/Containerfile" "$TMP/ctx" >"$TMP/build.log" 2>&1 ||
	{ tail -20 "$TMP/build.log"; fail "docker build failed"; }
got=$($DOCKER run --rm cgperf:latest --version) || fail "the image's cgperf --version failed"
[ "$got" = "cgperf $DEB_VERSION (git $(git -C "$DEB_SRC" describe --always --tags))" ] ||
	fail "the image's cgperf --version: '$got'"
log "ok: image built: $got"

# The node: a burner cgroup and a host container before the agent starts.
HOST="$TMP/host"
CONF="$TMP/configmap"
LOGDIR="$HOST/var/log/cgperf"
mkdir -p "$CONF" "$LOGDIR"
chmod 0755 "$LOGDIR"
burn_rel=system.slice/burn.service
mkcg "$burn_rel" >/dev/null
cat >"$CONF/cgperf.yaml" <<YAML
instance: image
interval: 1s
events: [cpu-clock]
cgroups:
  root: "$TEST_CG_REL"
  include: ["$TEST_CG_REL/system.slice/*", "$TEST_CG_REL/docker/*"]
outputs:
  csv:
    directory: /var/log/cgperf
YAML
"$CGPERF" check-config "$CONF/cgperf.yaml" >/dev/null || fail "the test's config is refused"
sleeper=$($DOCKER run -d cgperf-bb:1 sleep 2147483647) || fail "docker run of a host container failed"

# The node's bpffs: an instance of the test's own, shared (the DaemonSet's
# HostToContainer propagation needs a shared or slave source; this host's
# /sys/fs/bpf is private), unmounted by rt_stop_all with $RT.
BPFFS="$RT/bpffs"
mkdir -p "$BPFFS"
mount -t bpf -o mode=0700 cgperf-test "$BPFFS" || fail "cannot mount a bpffs at $BPFFS"
mount --make-shared "$BPFFS" || fail "cannot make $BPFFS shared"

# The init container, then the agent.
ds_read init logdir "$HOST" "$CONF"
$DOCKER run --rm "${init[@]}" >"$TMP/init.log" 2>&1 || fail "init container failed: $(cat "$TMP/init.log")"
[ "$(stat -c %a "$LOGDIR")" = 750 ] || fail "the init container left $LOGDIR $(stat -c %a "$LOGDIR"), not 750"
log "ok: init container: the log directory is 0750"
ds_read run cgperf "$HOST" "$CONF" "/sys/fs/bpf=$BPFFS"
agent=$($DOCKER run -d --name cgperf-agent "${run[@]}" 2>"$TMP/run.err") ||
	fail "docker run of the agent failed: $(cat "$TMP/run.err")"
agent_up() {
	[ "$($DOCKER inspect -f '{{.State.Running}}' "$agent")" = true ] ||
		fail "the containerized agent exited (code $($DOCKER inspect -f '{{.State.ExitCode}}' "$agent")): $($DOCKER logs "$agent" 2>&1 | tail -5)"
}
for _ in $(seq 100); do
	agent_up
	$DOCKER logs "$agent" 2>&1 | grep -q "cgroups under" && break
	sleep 0.1
done
$DOCKER logs "$agent" 2>&1 | grep -q "cgroups under" || fail "the agent did not start counting: $($DOCKER logs "$agent" 2>&1 | tail -5)"

# Its user and capabilities, from its process on the host (hostPID).
pid=$($DOCKER inspect -f '{{.State.Pid}}' "$agent")
want=$(python3 -c 'import sys, yaml
for c in yaml.safe_load(open(sys.argv[1]))["spec"]["template"]["spec"]["containers"]:
    if c["name"] == "cgperf":
        print(",".join(sorted("cap_" + x.lower() for x in c["securityContext"]["capabilities"]["add"])))' "$MANIFEST")
uid=$(awk '$1 == "Uid:" { print $2 $3 $4 $5 }' "/proc/$pid/status")
[ "$uid" = 0000 ] || fail "the agent runs with uids $uid, not 0 (runAsUser: 0)"
for set in CapEff CapPrm CapBnd; do
	hex=$(awk -v s="$set:" '$1 == s { print $2 }' "/proc/$pid/status")
	got=$(capsh --decode="$hex" | sed 's/.*=//' | tr ',' '\n' | sort | paste -sd,)
	[ "$got" = "$want" ] || fail "the agent's $set is '$got', the DaemonSet gives '$want'"
done
log "ok: the agent runs as uid 0 with only $want"
if $DOCKER exec "$agent" sh -c ': >/written' 2>/dev/null; then
	fail "the agent's root file system is writable (readOnlyRootFilesystem)"
fi

# A burner counted, rows in the host directory; the host container counted.
burn_pinned "$burn_rel" 0.5 burn
usage_ms=$(($(usage_usec "$burn_rel") / 1000))
has_row() { csv_sum "$LOGDIR" "$TEST_CG_REL/docker/$sleeper" cpu-clock >/dev/null 2>&1; }
poll 50 0.1 has_row || { agent_up; fail "no row of the host container in $LOGDIR: $(ls "$LOGDIR")"; }
python3 - "$LOGDIR" "$TEST_CG_REL/docker/$sleeper" "${sleeper:0:12}" <<'PY' || fail "the host container's rows"
import csv, glob, sys
d, cg, cid = sys.argv[1:]
rows = [r for p in glob.glob(d + "/*.csv") for r in csv.DictReader(open(p)) if r["cgroup"] == cg]
bad = [r for r in rows if (r["kind"], r["runtime"], r["container_id"]) != ("container", "docker", cid)]
if not rows or bad:
    sys.exit("FAIL: %d rows of %s, %d not kind container, runtime docker, id %s: %s" % (len(rows), cg, len(bad), cid, bad[:1]))
print("# ok: the host container's %d rows: kind container, runtime docker, id %s" % (len(rows), cid))
PY
$DOCKER exec "$agent" true || fail "docker exec into the agent failed"
ds_read probe cgperf --probe
$DOCKER exec "$agent" "${probe[@]}" || fail "the liveness probe fails: ${probe[*]}"
log "ok: the liveness probe passes"

# docker stop: SIGTERM, the last rows, exit 0.
$DOCKER stop -t 30 "$agent" >/dev/null || fail "docker stop failed"
code=$($DOCKER inspect -f '{{.State.ExitCode}} {{.State.OOMKilled}}' "$agent")
$DOCKER logs "$agent" >"$TMP/agent.log" 2>&1
[ "$code" = "0 false" ] || fail "the agent ended with exit code/OOM '$code': $(tail -5 "$TMP/agent.log")"
grep -q "Terminated: writing the last rows and exiting" "$TMP/agent.log" || fail "no SIGTERM line: $(tail -5 "$TMP/agent.log")"
grep -q "summary: .* 0 final rows lost" "$TMP/agent.log" || fail "no clean summary: $(grep summary "$TMP/agent.log")"
log "ok: docker stop: exit 0, the last rows, summary"
got=$(csv_sum "$LOGDIR" "$TEST_CG_REL/$burn_rel" cpu-clock | awk '{ print $1 / 1e6 }')
assert_cpu_clock "the containerized agent's CSV rows of the burner" "$got" "$usage_ms" 3 burn
