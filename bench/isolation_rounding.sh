#!/bin/sh
# isolation_rounding.sh STOPO SWF K - what keeping links private costs the
# waits of the jobs of SWF that span pods on fattree:k=K,n=3 (--scale
# auto, ecmp), placement and reservations apart: stopo whatif --no-rates
# on those jobs alone, as linear and fattree-pods place them, and as
# linear places them with every size rounded up to whole pods.
#
# Under ecmp a job with nodes in two pods uses every up-link of each of
# its pods (isolation_bound.sh), so of the jobs that span pods at most one
# crosses a pod at a time: a job of s nodes holds at least ceil(s / K^2)
# whole pods against every other such job.  The jobs running at any
# instant of an isolating schedule of such jobs alone therefore fit K^3
# nodes with their sizes rounded up to whole pods (round_units.sh), and
# linear given the rounded sizes has all the room any isolating placement
# has and more (no pod alignment).  One scheduler (FCFS + EASY backfill)
# runs all three, so "linear, pods" beside "linear" is what the rounding
# alone costs the waits, and fattree-pods beside "linear, pods" what its
# placement and its reservations lose beyond that.
# Sizes are those --scale auto gives the whole trace (round_units.sh on a
# one-level tree of K^3 nodes): the sub-trace scaled alone would round
# otherwise.
# Output: "wide jobs  COUNT  NODE-SECONDS%" (their share of the trace's),
# then "linear|fattree-pods|linear, pods  WAIT  RATIO  UTIL%" lines, the
# waits in seconds and as ratios to linear's.
set -eu
stopo=${1:?usage: isolation_rounding.sh STOPO SWF K}
swf=${2:?usage: isolation_rounding.sh STOPO SWF K}
k=${3:?usage: isolation_rounding.sh STOPO SWF K}
here=$(dirname "$0")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

topo="fattree:k=$k,n=3"
sh "$here/round_units.sh" "$swf" $((k * k * k)) 1 auto >"$tmp/all.csv"
awk -F, -v pod=$((k * k)) 'NR == 1 || $3 > pod' "$tmp/all.csv" \
	>"$tmp/wide.csv"
sh "$here/round_units.sh" "$tmp/wide.csv" "$k" 3 >"$tmp/pods.csv"
awk -F, -v pod=$((k * k)) 'NR > 1 {
	a += $3 * $4
	if ($3 > pod) { n++; w += $3 * $4 }
}
END { printf "wide jobs  %d  %.1f\n", n, (a > 0 ? 100 * w / a : 0) }' \
	"$tmp/all.csv"
"$stopo" whatif --quiet --no-rates --topo "$topo" \
	--workload "$tmp/wide.csv" --policy linear,fattree-pods \
	>"$tmp/wide.out"
"$stopo" whatif --quiet --no-rates --topo "$topo" \
	--workload "$tmp/pods.csv" --policy linear >"$tmp/pods.out"
awk '
/^utilization %/ { for (i = 3; i <= NF; i++) u[FILENAME, i - 2] = $i }
/^mean wait s/ { for (i = 4; i <= NF; i++) w[FILENAME, i - 3] = $i }
END {
	split(ARGV[1] " " ARGV[1] " " ARGV[2], f, " ")
	split("linear fattree-pods linear,_pods", name, " ")
	col[1] = 1; col[2] = 2; col[3] = 1
	for (r = 1; r <= 3; r++) {
		x = w[f[r], col[r]]
		sub(/_/, " ", name[r])
		printf "%-14s %10.1f %6.2fx %7.2f\n", name[r], x,
			x / w[ARGV[1], 1], u[f[r], col[r]]
	}
}' "$tmp/wide.out" "$tmp/pods.out"
