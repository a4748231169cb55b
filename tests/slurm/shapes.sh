#!/bin/bash
# Everyday job shapes under an isolating policy, on nodes of two kinds
# (n0-31 with 4 CPUs, n32-63 with 8: scripts/slurm-cluster.sh's default):
# the node count comes from tasks, CPUs per task and tasks per node the
# way cons_tres counts them (issue 12, item 1), and a node range -N LO-HI
# starts on the largest count that places now (item 7); every start is
# logged at info in one line and in topo_jobs.log (ISO time, policy, the
# nodes it shares with other jobs: item 9); what the job's environment
# holds of the SPANK options; a job waiting for drained nodes says so
# and starts when they return (item 5); --switches holds a job for its
# time (item 8); reservations fit isolated jobs (item 6); refusals reach
# the user (item 4).
. "$(dirname "$0")/lib.sh"
require_cluster

cat > "$TDIR/topo.conf" <<'CONF'
# fat-tree k=4, n=3: 64 nodes, 4 per leaf switch, 16 per pod
Topology=fattree k=4 n=3
NodeName=n[0-63]
PartitionPolicy=batch:fattree-pods:rule=paper
PartitionPolicy=shared:clustered
CONF
SLURM_EXTRA='PartitionName=shared Nodes=n[0-7] MaxTime=INFINITE State=UP OverSubscribe=FORCE:2' \
	cluster_start topo "$TDIR/topo.conf"
sinfo -h -N -p batch -o '%c' | sort | uniq -c | awk '{print $1, $2}' > "$TDIR/kinds"
grep -q "^32 4$" "$TDIR/kinds" && grep -q "^32 8$" "$TDIR/kinds" ||
	fail "expected 32 nodes of 4 CPUs and 32 of 8: $(cat "$TDIR/kinds")"

# sub NAME SECONDS [sbatch options]: a job of the shape, its id in $NAME.
sub() {
	local name=$1 s=$2 id
	shift 2
	id=$(sbatch --parsable -o /dev/null "$@" --wrap "sleep $s" 2>"$TDIR/sbatch.err") ||
		fail "sbatch $*: $(cat "$TDIR/sbatch.err")"
	eval "$name=$id"
}
# cpus_of NODELIST: the CPUs of the nodes (scontrol show hostnames).
cpus_of() {
	local h c=0
	for h in $(scontrol show hostnames "$1"); do
		c=$(( c + $(sinfo -h -n "$h" -o '%c') ))
	done
	echo $c
}

# 1. -n 8 --ntasks-per-node=1 without -N: 8 nodes (cons_tres counts the
# tasks per node; node 0's CPUs said 2).
sub a 1 -n 8 --ntasks-per-node=1
started "$a" || fail "-n 8 --ntasks-per-node=1: $(field "$a" JobState) $(field "$a" Reason)"
[ "$(field "$a" NumNodes)" = 8 ] || fail "-n 8 --ntasks-per-node=1 on $(field "$a" NumNodes) nodes"
# srun too, with its 8 tasks on 8 hosts.
srun -n 8 --ntasks-per-node=1 -o "$TDIR/srun.out" hostname 2>"$TDIR/srun.err" ||
	fail "srun -n 8 --ntasks-per-node=1: $(cat "$TDIR/srun.err")"
[ "$(wc -l < "$TDIR/srun.out")" = 8 ] || fail "srun: $(cat "$TDIR/srun.out")"
wait_all 60 || fail "jobs did not finish"

# 2. -n 12: whole nodes holding 12 CPUs, and not one node more than it
# takes (2 of 8 CPUs, 3 of 4, or one of each kind and a 4-CPU one).
sub b 1 -n 12
started "$b" || fail "-n 12: $(field "$b" Reason)"
nb=$(field "$b" NodeList)
cb=$(cpus_of "$nb")
[ "$cb" -ge 12 ] || fail "-n 12 on $nb: $cb CPUs"
[ "$(field "$b" NumNodes)" -le 3 ] || fail "-n 12 on $nb"

# 3. -N 2 -n 16: only two 8-CPU nodes hold it.
sub c 1 -N 2 -n 16
started "$c" || fail "-N 2 -n 16: $(field "$c" Reason)"
nc=$(field "$c" NodeList)
[ "$(cpus_of "$nc")" = 16 ] || fail "-N 2 -n 16 on $nc"

# 4. -c 4 -n 3: one task per 4-CPU node, two per 8-CPU node.
sub d 1 -c 4 -n 3
started "$d" || fail "-c 4 -n 3: $(field "$d" Reason)"
nd=$(field "$d" NodeList)
[ "$(cpus_of "$nd")" -ge 12 ] || fail "-c 4 -n 3 on $nd"
wait_all 60 || fail "jobs did not finish"
for j in $a $b $c $d; do
	[ "$(field "$j" JobState)" = COMPLETED ] || fail "job $j: $(field "$j" JobState)"
done

# 4b. Overcommit (-O, --overcommit, SLURM_OVERCOMMIT=1) with more tasks
# than its nodes have CPUs gets its node count, as under cons_tres,
# every CPU of those whole nodes, and runs all its tasks (SchedMD's
# test_..._overcommit cases; cons_tres from 24.11 lays out at most a
# task per CPU on whole nodes: select_topo(8), Job size).
oc() { # WANT_NODES WANT_TASKS sbatch-options...: the job's srun runs them
	local want_n=$1 want_t=$2 id n
	shift 2
	id=$(sbatch --parsable -o "$TDIR/oc.%j" "$@" --wrap 'srun hostname | wc -l') ||
		fail "sbatch $*"
	for _ in $(seq 1 60); do
		[ "$(field "$id" JobState)" = COMPLETED ] && break
		sleep 0.5
	done
	[ "$(field "$id" JobState)" = COMPLETED ] ||
		fail "$*: $(field "$id" JobState) $(field "$id" Reason) $(topo_reason "$id")"
	n=$(field "$id" NodeList)
	[ "$(field "$id" NumNodes)" = "$want_n" ] || fail "$*: on $n, want $want_n nodes"
	[ "$(field "$id" NumCPUs)" = "$(cpus_of "$n")" ] ||
		fail "$*: $(field "$id" NumCPUs) CPUs of $n's $(cpus_of "$n")"
	[ "$(tr -d ' ' < "$TDIR/oc.$id")" = "$want_t" ] ||
		fail "$*: srun ran $(cat "$TDIR/oc.$id") tasks, want $want_t"
}
oc 1 6 -O -n 6
oc 1 10 --overcommit -N 1 -n 10
oc 1 30 -O --mem-per-cpu=100 -n 30
SBATCH_OVERCOMMIT=1 oc 2 21 -N 2 -n 21
# srun allocating itself, one line per task; SLURM_OVERCOMMIT is srun's
for o in -O SLURM_OVERCOMMIT=1; do
	case $o in -O) set -- srun -O ;; *) set -- env "$o" srun ;; esac
	"$@" -N 1 -n 10 -o "$TDIR/srun-oc.out" hostname 2>"$TDIR/srun.err" ||
		fail "$o srun -N 1 -n 10: $(cat "$TDIR/srun.err")"
	[ "$(wc -l < "$TDIR/srun-oc.out")" = 10 ] ||
		fail "$o srun -N1 -n10: $(cat "$TDIR/srun-oc.out")"
done
note "overcommit: -O -n 6, -N 1 -n 10, -n 30 --mem-per-cpu, SBATCH_OVERCOMMIT -N 2 -n 21, srun -O and SLURM_OVERCOMMIT -N 1 -n 10 ran"

# 5. -N 2-8 starts on what places now.  Three pods and three leaves of
# the fourth pod busy, one node of its last leaf too: 3 nodes free in
# one leaf switch.
sub big 60 -N 48
sub mid 60 -N 12
started "$big" && started "$mid" || fail "blockers did not start"
sub one 60 -N 1
started "$one" || fail "-N 1 did not start"
sub r 1 -N 2-8
started "$r" || fail "-N 2-8 waits: $(field "$r" Reason)"
[ "$(field "$r" NumNodes)" = 3 ] ||
	fail "-N 2-8 on $(field "$r" NumNodes) nodes ($(field "$r" NodeList)), expected the 3 free"
# A whole pod: it waits, with the reason logged once at info.
sub w 1 -N 16
sleep 3
[ "$(field "$w" JobState)" = PENDING ] || fail "-N 16 did not wait"
scancel "$big" "$mid" "$one"
wait_all 60 || fail "jobs did not finish"
[ "$(field "$r" JobState)" = COMPLETED ] || fail "-N 2-8: $(field "$r" JobState)"
# With the machine free: the top of the range.
sub r2 1 -N 2-8
started "$r2" || fail "-N 2-8 on a free machine: $(field "$r2" Reason)"
[ "$(field "$r2" NumNodes)" = 8 ] || fail "-N 2-8 on a free machine: $(field "$r2" NumNodes) nodes"
wait_all 60 || fail "jobs did not finish"

# 6. The record: one info line per start, and topo_jobs.log (with what
# the policy said of the placement).
log=$TDIR/c/log/slurmctld.log
grep -q "select/topo: JobId=$r2 started on n\[[0-9-]*\] (8 nodes), policy fattree-pods:large=pods,rule=paper: isolated (" "$log" ||
	fail "no info line for job $r2: $(grep "JobId=$r2 \|select/topo: JobId" "$log" | tail -5)"
# (run-now and backfill may each give their reason: one line per change)
grep -q "select/topo: JobId=$w pending: waiting for " "$log" ||
	fail "no info line for the pending reason of job $w: $(grep "JobId=$w " "$log")"
[ "$(grep -c "select/topo: JobId=$w pending: " "$log")" -le 3 ] ||
	fail "the pending reason of job $w logged again and again: $(grep "JobId=$w pending" "$log")"
rec=$(grep " job=$r2 " "$TDIR/c/state/topo_jobs.log") || fail "job $r2 not in topo_jobs.log"
case "$rec" in
[12][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-6][0-9][+-][0-9][0-9][0-9][0-9]" job=$r2 nodes=8 "*" policy=fattree-pods:large=pods,rule=paper node_shared=0 placement=isolated") ;;
*) fail "topo_jobs.log: $rec" ;;
esac
# Two 1-CPU jobs on one node of the OverSubscribe=FORCE partition
# (clustered: cons_tres places): the second start names the first.
s1=$(sbatch --parsable -p shared -n 1 -w n0 -o /dev/null --wrap "sleep 5") &&
	started "$s1" || fail "shared job 1"
s2=$(sbatch --parsable -p shared -n 1 -w n0 -o /dev/null --wrap "sleep 1") &&
	started "$s2" || fail "shared job 2: $(field "$s2" Reason)"
rec=$(grep " job=$s2 " "$TDIR/c/state/topo_jobs.log") || fail "job $s2 not in topo_jobs.log"
case "$rec" in
*" policy=clustered:"*" node_shared=1 node_shares_with=$s1 placement=oblivious") ;;
*) fail "topo_jobs.log of a job on a shared node: $rec" ;;
esac
grep -q "select/topo: JobId=$s2 started on n0 (1 nodes), policy clustered:[^ ]*: shares 1 of its nodes with job(s) $s1," "$log" ||
	fail "no info line naming the node sharing: $(grep "JobId=$s2 " "$log" | head -3)"
scancel "$s1"

# 7. The job's environment: the options as SLURM_SPANK_TOPO_* (slurmd's
# names for SPANK job control variables; --topo-policy only when given).
_e=$(sbatch --parsable -N 1 --topo-pattern=shift --topo-grid=2x2 \
	-o "$TDIR/env.out" --wrap 'env | grep TOPO | sort') || fail "sbatch env"
wait_all 60 || fail "jobs did not finish"
grep -q "^SLURM_SPANK_TOPO_PATTERN=shift$" "$TDIR/env.out" &&
	grep -q "^SLURM_SPANK_TOPO_GRID=2x2$" "$TDIR/env.out" &&
	! grep -q "TOPO_POLICY" "$TDIR/env.out" ||
	fail "job environment: $(cat "$TDIR/env.out")"
note "job environment: $(tr '\n' ' ' < "$TDIR/env.out")"

# 8. A pattern that does not suit the node count (bitrev needs a power
# of two): the job runs, its record says status=failed and why.
f=$(submit 3 1 --topo-pattern=bitrev) || fail "sbatch bitrev"
wait_all 60 || fail "jobs did not finish"
[ "$(field "$f" JobState)" = COMPLETED ] || fail "bitrev job: $(field "$f" JobState)"
grep -q " job=$f nodes=3 policy=fattree-pods:large=pods,rule=paper node_shared=0 status=failed error=\"pattern .bitrev.: needs a power-of-two rank count, got 3" \
	"$TDIR/c/state/topo_jobs.log" ||
	fail "no failed record: $(grep " job=$f " "$TDIR/c/state/topo_jobs.log")"

# 9. Drained nodes are a wait, not "never" (item 5): with n5 and n21
# drained (pods 0 and 1) two pods are whole, so 48 nodes (three whole
# pods) wait for them, Slurm seeing 62 nodes up; one back is enough.
scontrol update nodename=n5,n21 state=drain reason=test || fail "drain"
g=$(sbatch --parsable -N 48 -o /dev/null --wrap "sleep 1" 2>"$TDIR/sbatch.err") ||
	fail "-N 48 with n5,n21 drained refused at submission: $(cat "$TDIR/sbatch.err")"
sleep 4
[ "$(field "$g" JobState)" = PENDING ] || fail "-N 48 with n5,n21 drained: $(field "$g" JobState)"
why=$(topo_reason "$g")
case "$why" in
*"waiting for unavailable nodes (down, drained, reserved or completing) n[5,21] to return"*) ;;
*) fail "-N 48 with n5,n21 drained: reason '$why'" ;;
esac
scontrol update nodename=n5 state=resume || fail "resume n5"
started "$g" || fail "-N 48 did not start once n5 returned: $(squeue -h -j "$g" -o '%r')"
wait_all 60 || fail "jobs did not finish"
scontrol update nodename=n21 state=resume || fail "resume n21"

# 10. --switches=N[@TIME] (item 8): a 4-node job fits one leaf switch
# and starts; an 8-node one needs two, so --switches=1@0:08 holds it with
# the reason until the 8 s are over, then it runs.
k=$(sbatch --parsable -N 4 --switches=1 -o /dev/null --wrap "sleep 1") &&
	started "$k" || fail "-N 4 --switches=1 did not start: $(squeue -h -j "$k" -o '%r')"
h=$(sbatch --parsable -N 8 --switches=1@0:08 -o /dev/null --wrap "sleep 1") ||
	fail "sbatch --switches"
sleep 3
[ "$(field "$h" JobState)" = PENDING ] || fail "-N 8 --switches=1@0:08 did not wait"
# Only the main scheduler's pass gives this reason (backfill does not
# look at --switches), and 24.11 resets the Reason right after it: the
# SystemComment keeps it (select_topo(8), SLURM VERSIONS).
why=$(topo_reason "$h")
case "$why" in
*"for a placement on at most 1 leaf switch (--switches); the best now uses 2") ;;
*) fail "-N 8 --switches=1: reason '$why'" ;;
esac
started "$h" || fail "-N 8 --switches=1@0:08 still waits: $(squeue -h -j "$h" -o '%r')"
wait_all 60 || fail "jobs did not finish"
# 11. Reservations (item 6): nodecnt=6 takes the nodes fattree-pods gives
# a 6-node job on the empty machine, rounded up to the whole leaf
# switches it needs to itself: two leaves, 8 nodes (stock Slurm took
# n[0-5], where the policy cannot place a 6-node job); a 6-node job runs
# in it.  Then with n21 drained (leaf 5 not whole), the same.
resv6() { # NAME: create, check, run a 6-node job in it, delete
	local rn v said
	scontrol create reservation reservationname=$1 nodecnt=6 starttime=now \
		duration=10 users=root >/dev/null ||
		fail "create reservation $1"
	rn=$(scontrol show reservation "$1" | tr ' ' '\n' | sed -n 's/^Nodes=//p')
	# 24.11 asks for a new reservation's nodes without its name
	said=$1
	[ "$SLURM_SERIES" = 22.05 ] || said="(new)"
	grep -qF "select/topo: reservation $said: 6 nodes placed as fattree-pods:large=pods,rule=paper places a job of that size: $rn (8 nodes)" "$log" ||
		fail "reservation $1 on $rn not placed by the policy: $(grep "reservation $1" "$log")"
	case "$rn" in
	n\[0-7\]|n\[8-15\]|n\[16-23\]|n\[24-31\]|n\[32-39\]|n\[40-47\]|n\[48-55\]|n\[56-63\]) ;;
	n\[[0-9]*-[0-9]*,[0-9]*-[0-9]*\]) ;; # two leaves apart in one pod
	*) fail "reservation $1 not two whole leaves: $rn" ;;
	esac
	v=$(sbatch --parsable -N 6 --reservation="$1" -o /dev/null --wrap "sleep 1" 2>"$TDIR/sbatch.err") ||
		fail "sbatch --reservation=$1 ($rn): $(cat "$TDIR/sbatch.err")"
	started "$v" || fail "6-node job in reservation $1 ($rn): $(squeue -h -j "$v" -o '%r')"
	wait_all 60 || fail "jobs did not finish"
	scontrol delete reservationname="$1"
	note "reservation $1: $rn"
}
resv6 r6
scontrol update nodename=n21 state=drain reason=test || fail "drain n21"
resv6 r6b
scontrol update nodename=n21 state=resume
# A node of a reservation drains (flags=replace: Slurm replenishes it):
# select/topo does not add a node elsewhere, which would leave no leaf
# whole; the reservation keeps its nodes and its 4-node job runs once
# the node is back.
scontrol create reservation reservationname=r4 nodecnt=4 starttime=now \
	duration=10 users=root flags=replace >/dev/null || fail "create r4"
r4n=$(scontrol show reservation r4 | tr ' ' '\n' | sed -n 's/^Nodes=//p')
first=$(scontrol show hostnames "$r4n" | head -n 1)
scontrol update nodename="$first" state=drain reason=test || fail "drain $first"
# (22.05 asks at once; 24.11 from its background loop: allow 40 s)
for _ in $(seq 1 80); do
	grep -q "select/topo: reservation r4: not adding 1 nodes elsewhere" "$log" && break
	sleep 0.5
done
grep -q "select/topo: reservation r4: not adding 1 nodes elsewhere" "$log" ||
	fail "Slurm did not ask to replace $first in r4 (or select/topo did not say so)"
[ "$(scontrol show reservation r4 | tr ' ' '\n' | sed -n 's/^Nodes=//p')" = "$r4n" ] ||
	fail "reservation r4 moved: $(scontrol show reservation r4 | tr ' ' '\n' | sed -n 's/^Nodes=//p'), was $r4n"
scontrol update nodename="$first" state=resume || fail "resume $first"
v=$(sbatch --parsable -N 4 --reservation=r4 -o /dev/null --wrap "sleep 1") ||
	fail "sbatch --reservation=r4"
started "$v" || fail "4-node job in r4 ($r4n): $(squeue -h -j "$v" -o '%r')"
wait_all 60 || fail "jobs did not finish"
scontrol delete reservationname=r4
note "reservation r4: $r4n kept while $first was drained"
# 12. Refusals tell the user why (item 4; job_submit/topo): sbatch, srun
# and salloc print select/topo's reason, not only "Requested node
# configuration is not available".
refused() { # WHAT EXPECTED COMMAND...: COMMAND fails, printing EXPECTED
	local what=$1 want=$2
	shift 2
	"$@" >"$TDIR/out" 2>&1 && fail "$what accepted"
	grep -qF "$want" "$TDIR/out" || fail "$what: $(cat "$TDIR/out")"
}
refused "a non-isolating --topo-policy" \
	"error: select/topo: partition batch: " \
	sbatch -N 2 --topo-policy=linear -o /dev/null --wrap true
refused "-N 64 -x n0" \
	"error: select/topo: this job can never run isolated under fattree-pods:large=pods,rule=paper in partition batch: " \
	sbatch -N 64 -x n0 -o /dev/null --wrap true
refused "srun -w" "error: select/topo: explicit node lists (-w) are not supported in partition batch" \
	srun -N 2 -w n0,n9 true
refused "salloc -w" "error: select/topo: explicit node lists (-w) are not supported in partition batch" \
	salloc -N 2 -w n0,n9 true
refused "sbatch --test-only -w" "select/topo: explicit node lists (-w)" \
	sbatch --test-only -N 2 -w n0,n9 --wrap true
# A reservation that cannot hold the job isolated: one leaf, 8 nodes.
scontrol create reservation reservationname=r4 nodecnt=4 starttime=now \
	duration=10 users=root >/dev/null || fail "create r4"
refused "8 nodes in a 4-node reservation" \
	"error: select/topo: this job can never run isolated under fattree-pods:large=pods,rule=paper in partition batch, reservation r4: " \
	sbatch -N 8 --reservation=r4 -o /dev/null --wrap true
scontrol delete reservationname=r4
# Flags=IGNORE_JOBS with n1 drained: up to 24.11 slurmctld asks the
# select plugin (a whole leaf other than leaf 0: a 4-node job runs in
# it); from 25.11 it takes the first 4 nodes it may, n[0,2-4], itself,
# and the submission says so (select_topo(8), SLURM VERSIONS).
scontrol update nodename=n1 state=drain reason=test || fail "drain n1"
scontrol create reservation reservationname=ri nodecnt=4 starttime=now \
	duration=10 users=root flags=ignore_jobs >/dev/null || fail "create ri"
rin=$(scontrol show reservation ri | tr ' ' '\n' | sed -n 's/^Nodes=//p')
case $SLURM_SERIES in
22.05 | 24.11)
	case "$rin" in
	n\[[0-9]*-[0-9]*\]) ;;
	*) fail "IGNORE_JOBS reservation on $rin, want a whole leaf" ;;
	esac
	v=$(sbatch --parsable -N 4 --reservation=ri -o /dev/null --wrap "sleep 1") ||
		fail "sbatch --reservation=ri ($rin)"
	started "$v" || fail "4-node job in ri ($rin): $(squeue -h -j "$v" -o '%r')"
	;;
*)
	[ "$rin" = "n[0,2-4]" ] || fail "IGNORE_JOBS reservation on $rin, want Slurm's own n[0,2-4]"
	refused "4 nodes in the IGNORE_JOBS reservation $rin" \
		"reservation ri has Flags=IGNORE_JOBS: slurmctld chose its nodes itself, without the policy: create it without IGNORE_JOBS, or give it whole leaf switches (Nodes=)" \
		sbatch -N 4 --reservation=ri -o /dev/null --wrap true
	grep -qF "error: select/topo: reservation ri (Flags=IGNORE_JOBS): its nodes n[0,2-4] were chosen by slurmctld alone" "$log" ||
		fail "no error logged about reservation ri"
	;;
esac
wait_all 60 || fail "jobs did not finish"
scontrol delete reservationname=ri
scontrol update nodename=n1 state=resume
note "IGNORE_JOBS reservation on $rin (Slurm $SLURM_SERIES)"
# Several partitions: refused only if every one refuses.
_p2=$(sbatch --parsable -p shared,batch -N 2 -w n0,n1 -o /dev/null --wrap true) ||
	fail "-p shared,batch -w refused though 'shared' takes -w"
wait_all 60 || fail "jobs did not finish"
ctld_alive || fail "slurmctld died"
echo "PASS"
