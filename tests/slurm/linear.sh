#!/bin/bash
# select/topo wrapping select/linear (topo.conf Wrap=linear): fat-tree
# k=4, n=3 (64 nodes) under fattree-pods.  slurmctld logs that it wraps
# select/linear; the scripted mix of 1- to 32-node jobs all completes and
# at every sampled moment `stopo report --check` on `squeue --json` passes
# (MLS = TLS = 0); a Wrap= changed under `scontrol reconfigure` is refused
# loudly and the running plugin stays; the same workload under plain
# select/linear does share links; SelectTypeParameters=CR_Core, which
# select/linear cannot use, stops slurmctld at start-up, and so do (from
# 24.11) no SelectTypeParameters line and MaxNodeCount (cons_tres's).
. "$(dirname "$0")/lib.sh"
require_cluster
have_report || skip "stopo report not built"

cat > "$TDIR/topo.conf" <<'CONF'
Topology=fattree k=4 n=3
NodeName=n[0-63]
PartitionPolicy=batch:fattree-pods:rule=paper
Wrap=linear
CONF

# select/linear takes CR_Memory or nothing (the cluster script writes
# CR_Core; the later line wins).
SLURM_EXTRA='SelectTypeParameters=CR_Memory' \
	cluster_start topo "$TDIR/topo.conf"
log="$TDIR/c/log/slurmctld.log"
grep -q "select/topo: loaded, wrapping select/linear" "$log" ||
	fail "slurmctld does not say it wraps select/linear: $(grep 'select/topo' "$log" | head -3)"
grep -q "select/topo: .*topology fattree.*wrapping select/linear" "$log" ||
	fail "topo.conf not loaded with Wrap=linear"
# Up to 24.11 the clients see select/topo's plugin id (177), decoded by
# select_topo_cons_tres.so (from 25.05 they load no select plugin).
sinfo -h -o '%D %t' | grep -q "^64 idle" || fail "sinfo: $(sinfo 2>&1)"
scontrol show config | grep -q "SelectType *= select/topo" ||
	fail "scontrol show config: $(scontrol show config | grep -i select)"

run_workload linear 60
all_completed linear || fail "select/topo+linear: a job did not complete"
checked=0 busy=0
for f in "$TDIR"/snap.linear.*.json; do
	[ -s "$f" ] || continue
	"$STOPO" report --check --topo "$TDIR/topo.conf" "$f" >"$TDIR/check.out" 2>&1 ||
		{ cat "$TDIR/check.out" >&2; fail "stopo report --check: links shared in $f"; }
	checked=$((checked + 1))
	n=$(python3 -c 'import json,sys; print(sum(1 for j in json.load(open(sys.argv[1]))["jobs"] if "RUNNING" in (j["job_state"] if isinstance(j["job_state"], list) else [j["job_state"]])))' "$f")
	[ "$n" -ge 2 ] && busy=$((busy + 1))
done
read -r mls tls n < <(max_sharing linear "$TDIR/topo.conf")
note "select/topo wrapping select/linear: $checked samples checked ($busy with 2+ jobs running), max MLS $mls, max TLS $tls"
[ "$checked" -ge 10 ] || fail "only $checked samples"
[ "$busy" -ge 3 ] || fail "only $busy samples with 2+ running jobs: the check saw no contention"
python3 -c "import sys; sys.exit(0 if $mls == 0 and $tls == 0 else 1)" ||
	fail "links shared (MLS $mls, TLS $tls)"

# Wrap= changed while slurmctld runs: kept, logged; jobs still run.
sed -i 's/^Wrap=linear$/Wrap=cons_tres/' "$TDIR/c/etc/topo.conf"
scontrol reconfigure || fail "scontrol reconfigure"
for _ in $(seq 1 50); do
	grep -q "CANNOT CHANGE WHILE slurmctld RUNS: KEEPING select/linear" "$log" && break
	sleep 0.2
done
grep -q "Wrap=select/cons_tres, but select/linear is loaded and CANNOT CHANGE WHILE slurmctld RUNS: KEEPING select/linear" "$log" ||
	fail "changed Wrap= not reported on reconfigure: $(grep 'select/topo' "$log" | tail -3)"
id=$(submit 16 1) || fail "sbatch after reconfigure"
wait_all 30 || fail "job $id did not finish after reconfigure"
scontrol show job "$id" | grep -q JobState=COMPLETED || fail "job $id did not complete"
ctld_alive || fail "slurmctld died"
cluster_reset

# The same workload under plain select/linear shares links (so the check
# can fail).
SLURM_EXTRA='SelectTypeParameters=CR_Memory' \
	cluster_start linear "$TDIR/topo.conf"
run_workload plain 60
all_completed plain stock || fail "select/linear: jobs did not complete"
read -r pmls ptls pn < <(max_sharing plain "$TDIR/topo.conf")
note "plain select/linear: max MLS $pmls, max TLS $ptls over $pn samples"
python3 -c "import sys; sys.exit(0 if $pmls > 0 and $ptls > 0 else 1)" ||
	fail "plain select/linear showed no sharing: the check cannot tell"
cluster_reset

# CR_Core with Wrap=linear: refused at start-up, as select/linear does.
if SELECT=topo TOPO_CONF="$TDIR/topo.conf" PLUGIN_BUILDDIR=$top_builddir \
	"$CLUSTER" start "$TDIR/c" >"$TDIR/start.log" 2>&1; then
	fail "slurmctld started with Wrap=linear and SelectTypeParameters=CR_Core"
fi
grep -q "fatal: select/topo: Wrap=linear: invalid SelectTypeParameters=CR_CORE (4): select/linear can't use CR_CPU, CR_Core or CR_Socket: set SelectTypeParameters=CR_Memory" "$log" ||
	fail "no clear message for CR_Core: $(grep fatal "$log")"
cluster_reset
# No SelectTypeParameters line: from 24.11 Slurm gives the name
# select/topo_cons_tres cons_tres's default, CR_Core_Memory, which
# select/linear cannot take (refused, saying what to set); 22.05 gives 0.
# MaxNodeCount, which Slurm allows a name holding cons_tres: refused.
for what in params maxnodes; do
	case $what in
	params) set -- env SELECT_PARAMS= ;;
	maxnodes) set -- env SLURM_EXTRA='SelectTypeParameters=CR_Memory
MaxNodeCount=80' ;;
	esac
	if "$@" SELECT=topo TOPO_CONF="$TDIR/topo.conf" PLUGIN_BUILDDIR=$top_builddir \
		"$CLUSTER" start "$TDIR/c" >"$TDIR/start.log" 2>&1; then
		[ $what = params ] && [ "$SLURM_SERIES" = 22.05 ] ||
			fail "slurmctld $SLURM_SERIES started with Wrap=linear and $what"
	else
		case $what in
		params) want="fatal: select/topo: Wrap=linear: invalid SelectTypeParameters=CR_CORE_MEMORY (20): select/linear can't use CR_CPU, CR_Core or CR_Socket: set SelectTypeParameters=CR_Memory (without the line Slurm gives select/topo_cons_tres cons_tres's default, CR_Core_Memory)" ;;
		maxnodes) want="fatal: select/topo: Wrap=linear: MaxNodeCount=80 is for select/cons_tres (Slurm accepts it from a SelectType naming cons_tres, select/topo_cons_tres): remove it, or wrap cons_tres" ;;
		esac
		[ $what = params ] && [ "$SLURM_SERIES" = 22.05 ] &&
			fail "slurmctld 22.05 refused Wrap=linear without SelectTypeParameters"
		grep -qF "$want" "$log" || fail "$what: $(grep fatal "$log")"
	fi
	cluster_reset
done
echo "PASS"
