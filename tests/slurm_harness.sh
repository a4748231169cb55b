#!/bin/sh
# tests/slurm/lib.sh's all_completed, without a cluster: a job whose
# batch script was gone from its node's spool when slurmstepd ran it
# (the stepd's execve error in that node's slurmd log) is shown and not
# counted, up to a tenth of the jobs (at least one); any other failure
# counts.
set -eu
src=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
TDIR=$(mktemp -d)
trap 'rm -rf "$TDIR"' EXIT
eval "$(sed -n '/^note()/p; /^all_completed()/,/^}/p' "$src/tests/slurm/lib.sh")"
grep -q "^all_completed()" "$src/tests/slurm/lib.sh" ||
	{ echo "slurm_harness: no all_completed in lib.sh"; exit 1; }
mkdir -p "$TDIR/c/log" "$TDIR/jobout"

# N jobs 1..N, those in FAILED failed on node n1
setup() {
	seq 1 "$1" > "$TDIR/w.jobs"
	FAILED=$2
}
job_states() {
	for i in $(cat "$TDIR/w.jobs"); do
		case " $FAILED " in
		*" $i "*) echo "$i FAILED" ;;
		*) echo "$i COMPLETED" ;;
		esac
	done
}
scontrol() { echo "   JobState=FAILED BatchHost=n1 ExitCode=2:0"; }
gone() {
	: > "$TDIR/c/log/slurmd-n1.log"
	for i in "$@"; do
		printf '[2026-12-05T06:11:41.908] [%s.batch] error: execve(): /tmp/x/c/spool/n1/job%05d/slurm_script: No such file or directory\n' \
			"$i" "$i" >> "$TDIR/c/log/slurmd-n1.log"
	done
}
expect() { # WANT (0 or 1) WHAT
	if all_completed w > "$TDIR/out" 2>&1; then got=0; else got=1; fi
	[ "$got" = "$1" ] || { cat "$TDIR/out"; echo "slurm_harness: $2: all_completed gave $got, want $1"; exit 1; }
}

setup 12 12; gone 12
expect 0 "1 of 12 jobs' script gone"
grep -q "job 12: its batch script was gone from n1's spool" "$TDIR/out" ||
	{ cat "$TDIR/out"; echo "slurm_harness: the gone script is not shown"; exit 1; }
echo "[x] error: something else" > "$TDIR/c/log/slurmd-n1.log"
expect 1 "another failure"
setup 20 "3 7"; gone 3 7
expect 0 "2 of 20 jobs' scripts gone (a tenth)"
setup 20 "3 7 9"; gone 3 7 9
expect 1 "3 of 20 jobs' scripts gone (over a tenth)"
setup 12 12; gone 120
expect 1 "another job's script gone"
echo "slurm_harness: all_completed tells a gone batch script from a failure"
