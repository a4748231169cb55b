#!/bin/sh
# fabrics.sh - stopo import and stopo topo on the real sites' files of
# ../shared/fabrics (its README says what they are); skipped (exit 77)
# when that directory is absent.  The counts come from the files (grep in
# the comments), the structures from their README.
. "$top_srcdir/tests/cli/lib.sh"
shared="$top_srcdir/../shared/fabrics"
if [ ! -d "$shared" ]; then
	echo "fabrics: $shared not found, skipped"
	exit 77
fi
cli_setup import "$golden/none_"

# has FILE LINE...: FILE holds every LINE (fixed strings, whole lines)
has() {
	f=$1
	shift
	for l in "$@"; do
		grep -q -x -F -- "$l" "$f" || {
			echo "missing: $l"
			return 1
		}
	done
}

# stage-sx6036: 6 leaf and 2 spine switches, 144 HCAs (grep -c '^Ca'), the
# storage HCAs tank1, tank2 on spine ib7: a 2-level fat-tree with ib7
# hosting them, ecmp, and fattree-pods isolating
run ibnetdiscover "$shared/ibnetdiscover/stage-sx6036.ibnetdiscover" \
	-o "$tmp/stage.conf"
"$STOPO" topo --topo "$tmp/stage.conf" >"$tmp/stage.txt" 2>&1
if [ "$st" -eq 0 ] &&
   has "$tmp/out" "$tmp/stage.conf: 8 switches, 144 nodes, 47 cables" &&
   has "$tmp/stage.txt" \
	"recognised:        fat-tree: 2 levels, 1 pod (leaves 6), 6 leaves" \
	"hosting switches:  1 (ib7; storage, login: in no pod)" \
	"isolation:         fattree-pods under ecmp" \
	"routing:           ecmp" \
	"default policy:    fattree-pods:large=pods,rule=links (the family's: the file names no policy)"
then
	pass stage
else
	flunk stage "exit $st" "$tmp/err" "$tmp/stage.txt"
fi

# avakas: the -p ports report (DR path lines) of a QLogic 12800-180
# director, 25 chips, 281 HCAs; its chips are the leaves (16) and spines
# (9) of a 2-level fat-tree; with its 25 forwarding tables, Routing=lft,
# and fattree-pods isolates under them: a what-if of its jobs has no
# isolation violation (checked with the tables' link sets)
av="$shared/ibnetdiscover/avakas"
run ibnetdiscover "$av" -o "$tmp/av.conf"
"$STOPO" topo --topo "$tmp/av.conf" >"$tmp/av.txt" 2>&1
if [ "$st" -eq 0 ] &&
   has "$tmp/out" "$tmp/av.conf: 25 switches, 281 nodes, 288 cables" &&
   has "$tmp/av.txt" \
	"recognised:        fat-tree: 2 levels, 1 pod (leaves 16), 16 leaves" \
	"routing:           ecmp" &&
   grep -q '^SwitchName=L101 .* # S-00066a02e8001310 chassis 00066a00e8001310 leaf L101$' "$tmp/av.conf"
then
	pass avakas
else
	flunk avakas "exit $st" "$tmp/err" "$tmp/av.txt"
fi
run ibnetdiscover "$av" --lft "$av/ibroutes-fe80:0000:0000:0000" \
	-o "$tmp/avl.conf"
"$STOPO" topo --topo "$tmp/avl.conf" >"$tmp/avl.txt" 2>&1
if [ "$st" -eq 0 ] && grep -q -x 'Routing=lft' "$tmp/avl.conf" &&
   has "$tmp/avl.txt" "isolation:         fattree-pods under lft" \
	"routing:           lft"; then
	pass avakas_lft
else
	flunk avakas_lft "exit $st" "$tmp/err" "$tmp/avl.txt"
fi
swf="$top_srcdir/../shared/workloads/lublin_256.swf"
if [ -f "$swf" ]; then
	"$STOPO" whatif -q --topo "$tmp/avl.conf" --workload "$swf" \
		--limit-jobs 300 --scale auto --no-rates >"$tmp/wi.txt" 2>&1
	if grep -q '^isolation violations  *0$' "$tmp/wi.txt" &&
	   grep -q '^policy  *fattree-pods' "$tmp/wi.txt" &&
	   ! grep -q '^jobs run isolated  *0$' "$tmp/wi.txt"; then
		pass avakas_lft_whatif
	else
		flunk avakas_lft_whatif "what-if" "$tmp/wi.txt"
	fi
fi

# same_stats A B: stopo topo outputs A and B give the same links,
# diameter, average hops and radix
same_stats() {
	for k in "links (directed)" diameter "average hops" radix; do
		has "$1" "$(grep "^$k:" "$2")" || return 1
	done
}

# Edison's Aries link list: 15 groups of 6 x 16 routers, 4 nodes each,
# 24 global cables a group pair (two a router pair: 12 links of
# capacity 2): a Cascade, ugal, and the same distances and links as
# cascade:groups=15,block=2,bundle=2
run aries "$shared/aries/edison.links" -o "$tmp/edison.conf"
"$STOPO" topo --topo "$tmp/edison.conf" >"$tmp/ed.txt" 2>&1
"$STOPO" topo --topo cascade:groups=15,block=2,bundle=2 >"$tmp/gen.txt" 2>&1
if [ "$st" -eq 0 ] &&
   has "$tmp/ed.txt" \
	"recognised:        Cascade: 15 groups of 6 x 16 switches, 1260 global links (12 per group pair)" \
	"routing:           ugal" \
	"default policy:    dragonfly-balanced (the family's: the file names no policy)" &&
   same_stats "$tmp/ed.txt" "$tmp/gen.txt"; then
	pass edison
else
	flunk edison "exit $st" "$tmp/err" "$tmp/ed.txt" "$tmp/gen.txt"
fi

# abacus: a real 2-level Slurm topology.conf (tabs and spaces), 13 nodes
run slurm-topology "$shared/slurm-topology/abacus.topology.conf" \
	-o "$tmp/abacus.conf"
"$STOPO" topo --topo "$tmp/abacus.conf" >"$tmp/ab.txt" 2>&1
if [ "$st" -eq 0 ] &&
   has "$tmp/out" "$tmp/abacus.conf: 5 switches, 13 nodes, 4 cables" &&
   grep -q '^recognised: *fat-tree: 2 levels' "$tmp/ab.txt"; then
	pass abacus
else
	flunk abacus "exit $st" "$tmp/err" "$tmp/ab.txt"
fi
finish
