#!/bin/sh
# demo.sh - the main job on built-in examples, from a fresh Debian 12
# machine: installs and builds (scripts/setup.sh), then
#   1. describes a dragonfly and a fat-tree           (stopo topo)
#   2. counts their routing paths                     (stopo paths)
#   3. predicts flow rates with the models            (stopo eval)
#   4. plans paper 004's 1,024-task stencil on DF(4,8,4) (stopo place)
#   5. dry-runs a queue under the network-oblivious "clustered" policy and
#      the interference-free fattree-pods policy     (stopo whatif),
#      and draws it with the isolation gain swept     (whatif --svg)
#   6. runs the same kind of workload inside real Slurm daemons with
#      SelectType=select/topo_cons_tres and with plain cons_tres and prints the
#      link-sharing report of both                    (scripts/demo-slurm.sh)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$top/_build}
"$top/scripts/setup.sh"
stopo=$build/stopo
run() {
	printf '\n$ stopo %s\n' "$*"
	"$stopo" "$@"
}
run topo --topo dragonfly:p=2,a=4,h=2,g=9
run topo --topo fattree:k=4,n=3
run paths --topo dragonfly:p=2,a=4,h=2,g=9 --routing ugal --src 0 --dst 70
run paths --topo fattree:k=4,n=3 --routing ecmp --src 0 --dst 63
run eval --topo dragonfly:p=2,a=4,h=2,g=9 --routing min --pattern perm:1 --seed 1 --model all
run place --topo dragonfly:p=4,a=8,h=4,g=33 --grid 16x8x8 \
	--elements 512x512x512 --top 5 --links
# D-mod-k: the static routing InfiniBand subnet managers install on fat-trees
run whatif --topo fattree:k=4,n=3 --routing dmodk \
	--workload "$top/examples/demo.swf" --policy clustered,fattree-pods
# the same as charts, with the isolation gain swept (examples/whatif.svg
# is this chart, committed)
run whatif --topo fattree:k=4,n=3 --routing dmodk \
	--workload "$top/examples/demo.swf" --policy clustered,fattree-pods \
	--isolation-gain 0:0.5:0.1 --svg "$build/whatif.svg" \
	--html "$build/whatif.html" -q >/dev/null
printf '(charts: %s/whatif.svg, %s/whatif.html)\n' "$build" "$build"
if [ "${DEMO_SKIP_SLURM:-0}" != 1 ]; then
	printf '\n$ scripts/demo-slurm.sh   # select/topo vs cons_tres in real Slurm daemons\n'
	"$top/scripts/demo-slurm.sh" "$build"
fi
