#!/bin/bash
# slurmd's core handling, the one cons_tres behaviour a SelectType other
# than the string "select/cons_tres" cannot get: up to 24.11 slurmd (which
# loads the select plugin) takes the hardware's socket/core split when it
# differs from slurm.conf's with the same cores (a KNL rebooted into
# another NUMA mode) only under select/cons_tres (slurmd.c, cr_flag).
# Under select/topo_cons_tres such a node's slurmd refuses to start,
# saying what to set; 25.05 dropped the test, and both plugins register
# the node alike.  Here: one node described with this host's cores split
# the other way (Sockets x CoresPerSocket: same cores, both different),
# no config_overrides.
. "$(dirname "$0")/lib.sh"
require_cluster

# The hardware slurmd sees: hwloc's synthetic machine of 2 packages of 4
# cores (HWLOC_SYNTHETIC, for every daemon the cluster script starts), so
# that the split differs on any host; slurm.conf says 4 sockets of 2.
export HWLOC_SYNTHETIC="package:2 core:4 pu:1"
hw=$(slurmd -C | head -n 1)
val() { echo "$hw" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
[ "$(val SocketsPerBoard)" = 2 ] && [ "$(val CoresPerSocket)" = 4 ] ||
	fail "hwloc ignored HWLOC_SYNTHETIC: slurmd -C says $hw"
sockets=2 cps=4 s2=4 c2=2
spec="CPUs=8 Sockets=$s2 CoresPerSocket=$c2 ThreadsPerCore=1 RealMemory=1000"
note "hardware $sockets sockets x $cps cores; slurm.conf $s2 x $c2"
cat > "$TDIR/topo.conf" <<'CONF'
Topology=fattree k=2 n=1
NodeName=n[0-1]
CONF

# start SELECT: a one-node cluster of that node; 0 when every node came up
start() { # (a slurmd that refuses is gone within seconds: NODE_WAIT=20)
	SELECT=$1 TOPO_CONF=$TDIR/topo.conf NODES=1 NODE_SPEC=$spec \
		CONFIG_OVERRIDES=0 NODE_WAIT=20 PLUGIN_BUILDDIR=$top_builddir \
		"$CLUSTER" start "$TDIR/c" >"$TDIR/start.log" 2>&1
}
slurmd_log() { cat "$TDIR/c/log/slurmd-n0.log" "$TDIR/c/log/slurmd-n0.out" 2>/dev/null; }

start cons_tres || fail "cons_tres: the node did not come up: $(tail -n 5 "$TDIR/start.log")"
cons=$(slurmd_log | grep -c "Node reconfigured socket/core boundaries")
cluster_reset
case $SLURM_SERIES in
22.05 | 24.11)
	[ "$cons" -ge 1 ] || fail "cons_tres's slurmd did not take the hardware's split"
	start topo && fail "select/topo: slurmd started, registering slurm.conf's split"
	want="fatal: select/topo: node n0: the hardware has $sockets sockets of $cps cores, slurm.conf says Sockets=$s2 CoresPerSocket=$c2"
	slurmd_log | grep -qF "$want" ||
		fail "slurmd did not say why: $(slurmd_log | grep -i 'fatal\|error' | tail -n 3)"
	slurmd_log | grep -qF "set Sockets=$sockets CoresPerSocket=$cps for n0 (slurmd -C) or SlurmdParameters=config_overrides" ||
		fail "slurmd did not say what to set: $(slurmd_log | grep fatal)"
	note "select/topo: slurmd refuses, naming Sockets=$sockets CoresPerSocket=$cps"
	;;
*)
	[ "$cons" = 0 ] || fail "slurmd $SLURM_SERIES took the hardware's split under cons_tres"
	start topo || fail "select/topo: the node did not come up: $(tail -n 5 "$TDIR/start.log")"
	[ "$(slurmd_log | grep -c 'Node reconfigured socket/core boundaries')" = 0 ] ||
		fail "slurmd $SLURM_SERIES took the hardware's split under select/topo"
	note "Slurm $SLURM_SERIES: both register slurm.conf's split"
	;;
esac
echo "PASS"
