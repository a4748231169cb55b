#!/bin/bash
# Fat-tree k=4, n=3 (64 nodes) under fattree-pods: a scripted mix of 1- to
# 32-node jobs arriving and finishing; every job completes and at every
# sampled moment `stopo report` on `squeue --json` shows MLS = TLS = 0.
# The same workload under plain select/cons_tres shows sharing (so the
# check can fail); that run pins slurmctld to a CPU of its own and the
# slurmd to the others, and checks they run there.
. "$(dirname "$0")/lib.sh"
require_cluster
have_report || skip "stopo report not built"

cat > "$TDIR/topo.conf" <<'CONF'
Topology=fattree k=4 n=3
NodeName=n[0-63]
PartitionPolicy=batch:fattree-pods:rule=paper
CONF

cluster_start topo "$TDIR/topo.conf"
run_workload topo 120
all_completed topo || fail "select/topo: a job did not complete"
read -r mls tls n < <(max_sharing topo "$TDIR/topo.conf")
note "select/topo: max MLS $mls, max TLS $tls over $n samples"
[ "$n" -ge 10 ] || fail "only $n samples"
python3 -c "import sys; sys.exit(0 if $mls == 0 and $tls == 0 else 1)" ||
	fail "select/topo: links shared (MLS $mls, TLS $tls)"
ctld_alive || fail "slurmctld died"
# Pending reasons are logged at info once per kind a job gets, their
# numbers' changes at debug, and backfill windows do not make up
# "unavailable nodes" (select_topo(8)): a few lines per job, not one per
# backfill pass.
most=$(grep -o "select/topo: JobId=[0-9]* pending: " "$TDIR/c/log/slurmctld.log" |
	sort | uniq -c | sort -rn | head -n 1)
note "most pending-reason lines of one job: ${most:-none}"
[ "$(echo "${most:-0}" | awk '{ print $1 }')" -le 3 ] ||
	fail "a job's pending reason logged again and again: $most"

cluster_reset
# This run with slurmctld on a CPU of its own (bench.sh's set-up,
# slurm-cluster.sh's CTLD_CPUS= and NODE_CPUSET=), when there are two.
if command -v taskset >/dev/null && ctld_cpu_split; then
	cluster_start cons_tres "$TDIR/topo.conf"
	got=$(cpus_of "$(cat "$TDIR/c/ctld.pid")")
	[ "$got" = "$CTLD_CPUS" ] ||
		fail "slurmctld on CPUs '$got', not $CTLD_CPUS"
	got=$(cpus_of "$(cat "$TDIR/c/slurmd-n0.pid")")
	[ "$got" = "$NODE_CPUSET" ] ||
		fail "slurmd n0 on CPUs '$got', not $NODE_CPUSET"
	note "slurmctld on CPU $CTLD_CPUS, slurmd on $NODE_CPUSET"
	unset CTLD_CPUS NODE_CPUSET
else
	cluster_start cons_tres "$TDIR/topo.conf"
fi
run_workload cons 120
all_completed cons stock || fail "select/cons_tres: jobs did not complete"
read -r cmls ctls cn < <(max_sharing cons "$TDIR/topo.conf")
note "select/cons_tres: max MLS $cmls, max TLS $ctls over $cn samples"
python3 -c "import sys; sys.exit(0 if $cmls > 0 and $ctls > 0 else 1)" ||
	fail "cons_tres showed no sharing: the check cannot tell"
echo "PASS"
