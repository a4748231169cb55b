#!/bin/bash
# An imported fabric in real daemons (issue 17): the emulated cluster's
# Slurm topology.conf (topology/tree: leaf switches l0-l7 of 8 nodes, n[8w
# .. 8w+7] on lw, l0-l3 under m0, l4-l7 under m1, both under top), as a
# site migrating from topology/tree has it, goes through `stopo import
# slurm-topology`; the topo.conf it writes (Topology=graph, recognised as
# a 3-level fat-tree with pods {l0-l3} and {l4-l7}, and so Routing=ecmp)
# plus fattree-pods is slurmctld's.  Worked by hand (rules i-iv on the
# recognised pods): A (3 nodes) one leaf, the fewest free then lowest:
# l0, n[0-2]; B (12 nodes) whole leaves of the best-fit pod (pod 0: 24
# nodes on whole leaves l1-l3, against pod 1's 32), from the first:
# n[8-19]; D (20 nodes) pod 0 has 8 whole nodes left (l3), so pod 1:
# n[32-51].  stopo report on squeue --json: MLS = TLS = 0.
. "$(dirname "$0")/lib.sh"
require_cluster
have_report || skip "stopo report not built"

cat > "$TDIR/topology.conf" <<'TREE'
# Slurm topology/tree: 8 leaf switches of 8 nodes, two levels above
SwitchName=l0 Nodes=n[0-7]
SwitchName=l1 Nodes=n[8-15]
SwitchName=l2 Nodes=n[16-23]
SwitchName=l3 Nodes=n[24-31]
SwitchName=l4 Nodes=n[32-39]
SwitchName=l5 Nodes=n[40-47]
SwitchName=l6 Nodes=n[48-55]
SwitchName=l7 Nodes=n[56-63]
SwitchName=m0 Switches=l[0-3]
SwitchName=m1 Switches=l[4-7]
SwitchName=top Switches=m[0-1]
TREE
"$STOPO" import slurm-topology "$TDIR/topology.conf" -o "$TDIR/topo.conf" ||
	fail "stopo import slurm-topology failed"
# the import names the routing its recognition implies (ecmp on a tree)
grep -qx 'Routing=ecmp' "$TDIR/topo.conf" ||
	fail "the imported topo.conf names no Routing=ecmp: $(grep -i routing "$TDIR/topo.conf")"
printf 'PartitionPolicy=batch:fattree-pods:rule=paper\n' >> "$TDIR/topo.conf"
"$STOPO" topo --topo "$TDIR/topo.conf" > "$TDIR/topo.txt" ||
	fail "stopo topo refused the imported topo.conf"
grep -q '^recognised: *fat-tree: 3 levels, 2 pods (leaves 4 4), 8 leaves$' \
	"$TDIR/topo.txt" || fail "not recognised as the 3-level tree: $(cat "$TDIR/topo.txt")"

cluster_start topo "$TDIR/topo.conf"
start_jobs 60 a=3 b=12 d=20
na=$(field "$a" NodeList) nb=$(field "$b" NodeList) nd=$(field "$d" NodeList)
note "imported tree, fattree-pods: A=$na B=$nb D=$nd"
[ "$na" = "n[0-2]" ] || fail "A on $na, want n[0-2] (leaf l0)"
[ "$nb" = "n[8-19]" ] || fail "B on $nb, want n[8-19] (whole l1, l2 of pod 0)"
[ "$nd" = "n[32-51]" ] || fail "D on $nd, want n[32-51] (pod 1)"
snapshot imported
read -r mls tls < <(sharing "$TDIR/snap.imported.json" "$TDIR/topo.conf") ||
	fail "stopo report failed"
note "MLS $mls, TLS $tls"
python3 -c "import sys; sys.exit(0 if $mls == 0 and $tls == 0 else 1)" ||
	fail "links shared (MLS $mls, TLS $tls)"
ctld_alive || fail "slurmctld died"
scancel "$a" "$b" "$d"
wait_all 60 || fail "jobs did not end"
cluster_reset
echo "PASS"
