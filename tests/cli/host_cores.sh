#!/bin/sh
# `stopo whatif --cores-per-node host` takes this machine's core count from
# hwloc: the same run with the count from hwloc-calc must print the same.
. "$top_srcdir/tests/cli/lib.sh"
command -v hwloc-calc >/dev/null || { echo "no hwloc-calc"; exit 77; }
cores=$(hwloc-calc --number-of core machine:0)
[ "$cores" -gt 0 ] 2>/dev/null || cores=$(hwloc-calc --number-of pu machine:0)
cli_setup whatif ""

# whatif_cores COUNT: the demo workload's what-if report with COUNT cores
# per node, in $tmp/COUNT (wall time left out)
whatif_cores() {
	run --topo fattree:k=4,n=3 --workload "$top_srcdir/examples/demo.swf" \
		--policy fattree-pods --no-rates --json --cores-per-node "$1" ||
		{ flunk "cores $1" "exit $st" "$tmp/err"; finish; }
	grep -v '"seconds"' "$tmp/out" >"$tmp/$1"
}
whatif_cores host
whatif_cores "$cores"
whatif_cores $((cores * 4))
if ! grep -q '"policies"' "$tmp/host"; then
	flunk host "no whatif output" "$tmp/host"
elif ! cmp -s "$tmp/host" "$tmp/$cores"; then
	flunk host "host ($cores cores) differs from --cores-per-node $cores"
else
	pass "host = $cores cores"
fi
# and a different count must change the answer (the check can fail)
if cmp -s "$tmp/host" "$tmp/$((cores * 4))"; then
	flunk cores "--cores-per-node has no effect"
else
	pass "--cores-per-node $((cores * 4)) differs"
fi
finish
