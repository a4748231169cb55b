#!/bin/sh
# isolation_bound.sh CSV K N - upper bounds on the utilisation that stopo
# whatif can report for the jobs of CSV (id,submit,nodes,runtime,limit, as
# awkward_mix.sh and round_units.sh write) on fattree:k=K,n=N: under any
# schedule (first the plain node count), and under any schedule that keeps
# every job's links private under ecmp (one line per switch level).
#
# Under ecmp a job whose nodes lie in two level-j units (j = 0: leaf
# switches of K nodes; 1: pods of K^2; ...) uses every up-link of each
# such unit's switches, and so does any other such job: a level-j unit is
# crossed by at most one job at a time.  A job of more than K^(j+1) nodes
# crosses at least ceil(nodes / K^(j+1)) level-j units, so while it runs
# it holds that many units' K^(j+1) nodes apiece against every other such
# job: with c_j(i) that node count (0 for a job that fits one unit), the
# jobs running at any instant have sum c_j(i) <= K^N.  Jobs submitted at
# or after time t run after t, so the last end is at least
#   max over t of  t + sum over jobs submitted at or after t of
#                      c_j(i) * runtime(i) / K^N
# (and each job's submit + runtime); stopo whatif's utilisation, busy
# node-time over K^N nodes times (last end - first submit), is at most
# the jobs' node-time over K^N times that.  The bound ignores every other
# constraint (a job placed with linear's freedom at each level), so it
# is no tighter than the constraint that binds most; a job that fits one
# unit is counted at no cost (it may fill another job's leftover).
# Output: "nodes|level J  MAKESPAN  UTIL%" lines, then "bound  UTIL%",
# the smallest.
set -eu
csv=${1:?usage: isolation_bound.sh CSV K N}
k=${2:?usage: isolation_bound.sh CSV K N}
n=${3:?usage: isolation_bound.sh CSV K N}
sort -t, -k2,2n "$csv" | awk -F, -v k="$k" -v lv="$n" '
function ceil_div(a, b) { return int((a + b - 1) / b) }
BEGIN {
	total = 1
	for (i = 0; i < lv; i++)
		total *= k
	nj = 0
}
$1 == "id" { next }
{
	nj++
	sub_[nj] = $2 + 0; nd[nj] = $3 + 0; rt[nj] = $4 + 0
	area += nd[nj] * rt[nj]
	if (nj == 1 || sub_[nj] < first)
		first = sub_[nj]
	if (nj == 1 || sub_[nj] + rt[nj] > last)
		last = sub_[nj] + rt[nj]
}
END {
	if (!nj) {
		print "isolation_bound.sh: no jobs" > "/dev/stderr"
		exit 1
	}
	best = 100
	# level -1: the node count itself (any schedule)
	for (j = -1; j <= lv - 2; j++) {
		u = 1		# nodes under one level-j unit: K^(j+1)
		for (i = 0; i <= j; i++)
			u *= k
		end = last; suf = 0
		for (i = nj; i >= 1; i--) {	# sorted by submit
			c = nd[i] > u || j < 0 ? ceil_div(nd[i], u) * u : 0
			suf += c * rt[i]
			if (i == 1 || sub_[i - 1] != sub_[i])
				if (sub_[i] + suf / total > end)
					end = sub_[i] + suf / total
		}
		util = end > first ? 100 * area / (total * (end - first)) : 100
		printf "%-8s %14.1f %7.2f\n", j < 0 ? "nodes" : "level " j,
			end - first, util
		if (util < best)
			best = util
	}
	printf "bound    %22.2f\n", best
}'
