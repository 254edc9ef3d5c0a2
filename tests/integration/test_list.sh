# SPDX-License-Identifier: GPL-2.0-only
# cgperf list on real cgroup trees shaped like each runtime's layout (built in
# this test's own subtree, which is cgroups.root, with processes inside),
# names from fixture metadata, odd bytes in paths and names; look-alikes of
# those containers and pods made where a tenant can (a user manager's tree,
# inside a container) are not taken for them.
source "$CGPERF_SRC/tests/lib/common.sh"
FIX="$CGPERF_SRC/tests/fixtures/metadata"
cat >"$TMP/list.yaml" <<EOF
cgroups:
  root: "$TEST_CG_REL"
  include: ["$TEST_CG_REL/**"]
metadata:
  docker: "$FIX/docker"
  containerd: "$FIX/containerd"
  crio: "$FIX/crio"
  podman: "$FIX/podman"
  pod_logs: "$FIX/pod_logs"
  rootless_docker: "$TMP/home-%u/docker"
  rootless_podman: ""
  rootless_containerd: ""
EOF
sha() { printf '%s' "$1" | sha256sum | cut -c1-64; }
web=$(sha docker-web); odd=$(sha docker-odd); any=$(printf '%064x' 42)
uid=3f0a9c1e-5b7d-4e2f-9a61-2b4c8d0e6f11; uid_=${uid//-/_}

mkcg "system.slice/docker-$web.scope" >/dev/null
mkcg "system.slice/docker-$odd.scope" >/dev/null
mkcg "system.slice/my\\x2dapp.service" >/dev/null
mkcg "system.slice/crio-conmon-$any.scope" >/dev/null
mkcg "kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod$uid_.slice/cri-containerd-$any.scope" >/dev/null
mkcg "kubepods/besteffort/pod$uid/$any" >/dev/null
mkcg "machine.slice/libpod-$any.scope/container" >/dev/null
mkcg "lxc.payload.web1" >/dev/null
# Every QoS class with both kubelet drivers (guaranteed pods sit directly
# under kubepods), each runtime prefix, kind's node prefix, CRI-O, nerdctl,
# rootless docker and podman.
n=100
for qos in guaranteed burstable besteffort; do
	for rt in cri-containerd crio docker; do
		n=$((n + 1)); u=$(printf '%08x-0000-4000-8000-%012x' $n $n); id=$(printf '%064x' $n)
		if [ $qos = guaranteed ]; then
			mkcg "kubepods.slice/kubepods-pod${u//-/_}.slice/$rt-$id.scope" >/dev/null
			mkcg "kubepods/pod$u/$id" >/dev/null
		else
			mkcg "kubepods.slice/kubepods-$qos.slice/kubepods-$qos-pod${u//-/_}.slice/$rt-$id.scope" >/dev/null
			mkcg "kubepods/$qos/pod$u/$id" >/dev/null
		fi
	done
done
kind_uid=$(printf '%08x-0000-4000-8000-%012x' 200 200)
mkcg "kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-besteffort.slice/kubelet-kubepods-besteffort-pod${kind_uid//-/_}.slice/cri-containerd-$(printf '%064x' 200).scope" >/dev/null
mkcg "system.slice/crio-$(printf '%064x' 201).scope" >/dev/null
mkcg "system.slice/nerdctl-$(printf '%064x' 202).scope" >/dev/null
mkcg "user.slice/user-1000.slice/user@1000.service/app.slice/docker-$(printf '%064x' 203).scope" >/dev/null
mkcg "user.slice/user-1000.slice/user@1000.service/user.slice/libpod-$(printf '%064x' 204).scope" >/dev/null
mkcg $'odd, "name" \xff' >/dev/null
# A tenant's look-alikes of the real web container and of the prod/web-0 pod
# (fixture pod logs): in its user manager's tree, and inside a container.
web_uid=5f0c3c1e-8a51-4a8e-9c3a-2b7f6d1e0a42
tenant="user.slice/user-4242.slice/user@4242.service"
mkcg "$tenant/app.slice/docker-$web.scope" >/dev/null
mkcg "$tenant/app.slice/kubepods/besteffort/pod$web_uid/$web" >/dev/null
mkcg "$tenant/user.slice/docker-$web.scope" >/dev/null
mkcg "system.slice/docker-$odd.scope/kubepods/besteffort/pod$web_uid" >/dev/null
mkcg "system.slice/docker-$odd.scope/system.slice/docker-$web.scope" >/dev/null
# Its own rootless container, named in its own storage (owned by it).
mkdir -p "$TMP/home-4242/docker/containers/$any"
printf '{"Name":"/mine","Config":{"Image":"own"}}' >"$TMP/home-4242/docker/containers/$any/config.v2.json"
chown -R 4242:4242 "$TMP/home-4242"
mkcg "$tenant/user.slice/docker-$any.scope" >/dev/null
run_in_cg "system.slice/docker-$web.scope" sleep 30
run_in_cg "machine.slice/libpod-$any.scope/container" sleep 30

"$CGPERF" list -c "$TMP/list.yaml" --json >"$TMP/list.json" || fail "cgperf list --json failed"
"$CGPERF" list -c "$TMP/list.yaml" --json --all >"$TMP/all.json" || fail "cgperf list --all failed"
"$CGPERF" list -c "$TMP/list.yaml" >"$TMP/list.txt" || fail "cgperf list failed"
# --root does what cgroups.root does; without it the test tree is anyone's.
"$CGPERF" list -c "$TMP/list.yaml" --root / --json >"$TMP/unrooted.json" || fail "cgperf list --root / failed"
python3 - "$TMP/unrooted.json" <<'PY' || fail "layouts recognised away from the root"
import json, sys
for r in json.load(open(sys.argv[1], encoding='utf-8')):
    assert r['kind'] not in ('container', 'pod') and not r['container_name'] and not r['pod_name'], r
PY
python3 - "$TMP/list.json" "$TMP/all.json" "$TEST_CG_REL" "$web" "$odd" "$any" "$uid" <<'PY' || fail "wrong list: $(cat "$TMP/list.txt")"
import json, sys
rows = json.load(open(sys.argv[1], encoding='utf-8'))
all_rows = json.load(open(sys.argv[2], encoding='utf-8'))
base, web, odd, any_, uid = sys.argv[3:8]
uid_web = '5f0c3c1e-8a51-4a8e-9c3a-2b7f6d1e0a42'
by = {r['path'][len(base):]: r for r in rows}
keys = {'id', 'path', 'kind', 'runtime', 'container_id', 'container_name', 'pod_uid', 'pod_name', 'namespace',
        'rootless', 'uid'}
for r in rows:
    assert set(r) == keys, r
def want(path, **kv):
    r = by.get(path)
    assert r, "missing %s in %s" % (path, sorted(by))
    for k, v in kv.items():
        assert r[k] == v, (path, k, r[k], v)
want('/system.slice/docker-%s.scope' % web, kind='container', runtime='docker', container_id=web[:12], container_name='web')
assert '\n' in by['/system.slice/docker-%s.scope' % odd]['container_name'], "raw newline from metadata kept in JSON"
want('/system.slice/my\\x2dapp.service', kind='service', runtime='systemd')
want('/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod%s.slice' % uid.replace('-', '_'), kind='pod', pod_uid=uid)
want('/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod%s.slice/cri-containerd-%s.scope' % (uid.replace('-', '_'), any_),
     kind='container', runtime='containerd', container_id=any_[:12], pod_uid=uid)
want('/kubepods/besteffort/pod%s' % uid, kind='pod', pod_uid=uid)
want('/kubepods/besteffort/pod%s/%s' % (uid, any_), kind='container', container_id=any_[:12], pod_uid=uid)
want('/machine.slice/libpod-%s.scope' % any_, kind='container', runtime='podman')
assert '/machine.slice/libpod-%s.scope/container' % any_ not in by, "podman's inner cgroup listed twice"
want('/lxc.payload.web1', kind='container', runtime='lxc', container_name='web1')
want('/odd, "name" \ufffd', kind='other')
# Every QoS class x runtime x driver: a pod and a container each.
rt_name = {'cri-containerd': 'containerd', 'crio': 'crio', 'docker': 'docker'}
n = 100
for qos in ('guaranteed', 'burstable', 'besteffort'):
    for rt in ('cri-containerd', 'crio', 'docker'):
        n += 1
        u = '%08x-0000-4000-8000-%012x' % (n, n); cid = '%064x' % n; u_ = u.replace('-', '_')
        if qos == 'guaranteed':
            sd_pod = '/kubepods.slice/kubepods-pod%s.slice' % u_
            fs_pod = '/kubepods/pod%s' % u
        else:
            sd_pod = '/kubepods.slice/kubepods-%s.slice/kubepods-%s-pod%s.slice' % (qos, qos, u_)
            fs_pod = '/kubepods/%s/pod%s' % (qos, u)
        want(sd_pod, kind='pod', pod_uid=u)
        want(sd_pod + '/%s-%s.scope' % (rt, cid), kind='container', runtime=rt_name[rt], container_id=cid[:12], pod_uid=u)
        want(fs_pod, kind='pod', pod_uid=u)
        want(fs_pod + '/' + cid, kind='container', container_id=cid[:12], pod_uid=u)
ku = '%08x-0000-4000-8000-%012x' % (200, 200)
want('/kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-besteffort.slice/kubelet-kubepods-besteffort-pod%s.slice/cri-containerd-%064x.scope' % (ku.replace('-', '_'), 200),
     kind='container', runtime='containerd', pod_uid=ku)
want('/system.slice/crio-%064x.scope' % 201, kind='container', runtime='crio')
want('/system.slice/nerdctl-%064x.scope' % 202, kind='container', runtime='nerdctl')
# app.slice is not where rootless docker puts containers
want('/user.slice/user-1000.slice/user@1000.service/app.slice/docker-%064x.scope' % 203, kind='other', container_id='')
want('/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-%064x.scope' % 204, kind='container', runtime='podman')
# Look-alikes: not the real container or pod, no names from the host's files.
t = '/user.slice/user-4242.slice/user@4242.service'
want(t + '/app.slice/docker-%s.scope' % web, kind='other', container_id='', container_name='')
want(t + '/app.slice/kubepods/besteffort/pod%s/%s' % (uid_web, web), kind='other', container_id='', pod_uid='', pod_name='')
want(t + '/user.slice/docker-%s.scope' % web, kind='container', runtime='docker', container_id=web[:12], container_name=web[:12])
want('/system.slice/docker-%s.scope/kubepods/besteffort/pod%s' % (odd, uid_web), kind='other', pod_uid='', pod_name='')
want('/system.slice/docker-%s.scope/system.slice/docker-%s.scope' % (odd, web), kind='other', container_name='')
# ... while its own rootless container has the name from its own storage.
want(t + '/user.slice/docker-%s.scope' % any_, kind='container', runtime='docker', container_name='mine',
     rootless=True, uid=4242)
want('/system.slice/docker-%s.scope' % web, rootless=False, uid=None)
for r in rows:
    if r['container_name'] == 'web' or r['pod_name'] == 'web-0':
        assert r['path'] in (base + '/system.slice/docker-%s.scope' % web,), ("borrowed name", r)
conmon = '/system.slice/crio-conmon-%s.scope' % any_
assert conmon not in by, "infrastructure listed by default"
assert any(r['path'] == base + conmon for r in all_rows), "--all does not show infrastructure"
PY
# The table escapes the newline in the odd container's name: one line per cgroup.
lines=$(grep -c "" "$TMP/list.txt")
[ "$lines" = "$(( $(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$TMP/list.json") + 1 ))" ] ||
	fail "table has $lines lines for $(grep -c '"id"' "$TMP/list.json") cgroups: names not escaped?"
grep -q 'line\\nbreak\|\\n' "$TMP/list.txt" || fail "newline in a name not shown escaped"
rc=0; "$CGPERF" list --bogus 2>"$TMP/err" || rc=$?
[ "$rc" = 2 ] || fail "unknown flag: exit $rc"
log "ok: $(grep -c '"id"' "$TMP/list.json") cgroups listed with the right kinds, runtimes and names"

# A legacy-only host (no cgroup2 mount), made in a private mount namespace:
# every per-cgroup command says so in one line and exits 1.
unshare -m true || fail "cannot make a private mount namespace (unshare -m) as root"
{
	CG2_MNT=$CG2 CGPERF=$CGPERF unshare -m sh -c '
		umount "$CG2_MNT" || exit 3
		"$CGPERF" list; echo "rc=$?"
		"$CGPERF" agent --duration 1 --csv-dir /nonexistent-cgperf; echo "rc=$?"' >"$TMP/legacy.out" 2>&1 || true
	grep -q "rc=3" "$TMP/legacy.out" && fail "could not hide the cgroup2 mount in a private namespace"
	[ "$(grep -c 'no cgroup2 hierarchy is mounted' "$TMP/legacy.out")" = 2 ] ||
		fail "legacy-only host not reported clearly: $(cat "$TMP/legacy.out")"
	[ "$(grep -c 'rc=1' "$TMP/legacy.out")" = 2 ] || fail "legacy-only host: wrong exit codes: $(cat "$TMP/legacy.out")"
	log "ok: legacy-only host: $(grep -m1 'no cgroup2' "$TMP/legacy.out")"
}
