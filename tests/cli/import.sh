#!/bin/sh
# import.sh - `stopo import`: ibnetdiscover output and Slurm topology.conf
# to a Topology=graph topo.conf.
#
# tests/data/import/fabric.ibnet, worked by hand: five switches in file
# order leaf1, leaf2, spine1 (description "MF0;spine1:MSB7700/U1"), spine2
# (description "Quantum Mellanox Technologies": not a name, so its GUID
# S-0002c90300000b02) and spare (no nodes, one unconnected port line);
# seven cables: leaf1-spine1 twice, leaf1-spine2, leaf2-spine1,
# leaf2-spine2 at 4xEDR (100 Gb/s), leaf2-spine2 at 2xEDR (50 Gb/s: 0.5)
# and spine1-spare at 4xHDR (200 Gb/s: 2); 4xEDR is the most common, so
# 1 = 100 Gb/s.  Nodes by switch port: node1 (leaf1 port 10), node2 (11),
# node3 (leaf2 port 10; its HCA port 2 on leaf1 port 12 is dropped with a
# warning), node4, node5 (its port 2 unconnected).  stopo topo: 5
# switches, 5 nodes, 2*5 + 2*7 = 24 directed links.
. "$top_srcdir/tests/cli/lib.sh"
in="$data/import"
strip_path() {
	sed "s|$data|DATA|"
}
cli_setup import "$golden/import_" strip_path

golden fabric.conf -- ibnetdiscover "$in/fabric.ibnet"
golden small_map.conf -- ibnetdiscover "$in/small.ibnet" --guids "$in/small.map"
pinned help.txt -- --help

# the warnings, and the file -o writes loads with the counts above
run ibnetdiscover "$in/fabric.ibnet" -o "$tmp/fabric.conf"
if [ "$st" -ne 0 ]; then
	flunk fabric_out "exit $st" "$tmp/err"
elif ! grep -q -F "fabric.ibnet:44: 1 switch named by GUID (S-0002c90300000b02, ...): descriptions not unique or not names (\"Quantum Mellanox Technologies\")" "$tmp/err" ||
	! grep -q -F "fabric.ibnet:77: node3: HCA port 2 is also cabled (to leaf1 port 12); a node has one switch in topo.conf: kept port 1's switch leaf2" "$tmp/err" ||
	[ "$(grep -c warning "$tmp/err")" -ne 2 ]; then
	flunk fabric_warnings "want two warnings" "$tmp/err"
elif ! grep -q -x -F "$tmp/fabric.conf: 5 switches, 5 nodes, 7 cables" "$tmp/out"; then
	flunk fabric_out "summary" "$tmp/out"
else
	pass fabric_out
fi
"$STOPO" topo --topo "$tmp/fabric.conf" --json >"$tmp/topo.json" 2>"$tmp/err"
if grep -q '"switches":5,' "$tmp/topo.json" &&
	grep -q '"nodes":5,' "$tmp/topo.json" &&
	grep -q '"links":24,' "$tmp/topo.json" &&
	grep -q '"first_node_name":"node1"' "$tmp/topo.json" &&
	grep -q '"last_node_name":"node5"' "$tmp/topo.json"; then
	pass fabric_loads
else
	flunk fabric_loads "stopo topo disagrees" "$tmp/topo.json" "$tmp/err"
fi

# malformed input: "FILE:LINE: message", exit 2, nothing on stdout
bad() {
	expect_fail -x "$1" 2 "$in/$1.ibnet:$2" -- ibnetdiscover "$in/$1.ibnet"
}
bad bad_line "1: unrecognised line (want Switch, Ca or Rt, a [PORT] line, a ports-report line (ibnetdiscover -p), KEY=VALUE or a # comment)"
bad bad_key "1: unknown key 'vendorid'"
bad bad_keyval "1: bad number in sysimgguid="
bad bad_record "1: bad Switch line (want Switch PORTS \"S-GUID\" # \"description\")"
bad bad_desc "1: unterminated node description"
bad dup_record "7: S-0000000000000001 described twice (first on line 1)"
bad port_outside "1: port line before any Switch, Ca or Rt line"
bad bad_port "2: bad port line (want [PORT] \"K-GUID\"[PORT] # ... WIDTHxSPEED)"
bad port_range "3: port 9 out of range (the Switch has 8 ports)"
bad port_twice "3: port 1 given twice (first on line 2)"
bad no_rate "2: port 1: no link width and speed at the end of the line (e.g. 4xEDR)"
bad bad_speed "2: port 1: unknown link speed 'QQR' (known: SDR, DDR, QDR, FDR10, FDR, EDR, HDR, NDR, XDR)"
bad bad_width "2: port 1: bad link width 3x (want 1x, 2x, 4x, 8x or 12x)"
bad unknown_node "3: port 2: link to S-0000000000000099, which the file does not describe"
bad one_sided "2: port 1: link to H-0000000000000011 port 1, which its record (line 4) does not list"
bad disagree "3: port 2: link to H-0000000000000011 port 1 disagrees with line 6"
# one end 4xEDR (4 x 25 Gb/s), the other 1xSDR (2.5 Gb/s)
bad rate_disagree "3: port 2: link to S-0000000000000002 port 2 at 100 Gb/s, but line 7 gives 2.5 Gb/s"
bad no_switch "1: no Switch records (is this ibnetdiscover output?)"
bad no_nodes "1: no compute nodes: no HCA is cabled to a switch"
badmap() {
	expect_fail -x "$1" 2 "$in/$1.map:$2" -- \
		ibnetdiscover "$in/small.ibnet" --guids "$in/$1.map"
}
badmap bad_map_words "2: expected 'HOST GUID' or 'GUID HOST'"
badmap bad_map_host "1: bad host name 'node/1'"
badmap bad_map_guid "2: bad GUID '0xXYZ' (want up to 16 hexadecimal digits, 0x or H- optional)"
badmap bad_map_dup "3: GUID 0x0000000000000011 given twice (first on line 1)"
expect_fail -x no_file 2 "$in/none.ibnet: cannot open: No such file or directory" \
	-- ibnetdiscover "$in/none.ibnet"
expect_fail -x bad_format 2 "unknown format 'xml' (ibnetdiscover, slurm-topology, aries)" \
	-- xml "$in/small.ibnet"
expect_fail -x no_operand 2 "want FORMAT FILE (FORMAT: ibnetdiscover, slurm-topology or aries)" \
	-- ibnetdiscover

# Slurm's topology.conf.  tree.conf: s0 (n0..n3), s1 (n4..n6; its n3 is
# dropped with a warning), s2 above both: 3 switches, 7 nodes, 2 cables,
# 2*7 + 2*2 = 18 directed links.  block.conf: blocks b1 (n0..n3), b2
# (n4..n7) and one called top (n8, n9), so the joining switch is top0: 4
# switches, 10 nodes, 3 cables, 26 links.
golden tree.conf -- slurm-topology "$in/tree.conf"
golden block.conf -- slurm-topology "$in/block.conf"
loads() {
	run slurm-topology "$in/$1.conf" -o "$tmp/$1.out"
	"$STOPO" topo --topo "$tmp/$1.out" --json >"$tmp/topo.json" 2>&1
	if [ "$st" -eq 0 ] && grep -q "\"switches\":$2," "$tmp/topo.json" &&
		grep -q "\"nodes\":$3," "$tmp/topo.json" &&
		grep -q "\"links\":$4," "$tmp/topo.json"; then
		pass "$1_loads"
	else
		flunk "$1_loads" "exit $st or counts differ" "$tmp/topo.json"
	fi
}
loads tree 3 7 18
loads block 4 10 26
run slurm-topology "$in/tree.conf"
if grep -q -x -F "stopo import: warning: $in/tree.conf:3: node n3 is also on line 2: a node has one switch in topo.conf, kept the first" "$tmp/err"; then
	pass tree_warning
else
	flunk tree_warning "no warning for n3" "$tmp/err"
fi
slurm_bad() {
	expect_fail -x "$1" 2 "$in/$1.conf:$2" -- slurm-topology "$in/$1.conf"
}
slurm_bad slurm_unknown "2: Switches=: unknown switch 's9'"
slurm_bad slurm_mixed "2: BlockName= in a file of SwitchName= lines (first on line 1)"
slurm_bad slurm_key "1: unknown key 'Speed' (SwitchName, Switches, Nodes, LinkSpeed, BlockName, BlockSizes)"
slurm_bad slurm_hostlist "1: Nodes=n[3-1]: bad hostlist: range with high < low"
slurm_bad slurm_dup "2: 's0' defined twice (first on line 1)"
slurm_bad slurm_self "1: Switches=: switch 's0' linked to itself"
slurm_bad slurm_noeq "1: expected Key=Value, got 'n0'"
slurm_bad slurm_empty "2: no SwitchName= or BlockName= lines"
# Slurm's topology.yaml.  tree.yaml and block.yaml are tree.conf and
# block.conf as YAML: the same counts, and the same topo.conf but for the
# first line (which names the input).  two.yaml: rack (blocks b1 n0..n3,
# b2 n4..n7: with the joining switch top, 3 switches, 8 nodes, 2 cables,
# 2*8 + 2*2 = 20 links), fabric (cluster_default: s2 above s0 n0..n3 and
# s1 n4..n6: 3 switches, 7 nodes, 2 cables, 18 links) and none (flat).
golden tree_yaml.conf -- slurm-topology "$in/tree.yaml"
golden block_yaml.conf -- slurm-topology "$in/block.yaml"
golden two_default.conf -- slurm-topology "$in/two.yaml"
golden two_rack.conf -- slurm-topology "$in/two.yaml" --topology rack
# yaml_loads NAME FILE SWITCHES NODES LINKS CABLES [ARGS]
yaml_loads() {
	name=$1 file=$2 nsw=$3 nn=$4 nl=$5 nc=$6
	shift 6
	run slurm-topology "$in/$file" -o "$tmp/$name.out" "$@"
	"$STOPO" topo --topo "$tmp/$name.out" --json >"$tmp/topo.json" 2>&1
	if [ "$st" -eq 0 ] && grep -q "\"switches\":$nsw," "$tmp/topo.json" &&
		grep -q "\"nodes\":$nn," "$tmp/topo.json" &&
		grep -q "\"links\":$nl," "$tmp/topo.json" &&
		grep -q -x -F "$tmp/$name.out: $nsw switches, $nn nodes, $nc cables" "$tmp/out"; then
		pass "${name}_loads"
	else
		flunk "${name}_loads" "exit $st or counts differ" "$tmp/out" "$tmp/topo.json"
	fi
}
yaml_loads tree_yaml tree.yaml 3 7 18 2
yaml_loads block_yaml block.yaml 4 10 26 3
yaml_loads two_default two.yaml 3 7 18 2
yaml_loads two_rack two.yaml 3 8 20 2 --topology rack
# the same topo.conf from topology.conf and topology.yaml, line 1 apart
same() {
	"$STOPO" import slurm-topology "$in/$1.conf" 2>/dev/null | sed 1d >"$tmp/conf.out"
	"$STOPO" import slurm-topology "$2" 2>/dev/null | sed 1d >"$tmp/yaml.out"
	if [ -s "$tmp/conf.out" ] && cmp -s "$tmp/conf.out" "$tmp/yaml.out"; then
		pass "$3"
	else
		flunk "$3" "topology.conf and topology.yaml differ" "$tmp/conf.out" "$tmp/yaml.out"
	fi
}
same tree "$in/tree.yaml" tree_yaml_same
same block "$in/block.yaml" block_yaml_same
# no .yaml extension: YAML by its first line ("---" after a comment)
cp "$in/tree.yaml" "$tmp/topology"
same tree "$tmp/topology" yaml_by_content
run slurm-topology "$in/tree.yaml"
if grep -q -x -F "stopo import: warning: $in/tree.yaml:9: node n3 is also on line 7: a node has one switch in topo.conf, kept the first" "$tmp/err" &&
	[ "$(wc -l <"$tmp/err")" -eq 1 ]; then
	pass tree_yaml_warning
else
	flunk tree_yaml_warning "want one warning for n3" "$tmp/err"
fi
yaml_bad() {
	f=$1 msg=$2
	shift 2
	expect_fail -x "$f" 2 "$in/$f.yaml:$msg" -- slurm-topology "$in/$f.yaml" "$@"
}
yaml_bad slurm_syntax "4: YAML syntax error: did not find expected node content (while parsing a flow node)"
yaml_bad slurm_notlist "1: want a list of topologies (- topology: NAME ...)"
yaml_bad slurm_key "6: unknown key 'uplinks' in switches (switch, children, nodes)"
yaml_bad slurm_noname "6: switch entry without 'switch: NAME'"
yaml_bad slurm_noblock "6: block entry without 'block: NAME'"
yaml_bad slurm_hostlist "5: nodes: n[3-1]: bad hostlist: range with high < low"
yaml_bad slurm_unknown "7: children: unknown switch 's9'"
yaml_bad slurm_dup "8: switch 's0' defined twice (first on line 4)"
yaml_bad slurm_ambiguous "1: 2 topologies and none has cluster_default: true (give --topology NAME: left, right)"
expect_fail -x yaml_no_name 2 "$in/two.yaml:2: no topology named 'nope' (the file has: rack, fabric, none)" \
	-- slurm-topology "$in/two.yaml" --topology nope
expect_fail -x yaml_flat 2 "$in/two.yaml:20: topology 'none' is flat: no switch structure to import" \
	-- slurm-topology "$in/two.yaml" --topology none
expect_fail -x topology_conf 2 "$in/tree.conf: --topology applies to a topology.yaml, not a topology.conf" \
	-- slurm-topology "$in/tree.conf" --topology fabric
expect_fail -x topology_ibnet 2 "--topology applies to slurm-topology only" \
	-- ibnetdiscover "$in/small.ibnet" --topology fabric
expect_fail -x guids_slurm 2 "--guids applies to ibnetdiscover only" \
	-- slurm-topology "$in/tree.conf" --guids "$in/small.map"

# '-': standard input (the same topo.conf but the header line naming the
# input; a YAML file found by its first line, since stdin has no
# suffix), and -o - standard output, creating no file named '-'
for c in "ibnetdiscover fabric.ibnet" "slurm-topology tree.conf" \
	"slurm-topology tree.yaml"; do
	set -- $c
	"$STOPO" import "$1" "$in/$2" | sed 1d >"$tmp/file.conf"
	(cd "$tmp" && "$STOPO" import "$1" - -o - <"$in/$2") 2>"$tmp/err" |
		sed 1d >"$tmp/stdin.conf"
	if [ -s "$tmp/file.conf" ] && [ ! -e "$tmp/-" ] &&
	   cmp -s "$tmp/file.conf" "$tmp/stdin.conf"; then
		pass "stdin_$2"
	else
		flunk "stdin_$2" "stdin output differs from the file's" \
			"$tmp/err"
		diff "$tmp/file.conf" "$tmp/stdin.conf"
	fi
done

# a description with the form of another switch's GUID name
# (name_collision.ibnet: switch 1 is described "S-000000000000000a", and
# switches 0xa and 3 share the description "dup", so 0xa takes that GUID
# name): every switch gets its GUID name, and the topo.conf loads
run ibnetdiscover "$in/name_collision.ibnet" -o "$tmp/nc.conf"
if [ "$st" -eq 0 ] && grep -q -F 'name_collision.ibnet:1: 3 switches named by GUID (S-0000000000000001, ...): descriptions not unique or not names ("S-000000000000000a")' "$tmp/err" &&
   "$STOPO" topo --topo "$tmp/nc.conf" >"$tmp/nc.txt" 2>&1 &&
   grep -q '^switches: *3$' "$tmp/nc.txt"; then
	pass name_collision
else
	flunk name_collision "exit $st or the topo.conf does not load" \
		"$tmp/err" "$tmp/nc.txt"
fi

# HCAs named by their vendor's default description are kept, one node
# each (vendor_default.ibnet: four "MT25408 ConnectX ..." and login1;
# they were one node, with a warning per HCA): named by GUID, split so
# that no name ends in more digits than a hostlist keeps, with one
# warning; the map (GUID HOST lines, H- and 0x, a quoted host, a port
# GUID, a HOST GUID line) names them
run ibnetdiscover "$in/vendor_default.ibnet"
if [ "$st" -eq 0 ] &&
   grep -q -x 'SwitchName=sw1 Nodes=H-00000000-\[00000011-00000014\],login1 # S-0000000000000001' "$tmp/out" &&
   grep -q -x -F "stopo import: warning: $in/vendor_default.ibnet: 4 HCAs named by GUID (H-00000000-00000011, ...): their descriptions do not name hosts (\"MT25408 ConnectX Mellanox Technologies\" on 4); give --guids MAP" "$tmp/err" &&
   [ "$(wc -l <"$tmp/err")" -eq 1 ]; then
	pass vendor_default
else
	flunk vendor_default "exit $st" "$tmp/out" "$tmp/err"
fi
run ibnetdiscover "$in/vendor_default.ibnet" --guids "$in/vendor_default.map"
if [ "$st" -eq 0 ] &&
   grep -q -x 'SwitchName=sw1 Nodes=cn\[01-04\],login1 # S-0000000000000001' "$tmp/out" &&
   grep -q -F 'warning: '"$in"'/vendor_default.ibnet: 1 HCA not in '"$in"'/vendor_default.map: named from their descriptions ("login1 mlx4_0", ...)' "$tmp/err"; then
	pass guids_both_orders
else
	flunk guids_both_orders "exit $st" "$tmp/out" "$tmp/err"
fi
# a description that names nothing ("(none)") gives the GUID name
run ibnetdiscover "$in/none_desc.ibnet"
if [ "$st" -eq 0 ] && grep -q '^SwitchName=sw1 Nodes=H-00000000-00000011 ' "$tmp/out"; then
	pass none_desc
else
	flunk none_desc "exit $st" "$tmp/out" "$tmp/err"
fi
# the ports report (ibnetdiscover -s -p, as netloc collected it; ports.ibnet
# derived from the shared avakas dump): "DR path" lines skipped, director
# chips named by their chip with chassis and role; by hand: 3 switches,
# 2 nodes, 4 cables (two from each leaf chip to S201A), a 2-level
# fat-tree, so Routing=ecmp (pinned golden)
golden ports.conf -- ibnetdiscover "$in/ports.ibnet"

# a directory where a file belongs, and an empty --guids map (every HCA
# would be named from its description without the promised warning)
mkdir "$tmp/dir" "$tmp/dir.yaml"
expect_fail -x dir_ibnet 2 "$tmp/dir: no ib-subnet-ID.txt files in the directory" \
	-- ibnetdiscover "$tmp/dir"
expect_fail -x dir_conf 2 "$tmp/dir: Is a directory" \
	-- slurm-topology "$tmp/dir"
expect_fail -x dir_yaml 2 "$tmp/dir.yaml: Is a directory" \
	-- slurm-topology "$tmp/dir.yaml"
expect_fail -x dir_map 2 "$tmp/dir: Is a directory" \
	-- ibnetdiscover "$in/small.ibnet" --guids "$tmp/dir"
: >"$tmp/empty.map"
expect_fail -x empty_map 2 "$tmp/empty.map: no 'HOST GUID' lines" \
	-- ibnetdiscover "$in/small.ibnet" --guids "$tmp/empty.map"

# two switches naming each other are one cable (GUID-generated files list
# every switch's neighbours); one switch naming a child twice is refused,
# where it was written as two cables; many parents are fine
printf 'SwitchName=s0 Nodes=n[0-3] Switches=s1\nSwitchName=s1 Nodes=n[4-7] Switches=s0\n' \
	>"$tmp/cycle.conf"
run slurm-topology "$tmp/cycle.conf"
if [ "$st" -eq 0 ] && grep -q -x 'SwitchName=s0 Nodes=n\[0-3\] Links=s1' "$tmp/out" &&
   grep -q -x 'SwitchName=s1 Nodes=n\[4-7\]' "$tmp/out"; then
	pass listed_both_ways
else
	flunk listed_both_ways "exit $st" "$tmp/out" "$tmp/err"
fi
# slurm_guids.conf: GUID switch names (S-0002c90200417670: 11 digits at
# the end, no hostlist) listing each other: 3 switches, 8 nodes, 2 cables
run slurm-topology "$in/slurm_guids.conf" -o "$tmp/guids.out"
if [ "$st" -eq 0 ] &&
   grep -q -x -F "$tmp/guids.out: 3 switches, 8 nodes, 2 cables" "$tmp/out" &&
   grep -q -x -F 'SwitchName=S-0002c90200417670 Nodes=node[01-04] Links=S-0002c902004176a0' "$tmp/guids.out" &&
   "$STOPO" topo --topo "$tmp/guids.out" >"$tmp/guids.txt" 2>&1 &&
   grep -q '^recognised: *fat-tree: 2 levels' "$tmp/guids.txt"; then
	pass guid_names
else
	flunk guid_names "exit $st" "$tmp/out" "$tmp/err" "$tmp/guids.out" "$tmp/guids.txt"
fi
printf 'SwitchName=s0 Nodes=n[0-3]\nSwitchName=s1 Nodes=n[4-7]\nSwitchName=s2 Switches=s0,s0,s1\n' \
	>"$tmp/twice.conf"
expect_fail -x child_twice 2 \
	"$tmp/twice.conf:3: Switches=: switches 's2' and 's0' are joined already (line 3): list a cable once" \
	-- slurm-topology "$tmp/twice.conf"
printf 'SwitchName=l1 Nodes=n[0-3]\nSwitchName=l2 Nodes=n[4-7]\nSwitchName=sp1 Switches=l[1-2]\nSwitchName=sp2 Switches=l[1-2]\n' \
	>"$tmp/two_spines.conf"
run slurm-topology "$tmp/two_spines.conf"
if [ "$st" -eq 0 ] &&
   grep -q '^SwitchName=l1 Nodes=n\[0-3\] Links=sp1,sp2$' "$tmp/out"; then
	pass two_parents
else
	flunk two_parents "exit $st" "$tmp/out" "$tmp/err"
fi

# YAML nested past 64 levels is refused at once (libyaml's loader is
# quadratic in the depth: 200,000 levels ran for minutes)
python3 -c "import sys; sys.stdout.write('- topology: x\\n  tree:\\n    switches: ' + '[' * 200000 + ']' * 200000 + '\\n')" \
	>"$tmp/deep.yaml"
expect_fail -x yaml_deep 2 "$tmp/deep.yaml:3: YAML nested deeper than 64" \
	-- slurm-topology "$tmp/deep.yaml"
finish
