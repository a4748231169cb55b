#!/bin/sh
# topo.sh - golden-output tests of `stopo topo`.  Values checked by hand
# in the golden files: dfly(2,4,2,9) has 36 switches, 72 nodes, 2*72 +
# 9*12 + 36*2 = 324 directed links, radix 2+3+2 = 7, diameter 3; dfly(1,4,2,4)
# leaves 2 global ports of group 3 unconnected (radix 4..6); the 4-ary
# 3-tree has 64 nodes, 48 switches, 4 pods, radix 4 (roots) .. 8; the
# Cascade group of paper 002 gives radix 4+15+5+{1,2}; Table I of paper
# 003: fat-tree radix 44 / 10,648 nodes, dragonfly radix 29 / 11,130 nodes,
# G1 express mesh radix 38 / 10,800 nodes.
# Cases marked pinned hold stopo's own output (a seeded random graph, a
# graph file no comment works out, the help text): regressions only.
# UPDATE_GOLDEN=1 rewrites them (review the diff before committing).
. "$top_srcdir/tests/cli/lib.sh"
cli_setup topo "$golden/topo_"

golden dfly_fig1.txt -- --topo dragonfly:p=2,a=4,h=2,g=9
golden dfly_fig1.json -- --topo dragonfly:p=2,a=4,h=2,g=9 --json
golden dfly_unconnected.json -- --topo dragonfly:p=1,a=4,h=2,g=4 --json
golden fattree.txt -- --topo fattree:k=4,n=3
golden fattree.json -- -t fattree:k=4,n=3 -j
golden cascade.txt -- --topo cascade
pinned jellyfish.json -- --topo jellyfish:n=64,r=6,p=1,seed=1 --json
pinned graph.json -- --topo "$data/good_graph.conf" --json
# a switch graph in two parts is refused at load, its parts named (no
# routing joins them: a job spanning both failed later, blamed on it)
expect_fail -x graph_disconnected 2 \
	"$data/bad_graph_disconnected.conf:2: Topology=graph: the switch graph is not connected (2 parts: a, b (2 switches, 2 nodes); c (1 switch, 2 nodes))" \
	-- --topo "$data/bad_graph_disconnected.conf"
# family recognition of explicit graphs (checked by hand: 2 pods of 2 and
# 3 leaves under 2 spines; 4 groups of 3 with C(4,2) = 6 global cables)
golden graph_fattree.txt -- --topo "$data/good_graph_fattree.conf"
golden graph_fattree.json -- --topo "$data/good_graph_fattree.conf" --json
# a director fat-tree (good_graph_director.conf; pinned output, its
# values worked by hand): edges at level 0, leaf chips at 1, spine chips
# at 2 (3 levels, not 4: the chip aL3 with no edge switch is idle, level
# 1 from the roots, and out of the distances: diameter 4, aS1 -> aL1 ->
# e0 -> bL1 -> bS1, not 5 through aL3); pods {e0, e1, xL1}, {e2, e3,
# xL2}; the storage hosts on spine aS2 make it a hosting switch
golden graph_director.txt -- --topo "$data/good_graph_director.conf"
golden graph_director.json -- --topo "$data/good_graph_director.conf" --json
# forwarding tables that detour through a leaf (good_lft_detour.conf): no
# unit isolates, which stopo topo says, and the default policy says why
# it fell back to linear
run --topo "$data/good_lft_detour.conf"
why="no isolating unit above the leaf switches: cable l3-s2 carries the traffic of leaves l3 and l1 and of l3 and l2, which no unit separates"
if [ "$st" -eq 0 ] &&
   grep -q -x -F "isolation:         none (fattree-pods under lft: $why)" "$tmp/out" &&
   grep -q -x -F "default policy:    linear (the family's: the file names no policy)" "$tmp/out" &&
   grep -q -x -F "fell back:         fattree-pods: $why" "$tmp/out"; then
	pass lft_detour
else
	flunk lft_detour "exit $st" "$tmp/out" "$tmp/err"
fi
golden graph_dragonfly.txt -- --topo "$data/good_graph_dragonfly.conf"
golden graph_dragonfly.json -- --topo "$data/good_graph_dragonfly.conf" \
	--json
pinned graph.txt -- --topo "$data/good_graph.conf"
golden conf_dragonfly.txt -- --topo "$data/good_dragonfly.conf"
# Predict= and PredictBudget= (without them: jm and 50 ms, "(default)")
golden conf_predict.txt -- --topo "$data/good_predict.conf"
golden conf_predict.json -- --topo "$data/good_predict.conf" --json
golden table1_fattree.json -- --topo fattree:k=22,n=3 --json
golden table1_dragonfly.json -- --topo dragonfly:p=7,a=15,h=8,g=106 --json
golden table1_expressmesh.json -- \
	--topo expressmesh:dims=12x10x10,gap=1,p=9 --json
pinned help.txt -- --help

# errors: exit 2, stderr exactly "stopo topo: MESSAGE", nothing on stdout
expect_fail -x bad_conf 2 \
	"$data/bad_node_count.conf:3: NodeName= names 3 nodes but the topology has 4" \
	-- --topo "$data/bad_node_count.conf"
expect_fail -x bad_conf_graph 2 \
	"$data/bad_graph_self.conf:3: Links=: switch 's2' linked to itself" \
	-- --topo "$data/bad_graph_self.conf"
# the policies of a topo.conf are checked: they exist, their options are
# valid, they apply to the topology and routing
expect_fail -x bad_policy 2 \
	"$data/bad_policy_unknown.conf:3: policy 'nosuch:x=1': unknown policy 'nosuch' (known: linear, clustered, random, fattree-pods, mesh-blocks, dragonfly-groups, dragonfly-balanced, nne)" \
	-- --topo "$data/bad_policy_unknown.conf"
expect_fail -x bad_policy_option 2 \
	"$data/bad_policy_option.conf:4: policy 'clustered:max=4' of partition debug: policy clustered: unknown option 'max' (known: seed, scatter)" \
	-- --topo "$data/bad_policy_option.conf"
expect_fail -x bad_policy_topology 2 \
	"$data/bad_policy_topology.conf:3: policy 'dragonfly-groups' of partition batch: policy dragonfly-groups: topology fattree is not a dragonfly or cascade" \
	-- --topo "$data/bad_policy_topology.conf"
# fattree-pods on a fat-tree graph: up/down routing, and pods whose
# leaves have a common ancestor inside them
expect_fail -x bad_policy_graph 2 \
	"$data/bad_policy_graph_fattree.conf:15: policy 'fattree-pods': policy fattree-pods: routing shortest on a fat-tree graph (isolation needs up/down routing, ecmp, or the subnet manager's tables, lft)" \
	-- --topo "$data/bad_policy_graph_fattree.conf"
# a pod that up/down routes leave: its units checked by link sets (which
# the leaves own); it was refused
run --topo "$data/good_policy_graph_lca.conf"
if [ "$st" -eq 0 ] &&
   grep -q -x 'isolation: *fattree-pods under ecmp' "$tmp/out" &&
   grep -q -x 'default policy: *fattree-pods' "$tmp/out"; then
	pass policy_graph_lca
else
	flunk policy_graph_lca "exit $st" "$tmp/out" "$tmp/err"
fi
# Predict= names a registered model with valid options (the list of
# models grows with the registry: its start only)
expect_fail bad_predict 2 \
	"stopo topo: $data/bad_predict_model.conf:3: Predict=nosuch: unknown model 'nosuch' (known: hm, jm, mcf, mmf" \
	-- --topo "$data/bad_predict_model.conf"
expect_fail bad_predict_option 2 \
	"stopo topo: $data/bad_predict_option.conf:2: Predict=mcf:x=1: model 'mcf': unknown option 'x'" \
	-- --topo "$data/bad_predict_option.conf"
# ... and one that runs under the file's routing (the UGAL models need a
# dragonfly or Cascade routed ugal)
expect_fail bad_predict_routing 2 \
	"stopo topo: $data/bad_predict_routing.conf:4: Predict=ugal3: model 'ugal3': needs a dragonfly or cascade topology, not fattree" \
	-- --topo "$data/bad_predict_routing.conf"
expect_fail -x bad_predict_budget 2 \
	"$data/bad_budget_value.conf:3: PredictBudget=50ms: want whole milliseconds from 1 to 60000" \
	-- --topo "$data/bad_budget_value.conf"
expect_fail -x missing_conf 2 \
	"/nonexistent/topo.conf: cannot open: No such file or directory" \
	-- --topo /nonexistent/topo.conf
# the list of known families grows with the registry: its start only
expect_fail bad_family 2 "stopo topo: unknown topology family 'nosuch' (known: dragonfly, cascade, " \
	-- --topo nosuch:a=1
expect_fail -x bad_param 2 "dragonfly: g=10 exceeds a*h+1=9" \
	-- --topo dragonfly:a=4,h=2,g=10
expect_fail -x no_topo 2 "--topo SPEC is required" --
expect_fail -x extra_arg 2 "unexpected argument 'x'" -- --topo dragonfly x
# --topo X is a spec when the text before ':' is a family name, else a
# file: a file named like a family does not change what X means, and
# distances: sampled on request (--samples), said in the output; the
# limits (stopo --limit, anywhere on the line) name themselves
run --topo jellyfish:n=600,r=6,p=1,seed=3 --samples 64
if [ "$st" = 0 ] &&
	grep -q '^distances: *sampled (BFS from 64 of 600 switches' "$tmp/out" &&
	grep -q '^diameter: *>= [0-9]* hops (a lower bound)$' "$tmp/out" &&
	grep -q '^average hops: *[0-9.]* +- 0\.0[0-9]* (standard error)$' \
		"$tmp/out"; then
	pass samples
else
	flunk samples "exit $st" "$tmp/out" "$tmp/err"
fi
expect_fail -x exact_and_samples 2 "give --exact or --samples, not both" \
	-- --topo torus --exact --samples 100
expect_fail -x samples_zero 2 \
	"--samples 0: want a whole number from 64 to 4294967295" \
	-- --topo torus --samples 0
expect_fail -x samples_few 2 \
	"--samples 63: want a whole number from 64 to 4294967295" \
	-- --topo torus --samples 63
expect_fail -x limit_nodes 2 \
	"fattree: nodes: 256 exceeds the limit nodes=100 (raise it with stopo --limit nodes=N)" \
	-- --topo fattree:k=4,n=4 --limit nodes=100
expect_fail limit_syntax 2 \
	"stopo: --limit nodes=1x: the value must be a positive integer" \
	-- --limit nodes=1x --topo torus
expect_fail limit_no_name 2 \
	"(the first N jobs of whatif: --limit-jobs N)" -- --topo torus --limit 5
run --limit=nodes=256 --topo fattree:k=4,n=4
if [ "$st" = 0 ] && grep -q '^nodes: *256$' "$tmp/out"; then
	pass limit_raised
else
	flunk limit_raised "exit $st" "$tmp/err"
fi

# ./X names the file
cd "$tmp" || exit 99
printf 'Topology=dragonfly p=1 a=2 h=1 g=3\n' >fattree
golden fattree_bare.txt -- --topo fattree
run --topo ./fattree
if [ "$st" = 0 ] && grep -q '^family: *dragonfly$' "$tmp/out"; then
	pass dot_slash_file
else
	flunk dot_slash_file "./fattree is not the file (exit $st)" \
		"$tmp/out" "$tmp/err"
fi
expect_fail -x not_family_no_file 2 "unknown topology family 'fattre' (known: dragonfly, cascade, fattree, expressmesh, hyperx, torus, jellyfish)" \
	-- --topo fattre
# DefaultPolicy=default: the family's under the file's routing
printf 'Topology=dragonfly p=1 a=2 h=1 g=3\nRouting=ugal\nDefaultPolicy=default\n' >dflt.conf
run --topo ./dflt.conf
if [ "$st" = 0 ] && grep -q '^default policy: *dragonfly-balanced (DefaultPolicy=default: the family.s)$' "$tmp/out"; then
	pass default_policy_line
else
	flunk default_policy_line "not dragonfly-balanced (exit $st)" \
		"$tmp/out" "$tmp/err"
fi
printf 'Topology=dragonfly p=1 a=2 h=1 g=3\nRouting=min\nDefaultPolicy=default:large=wait\n' >dflt2.conf
expect_fail default_options 2 "./dflt2.conf:3: policy 'default:large=wait': policy default takes no options (it stands for the family's default policy)" \
	-- --topo ./dflt2.conf
# option errors: one line naming the option, no usage dump
expect_fail -x unknown_option 2 \
	"unknown or ambiguous option '--bogus'; see 'stopo topo --help'" \
	-- --topo fattree --bogus
expect_fail -x unknown_short 2 \
	"unknown option '-Z'; see 'stopo topo --help'" -- --topo fattree -Z
expect_fail -x missing_value 2 "--topo needs a value (SPEC)" -- --topo
expect_fail -x option_twice 2 "--topo given twice: give it once" \
	-- --topo fattree:k=4 --topo fattree:k=2
# a failed write to standard output is a failure, not a cut result
if [ -w /dev/full ]; then
	"$STOPO" topo --topo fattree --json >/dev/full 2>"$tmp/err"
	st=$?
	if [ $st -eq 1 ] &&
	   grep -q -F "stopo: standard output: No space left on device" \
		"$tmp/err"; then
		pass stdout_full
	else
		flunk stdout_full "exit $st, want 1 and the write error:" \
			"$tmp/err"
	fi
fi
# running out of memory is the work failing (1), not bad input (2)
# shellcheck disable=SC3045 # dash and bash both have ulimit -v
(ulimit -v 300000 && exec "$STOPO" topo --topo torus:dims=1000x1000) \
	>/dev/null 2>"$tmp/err"
st=$?
if [ $st -eq 1 ] && grep -q -F "out of memory" "$tmp/err"; then
	pass out_of_memory
else
	flunk out_of_memory "exit $st, want 1 and out of memory:" "$tmp/err"
fi
# an empty option value, and a directory where a file belongs
expect_fail -x empty_value 2 "--topo: empty SPEC" -- --topo ""
expect_fail -x directory 2 "$tmp: Is a directory" -- --topo "$tmp"
# a capacity longer than any number is refused, not cut to 63 characters
# (0.5 followed by 64 zeros and e1 is 5, its cut 0.5)
printf 'Topology=graph\nSwitchName=a Nodes=1 Links=b:0.5%s\nSwitchName=b Nodes=1\n' \
	"$(printf '0%.0s' $(seq 1 64))e1" >longcap.conf
expect_fail -x long_capacity 2 \
	"./longcap.conf:2: bad capacity '0.500000000000000000...' in Links= (more than 63 characters)" \
	-- --topo ./longcap.conf
# a Predict= model's option values are checked when the file is read
printf 'Topology=dragonfly p=2 a=4 h=2 g=9\nPredict=nne:route=bogus\n' \
	>predict_nne.conf
expect_fail -x predict_nne_option 2 \
	"./predict_nne.conf:2: Predict=nne:route=bogus: model 'nne': route=bogus: want direct, indirect or auto" \
	-- --topo ./predict_nne.conf
printf 'Topology=dragonfly p=2 a=4 h=2 g=9\nRouting=ugal\nPredict=ugal3:form=bogus\n' \
	>predict_ugal.conf
expect_fail -x predict_ugal_option 2 \
	"./predict_ugal.conf:3: Predict=ugal3:form=bogus: model 'ugal3': form=bogus: want explicit, factored or auto" \
	-- --topo ./predict_ugal.conf
# two 3-switch cliques with no cable between them are no dragonfly (its
# routings found no path only later, in eval and whatif): refused at load
printf 'Topology=graph\nSwitchName=a0 Nodes=1 Links=a1,a2\nSwitchName=a1 Nodes=1 Links=a2\nSwitchName=a2 Nodes=1\nSwitchName=b0 Nodes=1 Links=b1,b2\nSwitchName=b1 Nodes=1 Links=b2\nSwitchName=b2 Nodes=1\n' \
	>two_cliques.conf
expect_fail -x disconnected_groups 2 \
	"./two_cliques.conf:1: Topology=graph: the switch graph is not connected (2 parts: a0, a1, a2 (3 switches, 3 nodes); b0, b1, b2 (3 switches, 3 nodes))" \
	-- --topo ./two_cliques.conf
cd - >/dev/null || exit 99
finish
