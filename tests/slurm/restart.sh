#!/bin/bash
# Restart slurmctld while jobs run and pend: no job is lost, running jobs
# keep their nodes, and what starts afterwards is still isolated (the
# plugin rebuilt its node owners from the job list).  Then `scontrol
# reconfigure` with a broken topo.conf (a bad key, an unknown Predict=
# model) keeps the old configuration (logged) and scheduling goes on.
. "$(dirname "$0")/lib.sh"
require_cluster
have_report || skip "stopo report not built"

cat > "$TDIR/topo.conf" <<'CONF'
Topology=fattree k=4 n=3
NodeName=n[0-63]
PartitionPolicy=batch:fattree-pods:rule=paper
CONF
cluster_start topo "$TDIR/topo.conf"

: > "$TDIR/r.jobs"
# Running: 16+16+8+4+2+2+1 nodes; pending behind them: 32, 16, 6, 3.
for spec in "16 8" "16 8" "8 8" "4 8" "2 8" "2 8" "1 8" "32 2" "16 2" "6 2" "3 2"; do
	set -- $spec
	submit "$1" "$2" >> "$TDIR/r.jobs" || fail "sbatch -N $1"
done
sleep 3
squeue -h -t R -o '%i %N' | sort > "$TDIR/running.before"
squeue -h -t PD -o '%i' | sort > "$TDIR/pending.before"
[ -s "$TDIR/running.before" ] && [ -s "$TDIR/pending.before" ] ||
	fail "expected running and pending jobs: $(squeue)"
note "before restart: $(wc -l < "$TDIR/running.before") running, $(wc -l < "$TDIR/pending.before") pending"

"$CLUSTER" restart-ctld "$TDIR/c" >/dev/null 2>&1 || fail "slurmctld did not restart"
grep -c "select/topo: .*topology fattree" "$TDIR/c/log/slurmctld.log" | grep -q 2 ||
	fail "topo.conf not reloaded at restart"
squeue -h -t R -o '%i %N' | sort > "$TDIR/running.after"
# Every job that ran before still runs on the same nodes (unless it has
# just ended), and every job is still known.
while read -r id nodes; do
	now=$(awk -v id="$id" '$1 == id {print $2}' "$TDIR/running.after")
	st=$(scontrol show job "$id" 2>/dev/null | sed -n 's/.*JobState=\([A-Z]*\).*/\1/p')
	[ -n "$st" ] || fail "job $id lost after restart"
	[ -z "$now" ] || [ "$now" = "$nodes" ] || fail "job $id moved: $nodes -> $now"
done < "$TDIR/running.before"
while read -r id; do
	scontrol show job "$id" >/dev/null 2>&1 || fail "pending job $id lost after restart"
done < "$TDIR/pending.before"

# The rest of the run: sample, everything completes, nothing shared.
( i=0; while :; do i=$((i + 1)); snapshot "r.$i"; sleep 0.5; done ) &
sampler=$!
wait_all 120 || { kill $sampler; fail "jobs did not finish after restart"; }
kill $sampler; wait $sampler 2>/dev/null
all_completed r || fail "a job did not complete after restart"
read -r mls tls n < <(max_sharing r "$TDIR/topo.conf")
note "after restart: max MLS $mls, TLS $tls over $n samples"
python3 -c "import sys; sys.exit(0 if $mls == 0 and $tls == 0 else 1)" ||
	fail "links shared after restart (MLS $mls TLS $tls)"

# Reconfigure with a broken topo.conf: the old one stays, loudly logged.
cp "$TDIR/c/etc/topo.conf" "$TDIR/good.conf"
printf 'Topology=fattree k=4 n=3\nNodeName=n[0-63]\nPartitionPolicy=batch:no-such-policy\nBogus=1\n' > "$TDIR/c/etc/topo.conf"
scontrol reconfigure || fail "scontrol reconfigure failed"
sleep 1
ctld_alive || fail "slurmctld died on a broken topo.conf"
grep -q "topo.conf:4: " "$TDIR/c/log/slurmctld.log" ||
	fail "no file:line error for the broken topo.conf"
grep -q "KEEPING THE PREVIOUS topo.conf" "$TDIR/c/log/slurmctld.log" ||
	fail "reconfiguration did not say it kept the old topo.conf"
# ... and with an unknown prediction model.
printf 'Topology=fattree k=4 n=3\nNodeName=n[0-63]\nPartitionPolicy=batch:fattree-pods\nPredict=nosuch\n' > "$TDIR/c/etc/topo.conf"
scontrol reconfigure || fail "scontrol reconfigure failed"
sleep 1
ctld_alive || fail "slurmctld died on an unknown Predict= model"
grep -q "topo.conf:4: Predict=nosuch: unknown model 'nosuch'" "$TDIR/c/log/slurmctld.log" ||
	fail "no file:line error for the unknown Predict= model"
[ "$(grep -c "KEEPING THE PREVIOUS topo.conf" "$TDIR/c/log/slurmctld.log")" = 2 ] ||
	fail "reconfiguration did not keep the old topo.conf over a bad Predict="
# ... and with a policy for a partition slurm.conf lacks (a typo of batch).
printf 'Topology=fattree k=4 n=3\nNodeName=n[0-63]\nPartitionPolicy=bacth:fattree-pods\n' > "$TDIR/c/etc/topo.conf"
scontrol reconfigure || fail "scontrol reconfigure failed"
sleep 1
ctld_alive || fail "slurmctld died on a PartitionPolicy= typo"
grep -q "topo.conf:3: PartitionPolicy=bacth:fattree-pods: slurm.conf has no partition 'bacth' (it has: batch)" \
	"$TDIR/c/log/slurmctld.log" || fail "no file:line error for the partition typo"
[ "$(grep -c "KEEPING THE PREVIOUS topo.conf" "$TDIR/c/log/slurmctld.log")" = 3 ] ||
	fail "reconfiguration did not keep the old topo.conf over a partition typo"
id=$(submit 4 1) || fail "sbatch after a failed reconfigure"
wait_all 60 || fail "job after a failed reconfigure did not finish"
scontrol show job "$id" | grep -q JobState=COMPLETED || fail "job $id did not complete"
cp "$TDIR/good.conf" "$TDIR/c/etc/topo.conf"
echo "PASS"
