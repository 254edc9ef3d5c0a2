# SPDX-License-Identifier: GPL-2.0-only
# Who gets the agent's slots when there are more cgroups than cgroups.max
# (issue 9, finding 2): real cgroups in the test's tree (its own
# cgroups.root, so runtime layouts are recognised in it), the agent's log,
# its CSV rows against cpu.stat, and the kernel's inotify watch count.
# A: at start, containers get slots before services, whatever readdir's
#    order; the warning gives the true number left out;
# B: a new container takes the slot of the newest service, which writes its
#    final row first (its CSV adds up to its cpu.stat) and says so once;
# C: waiting cgroups hold no inotify watch;
# D: a removed container hands its slot to the best waiting cgroup at once
#    (no rescan: rescan_interval is 24h), the oldest service;
# E: cgroups below a user manager count against cgroups.max_delegated, the
#    oldest first, and a freed delegated slot goes to the next one at once.
# The interval is 1h: no collection runs while the test does, so every row
# in a CSV file is a final row and every slot handed out is handed out by
# the event itself, not by the next collection.
source "$CGPERF_SRC/tests/lib/common.sh"

R=$TEST_CG_REL
watches() { cat /proc/"$1"/fdinfo/* 2>/dev/null | grep -c '^inotify wd:' || true; }
ctr() { echo "system.slice/docker-$(printf '%064x' "$1").scope"; }
DELEG=user.slice/user-1000.slice/user@1000.service/app.slice
conf() { # FILE MAX MAX_DELEGATED
	cat >"$1" <<YAML
interval: 1h
persist: false
events: [cpu-clock]
cgroups:
  root: "$R"
  include: ["$R/system.slice/*", "$R/system.slice/*/**", "$R/$DELEG/*"]
  max: $2
  max_delegated: $3
  rescan_interval: 24h
outputs:
  csv:
    directory: $TMP/csv-$(basename "$1" .yaml)
YAML
	"$CGPERF" check-config "$1" >/dev/null || fail "config rejected: $(cat "$1")"
}
# counted LOG REL: how often the agent said it starts counting REL.
counted() { grep -c "counting $R/$2 (" "$1" || true; }

# Oldest first: six services, then four containers, then three cgroups of
# a user manager's delegated subtree.
for i in 1 2 3 4 5 6; do mkcg "system.slice/s$i.service" >/dev/null; done
for i in 1 2 3 4; do mkcg "$(ctr $i)" >/dev/null; done
for i in 1 2 3; do mkcg "$DELEG/t$i.scope" >/dev/null; done

# ---- A: classes at start, the true count ----
conf "$TMP/a.yaml" 6 2
start_agent a "$TMP/a.yaml"
for i in 1 2 3 4; do [ "$(counted "$TMP/a.log" "$(ctr $i)")" = 1 ] || fail "container $i not counted: $(cat "$TMP/a.log")"; done
for s in s1 s2; do [ "$(counted "$TMP/a.log" "system.slice/$s.service")" = 1 ] || fail "$s (oldest services) not counted"; done
for s in system.slice/s3.service system.slice/s6.service "$DELEG/t1.scope"; do
	[ "$(counted "$TMP/a.log" "$s")" = 0 ] || fail "$s counted over the cap: $(grep counting "$TMP/a.log")"
done
grep -q "counting 6 cgroups under" "$TMP/a.log" || fail "$(grep 'cgroups under' "$TMP/a.log")"
grep -q "monitored cgroup cap (6) reached: 7 cgroups not counted" "$TMP/a.log" ||
	fail "the cap warning does not give the 7 left out: $(grep -i cap "$TMP/a.log")"
log "ok: 4 containers and the 2 oldest of 6 services got the 6 slots; 7 left out, said so"

# ---- B: a new container takes the newest service's slot, its final row first ----
burn_pinned system.slice/s2.service 0.3 s2
s2_ms=$(($(usage_usec system.slice/s2.service) / 1000))
mkcg "$(ctr 5)" >/dev/null
wait_counted "$TMP/a.log" "$R/$(ctr 5)"
grep -q "host cgroup $R/system.slice/s2.service gives its slot to container $R/$(ctr 5) (its final row is written" "$TMP/a.log" ||
	fail "no eviction line for s2: $(grep -i slot "$TMP/a.log")"
assert_cpu_clock "s2, evicted (its final row)" \
	"$(csv_sum "$TMP/csv-a" "$R/system.slice/s2.service" cpu-clock | awk '{ print $1 / 1e6 }')" "$s2_ms" 1 s2
[ "$(counted "$TMP/a.log" system.slice/s1.service)" = 1 ] || fail "s1 (older) lost its slot"

# ---- C: cgroups over the cap hold no inotify watch ----
w0=$(watches "$AGENT_PID")
(cd "$TEST_CG/system.slice" && seq -f 'x%g.service' 1 100 | xargs mkdir)
sleep 1
w1=$(watches "$AGENT_PID")
[ "$w1" = "$w0" ] || fail "100 cgroups over the cap raised the inotify watches from $w0 to $w1"
[ "$(grep -c 'counting .*/x[0-9]*\.service (' "$TMP/a.log" || true)" = 0 ] || fail "a service over the cap was counted"
log "ok: 100 services over the cap: $w0 -> $w1 inotify watches"

# ---- D: a removed container's slot goes to the oldest waiting service at once ----
rmdir "$TEST_CG/$(ctr 1)"
wait_for_line "$TMP/a.log" "stopped counting $R/$(ctr 1)" 10
for ((i = 0; i < 50; i++)); do
	[ "$(counted "$TMP/a.log" system.slice/s2.service)" = 2 ] && break
	sleep 0.1
done
[ "$(counted "$TMP/a.log" system.slice/s2.service)" = 2 ] ||
	fail "the freed slot did not go to s2, the oldest waiting: $(grep counting "$TMP/a.log" | tail -3)"
[ "$(counted "$TMP/a.log" system.slice/s3.service)" = 0 ] || fail "s3 counted before s2"
(cd "$TEST_CG/system.slice" && seq -f 'x%g.service' 1 100 | xargs rmdir)
kill -TERM "$AGENT_PID"
wait "$AGENT_PID" || fail "agent A failed: $(tail -3 "$TMP/a.log")"
grep -q "summary: .* over the cap ([0-9]* waiting at the end, 1 gave their slot up)" "$TMP/a.log" ||
	fail "summary: $(grep summary "$TMP/a.log")"
log "ok: a removed container's slot went to s2 at once; $(grep -o '[0-9]* over the cap ([^)]*)' "$TMP/a.log")"

# ---- E: delegated cgroups have their own limit ----
conf "$TMP/e.yaml" 20 2
start_agent e "$TMP/e.yaml"
for t in t1 t2; do [ "$(counted "$TMP/e.log" "$DELEG/$t.scope")" = 1 ] || fail "$t (oldest delegated) not counted"; done
[ "$(counted "$TMP/e.log" "$DELEG/t3.scope")" = 0 ] || fail "t3 counted past max_delegated 2"
grep -q "delegated cgroup cap (2) reached: 1 cgroups below user managers or containers not counted" "$TMP/e.log" ||
	fail "no delegated cap line: $(grep -i cap "$TMP/e.log")"
for i in 1 2 3 4 5 6; do [ "$(counted "$TMP/e.log" "system.slice/s$i.service")" = 1 ] || fail "s$i not counted under max 20"; done
rmdir "$TEST_CG/$DELEG/t1.scope"
wait_counted "$TMP/e.log" "$R/$DELEG/t3.scope"
kill -TERM "$AGENT_PID"
wait "$AGENT_PID" || fail "agent E failed: $(tail -3 "$TMP/e.log")"
log "ok: 2 of 3 delegated cgroups counted (max_delegated 2), the third once one went"
