#!/bin/bash
# The same guarantees as fattree.sh on the other families: express mesh
# 4x4x4 (p=1, 64 nodes) under mesh-blocks and a dragonfly (p=2,a=4,h=2,
# g=9: 72 nodes, 8 per group) under dragonfly-groups with its default
# routing (ugal): every job of a mixed workload completes and every
# sampled moment has MLS = TLS = 0; on the dragonfly every job of 2 or
# more nodes is predicted with the default UGAL-G model, ugal5.  (fattree.sh shows the same check
# failing under plain cons_tres.)  Then a 3-node reservation on the
# dragonfly gets its whole group, with an error in slurmctld's log that
# jobs outside it may still make an isolated job in it wait.
. "$(dirname "$0")/lib.sh"
require_cluster
have_report || skip "stopo report not built"

check_run() {
	local name=$1 conf=$2 nodes=$3
	cluster_start topo "$conf" "$nodes"
	run_workload "$name" 150
	all_completed "$name" || fail "$name: a job did not complete"
	read -r mls tls n < <(max_sharing "$name" "$conf")
	note "$name: max MLS $mls, max TLS $tls over $n samples"
	[ "$n" -ge 5 ] || fail "$name: only $n samples"
	python3 -c "import sys; sys.exit(0 if $mls == 0 and $tls == 0 else 1)" ||
		fail "$name: links shared (MLS $mls, TLS $tls)"
	ctld_alive || fail "$name: slurmctld died"
	[ -z "${want_model-}" ] || check_predictions "$name" "$want_model"
	cluster_reset
}

# Every job of 2 or more nodes was predicted with model $2 (the default
# of the family and routing) and answered: optimal, or time-limit within
# PredictBudget=, never failed.
check_predictions() {
	local name=$1 model=$2 log=$TDIR/c/state/topo_jobs.log n
	n=$(grep -c " model=$model status=\(optimal\|time-limit\) " "$log")
	note "$name: $n predictions with $model"
	[ "$n" -ge 5 ] || fail "$name: only $n $model predictions in $log"
	! grep -q "status=failed" "$log" || fail "$name: a prediction failed"
}

cat > "$TDIR/mesh.conf" <<'CONF'
Topology=expressmesh dims=4x4x4 gap=1 p=1
NodeName=n[0-63]
DefaultPolicy=mesh-blocks
CONF
WORKLOAD='0 8 2
0 4 3
0 2 2
0 16 2
0 1 3
1 12 2
0 3 2
0 6 3
1 27 2
0 2 2
1 5 2
0 8 3
1 1 2
0 16 2
0 4 2' check_run mesh "$TDIR/mesh.conf" 64

cat > "$TDIR/dfly.conf" <<'CONF'
Topology=dragonfly p=2 a=4 h=2 g=9
NodeName=n[0-71]
PartitionPolicy=batch:dragonfly-groups
CONF
WORKLOAD='0 8 2
0 2 3
0 4 2
0 1 3
0 6 2
1 16 2
0 3 2
0 2 3
1 8 2
0 5 2
1 1 2
0 7 2
0 24 2
0 2 2' want_model=ugal5 check_run dragonfly "$TDIR/dfly.conf" 72

# A 3-node reservation under dragonfly-groups (ugal, large=wait): the
# job's routers (0 and 1 of group 0) are not enough, and no whole
# group keeps out the Valiant detours of jobs outside that span groups:
# it gets its group, n[0-7], and slurmctld logs an error saying so.
cluster_start topo "$TDIR/dfly.conf" 72
scontrol create reservation reservationname=r3 nodecnt=3 starttime=now \
	duration=10 users=root >/dev/null ||
	fail "create reservation r3"
rn=$(scontrol show reservation r3 | tr ' ' '\n' | sed -n 's/^Nodes=//p')
said=r3 # 24.11 asks for a new reservation's nodes without its name
[ "$SLURM_SERIES" = 22.05 ] || said="(new)"
log=$TDIR/c/log/slurmctld.log
grep -qF "select/topo: reservation $said: 3 nodes placed as dragonfly-groups:large=wait places a job of that size: n[0-7] (8 nodes)" "$log" ||
	fail "reservation r3 on $rn: $(grep reservation "$log")"
grep -qF "error: select/topo: reservation $said: under dragonfly-groups:large=wait and ugal:intra=local an isolated job in it may still wait for jobs outside it" "$log" ||
	fail "reservation r3: no error about jobs outside it: $(grep reservation "$log")"
note "dragonfly: reservation r3 (3 nodes) on $rn"
cluster_reset
echo "PASS"
