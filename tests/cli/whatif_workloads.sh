#!/bin/sh
# whatif_workloads.sh - `stopo whatif` on workloads as the Parallel
# Workloads Archive writes them (issue 47): header habits, refusals that
# say how to go on, reading only what is simulated, --scale auto.
. "$top_srcdir/tests/cli/lib.sh"

cli_setup whatif "$data/whatif_golden_"
cd "$data" || exit 99
FT3=fattree:k=4,n=3

# MaxProcs above MaxNodes: processors are cores; without -c a warning
# names the number to give, with it none
printf '; MaxNodes: 128\n; MaxProcs: 1024\n1 0 -1 10 8 -1 -1 8 10\n' \
	>"$tmp/cores.swf"
run --topo $FT3 --workload "$tmp/cores.swf" --no-rates -q
st1=$st
grep -q -F "stopo whatif: $tmp/cores.swf: warning: the header's MaxProcs (1024) is above its MaxNodes (128): processors are cores, read here as nodes; give --cores-per-node 8 (MaxProcs / MaxNodes)" \
	"$tmp/err" && w1=0 || w1=1
run --topo $FT3 --workload "$tmp/cores.swf" --no-rates -q -c 8
if [ $st1 = 0 ] && [ $w1 = 0 ] && [ $st = 0 ] && [ ! -s "$tmp/err" ]; then
	pass cores_warning
else
	flunk cores_warning "no warning, or one with -c" "$tmp/err"
fi
# N/A in a header field: unknown, like -1 (the largest job stands for
# the machine under --scale auto: 2 nodes to 64, so 1 -> 32)
printf '; MaxNodes: N/A\n; MaxProcs: N/A\n1 0 -1 10 1 -1 -1 1 10\n2 0 -1 10 2 -1 -1 2 10\n' \
	>"$tmp/na.swf"
run --topo $FT3 --workload "$tmp/na.swf" --no-rates -q --scale auto -p linear \
	--jobs-out "$tmp/na.csv"
if [ $st = 0 ] && grep -q '^linear,1,0,0,10,"0-31",' "$tmp/na.csv"; then
	pass header_na
else
	flunk header_na "N/A not unknown" "$tmp/err" "$tmp/na.csv"
fi
printf '; MaxNodes: 64\n; MaxNodes: 128\n' >"$tmp/twice.swf"
expect_fail -x header_repeated 2 \
	"$tmp/twice.swf:2: MaxNodes: 128, but line 1 gave 64" \
	-- --topo $FT3 --workload "$tmp/twice.swf"
printf '1 0 -1 -7 4 -1 -1 4 10\n' >"$tmp/neg.swf"
expect_fail negative_runtime 2 "$tmp/neg.swf:1: field 4: run time -7 is negative" \
	-- --topo $FT3 --workload "$tmp/neg.swf"
finish
