#!/bin/sh
# round_units.sh FILE K N [SCALE] - a stopo whatif CSV workload: the jobs
# of FILE (an SWF file, or a CSV as awkward_mix.sh writes) with each size
# rounded up the way fattree-pods' paper rules round it on fattree:k=K,n=N
# (a job above a leaf of K nodes gets whole level-(j-1) units of K^j nodes,
# j the lowest level whose units of K^(j+1) nodes hold it; a single-leaf
# job keeps its size).  SCALE=auto first scales SWF sizes as stopo whatif
# --scale auto does (K^N / MaxNodes times the size, rounded down or up,
# whichever keeps the node-seconds offered so far nearest the factor
# times the workload's; at least one node).  SWF records stopo whatif
# refuses (run time or processors missing) are left out.
# linear on this workload shows what whole-unit rounding costs with
# linear's freedom to pack (bench/fattree_mix.sh's "rounded" column).
# SWF fields used: 1 id, 2 submit, 4 run time, 5 processors (8 when 5 is
# missing), 9 requested time (-1: the run time); "; MaxNodes:" header.
set -eu
file=${1:?usage: round_units.sh FILE K N [SCALE]}
k=${2:?usage: round_units.sh FILE K N [SCALE]}
n=${3:?usage: round_units.sh FILE K N [SCALE]}
scale=${4:-1}
awk -v k="$k" -v lv="$n" -v scale="$scale" '
function round_up(x,    u) {
	if (x <= k)
		return x
	u = k	# whole units of u nodes inside a unit of u * k nodes
	while (u * k < x)
		u *= k
	return u * int((x + u - 1) / u)
}
BEGIN {
	print "id,submit,nodes,runtime,limit"
	total = 1
	for (i = 0; i < lv; i++)
		total *= k
	csv = 0; maxn = 0
}
NR == 1 && /^id,/ { csv = 1; FS = ","; next }
csv {
	split($0, f, ",")
	printf "%s,%s,%d,%s,%s\n", f[1], f[2], round_up(f[3] + 0), f[4], f[5]
	next
}
/^;[ \t]*MaxNodes:/ { maxn = $3 + 0; next }
/^;/ || NF < 9 { next }
{
	p = $5 > 0 ? $5 : $8
	if ($4 < 0 || p <= 0)
		next
	lim = $9 > 0 ? $9 : $4
	if (lim <= 0)
		lim = 1
	rt = $4 < lim ? $4 : lim
	if (scale == "auto" && maxn > 0) {
		# stopo whatif'"'"'s scale_sizes (cmd_whatif.c)
		x = p * total / maxn
		lo = int(x)
		if (rt > 0)
			m = x + err / rt < lo + 0.5 ? lo : lo + 1
		else
			m = int(x + 0.5)
		if (x - lo < 1e-9)
			m = lo
		if (m < 1)
			m = 1
		err += (x - m) * rt
		p = m
	}
	printf "%s,%s,%d,%s,%s\n", $1, $2, round_up(p), rt, lim
}' "$file"
