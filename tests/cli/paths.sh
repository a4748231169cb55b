#!/bin/sh
# paths.sh - golden-output tests of `stopo paths`.  The golden files were
# checked by hand against paper 002's formulas and the worked examples of
# tests/unit/test_routing.c (dfly(2,4,2,9) 0->71: 1 MIN + a^3h^2(g-2)/(g-1)^2
# = 28 VLB paths; Cascade groups=2 router 0 -> router 0: 45 MIN paths;
# fat-tree dmodk 0->63: switches 0 19 47 31 15).
# UPDATE_GOLDEN=1 rewrites them (review the diff before committing).
. "$top_srcdir/tests/cli/lib.sh"
cli_setup paths "$golden/paths_"

D=dragonfly:p=2,a=4,h=2,g=9
golden dfly_ugal.txt -- --topo $D --src 0 --dst 71
golden dfly_ugal.json -- --topo $D --src 0 --dst 71 --json
golden dfly_min_list.json -- --topo $D --routing min --src 0 --dst 71 \
	--list --json
golden dfly_vlb_list.txt -- --topo $D --routing vlb --src 0 --dst 71 --list
golden dfly_intra_global.json -- --topo $D --routing ugal:intra=global \
	--src 0 --dst 6 --json
golden dfly_same_switch.txt -- --topo $D --src 0 --dst 1 --list
# 106 groups: the path count is test_routing.c's; the JSON itself is pinned
pinned dfly_big.json -- --topo dragonfly:p=7,a=15,h=8,g=106 --src 0 \
	--dst 11000 --json
golden cascade_min.json -- --topo cascade:groups=2 --routing min --src 0 \
	--dst 384 --json
golden fattree_dmodk.txt -- --topo fattree:k=4,n=3 --routing dmodk --src 0 \
	--dst 63 --list
golden fattree_ecmp.json -- --topo fattree:k=4,n=3 --src 0 --dst 63 --json

# a topo.conf: its Routing= is the default, nodes go by their Slurm names
printf 'Topology=dragonfly p=2 a=4 h=2 g=9\nNodeName=nid[00-71]\nRouting=min\n' \
	>"$tmp/t.conf"
golden conf_names.txt -- --topo "$tmp/t.conf" --src nid00 --dst nid71
expect_fail conf_bad_name 2 "not a node index or a node name" \
	-- --topo "$tmp/t.conf" --src nid00 --dst nid99

# paper 002 Eq. 1 on a balanced dfly(4,8,4,33): 1 MIN, 8^3*4^2*31/32^2 = 248
run --topo dragonfly:p=4,a=8,h=4,g=33 --src 0 --dst 1055 --json
if grep -q '"total":249' "$tmp/out" && grep -q '"vlb":248' "$tmp/out"; then
	pass formula
else
	flunk formula "want 249 paths, 248 of them VLB" "$tmp/out" "$tmp/err"
fi

# every subcommand checks the policies of a topo.conf
expect_fail bad_conf_policy 2 \
	"bad_policy_option.conf:4: policy 'clustered:max=4' of partition debug" \
	-- --topo "$data/bad_policy_option.conf" --src 0 --dst 1
expect_fail unknown_routing 2 "unknown routing 'bogus'" \
	-- --topo $D --routing bogus --src 0 --dst 1
expect_fail wrong_family 2 "does not apply to dragonfly" \
	-- --topo $D --routing ecmp --src 0 --dst 9
expect_fail bad_option 2 "unknown option 'k'" \
	-- --topo $D --routing ugal:k=3 --src 0 --dst 9
expect_fail same_node 2 "same node 5" -- --topo $D --src 5 --dst 5
expect_fail node_range 2 "nodes 0..71" -- --topo $D --src 0 --dst 72
expect_fail no_src 2 "required" -- --topo $D --dst 72
expect_fail bad_topo 2 "unknown topology family" \
	-- --topo nosuch:a=1 --src 0 --dst 1
expect_fail too_many 1 "raise --max" \
	-- --topo $D --src 0 --dst 71 --list --max 10
# a graph's switches also by their topo.conf names (e0 and e1 of the
# director fat-tree, both in its pod 0)
run --topo "$data/good_graph_director.conf" --routing ecmp --src 0 --dst 4
if [ "$st" -eq 0 ] && grep -q -x -F "flow:      node 0 (switch 0 e0, pod 0) -> node 4 (switch 1 e1, pod 0)" "$tmp/out"; then
	pass graph_names
else
	flunk graph_names "exit $st" "$tmp/out" "$tmp/err"
fi
finish
