#!/bin/bash
# Backfill plans around isolated jobs (SELECT_MODE_WILL_RUN sees the
# future owners): a 32-node job waiting for two whole pods starts as soon
# as the jobs holding them end, although 1-node jobs keep arriving (they
# would take the freed pods one node at a time and starve it), and the
# small jobs backfill on the nodes the big job does not need.
. "$(dirname "$0")/lib.sh"
require_cluster

cat > "$TDIR/topo.conf" <<'CONF'
Topology=fattree k=4 n=3
NodeName=n[0-63]
PartitionPolicy=batch:fattree-pods:rule=paper
CONF
cluster_start topo "$TDIR/topo.conf"

# Pods 0-1 end after 10 and 20 s, pods 2-3 are busy for 40 s except one
# leaf switch (n60-63).  The small jobs below arrive from about +5 s on,
# one a second: 20 s leaves them time to arrive before pod 1 frees even
# where each sbatch takes a second or more (a loaded 2-core CI host: with
# 10 s, none had arrived by then once).
p0=$(submit 16 10 -t 1) && p1=$(submit 16 20 -t 1) &&
	_p2=$(submit 16 40 -t 1) && _p3=$(submit 12 40 -t 1) || fail "sbatch"
sleep 2
[ "$(squeue -h -t R | wc -l)" = 4 ] || fail "the four pod jobs do not run: $(squeue)"
t1=$(scontrol show job "$p1" | sed -n 's/.* StartTime=\([^ ]*\).*/\1/p')
big=$(submit 32 3 -t 1) || fail "sbatch -N 32"
sleep 2
reason=$(topo_reason "$big")
note "32-node job pending: $reason"
case "$reason" in
topo:*) ;;
*) fail "no topo pending reason: $reason" ;;
esac
: > "$TDIR/small.jobs"
for _ in $(seq 1 14); do
	submit 1 4 -t 1 >> "$TDIR/small.jobs" || fail "sbatch small"
	sleep 1
done
wait_all 90 || fail "jobs did not finish: $(squeue)"
epoch() { date -d "$1" +%s; }
start_of() { scontrol show job "$1" | sed -n 's/.* StartTime=\([^ ]*\).*/\1/p'; }
end_of() { scontrol show job "$1" | sed -n 's/.* EndTime=\([^ ]*\).*/\1/p'; }
bstart=$(epoch "$(start_of "$big")")
p1end=$(epoch "$(end_of "$p1")")
p0end=$(epoch "$(end_of "$p0")")
bnodes=$(scontrol show job "$big" | sed -n 's/^ *NodeList=//p')
note "pod jobs ended at +$((p0end - $(epoch "$t1")))s and +$((p1end - $(epoch "$t1")))s; 32-node job started at +$((bstart - $(epoch "$t1")))s on $bnodes"
[ "$bnodes" = "n[0-31]" ] || fail "32-node job not on the two freed pods: $bnodes"
# Its reason left the SystemComment when it started (select_topo(8)).
sc=$(scontrol show job "$big" | sed -n 's/^ *SystemComment=//p')
[ -z "$sc" ] || fail "the 32-node job ran but its SystemComment still says: $sc"
[ $((bstart - p1end)) -le 4 ] || fail "32-node job starved: started $((bstart - p1end)) s after its pods were free"
early=0
while read -r id; do
	s=$(epoch "$(start_of "$id")")
	n=$(scontrol show job "$id" | sed -n 's/^ *NodeList=//p')
	if [ "$s" -lt "$bstart" ]; then
		early=$((early + 1))
		case "$n" in
		n6[0-3]) ;;
		*) fail "small job $id started before the big job on $n (outside the free leaf)" ;;
		esac
	fi
done < "$TDIR/small.jobs"
note "$early small jobs backfilled before the 32-node job"
[ "$early" -ge 3 ] || fail "only $early small jobs ran before the big job"
all_completed small || fail "a small job did not complete"
echo "PASS"
