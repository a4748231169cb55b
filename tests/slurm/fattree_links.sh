#!/bin/bash
# fattree-pods' default rule (rule=links) in real daemons (issue 15): on
# fattree:k=4,n=3 (64 nodes, leaves n[4w..4w+3], pods of 16), with a
# 3-node job A on leaf 0 (n[0-2]), a 5-node job B is placed beside it:
# its pod is pod 0 (the fewest free nodes, best fit), where it takes the
# fullest leaf (n[4-7]) and the rest, 1 node, from the smallest leaf that
# holds it: n3, the last node of A's leaf.  So a multi-leaf job shares a
# leaf with a single-leaf job, which the paper's rules (rule=paper) never
# do (they hand B two whole leaves and its first 5 nodes: n[4-8]).  A
# 6-node job C must then avoid leaves 0 and 1 (B crosses them) and D, a
# 1-node job, may still take any leftover.  slurmctld logs the spec it
# ran B under (a bare fattree-pods is rule=links).  stopo report on
# squeue --json: MLS = TLS = 0 throughout.  Then a 6-node reservation
# takes two whole leaves under either rule (resv6).
. "$(dirname "$0")/lib.sh"
require_cluster
have_report || skip "stopo report not built"

# the leaves (0-15) of a hostlist's nodes, one per line
leaves() {
	scontrol show hostnames "$1" | sed 's/^n//' | awk '{ print int($1 / 4) }' |
		sort -n | uniq
}

# run POLICY SPEC: A, B, C, D; prints their node lists, checks that
# slurmctld ran B isolated under SPEC (the canonical spec) and the report
run() {
	cat > "$TDIR/topo.conf" <<CONF
Topology=fattree k=4 n=3
NodeName=n[0-63]
PartitionPolicy=batch:$1
CONF
	cluster_start topo "$TDIR/topo.conf"
	note "$1: jobs A (3 nodes), B (5), C (6), D (1)"
	start_jobs 60 a=3 b=5 c=6 d=1
	na=$(field "$a" NodeList) nb=$(field "$b" NodeList)
	nc=$(field "$c" NodeList) nd=$(field "$d" NodeList)
	note "$1: A=$na B=$nb C=$nc D=$nd"
	logged=no
	for _ in $(seq 20); do
		grep -q "select/topo: JobId=$b started on .*, policy $2: isolated" \
			"$TDIR/c/log/slurmctld.log" && { logged=yes; break; }
		sleep 0.5
	done
	[ $logged = yes ] ||
		fail "$1: slurmctld did not log B as placed isolated under $2"
	lb=$(leaves "$nb" | tr '\n' ' ') lc=$(leaves "$nc" | tr '\n' ' ')
	[ -n "$lb" ] && [ -n "$lc" ] || fail "$1: no leaves for $nb, $nc"
	snapshot "$1"
	read -r mls tls < <(sharing "$TDIR/snap.$1.json" "$TDIR/topo.conf") ||
		fail "$1: stopo report failed"
	note "$1: MLS $mls, TLS $tls"
	python3 -c "import sys; sys.exit(0 if $mls == 0 and $tls == 0 else 1)" ||
		fail "$1: links shared (MLS $mls, TLS $tls)"
	ctld_alive || fail "$1: slurmctld died"
	scancel "$a" "$b" "$c" "$d"
	wait_all 60 || fail "$1: jobs did not end"
	resv6 "$1" "$2"
	cluster_reset
}

# resv6 POLICY SPEC: on the empty machine a 6-node reservation gets the
# leaves the policy gives a 6-node job (leaf 0 and 2 nodes of leaf 1),
# whole: n[0-7].  A reservation of exactly those 6 nodes would leave
# leaf 1's last 2 to jobs outside it, and one spanning leaves there would
# make the reserved job wait (one multi-leaf job per leaf).
resv6() {
	local rn said log=$TDIR/c/log/slurmctld.log
	# (no IGNORE_JOBS: from 25.11 slurmctld places those alone)
	scontrol create reservation reservationname=r6 nodecnt=6 \
		starttime=now duration=10 users=root \
		>/dev/null || fail "$1: create reservation r6"
	rn=$(scontrol show reservation r6 | tr ' ' '\n' | sed -n 's/^Nodes=//p')
	said=r6 # 24.11 asks for a new reservation's nodes without its name
	[ "$SLURM_SERIES" = 22.05 ] || said="(new)"
	grep -qF "select/topo: reservation $said: 6 nodes placed as $2 places a job of that size: n[0-7] (8 nodes)" "$log" ||
		fail "$1: reservation r6 on $rn: $(grep "reservation" "$log")"
	[ "$rn" = "n[0-7]" ] || fail "$1: reservation r6 on $rn, want n[0-7]"
	note "$1: reservation r6 (6 nodes) on $rn"
	scontrol delete reservationname=r6
}

run fattree-pods fattree-pods:large=pods,rule=links
[ "$na" = "n[0-2]" ] || fail "default: A on $na, want n[0-2]"
[ "$nb" = "n[3-7]" ] ||
	fail "default: B on $nb, want n[3-7] (leaf 0's last node, leaf 1)"
# C crosses leaves of its own: none of B's (0, 1)
[ "$lb" = "0 1 " ] || fail "default: B on leaves $lb, want 0 1"
case " $lc" in
*" 0 "* | *" 1 "*) fail "default: C on $nc shares a leaf with B ($nb)" ;;
esac

run fattree-pods:rule=paper fattree-pods:large=pods,rule=paper
# two whole leaves, the lowest ids of the fullest pod: n[4-8]
[ "$nb" = "n[4-8]" ] || fail "paper rules: B on $nb, want n[4-8]"
note "paper rules: B on $nb (whole leaves; rule=links put it on n[3-7])"
echo "PASS"
