#!/bin/bash
# exclusive_topo.sh - select/topo against what Slurm 24.11 itself offers
# (not part of make check; 24.11 only): the same job mix on the 64-node
# fat-tree k=4, n=3 under
#   topo        select/topo, fattree-pods
#   cons_tres   plain select/cons_tres (no topology plugin)
#   excl-job    cons_tres, TopologyPlugin=topology/tree, sbatch --exclusive=topo
#   excl-part   cons_tres, topology/tree, partition ExclusiveTopo=YES
#   block-job   cons_tres, TopologyPlugin=topology/block, --exclusive=topo
#   block-part  cons_tres, topology/block, partition ExclusiveTopo=YES
# topology.conf describes the same tree as topo.conf (16 leaf switches of
# 4 nodes, 4 pods of 4 leaves, one core) for topology/tree, and as blocks
# (a leaf switch a block, BlockSizes=4,16,64: leaf, pod, machine) for
# topology/block.  Neither knows links, so "one job per leaf switch" is
# the closest 24.11 comes to isolation.  24.11.5 honours ExclusiveTopo and
# --exclusive=topo only under topology/block: topology/tree answers 0 to
# TOPO_DATA_EXCLUSIVE_TOPO and cons_tres's _block_by_topology() then
# returns without excluding anything (plugins/topology/tree/
# topology_tree.c, plugins/select/cons_tres/job_test.c), silently; the
# excl-* runs show what such a site gets.
# Prints per run: makespan, utilisation (node-seconds of the jobs over 64
# nodes x makespan), mean wait, and the largest and mean MLS/TLS that
# `stopo report` finds in squeue --json sampled every 0.5 s.
#   SLURM_PREFIX=_deps/slurm-24.11.5 top_builddir=_build24 \
#       tests/slurm/exclusive_topo.sh
# SCALE=N multiplies the jobs' run times (default 3).
. "$(dirname "$0")/lib.sh"
require_cluster
have_report || skip "stopo report not built"
[ "$SLURM_SERIES" = 24.11 ] ||
	skip "ExclusiveTopo and --exclusive=topo are Slurm 24.11's (this is ${SLURM_SERIES:-unknown}: set SLURM_PREFIX)"

cat > "$TDIR/topo.conf" <<'CONF'
Topology=fattree k=4 n=3
NodeName=n[0-63]
PartitionPolicy=batch:fattree-pods:rule=paper
CONF
# The same tree for topology/tree.
{
	for l in $(seq 0 15); do
		echo "SwitchName=leaf$l Nodes=n[$((l * 4))-$((l * 4 + 3))]"
	done
	for p in 0 1 2 3; do
		echo "SwitchName=pod$p Switches=leaf[$((p * 4))-$((p * 4 + 3))]"
	done
	echo "SwitchName=core Switches=pod[0-3]"
} > "$TDIR/topology.tree"
# The same leaves as blocks.
{
	for l in $(seq 0 15); do
		echo "BlockName=leaf$l Nodes=n[$((l * 4))-$((l * 4 + 3))]"
	done
	echo "BlockSizes=4,16,64"
} > "$TDIR/topology.block"

scale=${SCALE:-3}
WORKLOAD=$(echo "$WORKLOAD_64" | awk -v k="$scale" '{ print $1, $2, $3 * k }')
export WORKLOAD

# stats NAME -> "makespan utilisation mean_wait" of NAME's jobs.
stats() {
	squeue --json -t all 2>/dev/null | python3 -c '
import json, sys
ids = set(l.strip() for l in open(sys.argv[1]) if l.strip())
def num(v):
    return v.get("number", 0) if isinstance(v, dict) else v
sub, beg, end, ns, wait = [], [], [], 0, 0
for j in json.load(sys.stdin)["jobs"]:
    if str(j["job_id"]) not in ids:
        continue
    s, b, e = num(j["submit_time"]), num(j["start_time"]), num(j["end_time"])
    sub.append(s); beg.append(b); end.append(e)
    ns += num(j["node_count"]) * (e - b)
    wait += b - s
span = max(end) - min(sub)
print(span, "%.3f" % (ns / (64.0 * span)), "%.1f" % (wait / len(sub)))
' "$TDIR/$1.jobs"
}

# mean_sharing NAME -> "MLS TLS" averaged over NAME's samples.
mean_sharing() {
	awk '$1 != "fail" { m += $1; t += $2; n++ } END { if (n) printf "%.3f %.3f\n", m / n, t / n; else print "0 0" }' \
		"$TDIR/sharing.$1"
}

# shared_leaves NAME -> "K N": in K of NAME's N samples with running jobs,
# two running jobs had nodes on one leaf switch (4 nodes a leaf).
shared_leaves() {
	python3 - "$TDIR" "$1" <<'PY'
import glob, json, re, sys
def expand(s):
    out = []
    for m in re.finditer(r"n(\[[^\]]*\]|\d+)", s or ""):
        g = m.group(1)
        if g[0] != "[":
            out.append(int(g)); continue
        for part in g[1:-1].split(","):
            a, _, b = part.partition("-")
            out.extend(range(int(a), int(b or a) + 1))
    return out
k = n = 0
for f in glob.glob("%s/snap.%s.*.json" % (sys.argv[1], sys.argv[2])):
    try:
        jobs = json.load(open(f))["jobs"]
    except (ValueError, KeyError):
        continue
    owner, shared, running = {}, False, 0
    for j in jobs:
        st = j["job_state"]
        st = st[0] if isinstance(st, list) else st
        if st != "RUNNING":
            continue
        running += 1
        for leaf in set(x // 4 for x in expand(j.get("nodes"))):
            if owner.setdefault(leaf, j["job_id"]) != j["job_id"]:
                shared = True
    if running:
        n += 1
        k += shared
print(k, n)
PY
}

one() { # NAME SELECT TOPOLOGY(tree, block or -) [sbatch options]
	local name=$1 sel=$2 kind=$3 extra=
	shift 3
	mkdir -p "$TDIR/c/etc"
	if [ "$kind" != - ]; then
		cp "$TDIR/topology.$kind" "$TDIR/c/etc/topology.conf"
		extra="TopologyPlugin=topology/$kind
PartitionName=etopo Nodes=ALL MaxTime=INFINITE State=UP OverSubscribe=EXCLUSIVE ExclusiveTopo=YES"
	fi
	SLURM_EXTRA=$extra cluster_start "$sel" "$TDIR/topo.conf"
	case $kind in
	tree)
		scontrol show topology 2>&1 | grep -q "SwitchName=leaf15 .*Level=0" ||
			fail "$name: topology/tree did not read topology.conf: $(scontrol show topology 2>&1 | head -3)"
		;;
	block)
		scontrol show topology 2>&1 | grep -q "BlockName=leaf15 .*Nodes=n\[60-63\]" ||
			fail "$name: topology/block did not read topology.conf: $(scontrol show topology 2>&1 | head -3)"
		;;
	esac
	run_workload "$name" 300 "$@"
	all_completed "$name" 1 || fail "$name: jobs did not complete"
	read -r span util wait < <(stats "$name")
	read -r mls tls n < <(max_sharing "$name" "$TDIR/topo.conf")
	read -r mmls mtls < <(mean_sharing "$name")
	read -r kl nl < <(shared_leaves "$name")
	printf '%-10s makespan %4s s  utilisation %s  mean wait %5s s  MLS max %s mean %s  TLS max %s mean %s  (%s samples)  leaf shared in %s of %s\n' \
		"$name" "$span" "$util" "$wait" "$mls" "$mmls" "$tls" "$mtls" "$n" "$kl" "$nl"
	cluster_reset
}

one topo topo -
one cons_tres cons_tres -
one excl-job cons_tres tree --exclusive=topo
one excl-part cons_tres tree -p etopo
one block-job cons_tres block --exclusive=topo
one block-part cons_tres block -p etopo
