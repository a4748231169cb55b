#!/bin/bash
# bench.sh - select/topo against plain select/cons_tres in the emulated
# 64-node cluster (make bench-slurm; not part of make check), in two
# set-ups, the same jobs submitted at once to each:
#   short  1-CPU nodes, 200 jobs of 1 to 8 nodes, 1 s each (every
#          backfill pass tests every pending job: the plugin's will-run
#          cost shows);
#   mixed  4-CPU nodes, 300 jobs: 1 to 16 nodes, some by task count
#          (-n, 1 to 4 per node), some sharing nodes (1 to 3 CPUs on one
#          node), 1 to 4 s each.
# Prints the makespan and slurmctld's own statistics (sdiag: main
# scheduler and backfill cycle times, which include every
# select_g_job_test call, and how deep the backfill passes got: the mean
# number of jobs each pass tested), the CPU time of slurmctld's backfill
# thread per cycle and the time it waited for a CPU while runnable
# (/proc/PID/task/TID/schedstat: sdiag's cycle is wall time, which on a
# 2-core host running 64 slurmd is mostly that wait), then select/topo's
# numbers as a multiple of cons_tres's.
#   top_builddir=BUILD tests/slurm/bench.sh [short|mixed ...]
# With 2 CPUs or more, slurmctld runs on the first this shell may use and
# the 64 slurmd (with every job step they start) on the others, as on a real cluster where the
# controller has a host of its own: otherwise its backfill thread waits
# for a CPU behind job launches, which sdiag's wall-clock cycle counts.
# PIN=0 shares every CPU among all daemons instead.
# REPEAT=N (default 1) runs each set-up N times, the two plugins in
# turn, and compares the medians.  TOPO_EXTRA=LINES is appended to
# select/topo's topo.conf (PredictBudget=1, say).
. "$(dirname "$0")/lib.sh"
require_cluster
command -v sdiag >/dev/null || skip "sdiag not installed"
cat > "$TDIR/topo.conf" <<CONF
Topology=fattree k=4 n=3
NodeName=n[0-63]
PartitionPolicy=batch:fattree-pods:rule=paper
${TOPO_EXTRA:-}
CONF

# stat SECTION KEY FILE: the value after "KEY:" in sdiag's SECTION.
stat() {
	awk -v sec="$1" -v key="$2" '
		index($0, sec) == 1 { m = 1; next }
		m && /^[A-Z][a-z]/ && !/^ / { m = 0 }
		m && (i = index($0, key ":")) {
			v = substr($0, i + length(key) + 1)
			sub(/^[ \t]*/, "", v)
			split(v, w, " ")
			print w[1]
			exit
		}' "$3"
}

submit_short() {
	for _ in $(seq 1 200); do
		sbatch -N $((1 + RANDOM % 8)) -t 1 -o /dev/null --wrap "sleep 1" >/dev/null || fail "sbatch"
	done
}

submit_mixed() {
	local n
	for _ in $(seq 1 300); do
		n=$((1 + RANDOM % 16))
		case $((RANDOM % 3)) in
		0) sbatch -N $n -t 1 -o /dev/null --wrap "sleep $((1 + RANDOM % 4))" ;;
		1) sbatch -N $n -n $((n * (1 + RANDOM % 4))) -t 1 -o /dev/null \
			--wrap "sleep $((1 + RANDOM % 4))" ;;
		*) sbatch -n $((1 + RANDOM % 3)) -t 1 -o /dev/null --wrap "sleep $((1 + RANDOM % 4))" ;;
		esac >/dev/null || fail "sbatch"
	done
}

# bf_cpu: nanoseconds slurmctld's backfill thread ("bckfl") has run, and
# has waited to run (runnable, every CPU busy).
bf_cpu() {
	local pid t
	pid=$(cat "$TDIR/c/slurmctld.pidfile" 2>/dev/null)
	[ -n "$pid" ] || pid=$(cat "$TDIR/c/ctld.pid" 2>/dev/null)
	[ -n "$pid" ] || { echo 0 0; return; }
	for t in /proc/"$pid"/task/*; do
		[ "$(cat "$t/comm" 2>/dev/null)" = bckfl ] || continue
		awk '{ print $1, $2 }' "$t/schedstat"
		return
	done
	echo 0 0
}

# one SETUP SELECT REP: prints one line, keeps sdiag's numbers in $TDIR.
one() {
	local setup=$1 sel=$2 rep=$3 cpus t0 _t1 t2 f c0 c1 q0 q1 cycles
	case $setup in short) cpus=1 ;; *) cpus=4 ;; esac
	NODE_CPUS=$cpus cluster_start "$sel" "$TDIR/topo.conf"
	sdiag -r >/dev/null
	read -r c0 q0 < <(bf_cpu)
	t0=$(date +%s.%N)
	RANDOM=7
	"submit_$setup"
	_t1=$(date +%s.%N)
	wait_all 900 || fail "$setup $sel: jobs did not finish"
	t2=$(date +%s.%N)
	read -r c1 q1 < <(bf_cpu)
	f="$TDIR/sdiag.$setup.$sel.$rep"
	sdiag > "$f"
	cycles=$(stat 'Backfilling stats' 'Total cycles' "$f")
	if [ -n "$cycles" ] && [ "$cycles" != 0 ]; then
		echo $(((c1 - c0) / 1000 / cycles)) > "$TDIR/cpu.$setup.$sel.$rep"
		echo $(((q1 - q0) / 1000 / cycles)) > "$TDIR/rq.$setup.$sel.$rep"
	else
		echo 0 > "$TDIR/cpu.$setup.$sel.$rep"
		echo 0 > "$TDIR/rq.$setup.$sel.$rep"
	fi
	printf '%-6s %-10s makespan %6.1f s  main: %5s cycles, mean %6s us  backfill: %4s cycles, mean %7s us (CPU %6s us, waiting for a CPU %6s us), depth mean %s, %s jobs started\n' \
		"$setup" "$sel" "$(echo "$t2 - $t0" | bc)" \
		"$(stat 'Main schedule statistics' 'Total cycles' "$f")" \
		"$(stat 'Main schedule statistics' 'Mean cycle' "$f")" \
		"$cycles" \
		"$(stat 'Backfilling stats' 'Mean cycle' "$f")" \
		"$(cat "$TDIR/cpu.$setup.$sel.$rep")" \
		"$(cat "$TDIR/rq.$setup.$sel.$rep")" \
		"$(stat 'Backfilling stats' 'Depth Mean' "$f")" \
		"$(stat 'Backfilling stats' 'Total backfilled jobs (since last stats cycle start)' "$f")"
	cluster_reset
}

# median: the median of the numbers on standard input.
median() {
	sort -n | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# med SETUP SEL SECTION|cpu: the median over the repeats.
med() {
	local r
	for r in $(seq 1 "$reps"); do
		if [ "$3" = cpu ] || [ "$3" = rq ]; then
			cat "$TDIR/$3.$1.$2.$r"
		else
			stat "$3" 'Mean cycle' "$TDIR/sdiag.$1.$2.$r"
		fi
	done | median
}

ratio() { # SETUP SECTION|cpu
	local a b
	a=$(med "$1" topo "$2")
	b=$(med "$1" cons_tres "$2")
	[ -n "$a" ] && [ -n "$b" ] && [ "$b" != 0 ] &&
		echo "scale=2; $a / $b" | bc || echo "-"
}

if [ "${PIN:-1}" != 0 ] && command -v taskset >/dev/null && ctld_cpu_split; then
	echo "slurmctld on CPU $CTLD_CPUS, slurmd and jobs on CPUs $NODE_CPUSET"
else
	echo "slurmctld, slurmd and jobs share CPUs $(cpus_of $$)"
fi
setups=${*:-short mixed}
reps=${REPEAT:-1}
for s in $setups; do
	case $s in short|mixed) ;; *) fail "unknown set-up $s (short, mixed)" ;; esac
	for r in $(seq 1 "$reps"); do
		one "$s" cons_tres "$r"
		one "$s" topo "$r"
	done
done
for s in $setups; do
	echo "$s: select/topo / cons_tres, medians of $reps run(s): main cycle $(ratio "$s" 'Main schedule statistics')x, backfill cycle $(ratio "$s" 'Backfilling stats')x, backfill CPU per cycle $(ratio "$s" cpu)x, waiting for a CPU $(ratio "$s" rq)x (target: backfill <= 1.2x, main <= 1x)"
done
