#!/bin/bash
# slurmctld killed with SIGKILL (no state saved on the way out, records in
# flight lost) while jobs run and pend, then started again: every job it
# recovers runs to completion, isolation holds at every sample before and
# after (stopo report: MLS = TLS = 0), and no stale ownership keeps a job
# pending (the plugin rebuilds its node owners from the recovered jobs:
# the pending ones start as the running ones end).
. "$(dirname "$0")/lib.sh"
require_cluster
have_report || skip "stopo report not built"

cat > "$TDIR/topo.conf" <<'CONF'
Topology=fattree k=4 n=3
NodeName=n[0-63]
PartitionPolicy=batch:fattree-pods
CONF
cluster_start topo "$TDIR/topo.conf"

( i=0; while :; do i=$((i + 1)); snapshot "k.$i"; sleep 0.5; done ) &
sampler=$!
: > "$TDIR/k.jobs"
# Running: 16+16+8+4+6+3+1+1 nodes for 20 s; pending behind them: 32,
# 16, 12, 5 and 2 nodes for 2 s.
for spec in "16 20" "16 20" "8 20" "4 20" "6 20" "3 20" "1 20" "1 20" \
	"32 2" "16 2" "12 2" "5 2" "2 2"; do
	set -- $spec
	submit "$1" "$2" >> "$TDIR/k.jobs" || fail "sbatch -N $1"
done
sleep 3
running=$(squeue -h -t R -o '%i' | wc -l)
pending=$(squeue -h -t PD -o '%i' | wc -l)
[ "$running" -gt 0 ] && [ "$pending" -gt 0 ] ||
	fail "expected running and pending jobs: $(squeue)"
note "before SIGKILL: $running running, $pending pending"
# SIGKILL loses what slurmctld has not written: wait for a save of the job
# state made after the jobs above started and pended (slurmctld saves it
# a few seconds after changes), so that they are the jobs recovered (a
# job saved as pending that a slurmd reports running is killed by
# slurmctld itself, select plugin or not).
t=$(date +%s)
for i in $(seq 1 60); do
	[ "$(stat -c %Y "$TDIR/c/state/job_state" 2>/dev/null || echo 0)" -gt "$t" ] && break
	sleep 0.5
done

pid=$(cat "$TDIR/c/slurmctld.pidfile")
kill -KILL "$pid" || fail "kill -KILL slurmctld $pid"
for i in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$pid" 2>/dev/null && fail "slurmctld $pid survived SIGKILL"
"$CLUSTER" restart-ctld "$TDIR/c" >/dev/null 2>&1 || fail "slurmctld did not start again"
grep -c "select/topo: .*topology fattree" "$TDIR/c/log/slurmctld.log" | grep -q 2 ||
	fail "topo.conf not loaded again"

# The jobs slurmctld recovered (those it had saved).
squeue -h -t all -o '%i' | sort -n > "$TDIR/recovered"
[ -s "$TDIR/recovered" ] || fail "no job recovered"
note "recovered $(wc -l < "$TDIR/recovered") of $(wc -l < "$TDIR/k.jobs") jobs"
wait_all 180 || { kill $sampler; fail "recovered jobs did not all finish: $(squeue)"; }
kill $sampler; wait $sampler 2>/dev/null
cp "$TDIR/recovered" "$TDIR/r.jobs"
all_completed r || fail "a recovered job did not complete"
read -r mls tls n < <(max_sharing k "$TDIR/topo.conf")
note "max MLS $mls, TLS $tls over $n samples"
[ "$n" -gt 10 ] || fail "only $n samples"
python3 -c "import sys; sys.exit(0 if $mls == 0 and $tls == 0 else 1)" ||
	fail "links shared across the crash (MLS $mls TLS $tls)"
ctld_alive || fail "slurmctld died"
echo "PASS"
