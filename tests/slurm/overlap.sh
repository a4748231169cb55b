#!/bin/bash
# Overlapping partitions (issue 12, item 11): a clustered partition over
# the nodes of an isolating one.  Isolated job A takes 24 nodes under
# fattree-pods (pod 0 and leaves 4-5 of pod 1: n[0-23]); a clustered job
# B of 12 nodes, placed by cons_tres, lands on n[24-35] and crosses from
# pod 1 to pod 2 through pod 1's core links, which A uses.
#  - RespectIsolation=no (the default): slurmctld says loudly at start
#    that the partitions overlap; B breaks A's isolation and stopo report
#    names B as the job that broke A's.
#  - RespectIsolation=yes: B runs away from A's links (in pods 2-3) and A
#    stays isolated.
. "$(dirname "$0")/lib.sh"
require_cluster
have_report || skip "stopo report not built"

conf() { # RespectIsolation value
	cat > "$TDIR/topo.conf" <<CONF
# fat-tree k=4, n=3: 64 nodes, 4 per leaf switch, 16 per pod
Topology=fattree k=4 n=3
NodeName=n[0-63]
PartitionPolicy=batch:fattree-pods:rule=paper
PartitionPolicy=clus:clustered
RespectIsolation=$1
CONF
}
running() { # ID: waits until it runs (30 s)
	for _ in $(seq 1 60); do
		[ "$(field "$1" JobState)" = RUNNING ] && return 0
		sleep 0.5
	done
	return 1
}

run_case() { # RespectIsolation -> leaves $a $b and the report in $TDIR/rep.$1
	conf "$1"
	SLURM_EXTRA='PartitionName=clus Nodes=ALL MaxTime=INFINITE State=UP OverSubscribe=EXCLUSIVE' \
		cluster_start topo "$TDIR/topo.conf"
	a=$(sbatch --parsable -N 24 -o /dev/null --wrap "sleep 30") || fail "sbatch A"
	running "$a" || fail "A did not start"
	[ "$(field "$a" NodeList)" = "n[0-23]" ] || fail "A on $(field "$a" NodeList), expected n[0-23]"
	b=$(sbatch --parsable -p clus -N 12 -o /dev/null --wrap "sleep 30") || fail "sbatch B"
	running "$b" || fail "B did not start: $(squeue -h -j "$b" -o %r)"
	squeue --json > "$TDIR/snap.$1.json"
	"$STOPO" report --topo "$TDIR/topo.conf" "$TDIR/snap.$1.json" > "$TDIR/rep.$1" ||
		true # exit 0 either way without --check
	note "RespectIsolation=$1: A on $(field "$a" NodeList), B on $(field "$b" NodeList)"
}

run_case no
grep -q "error: select/topo: .*topo.conf: partition clus (no isolating policy) shares nodes with isolating partition batch: ITS JOBS CAN SHARE LINKS WITH ISOLATED JOBS; set RespectIsolation=yes in topo.conf to prevent it" \
	"$TDIR/c/log/slurmctld.log" || fail "no loud line about the overlap"
[ "$(field "$b" NodeList)" = "n[24-35]" ] || fail "B on $(field "$b" NodeList) (cons_tres was expected to take n[24-35])"
grep -q "^  job $a (batch, fattree-pods:large=pods,rule=paper): [0-9]* of its [0-9]* links used by $b (clus, clustered:seed=1,scatter=10)$" "$TDIR/rep.no" ||
	fail "report does not name B as breaking A: $(cat "$TDIR/rep.no")"
"$STOPO" report --topo "$TDIR/topo.conf" "$TDIR/snap.no.json" --check >/dev/null &&
	fail "report --check passed with A's isolation broken"
cluster_reset

run_case yes
grep -q "select/topo: .*topo.conf: partition clus (no isolating policy) shares nodes with isolating partition batch: its jobs keep off the links of isolated jobs (RespectIsolation=yes)" \
	"$TDIR/c/log/slurmctld.log" || fail "no info line about the overlap"
grep -q "^isolation broken" "$TDIR/rep.yes" && fail "isolation broken: $(cat "$TDIR/rep.yes")"
"$STOPO" report --topo "$TDIR/topo.conf" "$TDIR/snap.yes.json" --check >/dev/null ||
	fail "report --check: links shared: $(cat "$TDIR/rep.yes")"
case "$(field "$b" NodeList)" in
n\[3[2-9]-4[0-9]\]|n\[4[0-9]-5[0-9]\]|n\[5[0-9]-6[0-3]\]) ;;
*) fail "B on $(field "$b" NodeList), expected 12 nodes in pods 2-3" ;;
esac
scancel "$a" "$b"
wait_all 60 || fail "jobs did not finish"
ctld_alive || fail "slurmctld died"
echo "PASS"
