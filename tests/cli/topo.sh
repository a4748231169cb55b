#!/bin/sh
# topo.sh - golden-output tests of `stopo topo`.  The golden files were
# checked by hand: dfly(2,4,2,9) has 36 switches, 72 nodes, 2*72 + 9*12 +
# 36*2 = 324 directed links, radix 2+3+2 = 7, diameter 3; dfly(1,4,2,4)
# leaves 2 global ports of group 3 unconnected (radix 4..6); the 4-ary
# 3-tree has 64 nodes, 48 switches, 4 pods, radix 4 (roots) .. 8; the
# Cascade group of paper 002 gives radix 4+15+5+{1,2}; Table I of paper
# 003: fat-tree radix 44 / 10,648 nodes, dragonfly radix 29 / 11,130 nodes,
# G1 express mesh radix 38 / 10,800 nodes.
# UPDATE_GOLDEN=1 rewrites them (review the diff before committing).
set -u
: "${STOPO:?}" "${top_srcdir:?}"
golden="$top_srcdir/tests/data/golden"
data="$top_srcdir/tests/data"
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0

# check NAME EXPECTED_STATUS ARGS...: stdout must equal golden/topo_NAME
check() {
	name=$1 want=$2
	shift 2
	"$STOPO" topo "$@" >"$tmp/out" 2>"$tmp/err"
	st=$?
	if [ "$st" -ne "$want" ]; then
		echo "FAIL $name: exit $st, want $want"; cat "$tmp/err"; fail=1
		return
	fi
	if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
		cp "$tmp/out" "$golden/topo_$name"
	elif ! diff -u "$golden/topo_$name" "$tmp/out"; then
		echo "FAIL $name: output differs from golden"; fail=1
	else
		echo "ok   $name"
	fi
}

# error NAME STATUS MESSAGE ARGS...: exit STATUS, stderr is exactly
# "stopo topo: MESSAGE" ($data stands for the fixture directory)
error() {
	name=$1 want=$2 msg=$3
	shift 3
	"$STOPO" topo "$@" >"$tmp/out" 2>"$tmp/err"
	st=$?
	printf 'stopo topo: %s\n' "$msg" >"$tmp/want"
	if [ "$st" -ne "$want" ] || ! diff -u "$tmp/want" "$tmp/err" ||
	   [ -s "$tmp/out" ]; then
		echo "FAIL $name: exit $st (want $want)"; fail=1
	else
		echo "ok   $name"
	fi
}

check dfly_fig1.txt 0 --topo dragonfly:p=2,a=4,h=2,g=9
check dfly_fig1.json 0 --topo dragonfly:p=2,a=4,h=2,g=9 --json
check dfly_unconnected.json 0 --topo dragonfly:p=1,a=4,h=2,g=4 --json
check fattree.txt 0 --topo fattree:k=4,n=3
check fattree.json 0 -t fattree:k=4,n=3 -j
check cascade.txt 0 --topo cascade
check jellyfish.json 0 --topo jellyfish:n=64,r=6,p=1,seed=1 --json
check graph.json 0 --topo "$data/good_graph.conf" --json
check graph_disconnected.txt 0 --topo "$data/good_graph_disconnected.conf"
check graph_disconnected.json 0 --topo "$data/good_graph_disconnected.conf" --json
check conf_dragonfly.txt 0 --topo "$data/good_dragonfly.conf"
check table1_fattree.json 0 --topo fattree:k=22,n=3 --json
check table1_dragonfly.json 0 --topo dragonfly:p=7,a=15,h=8,g=106 --json
check table1_expressmesh.json 0 --topo expressmesh:dims=12x10x10,gap=1,p=9 --json
check help.txt 0 --help

error bad_conf 2 "$data/bad_node_count.conf:3: NodeName= names 3 nodes but the topology has 4" \
	--topo "$data/bad_node_count.conf"
error bad_conf_graph 2 "$data/bad_graph_self.conf:3: Links=: switch 's2' linked to itself" \
	--topo "$data/bad_graph_self.conf"
error missing_conf 2 "/nonexistent/topo.conf: cannot open: No such file or directory" \
	--topo /nonexistent/topo.conf
error bad_family 2 "unknown topology family 'nosuch'" --topo nosuch:a=1
error bad_param 2 "dragonfly: g=10 exceeds a*h+1=9" --topo dragonfly:a=4,h=2,g=10
error no_topo 2 "--topo SPEC is required"
error extra_arg 2 "unexpected argument 'x'" --topo dragonfly x
exit $fail
