# SPDX-License-Identifier: GPL-2.0-only
# A real dockerd (private data root, socket and exec root; cgroupfs driver,
# containers under this test's tree): a named, labelled container is listed
# and logged with its docker name, kind container, runtime docker, and its
# cpu-clock matches cpu.stat; look-alikes holding its id under a tenant's
# user@UID.service subtree get nothing of it.
source "$CGPERF_SRC/tests/lib/common.sh"
source "$CGPERF_SRC/tests/lib/runtimes.sh"
source "$CGPERF_SRC/tests/lib/runtime_checks.sh"

rt_start_dockerd
rc_agent_config "$TMP/agent.yaml" "docker: \"$DOCKER_DATA\""
start_agent agent "$TMP/agent.yaml"
rc_begin
id=$($DOCKER run -d --name "web-$$" --label app=web --label tier=front \
	-v "$RC_GATE_MOUNT:/gate:ro" cgperf-bb:1 sh -c "$(rc_burn_cmd web)") ||
	fail "docker run failed: $(tail -5 "$RT/dockerd.log")"
[ "${#id}" = 64 ] || fail "docker run printed '$id', not a container id"
rel="docker/$id"
[ -d "$TEST_CG/$rel" ] || fail "the container is not at $TEST_CG_REL/$rel: $(find "$TEST_CG" -maxdepth 2)"
rc_open_gate "$rel" web
rc_wait_idle "$rel"
rc_lookalikes "$id"
sleep 1.5 # a row for the look-alikes too
rc_check "{\"$rel\": {\"kind\": \"container\", \"runtime\": \"docker\", \"container_name\": \"web-$$\",
	\"pod_name\": \"\", \"burns\": true}}"
