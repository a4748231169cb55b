#!/bin/bash
# The everyday matrix (issue 12, "Must show"): one scripted scenario on a
# cluster of 4- and 8-CPU nodes with three partitions, an isolating one
# (batch, n[0-47]: three pods, fattree-pods), a clustered one (clus,
# n[48-55]) and an OverSubscribe=FORCE:2 one (shared, n[56-63]), running
# the shapes users submit: -N, -n, -n with --ntasks-per-node, -c,
# --exclusive, node ranges, arrays, a heterogeneous job, salloc + srun,
# a dependency, requeue, hold/release, --test-only, a reservation, a
# drained node, a slurmctld restart and a reconfigure, with
# `stopo report` sampled throughout.  Every job ends in its expected
# state, no job is lost, and at every sample each running job of batch is
# isolated (no link or node shared with any other job).
. "$(dirname "$0")/lib.sh"
require_cluster
have_report || skip "stopo report not built"

cat > "$TDIR/topo.conf" <<'CONF'
# fat-tree k=4, n=3: 64 nodes, 4 per leaf switch, 16 per pod
Topology=fattree k=4 n=3
NodeName=n[0-63]
PartitionPolicy=batch:fattree-pods:rule=paper
PartitionPolicy=clus:clustered
PartitionPolicy=shared:clustered
CONF
BATCH_NODES='n[0-47]' SLURM_EXTRA='PartitionName=clus Nodes=n[48-55] MaxTime=INFINITE State=UP
PartitionName=shared Nodes=n[56-63] MaxTime=INFINITE State=UP OverSubscribe=FORCE:2' \
	cluster_start topo "$TDIR/topo.conf"
sinfo -h -o '%P %D' | sort > "$TDIR/parts"
grep -q "^batch\* 48$" "$TDIR/parts" && grep -q "^clus 8$" "$TDIR/parts" &&
	grep -q "^shared 8$" "$TDIR/parts" || fail "partitions: $(cat "$TDIR/parts")"

: > "$TDIR/m.jobs"     # "ID EXPECTED-STATE" lines
( i=0; while :; do i=$((i + 1)); snapshot "m.$i"; sleep 0.5; done ) &
sampler=$!
job() { # EXPECTED-STATE sbatch-options... : submit, record
	local want=$1 id
	shift
	id=$(sbatch --parsable -o /dev/null "$@" 2>"$TDIR/sbatch.err") ||
		fail "sbatch $*: $(cat "$TDIR/sbatch.err")"
	id=${id%%;*}
	echo "$id $want" >> "$TDIR/m.jobs"
	echo "$id"
}
w() { echo "--wrap=sleep $1"; }

job COMPLETED -N 4 "$(w 3)" >/dev/null
job COMPLETED -n 8 "$(w 2)" >/dev/null
job COMPLETED -n 8 --ntasks-per-node=2 "$(w 2)" >/dev/null
job COMPLETED -c 2 -n 6 "$(w 2)" >/dev/null
job COMPLETED --exclusive -N 2 "$(w 2)" >/dev/null
job COMPLETED -N 2-6 "$(w 2)" >/dev/null
arr=$(job COMPLETED --array=0-5 -N 1 "$(w 1)")
for t in 1 2 3 4 5; do echo "${arr}_$t COMPLETED" >> "$TDIR/m.jobs"; done
sed -i "s/^$arr COMPLETED$/${arr}_0 COMPLETED/" "$TDIR/m.jobs"
het=$(sbatch --parsable -o /dev/null -N 2 : -N 4 --wrap "sleep 2" 2>"$TDIR/sbatch.err") ||
	fail "het job: $(cat "$TDIR/sbatch.err")"
echo "${het}+0 COMPLETED" >> "$TDIR/m.jobs"
echo "${het}+1 COMPLETED" >> "$TDIR/m.jobs"
first=$(job COMPLETED -N 16 "$(w 3)")
job COMPLETED -N 4 --dependency=afterok:"$first" "$(w 1)" >/dev/null
held=$(job COMPLETED -N 2 --hold "$(w 1)")
job COMPLETED -p clus -n 3 "$(w 2)" >/dev/null
job COMPLETED -p clus -N 2 "$(w 2)" >/dev/null
job COMPLETED -p shared -n 2 "$(w 3)" >/dev/null
job COMPLETED -p shared -n 2 "$(w 3)" >/dev/null
# submitted to two partitions: its record names the one it ran in
two=$(job COMPLETED -p clus,shared -n 2 "$(w 1)")
sbatch --test-only -N 8 --wrap true >"$TDIR/testonly" 2>&1 ||
	fail "--test-only: $(cat "$TDIR/testonly")"
grep -q "to start at" "$TDIR/testonly" || fail "--test-only: $(cat "$TDIR/testonly")"
# salloc + srun in the background.
( salloc -N 2 srun -N 2 hostname > "$TDIR/salloc.out" 2>&1; echo "rc=$?" >> "$TDIR/salloc.out" ) &
salloc_pid=$!
sleep 2
scontrol release "$held" || fail "release"
# requeue a running job: it runs again and completes.
rq=$(job COMPLETED -N 4 --requeue "$(w 4)")
for i in $(seq 1 40); do
	[ "$(squeue -h -j "$rq" -o %T)" = RUNNING ] && break
	sleep 0.5
done
scontrol requeue "$rq" || fail "requeue $rq"
# a reservation of a whole leaf (IGNORE_JOBS: jobs run now) and a job in
# it (with nodecnt= and IGNORE_JOBS, 25.11 on choose the nodes without
# the policy: shapes.sh)
scontrol create reservation reservationname=mres nodes=n[44-47] starttime=now \
	duration=10 users=root flags=ignore_jobs partitionname=batch >/dev/null ||
	fail "reservation"
job COMPLETED -N 4 --reservation=mres "$(w 1)" >/dev/null
# a drained node, back later
scontrol update nodename=n7 state=drain reason=matrix || fail "drain"
job COMPLETED -N 8 "$(w 2)" >/dev/null
sleep 2
# slurmctld restart in the middle, then a reconfigure
"$CLUSTER" restart-ctld "$TDIR/c" >/dev/null 2>&1 || fail "slurmctld did not restart"
job COMPLETED -N 3 "$(w 1)" >/dev/null
scontrol reconfigure || fail "reconfigure"
# the drain survived the restart (drng while a job that started on n7
# before the drain still runs, as under a loaded CI); resume once n7
# answers again
drained() { case $(sinfo -h -n n7 -o %t) in drain | drng) return 0 ;; esac; return 1; }
for i in $(seq 1 60); do
	drained && break
	sleep 0.5
done
drained || fail "n7 after the restart: $(sinfo -h -n n7 -o %t)"
# 24.11's reconfigure execs a new slurmctld: sinfo may have answered from
# the old one, and the new one refuses a resume ("Invalid node state")
# until n7 has registered with it; retry for up to 30 s.
for i in $(seq 1 60); do
	scontrol update nodename=n7 state=resume 2>"$TDIR/resume.err" && break
	sleep 0.5
done
if drained; then fail "resume n7: $(cat "$TDIR/resume.err")"; fi
job COMPLETED -N 12 "$(w 1)" >/dev/null
job COMPLETED -n 20 "$(w 1)" >/dev/null

end=$(( $(date +%s) + 240 ))
while [ "$(active_jobs)" != 0 ] && [ "$(date +%s)" -lt $end ]; do sleep 1; done
kill "$sampler" 2>/dev/null
wait "$sampler" 2>/dev/null
wait "$salloc_pid"
[ "$(active_jobs)" = 0 ] || { squeue >&2; fail "jobs still active after 240 s"; }
ctld_alive || fail "slurmctld died"
grep -q "rc=0" "$TDIR/salloc.out" && [ "$(grep -vc '^salloc: \|^rc=' "$TDIR/salloc.out")" = 2 ] ||
	fail "salloc + srun: $(cat "$TDIR/salloc.out")"
scontrol delete reservationname=mres 2>/dev/null

# Every job in its expected state, none lost.
squeue --json -t all > "$TDIR/final.json" 2>/dev/null
python3 - "$TDIR/m.jobs" "$TDIR/final.json" <<'PY' || fail "job states"
import json, sys
want = dict(l.split() for l in open(sys.argv[1]) if l.strip())
jobs = json.load(open(sys.argv[2]))["jobs"]
def num(v):
    # 24.11 (data_parser v0.0.42): {"set": .., "infinite": .., "number": ..}
    if isinstance(v, dict):
        return v["number"] if v.get("set") else None
    return v
have = {}
for j in jobs:
    jid = str(j["job_id"])
    aj, at = num(j.get("array_job_id")), num(j.get("array_task_id"))
    if aj and at is not None:
        jid = "%s_%s" % (aj, at)
    hj = num(j.get("het_job_id"))
    if hj:
        jid = "%s+%s" % (hj, num(j["het_job_offset"]))
    st = j["job_state"]
    # 24.11 lists the state and its flags: the first is the base state
    have[jid] = st[0] if isinstance(st, list) else st
bad = [(k, v, have.get(k, "LOST")) for k, v in want.items() if have.get(k) != v]
for k, v, h in bad:
    print("job %s: want %s, is %s" % (k, v, h), file=sys.stderr)
print("# %d jobs, all in their expected states" % len(want) if not bad else "", end="")
sys.exit(1 if bad else 0)
PY
echo
# The requeued job started twice: one record per start in topo_jobs.log
# (stamped with each start time), and its AdminComment keeps the first
# start's record (it is set only while empty).
grep " job=$rq " "$TDIR/c/state/topo_jobs.log" > "$TDIR/rq.rec"
[ "$(wc -l < "$TDIR/rq.rec")" = 2 ] && [ "$(cut -d' ' -f1 "$TDIR/rq.rec" | sort -u | wc -l)" = 2 ] ||
	fail "requeued job $rq: records $(cat "$TDIR/rq.rec")"
ac=$(scontrol show job "$rq" | grep -o 'AdminComment=.*')
[ "$(printf '%s\n' "$ac" | grep -o 'topo:' | wc -l)" = 1 ] ||
	fail "requeued job $rq: $ac"
note "requeued job $rq: two records, one AdminComment"
ran=$(squeue -h -t all -j "$two" -o %P)
grep " job=$two " "$TDIR/c/state/topo_jobs.log" | grep -q " partition=$ran " ||
	fail "job $two (-p clus,shared) ran in '$ran': $(grep " job=$two " "$TDIR/c/state/topo_jobs.log")"
# Isolation at every sample: each running batch job isolated.
n=0
for f in "$TDIR"/snap.m.*.json; do
	[ -s "$f" ] || continue
	"$STOPO" report --json --topo "$TDIR/topo.conf" "$f" > "$TDIR/rep.json" 2>"$TDIR/rep.err" ||
		fail "stopo report on $f: $(cat "$TDIR/rep.err")"
	python3 - "$f" "$TDIR/rep.json" <<'PY' || fail "isolation broken in $f"
import json, sys
snap = json.load(open(sys.argv[1]))["jobs"]
rep = json.load(open(sys.argv[2]))
part = {j["job_id"]: j["partition"] for j in snap}
bad = [j for j in rep["jobs"] if part.get(j["id"]) == "batch" and not j["isolated"]]
for j in bad:
    print("job %s (batch) not isolated: shares %s links with %s" % (j["id"], j["shared"], j["shares_with"]), file=sys.stderr)
sys.exit(1 if bad else 0)
PY
	n=$((n + 1))
done
[ $n -ge 20 ] || fail "only $n samples"
note "$n samples: every batch job isolated at every sample"
echo "PASS"
