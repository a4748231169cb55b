#!/bin/sh
# adapters.sh - `stopo adapters` on an hwloc XML fixture, so it passes on
# a machine without InfiniBand.  tests/data/adapters/host.xml (HostName
# cn001.example.org, two NUMA nodes): eno1 (Network, PCI 0000:02:00.0,
# NUMA 0), and on PCI 0000:81:00.0 near NUMA 1 the ConnectX ib0
# (Network) and mlx5_0 (OpenFabrics, NodeGUID 0002:c903:0000:1003, port 1
# ACTIVE (state 4) LID 0x8, port 2 DOWN (state 1)).  The GUID is node3's
# HCA in tests/data/import/fabric.ibnet, so the map renames node3 cn001.
. "$top_srcdir/tests/cli/lib.sh"
xml="$data/adapters/host.xml"
cli_setup adapters "$golden/adapters_"

golden host.txt -- --input "$xml"
golden host.json -- --input "$xml" --json
pinned help.txt -- --help

run --input "$xml" --map
if [ "$st" -eq 0 ] && [ "$(cat "$tmp/out")" = "cn001 0x0002c90300001003" ]; then
	pass map
else
	flunk map "want 'cn001 0x0002c90300001003'" "$tmp/out" "$tmp/err"
fi
run --input "$xml" --map --hostname cn-a.b
if [ "$(cat "$tmp/out")" = "cn-a.b 0x0002c90300001003" ]; then
	pass map_hostname
else
	flunk map_hostname "want 'cn-a.b 0x0002c90300001003'" "$tmp/out"
fi

# the map feeds stopo import ibnetdiscover --guids
run --input "$xml" --map
cp "$tmp/out" "$tmp/map"
"$STOPO" import ibnetdiscover "$data/import/fabric.ibnet" --guids "$tmp/map" \
	>"$tmp/conf" 2>"$tmp/err"
if grep -q "^SwitchName=leaf2 Nodes=cn001,node\[4-5\] " "$tmp/conf"; then
	pass map_import
else
	flunk map_import "node3 is not cn001 on leaf2" "$tmp/conf" "$tmp/err"
fi

# this machine: whatever it has, the command runs
run
if [ "$st" -eq 0 ]; then pass live; else flunk live "exit $st" "$tmp/err"; fi

echo "not xml" >"$tmp/bad.xml"
expect_fail -x bad_xml 2 "$tmp/bad.xml: not an hwloc XML topology" \
	-- --input "$tmp/bad.xml"
expect_fail -x json_map 2 "give --json or --map, not both" -- --json --map
expect_fail -x hostname_alone 2 "--hostname applies to --map only" \
	-- --hostname x
# names stopo import --guids could not read back
expect_fail -x hostname_empty 2 "--hostname: empty NAME" \
	-- --input "$xml" --map --hostname ""
for h in "a b" "x#1"; do
	expect_fail -x "hostname_bad_$h" 2 \
		"--hostname '$h': want a name of 1 to 255 characters without blanks or '#'" \
		-- --input "$xml" --map --hostname "$h"
done
expect_fail -x input_missing 2 \
	"$tmp/none.xml: No such file or directory" -- --input "$tmp/none.xml"
# no InfiniBand adapter (the host without mlx5_0): an empty map, said
sed '/gp_index="33"/,/<\/object>/d' "$xml" >"$tmp/noib.xml"
run --input "$tmp/noib.xml" --map
if [ "$st" -eq 0 ] && [ ! -s "$tmp/out" ] &&
   grep -q -F "no InfiniBand adapter with a NodeGUID: nothing to map" \
	"$tmp/err"; then
	pass map_empty_said
else
	flunk map_empty_said "exit $st, want 0, no map and a note" \
		"$tmp/out" "$tmp/err"
fi
finish
