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
# number of jobs each pass tested), then select/topo's cycle times as a
# multiple of cons_tres's.
#   top_builddir=BUILD tests/slurm/bench.sh [short|mixed ...]
. "$(dirname "$0")/lib.sh"
require_cluster
command -v sdiag >/dev/null || skip "sdiag not installed"
cat > "$TDIR/topo.conf" <<'CONF'
Topology=fattree k=4 n=3
NodeName=n[0-63]
PartitionPolicy=batch:fattree-pods
CONF

# stat SECTION KEY FILE: the value after "KEY:" in sdiag's SECTION.
stat() {
	awk -v sec="$1" -v key="$2" '
		index($0, sec) == 1 { m = 1; next }
		m && /^[A-Z][a-z]/ && !/^ / { m = 0 }
		m && index($0, key ":") { sub(".*" key ":[ \t]*", ""); print $1; exit }' "$3"
}

submit_short() {
	for i in $(seq 1 200); do
		sbatch -N $((1 + RANDOM % 8)) -t 1 -o /dev/null --wrap "sleep 1" >/dev/null || fail "sbatch"
	done
}

submit_mixed() {
	local n
	for i in $(seq 1 300); do
		n=$((1 + RANDOM % 16))
		case $((RANDOM % 3)) in
		0) sbatch -N $n -t 1 -o /dev/null --wrap "sleep $((1 + RANDOM % 4))" ;;
		1) sbatch -N $n -n $((n * (1 + RANDOM % 4))) -t 1 -o /dev/null \
			--wrap "sleep $((1 + RANDOM % 4))" ;;
		*) sbatch -n $((1 + RANDOM % 3)) -t 1 -o /dev/null --wrap "sleep $((1 + RANDOM % 4))" ;;
		esac >/dev/null || fail "sbatch"
	done
}

# one SETUP SELECT: prints one line, keeps sdiag's numbers in $TDIR.
one() {
	local setup=$1 sel=$2 cpus t0 t1 t2 f
	case $setup in short) cpus=1 ;; *) cpus=4 ;; esac
	NODE_CPUS=$cpus cluster_start "$sel" "$TDIR/topo.conf"
	sdiag -r >/dev/null
	t0=$(date +%s.%N)
	RANDOM=7
	"submit_$setup"
	t1=$(date +%s.%N)
	wait_all 900 || fail "$setup $sel: jobs did not finish"
	t2=$(date +%s.%N)
	f="$TDIR/sdiag.$setup.$sel"
	sdiag > "$f"
	printf '%-6s %-10s makespan %6.1f s  main: %5s cycles, mean %6s us  backfill: %4s cycles, mean %7s us, depth mean %s\n' \
		"$setup" "$sel" "$(echo "$t2 - $t0" | bc)" \
		"$(stat 'Main schedule statistics' 'Total cycles' "$f")" \
		"$(stat 'Main schedule statistics' 'Mean cycle' "$f")" \
		"$(stat 'Backfilling stats' 'Total cycles' "$f")" \
		"$(stat 'Backfilling stats' 'Mean cycle' "$f")" \
		"$(stat 'Backfilling stats' 'Depth Mean' "$f")"
	cluster_reset
}

ratio() { # SETUP SECTION
	local a b
	a=$(stat "$2" 'Mean cycle' "$TDIR/sdiag.$1.topo")
	b=$(stat "$2" 'Mean cycle' "$TDIR/sdiag.$1.cons_tres")
	[ -n "$a" ] && [ -n "$b" ] && [ "$b" != 0 ] &&
		echo "scale=2; $a / $b" | bc || echo "-"
}

setups=${*:-short mixed}
for s in $setups; do
	case $s in short|mixed) ;; *) fail "unknown set-up $s (short, mixed)" ;; esac
	one "$s" cons_tres
	one "$s" topo
done
for s in $setups; do
	echo "$s: select/topo / cons_tres mean cycle: main $(ratio "$s" 'Main schedule statistics')x, backfill $(ratio "$s" 'Backfilling stats')x (target: backfill <= 1.2x, main <= 1x)"
done
