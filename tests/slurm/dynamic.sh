#!/bin/bash
# Dynamic nodes and MaxNodeCount, which Slurm allows only to a SelectType
# naming cons_tres (select/topo_cons_tres: select_topo(8), SLURM
# VERSIONS).  slurm.conf has 63 nodes, topo.conf the 64 of fattree k=4,
# n=3: slurmctld starts (MaxNodeCount=70), saying that n63 has no Slurm
# node yet.  `slurmd -Z -N n63` registers it at run time: select/topo maps
# it onto the topology, and a 16-node job placed after a 48-node one gets
# pod 3 whole, n63 included.  `scontrol create` takes nodes as under
# cons_tres; those created outside topo.conf (x0, x1) are said at error
# level and never given to an isolated job; deleting them leaves the rest
# placed as before.
. "$(dirname "$0")/lib.sh"
require_cluster

cat > "$TDIR/topo.conf" <<'CONF'
Topology=fattree k=4 n=3
NodeName=n[0-63]
PartitionPolicy=batch:fattree-pods
CONF
SLURM_EXTRA='MaxNodeCount=70' cluster_start topo "$TDIR/topo.conf" 63
log=$TDIR/c/log/slurmctld.log
[ "$(scontrol show config | sed -n 's/^MaxNodeCount *= *//p')" = 70 ] ||
	fail "MaxNodeCount: $(scontrol show config | grep MaxNodeCount)"
grep -qF "select/topo: $TDIR/c/etc/topo.conf: 1 topology node without a Slurm node (n63): no job is placed there until it registers" "$log" ||
	fail "n63's absence not said: $(grep 'select/topo' "$log")"

# dyn_slurmd NAME PORT: a slurmd registering NAME itself (slurmd -Z; 22.05
# takes no Port= there: SlurmdPort, 6818, then)
pb=$(cat "$TDIR/c/port_base")
dyn_slurmd() {
	local port="Port=$2 "
	[ "$SLURM_SERIES" = 22.05 ] && port=
	mkdir -p "$TDIR/c/spool/$1"
	setsid slurmd -D -Z -N "$1" -f "$TDIR/c/etc/slurm.conf" \
		--conf "NodeHostname=localhost NodeAddr=127.0.0.1 ${port}CPUs=8 Sockets=2 CoresPerSocket=4 ThreadsPerCore=1 RealMemory=8000" \
		</dev/null >>"$TDIR/c/log/slurmd-$1.out" 2>&1 &
	echo "$! slurmd-$1" >>"$TDIR/c/pids"
	for _ in $(seq 1 60); do
		[ "$(sinfo -h -N -n "$1" -o %t 2>/dev/null)" = idle ] && return 0
		sleep 0.5
	done
	fail "$1 did not register: $(sinfo -N -n "$1" 2>&1) $(tail -n 3 "$TDIR/c/log/slurmd-$1.out")"
}
dyn_slurmd n63 $((pb + 64))
a=$(submit 48 20) || fail "sbatch -N 48"
started "$a" || fail "48-node job did not start"
b=$(submit 16 2) || fail "sbatch -N 16"
started "$b" || fail "16-node job did not start: $(topo_reason "$b")"
[ "$(field "$a" NodeList)" = "n[0-47]" ] || fail "48-node job on $(field "$a" NodeList)"
[ "$(field "$b" NodeList)" = "n[48-63]" ] ||
	fail "16-node job on $(field "$b" NodeList), want pod 3 with n63"
note "n63 registered at run time, in pod 3: $(field "$b" NodeList)"

# Nodes outside topo.conf, created as under cons_tres (scontrol create):
# said loudly, never given to an isolated job.
scontrol create NodeName=x0 NodeHostname=localhost NodeAddr=127.0.0.1 \
	Port=$((pb + 65)) CPUs=4 RealMemory=4000 State=FUTURE >"$TDIR/create.out" 2>&1 ||
	fail "scontrol create node: $(cat "$TDIR/create.out")"
wait_log "error: select/topo: $TDIR/c/etc/topo.conf: node x0, created at run time, is not in topo.conf's NodeName=" ||
	fail "x0 outside topo.conf not said: $(grep 'select/topo' "$log" | tail -n 3)"
scancel "$a"
wait_all 60 || fail "jobs did not end"
c=$(submit 64 1) || fail "sbatch -N 64"
started "$c" || fail "64-node job did not start: $(topo_reason "$c")"
[ "$(field "$c" NodeList)" = "n[0-63]" ] || fail "64-node job on $(field "$c" NodeList)"
wait_all 60 || fail "jobs did not end"

scontrol create NodeName=x1 NodeHostname=localhost NodeAddr=127.0.0.1 \
	Port=$((pb + 66)) CPUs=4 RealMemory=4000 State=FUTURE >"$TDIR/create.out" 2>&1 ||
	fail "scontrol create node: $(cat "$TDIR/create.out")"
# (a FUTURE node is hidden from scontrol show node: the plugin's log
# says it saw it, outside topo.conf like x0)
wait_log "error: select/topo: $TDIR/c/etc/topo.conf: nodes x0,x1, created at run time, are not in topo.conf's NodeName=" ||
	fail "x1 not seen: $(grep 'select/topo' "$log" | tail -n 2)"
for n in x1 x0; do
	ok=
	for _ in $(seq 1 40); do
		scontrol delete nodename=$n >"$TDIR/delete.out" 2>&1 && { ok=1; break; }
		sleep 0.5
	done
	[ -n "$ok" ] || fail "$n not deleted: $(cat "$TDIR/delete.out")"
done
d=$(submit 16 1) || fail "sbatch -N 16 after the deletions"
started "$d" || fail "16-node job after the deletions: $(topo_reason "$d")"
wait_all 60 || fail "jobs did not end"
ctld_alive || fail "slurmctld died"
echo "PASS"
