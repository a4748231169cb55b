#!/bin/sh
# awkward_mix.sh SWF [JOBS] [SEED] [COMPRESS] - a stopo whatif CSV workload
# whose job sizes round badly to the leaf switches of small fat-trees
# (issue 15): the first JOBS jobs (default 2000) of an SWF file keep their
# submit and run times (submit divided by COMPRESS, default 4, so that the
# queue stays full and utilisation measures packing), and each gets a size
# drawn by a hash of its id and SEED (default 1) from
#   1 2 3 4 5 6 7 9 11 13 5 7 9 11 13 17 20 24 28 32
# (half of the draws are the odd sizes 5..13 that fill no leaf of 4 or 6
# nodes; a fifth fit in a 4-node leaf).
# SWF fields used: 1 id, 2 submit, 4 run time, 9 requested time (-1: the
# run time).
set -eu
swf=${1:?usage: awkward_mix.sh SWF [JOBS] [SEED] [COMPRESS]}
jobs=${2:-2000}
seed=${3:-1}
compress=${4:-4}
awk -v jobs="$jobs" -v seed="$seed" -v compress="$compress" '
BEGIN {
	print "id,submit,nodes,runtime,limit"
	ns = split("1 2 3 4 5 6 7 9 11 13 5 7 9 11 13 17 20 24 28 32", size, " ")
	done = 0
}
/^;/ || NF < 9 { next }
done >= jobs { exit }
{
	id = $1; submit = int($2 / compress); rt = $4
	lim = $9 + 0
	if (lim <= 0 || lim < rt) lim = rt
	if (rt <= 0) next
	h = ((id + 7919 * seed) * 2654435761) % 4294967296
	n = size[1 + int(h / 65536) % ns]
	printf "%s,%d,%d,%s,%s\n", id, submit, n, rt, lim
	done++
}' "$swf"
