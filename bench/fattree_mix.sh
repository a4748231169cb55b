#!/bin/sh
# fattree_mix.sh STOPO SRCDIR - issue 15's table: fattree-pods under the
# paper's rules and under rule=links beside linear (utilisation, and each
# as % of linear's; the isolating policies' MLS max), on the shared
# 10,000-job workload (--scale auto) on fattree:k=4,n=3, k=4,n=4 and
# k=22,n=3, and on the awkward mix (awkward_mix.sh: 2,000 jobs of 1-32
# nodes, half of them 5-13) on fattree:k=4,n=3 and k=6,n=2 under ecmp and
# dmodk.  "rounded" is linear on the same jobs with sizes rounded up to
# whole units as the paper's rules round them (round_units.sh), as % of
# linear's utilisation on the jobs as they are: what the rounding costs
# when packing is linear's; the isolating policies above it recover part
# of it by filling the rounded-off nodes with smaller jobs.  "bound" is
# isolation_bound.sh's: the most utilisation any schedule that keeps
# every job's links private under ecmp can reach on these jobs (ecmp
# rows only: under dmodk two jobs may share a unit on disjoint ports).
set -eu
stopo=${1:?usage: fattree_mix.sh STOPO SRCDIR}
src=${2:?usage: fattree_mix.sh STOPO SRCDIR}
swf=${WORKLOAD:-$src/../shared/workloads/lublin_256.swf}
if [ ! -f "$swf" ]; then
	echo "== fat-tree mixes: $swf not found, skipped"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sh "$src/bench/awkward_mix.sh" "$swf" >"$tmp/mix.csv"
echo "== fattree-pods (paper rules, rule=links) beside linear"
printf '%-34s %-6s %8s %16s %16s %8s %8s %8s\n' workload routing linear \
	"paper (% lin)" "links (% lin)" "MLS max" rounded bound
row() { # NAME ROUTING TOPO WORKLOAD [--scale auto]
	name=$1 r=$2 t=$3 w=$4
	shift 4
	k=$(echo "$t" | sed 's/.*k=\([0-9]*\).*/\1/')
	n=$(echo "$t" | sed 's/.*n=\([0-9]*\).*/\1/')
	sh "$src/bench/round_units.sh" "$w" "$k" "$n" \
		"$([ $# -gt 0 ] && echo auto || echo 1)" >"$tmp/rounded.csv"
	# the jobs as whatif sizes them: rounding on a one-level tree of
	# all K^N nodes keeps every size
	sh "$src/bench/round_units.sh" "$w" \
		"$(awk -v k="$k" -v n="$n" 'BEGIN { print k ^ n }')" 1 \
		"$([ $# -gt 0 ] && echo auto || echo 1)" >"$tmp/scaled.csv"
	# the bound holds under ecmp (dmodk may let two jobs share a unit)
	b=-
	[ "$r" = ecmp ] &&
		b=$(sh "$src/bench/isolation_bound.sh" "$tmp/scaled.csv" \
			"$k" "$n" | awk '$1 == "bound" { print $2 }')
	"$stopo" whatif --quiet --no-rates --topo "$t" --routing "$r" \
		--workload "$w" "$@" \
		--policy linear,fattree-pods:rule=paper,fattree-pods:rule=links \
		>"$tmp/out"
	"$stopo" whatif --quiet --no-rates --json --topo "$t" --routing "$r" \
		--workload "$tmp/rounded.csv" --policy linear >"$tmp/rounded"
	awk -v name="$name" -v r="$r" -v b="$b" '
	/"makespan":/ { sub(/.*"makespan":/, ""); mr = $0 + 0 }
	/^utilization %/ { l = $3; p = $4; k = $5 }
	/^makespan s/ { ml = $3 }
	/^MLS max %/ { m = ($6 > $5 ? $6 : $5) }
	END { printf "%-34s %-6s %8.2f %7.2f (%5.1f) %7.2f (%5.1f) %8.2f " \
		"%8.1f %8s\n", name, r, l, p, 100 * p / l, k, 100 * k / l, m,
		100 * ml / mr, b }' \
		"$tmp/rounded" "$tmp/out"
}
for t in fattree:k=4,n=3 fattree:k=4,n=4 fattree:k=22,n=3; do
	row "10,000 jobs, $t" ecmp "$t" "$swf" --scale auto
done
for t in fattree:k=4,n=3 fattree:k=6,n=2; do
	for r in ecmp dmodk; do
		row "awkward mix, $t" "$r" "$t" "$tmp/mix.csv"
	done
done
