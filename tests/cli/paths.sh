#!/bin/sh
# paths.sh - golden-output tests of `stopo paths`.  The golden files were
# checked by hand against paper 002's formulas and the worked examples of
# tests/unit/test_routing.c (dfly(2,4,2,9) 0->71: 1 MIN + a^3h^2(g-2)/(g-1)^2
# = 28 VLB paths; Cascade groups=2 router 0 -> router 0: 45 MIN paths;
# fat-tree dmodk 0->63: switches 0 19 47 31 15).
# UPDATE_GOLDEN=1 rewrites them (review the diff before committing).
set -u
: "${STOPO:?}" "${top_srcdir:?}"
golden="$top_srcdir/tests/data/golden"
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0

# check NAME EXPECTED_STATUS ARGS...: stdout must equal golden/paths_NAME
check() {
	name=$1 want=$2
	shift 2
	"$STOPO" paths "$@" >"$tmp/out" 2>"$tmp/err"
	st=$?
	if [ "$st" -ne "$want" ]; then
		echo "FAIL $name: exit $st, want $want"; cat "$tmp/err"; fail=1
		return
	fi
	if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
		cp "$tmp/out" "$golden/paths_$name"
	elif ! diff -u "$golden/paths_$name" "$tmp/out"; then
		echo "FAIL $name: output differs from golden"; fail=1
	else
		echo "ok   $name"
	fi
}

# error NAME STATUS PATTERN ARGS...: exit STATUS, stderr matches PATTERN
error() {
	name=$1 want=$2 pat=$3
	shift 3
	"$STOPO" paths "$@" >"$tmp/out" 2>"$tmp/err"
	st=$?
	if [ "$st" -ne "$want" ] || ! grep -q -- "$pat" "$tmp/err"; then
		echo "FAIL $name: exit $st (want $want), stderr:"; cat "$tmp/err"
		fail=1
	else
		echo "ok   $name"
	fi
}

D=dragonfly:p=2,a=4,h=2,g=9
check dfly_ugal.txt 0 --topo $D --src 0 --dst 71
check dfly_ugal.json 0 --topo $D --src 0 --dst 71 --json
check dfly_min_list.json 0 --topo $D --routing min --src 0 --dst 71 --list --json
check dfly_vlb_list.txt 0 --topo $D --routing vlb --src 0 --dst 71 --list
check dfly_intra_global.json 0 --topo $D --routing ugal:intra=global --src 0 --dst 6 --json
check dfly_same_switch.txt 0 --topo $D --src 0 --dst 1 --list
check dfly_big.json 0 --topo dragonfly:p=7,a=15,h=8,g=106 --src 0 --dst 11000 --json
check cascade_min.json 0 --topo cascade:groups=2 --routing min --src 0 --dst 384 --json
check fattree_dmodk.txt 0 --topo fattree:k=4,n=3 --routing dmodk --src 0 --dst 63 --list
check fattree_ecmp.json 0 --topo fattree:k=4,n=3 --src 0 --dst 63 --json

# a topo.conf: its Routing= is the default, nodes go by their Slurm names
printf 'Topology=dragonfly p=2 a=4 h=2 g=9\nNodeName=nid[00-71]\nRouting=min\n' \
	>"$tmp/t.conf"
check conf_names.txt 0 --topo "$tmp/t.conf" --src nid00 --dst nid71
error conf_bad_name 2 "not a node index or a node name" --topo "$tmp/t.conf" --src nid00 --dst nid99

# paper 002 Eq. 1 on a balanced dfly(4,8,4,33): 1 MIN, 8^3*4^2*31/32^2 = 248
"$STOPO" paths --topo dragonfly:p=4,a=8,h=4,g=33 --src 0 --dst 1055 --json \
	>"$tmp/f" 2>&1
if grep -q '"total":249' "$tmp/f" && grep -q '"vlb":248' "$tmp/f"; then
	echo "ok   formula"
else
	echo "FAIL formula"; cat "$tmp/f"; fail=1
fi

error unknown_routing 2 "unknown routing 'bogus'" --topo $D --routing bogus --src 0 --dst 1
error wrong_family 2 "does not apply to dragonfly" --topo $D --routing ecmp --src 0 --dst 9
error bad_option 2 "unknown option 'k'" --topo $D --routing ugal:k=3 --src 0 --dst 9
error same_node 2 "same node 5" --topo $D --src 5 --dst 5
error node_range 2 "nodes 0..71" --topo $D --src 0 --dst 72
error no_src 2 "required" --topo $D --dst 72
error bad_topo 2 "unknown topology family" --topo nosuch:a=1 --src 0 --dst 1
error too_many 1 "raise --max" --topo $D --src 0 --dst 71 --list --max 10
exit $fail
