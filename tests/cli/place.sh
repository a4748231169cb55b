#!/bin/sh
# place.sh - `stopo place`: every expected value below is worked by hand
# from paper 004's equations (nne.h gives them), not copied from output.
. "$top_srcdir/tests/cli/lib.sh"
cli_setup place "$data/place_golden_"
cd "$data" || exit 99

# best KEY: the value of KEY in the "best" object of the last --json run
best() {
	sed -n '/"best":{/,$p' "$tmp/out" | sed -n "s/^ *\"$1\":\(.*\)/\1/p" |
		sed 's/,$//' | head -1
}
# first KEY: its value in the first plan of the table
first() {
	sed -n '/"plans":\[/,$p' "$tmp/out" | sed -n "s/^ *\"$1\":\(.*\)/\1/p" |
		sed 's/,$//' | head -1
}
# second KEY: its value in the second plan
second() {
	sed -n '/"rank":2,/,$p' "$tmp/out" | sed -n "s/^ *\"$1\":\(.*\)/\1/p" |
		sed 's/,$//' | head -1
}
# near NAME GOT WANT: |GOT - WANT| <= 1e-9 |WANT|
near() {
	if awk -v g="$2" -v w="$3" 'BEGIN { d = g - w; if (d < 0) d = -d;
		a = w < 0 ? -w : w; exit !(g != "" && d <= 1e-9 * a) }'; then
		pass "$1"
	else
		flunk "$1" "got '$2', want $3"
	fi
}
# is NAME GOT WANT: string equality
is() {
	if [ "$2" = "$3" ]; then pass "$1"; else flunk "$1" "got '$2', want '$3'"; fi
}
# brackets: a JSON array printed one entry per line, joined
arr() {
	sed -n "/\"$1\":\[/,/\]/p" "$tmp/out" | sed -n '2,$p' | tr -d ' \n' |
		sed 's/\].*//'
}

DF=dragonfly:p=4,a=8,h=4,g=33
G=8x8x4
E=512x512x512

# Direct routing, global links binding (--bw 1000,1000,5).  beta (8,8,4)
# over 512^3 elements: m = (0.2, 0.2, 0.1).  At most 32 tasks per group
# and 33 groups, so |gamma| >= 8; Eq. 16 is smallest at |gamma| = 8:
# gamma (2,2,2), lambda (4,4,2): max(4*0.2, 4*0.2, 2*4*0.1) = 0.8.
# Random placement (Eq. 20), |gamma| = 8 in |lambda| = 32 groups:
# 8/32 * ln 32 / ln ln 32 = 0.697093 < 0.8, so it ranks first.
run --topo $DF --grid $G --elements $E --routing direct --bw 1000,1000,5 \
	--json || flunk direct "exit $st" "$tmp/err"
is direct_strategy "$(first strategy)" '"random/direct"'
near direct_random_delta "$(first delta)" 0.69709272995517768
near direct_random_bw "$(first bandwidth)" \
	"$(awk 'BEGIN { printf "%.17g", 5e9 / 0.69709272995517768 }')"
is direct_second "$(second strategy)" '"cartesian/direct"'
near direct_cart_delta "$(second delta)" 0.8
is direct_cart_gamma "$(sed -n '/"rank":2,/,$p' "$tmp/out" |
	sed -n '/"gamma":\[/,/\]/p' | sed -n '2,4p' | tr -d ' \n')" "2,2,2"
# 256 tasks x 2 (4 MiB + 4 MiB + 2 MiB... per axis: 64*128, 64*128,
# 64*64 elements of 1 KiB) = 2 * (8 + 8 + 4) MiB = 40 MiB per task
near task_bytes "$(sed -n 's/^ *"task_bytes":\(.*\),/\1/p' "$tmp/out")" \
	41943040

# --link-rate scales the topology's capacities (5 GB/s by default) and
# --elem-bytes the messages: 10 GB/s links, 2 KiB per element: 80 MiB
# per task, the same plans, every bandwidth doubled
run --topo $DF --grid $G --elements $E --routing direct --link-rate 10 \
	--elem-bytes 2048 --json || flunk rates "exit $st" "$tmp/err"
near link_rate_inject "$(sed -n 's/^ *"inject":\(.*\),/\1/p' "$tmp/out")" 1e10
near elem_bytes "$(sed -n 's/^ *"task_bytes":\(.*\),/\1/p' "$tmp/out")" \
	83886080
is link_rate_best "$(first strategy)" '"random/direct"'
# a random/direct plan's rank order comes from --seed: the same nodes,
# another order
run --topo $DF --grid $G --elements $E --routing direct --bw 1000,1000,5 \
	--hostfile "$tmp/s1" --seed 1 && run --topo $DF --grid $G \
	--elements $E --routing direct --bw 1000,1000,5 --hostfile "$tmp/s2" \
	--seed 2 || flunk seed "exit $st" "$tmp/err"
if ! cmp -s "$tmp/s1" "$tmp/s2" &&
	[ "$(sort -n "$tmp/s1")" = "$(sort -n "$tmp/s2")" ] &&
	[ "$(sort -n "$tmp/s1" | uniq | wc -l)" -eq 256 ]; then
	pass seed_order
else
	flunk seed_order "seeds 1 and 2: not the same 256 nodes in two orders"
fi

# Valiant routing: Eq. 15/17 with g - 2 = 31; |gamma| = 8, gamma (2,2,2):
# E = 2 (4*0.2 + 4*0.2 + 4*0.1) = 4, two non-neighbouring groups exist:
# delta = 2E/31 = 8/31; (2,4,1) and (4,2,1) tie, (2,2,2) first.
run --topo $DF --grid $G --elements $E --routing indirect \
	--bw 1000,1000,5 --json || flunk indirect "exit $st" "$tmp/err"
is indirect_strategy "$(best strategy)" '"cartesian/indirect"'
near indirect_delta "$(best delta)" "$(awk 'BEGIN { printf "%.17g", 8 / 31 }')"
near indirect_bw "$(best bandwidth)" 19375000000
is indirect_gamma "$(sed -n '/"best":{/,$p' "$tmp/out" |
	sed -n '/"gamma":\[/,/\]/p' | sed -n '2,4p' | tr -d ' \n')" "2,2,2"
is indirect_groups "$(best groups)" 32

# On the machine as it is: good_dragonfly.conf (dfly(2,4,2,9), nid0000-
# 0071, global capacity 2, one local cable 0.5: B_R 10, B_L 2.5, B_P 5
# GB/s) with jobs on nid[0000-0007] (group 0), nid[0008-0011] (half of
# group 1) and nid0016 (group 2): 59 usable nodes.  beta (4,4,2), one
# element per task: m = 1/6 each.  gamma (1,2,2), lambda (4,2,1): faces
# 4/6 and 2/6, E = 2, non-neighbours exist: 2E/7 = 4/7; it needs 8 groups
# of 4 usable nodes: groups 1-8, the tightest (group 1, then 2) first.
# Group 1's 4 usable nodes spread over its routers 6 and 7, two each,
# each router's consecutive: nid0012, 0013, 0014, 0015; group 2's over
# routers 9, 10, 11 (2 usable) then 8, one each: nid0018 first.  Rank 0 =
# box 0 slot 0 (nid0012), rank 1 = box 1 slot 0 (nid0018), rank 4 = box 0
# slot 1 (nid0013), rank 16 = box 0 slot 2 (nid0014).
run --topo good_dragonfly.conf --grid 4x4x2 --squeue place_squeue.json \
	--hostfile "$tmp/hosts" --json || flunk squeue "exit $st" "$tmp/err"
is squeue_usable "$(sed -n 's/^ *"usable_nodes":\(.*\),/\1/p' "$tmp/out")" 59
near squeue_bw_local "$(sed -n 's/^ *"local":\(.*\),/\1/p' "$tmp/out")" 2.5e9
near squeue_delta "$(best delta)" "$(awk 'BEGIN { printf "%.17g", 4 / 7 }')"
is squeue_group_ids "$(sed -n '/"group_ids":\[/,/\]/p' "$tmp/out" |
	sed -n '2,9p' | tr -d ' \n')" "1,2,3,4,5,6,7,8"
is hostfile_lines "$(wc -l <"$tmp/hosts" | tr -d ' ')" 32
is hostfile_ranks "$(sed -n '1p;2p;5p;17p' "$tmp/hosts" | tr '\n' ' ')" \
	"nid0012 nid0018 nid0013 nid0014 "
# no rank on a busy node
if grep -qE 'nid00(0[0-9]|1[01]|16)$' "$tmp/hosts"; then
	flunk hostfile_busy "a rank on a busy node" "$tmp/hosts"
else
	pass hostfile_busy
fi

# --free gives the same usable nodes as the squeue file
printf '# free nodes\nnid[0012-0015]\nnid[0017-0071]  # the rest\n' \
	>"$tmp/free"
run --topo good_dragonfly.conf --grid 4x4x2 --free "$tmp/free" --json ||
	flunk free "exit $st" "$tmp/err"
is free_usable "$(sed -n 's/^ *"usable_nodes":\(.*\),/\1/p' "$tmp/out")" 59
near free_delta "$(best delta)" "$(awk 'BEGIN { printf "%.17g", 4 / 7 }')"

# 4 tasks per node: a group of 32 nodes holds 128 tasks; each task
# injects at most 5/4 GB/s.
run --topo $DF --grid 16x8x8 --tasks-per-node 4 --json ||
	flunk tpn "exit $st" "$tmp/err"
near tpn_bw "$(best bandwidth)" 1.25e9
is tpn_limit "$(best limit)" '"injection"'

# --links: the balanced DF(4,8,4) under Valiant routing is bound by its
# local links (paper 004 Sec. 4.3, Fig. 7), below the closed form's B_P.
run --topo $DF --grid 16x8x8 --elements $E --routing indirect --links \
	--json || flunk links "exit $st" "$tmp/err"
is links_limit "$(sed -n '/"links":{/,/}/p' "$tmp/out" |
	sed -n 's/^ *"limit":"\(.*\)",*/\1/p')" local
lbw=$(sed -n '/"links":{/,/}/p' "$tmp/out" |
	sed -n 's/^ *"bandwidth":\(.*\),/\1/p')
if awk -v b="$lbw" 'BEGIN { exit !(b > 0 && b < 5e9) }'; then
	pass links_below_bp
else
	flunk links_below_bp "link-level B_eff '$lbw' not below 5e9"
fi

# Without --routing, the strategies the machine's routing allows (the
# nne policy's): min only the direct ones, vlb only cartesian/indirect;
# an explicit --routing auto takes all three on the min machine.
strategies() {
	sed -n 's/^ *"strategy":"\(.*\)",*/\1/p' "$tmp/out" | sort -u |
		tr '\n' ' '
}
printf 'Topology=dragonfly p=2 a=4 h=2 g=9\nRouting=min\n' >"$tmp/min.conf"
printf 'Topology=dragonfly p=2 a=4 h=2 g=9\nRouting=vlb\n' >"$tmp/vlb.conf"
run --topo "$tmp/min.conf" --grid 4x4x2 --top 0 --json ||
	flunk routing_min "exit $st" "$tmp/err"
is routing_min "$(strategies)" "cartesian/direct random/direct "
run --topo "$tmp/vlb.conf" --grid 4x4x2 --top 0 --json ||
	flunk routing_vlb "exit $st" "$tmp/err"
is routing_vlb "$(strategies)" "cartesian/indirect "
run --topo "$tmp/min.conf" --routing auto --grid 4x4x2 --top 0 --json ||
	flunk routing_auto "exit $st" "$tmp/err"
is routing_auto "$(strategies)" \
	"cartesian/direct cartesian/indirect random/direct "

# text output names the best plan and how to use the hostfile
run --topo good_dragonfly.conf --grid 4x4x2 --hostfile "$tmp/h2" --top 3 ||
	flunk text "exit $st" "$tmp/err"
if grep -q "SLURM_HOSTFILE=$tmp/h2 srun --distribution=arbitrary -n 32" \
	"$tmp/out" && grep -q '^best: cartesian/indirect' "$tmp/out" &&
	[ "$(grep -c '^ *[0-9]  ' "$tmp/out")" -eq 3 ]; then
	pass text
else
	flunk text "missing lines" "$tmp/out"
fi

expect_fail no_grid 2 "--grid" -- --topo $DF
expect_fail no_topo 2 "--topo" -- --grid 4x4
expect_fail fattree 2 "needs a dragonfly" -- --topo fattree:k=4 --grid 4x4
expect_fail bad_grid 2 "grid '4x0'" -- --topo $DF --grid 4x0
expect_fail bad_elements 2 "not a multiple" -- --topo $DF --grid 4x4 \
	--elements 6x8
expect_fail bad_bw 2 "--bw 1,2" -- --topo $DF --grid 4x4 --bw 1,2
expect_fail bad_routing 2 "--routing min" -- --topo $DF --grid 4x4 \
	--routing min
expect_fail too_big 1 "no plan fits" -- --topo $DF --grid 64x32
expect_fail both 2 "not both" -- --topo $DF --grid 4x4 --free x \
	--squeue y
expect_fail links_tpn 2 "--links" -- --topo $DF --grid 4x4 --links \
	--tasks-per-node 2
printf 'nid[0000-0003]\nnid9999\n' >"$tmp/badfree"
expect_fail bad_free 2 "badfree:2:" -- --topo good_dragonfly.conf \
	--grid 4x4 --free "$tmp/badfree"
expect_fail free_missing 2 "nosuch" -- --topo $DF --grid 4x4 \
	--free "$tmp/nosuch"

expect_fail -x elem_bytes_huge 2 "--elem-bytes 1e308: at most 1e15" \
	-- --topo $DF --grid 4x4 --elem-bytes 1e308
# a --free hostlist longer than 4 KiB (sinfo -o %N prints such lines):
# 1,056 names one by one in one bracket, 5,286 characters
printf 'Topology=dragonfly p=4 a=8 h=4 g=33\nNodeName=nid[0000-1055]\n' \
	>"$tmp/df33.conf"
python3 -c "print('nid[' + ','.join('%04d' % i for i in range(1056)) + ']')" \
	>"$tmp/longfree"
run --topo "$tmp/df33.conf" --grid 4x4 --free "$tmp/longfree" --json
if [ "$st" -eq 0 ] && grep -q '"tasks":16' "$tmp/out"; then
	pass free_long_line
else
	flunk free_long_line "exit $st" "$tmp/err"
fi

finish
