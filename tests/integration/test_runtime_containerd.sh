# SPDX-License-Identifier: GPL-2.0-only
# Real containerd (private root, state and socket) with `ctr run --rootfs
# --cgroup`: a container at a CRI-shaped kubepods path with containerd's CRI
# labels (which ctr makes OCI annotations, as the CRI plugin does) is listed
# and logged as a Kubernetes container of its pod, with container, pod and
# namespace names, runtime found from containerd's files, counts matching
# cpu.stat; look-alikes holding its id and pod uid under a tenant's
# user@UID.service subtree get nothing of it.
source "$CGPERF_SRC/tests/lib/common.sh"
source "$CGPERF_SRC/tests/lib/runtimes.sh"
source "$CGPERF_SRC/tests/lib/runtime_checks.sh"

rt_start_containerd
rt_rootfs "$RT/rootfs"
rc_agent_config "$TMP/agent.yaml" "containerd: \"$CONTAINERD_TASKS\""
start_agent agent "$TMP/agent.yaml"
rc_begin
uid=$(cat /proc/sys/kernel/random/uuid)
id=$(printf '%s' "$uid-app" | sha256sum | cut -c1-64)
rel="kubepods/burstable/pod$uid/$id"
$CTR run -d --rootfs --cgroup "$TEST_CG_REL/$rel" \
	--label io.kubernetes.cri.container-type=container \
	--label io.kubernetes.cri.container-name=app \
	--label io.kubernetes.cri.sandbox-name=payments-api-0 \
	--label io.kubernetes.cri.sandbox-namespace=prod \
	--label io.kubernetes.cri.sandbox-uid="$uid" \
	--mount "type=bind,src=$RC_GATE_MOUNT,dst=/gate,options=rbind:ro" \
	"$RT/rootfs" "$id" /bin/sh -c "$(rc_burn_cmd app)" >/dev/null || fail "ctr run failed: $(tail -5 "$RT/containerd.log")"
[ -d "$TEST_CG/$rel" ] || fail "the container is not at $TEST_CG_REL/$rel"
rc_open_gate "$rel" app
rc_wait_idle "$rel"
rc_lookalikes "$id" "$uid"
sleep 1.5
rc_check "{
	\"$rel\": {\"kind\": \"container\", \"runtime\": \"containerd\", \"container_name\": \"app\",
		\"pod_name\": \"payments-api-0\", \"namespace\": \"prod\", \"pod_uid\": \"$uid\", \"burns\": true},
	\"kubepods/burstable/pod$uid\": {\"kind\": \"pod\", \"pod_uid\": \"$uid\"}}"
