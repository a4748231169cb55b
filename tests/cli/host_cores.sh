#!/bin/sh
# `stopo whatif --cores-per-node host` takes this machine's core count from
# hwloc: the same run with the count from hwloc-calc must print the same.
set -u
command -v hwloc-calc >/dev/null || { echo "no hwloc-calc"; exit 77; }
cores=$(hwloc-calc --number-of core machine:0)
[ "$cores" -gt 0 ] 2>/dev/null || cores=$(hwloc-calc --number-of pu machine:0)
wl="$top_srcdir/examples/demo.swf"
a=$("$STOPO" whatif --topo fattree:k=4,n=3 --workload "$wl" \
	--policy fattree-pods --no-rates --json --cores-per-node host | grep -v "\"seconds\"") || exit 1
b=$("$STOPO" whatif --topo fattree:k=4,n=3 --workload "$wl" \
	--policy fattree-pods --no-rates --json --cores-per-node "$cores" | grep -v "\"seconds\"") || exit 1
case "$a" in *\"policies\"*) ;; *) echo "no whatif output"; exit 1;; esac
[ "$a" = "$b" ] || { echo "host ($cores cores) differs from --cores-per-node $cores"; exit 1; }
# and a different count must change the answer (the check can fail)
c=$("$STOPO" whatif --topo fattree:k=4,n=3 --workload "$wl" \
	--policy fattree-pods --no-rates --json --cores-per-node $((cores * 4)) | grep -v "\"seconds\"") || exit 1
[ "$a" != "$c" ] || { echo "--cores-per-node has no effect"; exit 1; }
echo "ok: host = $cores cores"
