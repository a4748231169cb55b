#!/bin/bash
# Bad inputs never crash slurmctld: a job no isolated placement can hold
# is refused at submission; topo.conf naming other nodes than slurm.conf,
# an unknown policy or an unknown Predict= model, stops slurmctld at
# start-up with file:line.
. "$(dirname "$0")/lib.sh"
require_cluster

cat > "$TDIR/topo.conf" <<'CONF'
Topology=fattree k=4 n=3
NodeName=n[0-63]
PartitionPolicy=batch:fattree-pods:rule=paper
PartitionPolicy=small:fattree-pods:rule=paper
CONF
# Partition "small" = one leaf switch and half of another: 5 nodes fit
# Slurm's limits but no isolated placement (fattree-pods gives a job of
# more than one leaf whole leaf switches).
SLURM_EXTRA='PartitionName=small Nodes=n[0-5] MaxTime=INFINITE State=UP OverSubscribe=EXCLUSIVE' \
	cluster_start topo "$TDIR/topo.conf"

if sbatch -p small -N 5 -o /dev/null --wrap true >"$TDIR/out" 2>&1; then
	sleep 2
	id=$(awk '{print $NF}' "$TDIR/out")
	reason=$(topo_reason "$id")
	case "$reason" in
	topo:*) note "pending with reason: $reason" ;;
	*) fail "5-node job in 'small' accepted without a topo reason: $(cat "$TDIR/out") / $reason" ;;
	esac
else
	note "refused at submission: $(cat "$TDIR/out")"
	# job_submit/topo gives the user the reason, and logs it.
	grep -q "select/topo: this job can never run isolated under .* in partition small: " "$TDIR/out" ||
		fail "the user was not told why: $(cat "$TDIR/out")"
	grep -q "submission refused: select/topo: this job can never run isolated" "$TDIR/c/log/slurmctld.log" ||
		fail "slurmctld did not log why"
fi
# An explicit node list cannot be honoured under an isolating policy.
sbatch -N 2 -w n0,n9 -o /dev/null --wrap true >"$TDIR/out" 2>&1 &&
	fail "-w accepted under an isolating policy"
grep -q "explicit node lists" "$TDIR/c/log/slurmctld.log" ||
	fail "slurmctld did not log why -w was refused"
grep -q "sbatch: error: select/topo: explicit node lists (-w) are not supported in partition batch: its policy fattree-pods:large=pods,rule=paper chooses the nodes" "$TDIR/out" ||
	fail "the user was not told why -w was refused: $(cat "$TDIR/out")"
# Same size in the big partition runs.
id=$(submit 5 1) || fail "5 nodes in batch"
# Unknown policy and bad grid: refused by the SPANK plugin.
sbatch -N 1 --topo-policy=nosuch --wrap true >"$TDIR/out" 2>&1 &&
	fail "--topo-policy=nosuch accepted"
grep -q "unknown policy" "$TDIR/out" || fail "no clear message: $(cat "$TDIR/out")"
# A known policy with a malformed option: policy_check's own message.
sbatch -N 1 --topo-policy=random:colour --wrap true >"$TDIR/out" 2>&1 &&
	fail "--topo-policy=random:colour accepted"
grep -q "bad option 'colour' (want key=value)" "$TDIR/out" ||
	fail "no clear message: $(cat "$TDIR/out")"
sbatch -N 1 --topo-grid=0x4 --wrap true >"$TDIR/out" 2>&1 &&
	fail "--topo-grid=0x4 accepted"
# The grid: the controller's parser (policy_grid_parse) at submission.
grep -q -- "--topo-grid=0x4: grid 0x4: dimensions are 1 to 1000000" "$TDIR/out" ||
	fail "no clear message: $(cat "$TDIR/out")"
# Patterns: the controller's parser refuses at submission.
sbatch -N 1 --topo-pattern=bogus --wrap true >"$TDIR/out" 2>&1 &&
	fail "--topo-pattern=bogus accepted"
grep -q "unknown pattern 'bogus' (known: random, perm" "$TDIR/out" ||
	fail "no clear message: $(cat "$TDIR/out")"
sbatch -N 1 --topo-pattern=perm:seed=x --wrap true >"$TDIR/out" 2>&1 &&
	fail "--topo-pattern=perm:seed=x accepted"
grep -q "pattern 'perm:seed=x': seed: not a non-negative integer" \
	"$TDIR/out" || fail "no clear message: $(cat "$TDIR/out")"
# ... and blanks are refused, '=' in options is not
sbatch -N 1 "--topo-policy=random seed=3" --wrap true >"$TDIR/out" 2>&1 &&
	fail "a blank in --topo-policy accepted"
grep -q "blanks are not allowed" "$TDIR/out" ||
	fail "no clear message: $(cat "$TDIR/out")"
wait_all 60 || fail "jobs did not finish"
scontrol show job "$id" | grep -q JobState=COMPLETED || fail "job $id did not complete"
ctld_alive || fail "slurmctld died"
cluster_reset

# topo.conf names other nodes than slurm.conf: slurmctld refuses to start.
printf 'Topology=fattree k=4 n=3\nNodeName=m[0-63]\n' > "$TDIR/bad1.conf"
if SELECT=topo TOPO_CONF="$TDIR/bad1.conf" PLUGIN_BUILDDIR=$top_builddir \
	"$CLUSTER" start "$TDIR/c" >"$TDIR/start.log" 2>&1; then
	fail "slurmctld started with a topo.conf naming other nodes"
fi
grep -q "fatal: select/topo: .*topo.conf:2: slurm.conf node n0 is not in NodeName=" \
	"$TDIR/c/log/slurmctld.log" || fail "no file:line for the node mismatch: $(grep fatal "$TDIR/c/log/slurmctld.log")"
cluster_reset

# Too few nodes in topo.conf for slurm.conf.
printf 'Topology=fattree k=4 n=2\nNodeName=n[0-15]\n' > "$TDIR/bad2.conf"
if SELECT=topo TOPO_CONF="$TDIR/bad2.conf" PLUGIN_BUILDDIR=$top_builddir \
	"$CLUSTER" start "$TDIR/c" >"$TDIR/start.log" 2>&1; then
	fail "slurmctld started with a 16-node topo.conf for 64 nodes"
fi
grep -q "fatal: select/topo: .*topo.conf:1: topology has 16 nodes but slurm.conf has 64" \
	"$TDIR/c/log/slurmctld.log" || fail "no file:line for the size mismatch: $(grep fatal "$TDIR/c/log/slurmctld.log")"
cluster_reset

# Unknown policy in topo.conf, on a continued line: the line is the
# parser's (where the directive starts), not a re-read of the file.
printf 'Topology=fattree k=4 n=3\nNodeName=n[0-63]\nPartitionPolicy=\\\n  batch:no-such-policy\n' > "$TDIR/bad3.conf"
if SELECT=topo TOPO_CONF="$TDIR/bad3.conf" PLUGIN_BUILDDIR=$top_builddir \
	"$CLUSTER" start "$TDIR/c" >"$TDIR/start.log" 2>&1; then
	fail "slurmctld started with an unknown policy"
fi
grep -q "fatal: select/topo: .*topo.conf:3: policy 'no-such-policy' of partition batch: unknown policy" "$TDIR/c/log/slurmctld.log" ||
	fail "no file:line for the unknown policy: $(grep fatal "$TDIR/c/log/slurmctld.log")"
# the log says what kind of failure it is (err_kind: EINVAL's)
grep -q "fatal: select/topo: .*unknown policy.* \[bad input\]$" "$TDIR/c/log/slurmctld.log" ||
	fail "the fatal does not say it is bad input: $(grep fatal "$TDIR/c/log/slurmctld.log")"
cluster_reset

# A policy for a partition slurm.conf lacks (a typo): batch would run
# unisolated, so slurmctld refuses to start.
printf 'Topology=fattree k=4 n=3\nNodeName=n[0-63]\nPartitionPolicy=bacth:fattree-pods\n' > "$TDIR/bad6.conf"
if SELECT=topo TOPO_CONF="$TDIR/bad6.conf" PLUGIN_BUILDDIR=$top_builddir \
	"$CLUSTER" start "$TDIR/c" >"$TDIR/start.log" 2>&1; then
	fail "slurmctld started with a policy for an unknown partition"
fi
grep -q "fatal: select/topo: .*topo.conf:3: PartitionPolicy=bacth:fattree-pods: slurm.conf has no partition 'bacth' (it has: batch)" \
	"$TDIR/c/log/slurmctld.log" ||
	fail "no file:line for the partition typo: $(grep fatal "$TDIR/c/log/slurmctld.log")"
cluster_reset

# An unknown prediction model: fatal at start, with model_check's message.
printf 'Topology=fattree k=4 n=3\nNodeName=n[0-63]\nPartitionPolicy=batch:fattree-pods\nPredict=nosuch\n' > "$TDIR/bad4.conf"
if SELECT=topo TOPO_CONF="$TDIR/bad4.conf" PLUGIN_BUILDDIR=$top_builddir \
	"$CLUSTER" start "$TDIR/c" >"$TDIR/start.log" 2>&1; then
	fail "slurmctld started with an unknown Predict= model"
fi
grep -q "fatal: select/topo: .*topo.conf:4: Predict=nosuch: unknown model 'nosuch' (known: " "$TDIR/c/log/slurmctld.log" ||
	fail "no file:line for the unknown model: $(grep fatal "$TDIR/c/log/slurmctld.log")"
echo "PASS"
