# SPDX-License-Identifier: GPL-2.0-only
# Real podman 4 (runc, cgroupfs manager, private --root/--runroot, containers
# under this test's tree): a named container, and a container in a pod
# (with an infra container) are listed and logged with their podman names,
# the pod with its pod name, counts matching cpu.stat; look-alikes holding
# their ids under a tenant's user@UID.service subtree get nothing of them.
source "$CGPERF_SRC/tests/lib/common.sh"
source "$CGPERF_SRC/tests/lib/runtimes.sh"
source "$CGPERF_SRC/tests/lib/runtime_checks.sh"

rt_podman_setup
rc_agent_config "$TMP/agent.yaml" "podman: \"$PODMAN_ROOT\""
start_agent agent "$TMP/agent.yaml"
rc_begin
solo=$($PODMAN run -d --name "solo-$$" --label app=solo --cgroup-parent "$PODMAN_PARENT" \
	-v "$RC_GATE_MOUNT:/gate:ro" localhost/cgperf-bb:1 sh -c "$(rc_burn_cmd solo)") || fail "podman run failed"
pod=$($PODMAN pod create --name "shop-$$" --cgroup-parent "$PODMAN_PARENT" \
	--infra-image localhost/cgperf-bb:1 --infra-command /bin/pause) || fail "podman pod create failed"
api=$($PODMAN run -d --name "api-$$" --pod "$pod" -v "$RC_GATE_MOUNT:/gate:ro" \
	localhost/cgperf-bb:1 sh -c "$(rc_burn_cmd api)") ||
	fail "podman run in the pod failed"
p=libpod_parent
for rel in "$p/libpod-$solo" "$p/$pod" "$p/$pod/libpod-$api"; do
	[ -d "$TEST_CG/$rel" ] || fail "podman did not make $TEST_CG_REL/$rel: $(find "$TEST_CG" -maxdepth 3 -type d)"
done
rc_open_gate "$p/libpod-$solo" solo
rc_open_gate "$p/$pod/libpod-$api" api
rc_wait_idle "$p/libpod-$solo"
rc_wait_idle "$p/$pod/libpod-$api"
rc_lookalikes "$api" "$pod"
rc_lookalikes "$solo"
sleep 1.5
rc_check "{
	\"$p/libpod-$solo\": {\"kind\": \"container\", \"runtime\": \"podman\", \"container_name\": \"solo-$$\",
		\"pod_name\": \"\", \"burns\": true},
	\"$p/$pod\": {\"kind\": \"pod\", \"runtime\": \"podman\", \"pod_uid\": \"$pod\", \"pod_name\": \"shop-$$\"},
	\"$p/$pod/libpod-$api\": {\"kind\": \"container\", \"runtime\": \"podman\", \"container_name\": \"api-$$\",
		\"pod_name\": \"shop-$$\", \"pod_uid\": \"$pod\", \"burns\": true}}"
