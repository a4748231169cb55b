#!/bin/bash
# The nne policy hands a grid job its rank order (issue 11), in real
# daemons: a dragonfly (p=2,a=4,h=2,g=9: 72 nodes, 8 per group, n0-35
# with 4 CPUs and n36-71 with 8) routed min, every partition under nne.
#   - A job without a grid falls back to dragonfly-groups (one group), and
#     srun --topo-ranks in it is refused with the reason.
#   - A job with --topo-grid=4x4x2 on 16 nodes (2 ranks a node) spans
#     groups: select/topo records its rank order in the job's
#     SystemComment, and `srun --topo-ranks` within the job prints each
#     rank's node (SLURM_PROCID, SLURMD_NODENAME):
#       * exactly the plan `stopo place` makes from the same machine
#         state (the squeue snapshot taken before the job, the job id as
#         the seed): its --hostfile, line r = rank r;
#       * and, checked by hand from the plan's gamma, every gamma-box of
#         the grid on one dragonfly group, 2 ranks on each node, the
#         groups wholly free before the job;
#       * where a plain srun of the same job (Slurm's block layout) puts
#         a gamma-box across groups: without the option the plan is lost.
. "$(dirname "$0")/lib.sh"
require_cluster
command -v srun >/dev/null || skip "srun not installed"

conf=$TDIR/dfly.conf
cat > "$conf" <<'CONF'
Topology=dragonfly p=2 a=4 h=2 g=9
Routing=min
NodeName=n[0-71]
DefaultPolicy=nne
CONF
cluster_start topo "$conf" 72
group_of() { echo $(( ${1#n} / 8 )); }

# 1. A job without a grid: one group (dragonfly-groups), and no rank
# order for srun --topo-ranks, which says why.
a=$(sbatch --parsable -N 8 -o "$TDIR/a.out" --wrap \
	'srun --topo-ranks true; echo "rc=$?"; sleep 30') ||
	fail "sbatch -N 8"
started "$a" || fail "job $a did not start: $(field "$a" Reason)"
na=$(field "$a" NodeList)
ga=$(for h in $(scontrol show hostnames "$na"); do group_of "$h"; done | sort -u)
[ "$(echo "$ga" | wc -l)" = 1 ] || fail "8-node job without a grid on $na: not one group"
for _ in $(seq 1 40); do grep -q "^rc=" "$TDIR/a.out" 2>/dev/null && break; sleep 0.5; done
grep -q "^rc=[1-9]" "$TDIR/a.out" || fail "srun --topo-ranks ran in a job without a rank order: $(cat "$TDIR/a.out")"
grep -q "topo-ranks: job $a has no rank order" "$TDIR/a.out" ||
	fail "srun --topo-ranks refused without the reason: $(cat "$TDIR/a.out")"
note "job $a (no grid) on $na, group $ga; srun --topo-ranks: $(grep -o 'job [0-9]* has no rank order' "$TDIR/a.out")"

# 2. The grid job, planned around job 1.
squeue --json > "$TDIR/before.json" 2>/dev/null
cat > "$TDIR/grid.sh" <<'EOF'
#!/bin/bash
srun --topo-ranks -o "$OUT/ranks.%t" bash -c 'echo "$SLURM_PROCID $SLURMD_NODENAME"' ||
	echo "srun --topo-ranks failed" > "$OUT/ranks.failed"
srun -o "$OUT/block.%t" bash -c 'echo "$SLURM_PROCID $SLURMD_NODENAME"' ||
	echo "srun failed" > "$OUT/block.failed"
env | grep -q '^SLURM_HOSTFILE=' && echo "SLURM_HOSTFILE left in the job" > "$OUT/ranks.failed"
exit 0
EOF
mkdir -p "$TDIR/out"
chmod 755 "$TDIR/out"
b=$(OUT=$TDIR/out sbatch --parsable --export=ALL -N 16 -n 32 --topo-grid=4x4x2 \
	-o "$TDIR/b.out" "$TDIR/grid.sh" 2>"$TDIR/sbatch.err") ||
	fail "sbatch --topo-grid: $(cat "$TDIR/sbatch.err")"
wait_all 120 || fail "jobs did not finish"
[ "$(field "$b" JobState)" = COMPLETED ] || fail "grid job $b: $(field "$b" JobState)"
[ ! -e "$TDIR/out/ranks.failed" ] || fail "$(cat "$TDIR/out/ranks.failed") $(cat "$TDIR/b.out")"
[ ! -e "$TDIR/out/block.failed" ] || fail "$(cat "$TDIR/out/block.failed") $(cat "$TDIR/b.out")"
nb=$(field "$b" NodeList)
sc=$(scontrol show job "$b" | sed -n 's/^ *SystemComment=//p')
note "grid job $b on $nb; SystemComment: $sc"
echo "$sc" | grep -q "topo_grid=4x4x2 topo_ranks=" || fail "no rank order in SystemComment: $sc"
grep -q "rank order of grid 4x4x2 recorded (32 ranks on 16 nodes)" "$TDIR/c/log/slurmctld.log" ||
	fail "select/topo did not log the rank order"
cat "$TDIR"/out/ranks.* | sort -n > "$TDIR/ranks"
cat "$TDIR"/out/block.* | sort -n > "$TDIR/block"
[ "$(wc -l < "$TDIR/ranks")" = 32 ] || fail "srun --topo-ranks: $(cat "$TDIR/ranks")"

# The plan, from stopo place on the machine as the job found it.
"$STOPO" place --topo "$conf" --grid 4x4x2 --tasks-per-node 2 --seed "$b" \
	--squeue "$TDIR/before.json" --hostfile "$TDIR/plan.hosts" --json \
	> "$TDIR/plan.json" 2>"$TDIR/plan.err" ||
	fail "stopo place: $(cat "$TDIR/plan.err")"
awk '{ print NR - 1, $1 }' "$TDIR/plan.hosts" > "$TDIR/plan"
diff "$TDIR/plan" "$TDIR/ranks" > "$TDIR/diff" ||
	fail "ranks differ from stopo place's plan (< plan, > srun): $(cat "$TDIR/diff")"

# By hand from gamma: every box on one group, 2 ranks a node, the groups
# free before the job, and the block layout breaking some box.
python3 - "$TDIR/plan.json" "$TDIR/ranks" "$TDIR/block" "$ga" <<'PY' ||
import json, sys
from collections import Counter, defaultdict
plan = json.load(open(sys.argv[1]))
best = plan["plans"][0]
gamma = best["gamma"]
B = (4, 4, 2)
def layout(path):
    return {int(r): h for r, h in (l.split() for l in open(path))}
def boxes(rank_node):
    box = defaultdict(set)
    for r, h in rank_node.items():
        x = (r % 4, r // 4 % 4, r // 16)
        key = tuple(x[k] // gamma[k] for k in range(3))
        box[key].add(int(h[1:]) // 8)
    return box
ranks, block = layout(sys.argv[2]), layout(sys.argv[3])
assert sorted(ranks) == list(range(32)), ranks
assert all(n == 2 for n in Counter(ranks.values()).values()), Counter(ranks.values())
rb = boxes(ranks)
assert all(len(g) == 1 for g in rb.values()), ("a box on several groups", rb)
used = set().union(*rb.values())
assert int(sys.argv[4]) not in used, ("the busy group used", used)
assert len(used) == best["groups"], (used, best["groups"])
bb = boxes(block)
assert any(len(g) > 1 for g in bb.values()), ("block layout keeps the boxes", bb)
print("# gamma %s: %d boxes on groups %s; Slurm's block layout splits %d"
      % ("x".join(map(str, gamma)), len(rb), sorted(used), sum(len(g) > 1 for g in bb.values())))
PY
	fail "the rank layout does not follow the plan"
ctld_alive || fail "slurmctld died"
