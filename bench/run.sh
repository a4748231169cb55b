#!/bin/sh
# run.sh STOPO SRCDIR - the stopo-level benchmarks of make bench: nne
# against dragonfly-groups and clustered on the grid workload
# (grid_workload.sh: 30 % of the jobs of 8 nodes or more of the shared
# 10,000-job workload given cubic grids; its first 3,000 jobs) on the
# 256-node dragonfly under ugal and min, rates by the nne model: each
# policy's utilisation, rate sum, and the mean B_eff per node (link
# units) of the grid jobs spanning groups (over 32 nodes) and within one.
# Then issue 10's four policies on the whole workload with hm rates on
# the 11,130-node dragonfly (wall time against its 60 s), and
# fattree_mix.sh: fattree-pods's two rule sets beside linear.
set -eu
stopo=${1:?usage: run.sh STOPO SRCDIR}
src=${2:?usage: run.sh STOPO SRCDIR}
swf=${WORKLOAD:-$src/../shared/workloads/lublin_256.swf}
if [ ! -f "$swf" ]; then
	echo "== grid workload: $swf not found, skipped"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sh "$src/bench/grid_workload.sh" "$swf" >"$tmp/grid.csv"
head -n 3001 "$tmp/grid.csv" |
	awk -F, 'NR > 1 && $6 ~ /stencil/ { print $1, $3 }' >"$tmp/ids"
for r in ugal:intra=local min; do
	echo "== nne on the grid workload (3,000 jobs), dragonfly:p=4,a=8,h=4,g=8, $r"
	t0=$(date +%s)
	"$stopo" whatif --topo dragonfly:p=4,a=8,h=4,g=8 --routing "$r" \
		--workload "$tmp/grid.csv" --limit-jobs 3000 --quiet \
		--policy nne,dragonfly-groups,clustered --model nne \
		--jobs-out "$tmp/jobs.csv" >"$tmp/out"
	grep -E '^(policy|utilization|comm. rate sum)' "$tmp/out"
	# the node lists are quoted and hold commas: drop them first
	sed 's/"[^"]*"//g' "$tmp/jobs.csv" |
		awk -F, 'NR == FNR { n[$1] = $2; next }
		FNR > 1 && ($2 in n) && $9 != "" {
			k = $1 (n[$2] > 32 ? " across groups" : " in one group")
			s[k] += $9 / n[$2]; c[k]++
		}
		END { for (k in s) printf "grid jobs %-40s %4d  B_eff/node %.4f\n", k, c[k], s[k] / c[k] }' \
		FS=' ' "$tmp/ids" FS=, - | sort
	echo "   ($(($(date +%s) - t0)) s)"
done
# issue 10's run with rates: four policies, the whole workload, the
# 11,130-node dragonfly, hm (the policies side by side, one per core)
echo "== issue 10: 4 policies x 10,000 jobs with hm rates, dragonfly:p=7,a=15,h=8,g=106, ugal (target 60 s)"
t0=$(date +%s)
"$stopo" whatif --topo dragonfly:p=7,a=15,h=8,g=106 \
	--routing ugal:intra=local --workload "$swf" --scale auto --quiet \
	--policy linear,clustered,dragonfly-groups,dragonfly-groups:large=shared \
	--model hm >"$tmp/out"
t1=$(date +%s)
grep -E '^(policy|utilization|comm. rate sum)' "$tmp/out"
echo "   $((t1 - t0)) s wall on $(nproc) cores ($([ $((t1 - t0)) -lt 60 ] && echo met || echo MISSED))"
sh "$src/bench/fattree_mix.sh" "$stopo" "$src"
sh "$src/bench/issue47.sh" "$stopo" "$src"
