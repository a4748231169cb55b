#!/bin/bash
# bench.sh - select/topo against plain select/cons_tres in the emulated
# 64-node cluster (not part of make check): the same 200 jobs (1 to 8
# nodes, 1 s each) submitted at once; prints the makespan and slurmctld's
# own scheduling statistics (sdiag: main scheduler and backfill cycle
# times, which include every select_g_job_test call).
#   top_builddir=BUILD tests/slurm/bench.sh
. "$(dirname "$0")/lib.sh"
require_cluster
cat > "$TDIR/topo.conf" <<'CONF'
Topology=fattree k=4 n=3
NodeName=n[0-63]
PartitionPolicy=batch:fattree-pods
CONF
JOBS=${JOBS:-200}
one() {
	local sel=$1 t0 t1
	cluster_start "$sel" "$TDIR/topo.conf"
	sdiag -r >/dev/null
	t0=$(date +%s.%N)
	RANDOM=7
	for i in $(seq 1 "$JOBS"); do
		sbatch -N $((1 + RANDOM % 8)) -t 1 -o /dev/null --wrap "sleep 1" >/dev/null || fail "sbatch"
	done
	t1=$(date +%s.%N)
	wait_all 600 || fail "$sel: jobs did not finish"
	t2=$(date +%s.%N)
	sdiag > "$TDIR/sdiag.$sel"
	main=$(awk '/^Main schedule statistics/ {m = 1} m && /Mean cycle:/ {print $3; exit}' "$TDIR/sdiag.$sel")
	maxc=$(awk '/^Main schedule statistics/ {m = 1} m && /Max cycle:/ {print $3; exit}' "$TDIR/sdiag.$sel")
	cycles=$(awk '/^Main schedule statistics/ {m = 1} m && /Total cycles:/ {print $3; exit}' "$TDIR/sdiag.$sel")
	bf=$(awk '/^Backfilling stats/ {m = 1} m && /Mean cycle:/ {print $3; exit}' "$TDIR/sdiag.$sel")
	bfc=$(awk '/^Backfilling stats/ {m = 1} m && /Total cycles:/ {print $3; exit}' "$TDIR/sdiag.$sel")
	printf '%-10s submit %5.1f s  makespan %6.1f s  main: %s cycles, mean %s us, max %s us  backfill: %s cycles, mean %s us\n' \
		"$sel" "$(echo "$t1 - $t0" | bc)" "$(echo "$t2 - $t0" | bc)" "$cycles" "$main" "$maxc" "$bfc" "$bf"
	cluster_reset
}
one cons_tres
one topo
