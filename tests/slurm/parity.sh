#!/bin/bash
# cons_tres parity: in a partition whose policy is linear (not isolating:
# select/topo passes its jobs to cons_tres as they are), the same jobs
# land on the same nodes with the same CPUs, memory and GRES as under
# plain select/cons_tres, on every Slurm series.  From 25.05 slurmctld
# asks "is this cons_tres?" by plugin id alone (whole nodes forced on
# every job, core reservations refused otherwise), and several checks
# test the SelectType's name (select_topo(8), SLURM VERSIONS): -n 1 jobs
# packing the cores of one node, --mem-per-cpu, -c 2, a core reservation,
# --gres with a configured count, an expand dependency keeping its own
# --gres (select_hetero), under SelectTypeParameters=CR_Core_Memory
# (accepted), and the SelectTypeParameters Slurm gives each when the line
# is absent.
. "$(dirname "$0")/lib.sh"
require_cluster

cat > "$TDIR/topo.conf" <<'CONF'
Topology=fattree k=4 n=3
NodeName=n[0-63]
PartitionPolicy=batch:fattree-pods
PartitionPolicy=lin:linear
CONF
# lin: every node, cores shared (batch is the cluster script's exclusive
# default partition); job expansion permitted (the expand dependency)
extra='PartitionName=lin Nodes=ALL MaxTime=INFINITE State=UP OverSubscribe=NO
SchedulerParameters=bf_interval=1,bf_resolution=1,sched_min_interval=100000,bf_continue,permit_job_expansion'

# scenario OUT: the jobs in turn, each running before the next is
# submitted, then what each got: "INDEX NODES CPU_IDs Mem GRES" per node
# (scontrol show job -d), and TresPerNode of the expanding job.
scenario() {
	local out=$1 i=0 id ids='' conf=$SLURM_CONF gres_job
	: >"$out"
	sub() { # sbatch options: the job, running
		i=$((i + 1))
		id=$(sbatch --parsable -p lin -o /dev/null "$@" --wrap "sleep 120") ||
			fail "$SELECT_NOW: sbatch $*"
		started "$id" || fail "$SELECT_NOW: sbatch $* did not start: $(field "$id" Reason)"
		ids="$ids $i:$id"
	}
	sub -n 1 --mem=500
	sub -n 1 --mem=500
	sub -n 1 --mem=500
	sub -n 2 --mem-per-cpu=500
	sub -c 2 -n 1
	sub -n 1 --gres=tmp:3
	gres_job=$id
	sub -n 1 --gres=tmp:2
	# A core reservation of 2 cores on n40, and a job in it.  22.05's
	# scontrol refuses CoreCnt= itself unless the select plugin's id is
	# cons_tres's (state_control_corecnt_supported): there it is asked
	# with a client configuration naming select/cons_tres, slurmctld
	# deciding (select_topo(8)).
	if [ "$SLURM_SERIES" = 22.05 ] && [ "$SELECT_NOW" = topo ]; then
		sed 's|^SelectType=.*|SelectType=select/cons_tres|' "$conf" >"$TDIR/client.conf"
		conf=$TDIR/client.conf
	fi
	SLURM_CONF=$conf scontrol create reservation reservationname=cr \
		corecnt=2 nodes=n40 starttime=now duration=10 users=root \
		partitionname=lin >"$TDIR/resv.out" 2>&1 ||
		fail "$SELECT_NOW: core reservation: $(cat "$TDIR/resv.out")"
	scontrol show reservation cr | tr ' ' '\n' | grep -E '^(Nodes|CoreCnt|TRES)=' |
		sort >>"$out"
	sub -n 2 --reservation=cr
	# An expand dependency: the expanding job keeps its own --gres under
	# cons_tres (select_hetero, by the SelectType's name).
	i=$((i + 1))
	id=$(sbatch --parsable -p lin -o /dev/null -N 1 --gres=tmp:1 \
		--dependency=expand:"$gres_job" --wrap "sleep 1") ||
		fail "$SELECT_NOW: sbatch --dependency=expand"
	echo "$i TresPerNode=$(field "$id" TresPerNode)" >>"$out"
	for p in $ids; do
		scontrol show job -d "${p#*:}" |
			sed -n "s/^ *Nodes=\([^ ]*\) CPU_IDs=\([^ ]*\) Mem=\([^ ]*\) GRES=\(.*\)/${p%%:*} \1 \2 \3 \4/p" >>"$out"
	done
	scancel -u root
	wait_all 60 || fail "$SELECT_NOW: jobs did not end"
}

# params SELECT: SelectTypeParameters when slurm.conf has no such line.
params() {
	SELECT_PARAMS='' NODES=4 SELECT_NOW=$1 cluster_start "$1" "$TDIR/small.conf" 4
	scontrol show config | sed -n 's/^SelectTypeParameters *= *//p'
	cluster_reset
}

SELECT_NOW=topo SELECT_PARAMS=CR_Core_Memory NODE_GRES=tmp:4 SLURM_EXTRA=$extra \
	cluster_start topo "$TDIR/topo.conf"
[ "$(scontrol show config | sed -n 's/^SelectTypeParameters *= *//p')" = CR_CORE_MEMORY ] ||
	fail "SelectTypeParameters=CR_Core_Memory: $(scontrol show config | grep SelectTypeParameters)"
SELECT_NOW=topo scenario "$TDIR/topo.out"
ctld_alive || fail "topo: slurmctld died"
cluster_reset
SELECT_NOW=cons_tres SELECT_PARAMS=CR_Core_Memory NODE_GRES=tmp:4 SLURM_EXTRA=$extra \
	cluster_start cons_tres "$TDIR/topo.conf"
SELECT_NOW=cons_tres scenario "$TDIR/cons_tres.out"
cluster_reset

diff "$TDIR/cons_tres.out" "$TDIR/topo.out" >"$TDIR/diff" ||
	fail "allocations differ from cons_tres's (< cons_tres, > select/topo): $(cat "$TDIR/diff")"
# The scenario's own expectations (the same under both): the three -n 1
# jobs (500 MB each: without --mem a job takes a node's memory under
# CR_Core_Memory) share n0's cores 0-2.
grep -q "^1 n0 0 " "$TDIR/topo.out" && grep -q "^3 n0 2 " "$TDIR/topo.out" ||
	fail "-n 1 jobs did not pack n0: $(cat "$TDIR/topo.out")"
grep -q "^9 TresPerNode=.*tmp:1$" "$TDIR/topo.out" ||
	fail "expand dependency: $(grep TresPerNode "$TDIR/topo.out")"
note "allocations as cons_tres's: $(wc -l < "$TDIR/topo.out") lines"

# The default SelectTypeParameters (no line in slurm.conf).
cat > "$TDIR/small.conf" <<'CONF'
Topology=fattree k=2 n=2
NodeName=n[0-3]
CONF
pt=$(params topo)
pc=$(params cons_tres)
[ "$pt" = "$pc" ] ||
	fail "without SelectTypeParameters: select/topo gets '$pt', cons_tres '$pc'"
note "default SelectTypeParameters: $pt (as cons_tres)"
echo "PASS"
