#!/bin/sh
# grid_workload.sh SWF [SHARE] - a stopo whatif CSV workload from an SWF
# file in which SHARE percent (default 30) of the jobs of 8 nodes or more,
# chosen by a hash of their id, declare a cubic Cartesian grid: the
# largest a x b x c <= their node count with a <= b <= c <= 2a, sides of
# the form 2^i 3^j as stencil codes choose them (the job then asks for
# a*b*c nodes, one rank each), as the pattern
# "stencil:dims=AxBxC".  The other jobs keep their size and no pattern.
# SWF fields used: 1 id, 2 submit, 4 run time, 5 processors (8 when 5 is
# -1), 9 requested time (-1: the run time).
set -eu
swf=${1:?usage: grid_workload.sh SWF [SHARE]}
share=${2:-30}
awk -v share="$share" '
BEGIN {
	print "id,submit,nodes,runtime,limit,pattern"
	ns = 0
	for (x = 1; x <= 4096; x *= 2)
		for (y = x; y <= 4096; y *= 3)
			side[ns++] = y
	for (i = 1; i < ns; i++) # ascending
		for (j = i; j > 0 && side[j - 1] > side[j]; j--) {
			t = side[j]; side[j] = side[j - 1]; side[j - 1] = t
		}
}
/^;/ || NF < 9 { next }
{
	id = $1; submit = $2; rt = $4; n = $5 + 0
	if (n <= 0) n = $8 + 0
	lim = $9 + 0
	if (lim <= 0 || lim < rt) lim = rt
	if (n <= 0 || rt < 0) next
	pat = ""
	if (n >= 8 && (id * 2654435761) % 4294967296 % 100 < share) {
		best = 0
		for (i = 0; i < ns && side[i] ^ 3 <= n; i++) {
			a = side[i]
			for (j = i; j < ns && a * side[j] ^ 2 <= n; j++) {
				b = side[j]
				for (k = ns - 1; k >= j; k--) {
					c = side[k]
					if (c <= 2 * a && a * b * c <= n)
						break
				}
				if (k < j || a * b * c <= best)
					continue
				best = a * b * c; A = a; B = b; C = c
			}
		}
		if (best >= 8) {
			n = best
			pat = "stencil:dims=" A "x" B "x" C
		}
	}
	printf "%s,%s,%d,%s,%s,%s\n", id, submit, n, rt, lim, pat
}' "$swf"
