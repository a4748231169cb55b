#!/bin/bash
# whatif_array.sh - stopo whatif --array under real Slurm (issue 47): a
# sweep of isolation gains over two policies is written as a job array,
# submitted with sbatch to an emulated cons_tres cluster whose slurmd run
# its tasks (one cell each), and --merge prints the run, text and jobs
# file byte for byte as the run on one host; a cell removed is named with
# the sbatch line that runs it again, and that line does.
. "$(dirname "$0")/lib.sh"
require_cluster

data=$top_srcdir/tests/data
cluster_start cons_tres "" 4
sinfo -h -o '%D %t' | grep -q "^4 idle" || fail "sinfo: $(sinfo 2>&1)"

args="--topo fattree:k=4,n=3 --workload $data/whatif_small.swf --quiet
	--policy linear,fattree-pods --isolation-gain 0:0.2:0.1"
# shellcheck disable=SC2086
"$STOPO" whatif $args --jobs-out "$TDIR/one.csv" >"$TDIR/one.txt" ||
	fail "the run on one host"
# shellcheck disable=SC2086
"$STOPO" whatif $args --jobs-out "$TDIR/all.csv" --array "$TDIR/arr" \
	>"$TDIR/arr.out" || fail "stopo whatif --array"
grep -q "6 cells (2 policies x 3 values)" "$TDIR/arr.out" ||
	fail "--array: $(cat "$TDIR/arr.out")"

# every cell a task of one array, run by slurmd
wait_array() { # JOBID: until none of its tasks is active (120 s)
	for _ in $(seq 1 240); do
		[ -z "$(squeue -h -j "$1" -o %i 2>/dev/null)" ] && return 0
		sleep 0.5
	done
	return 1
}
id=$(sbatch --parsable "$TDIR/arr/whatif.sbatch") || fail "sbatch the array"
wait_array "$id" || fail "array $id did not finish: $(squeue 2>&1)"
note "array $id: $(ls "$TDIR/arr/cells" | wc -l) cells written by its tasks"
for k in 0 1 2 3 4 5; do
	[ -s "$TDIR/arr/cells/$k.json" ] ||
		fail "cell $k not written: $(cat "$TDIR/arr/logs/cell-$k.err" 2>&1)"
done
"$STOPO" whatif --merge "$TDIR/arr" >"$TDIR/all.txt" 2>"$TDIR/merge.err" ||
	fail "--merge: $(cat "$TDIR/merge.err")"
cmp -s "$TDIR/one.txt" "$TDIR/all.txt" ||
	fail "merged text differs: $(diff "$TDIR/one.txt" "$TDIR/all.txt")"
cmp -s "$TDIR/one.csv" "$TDIR/all.csv" ||
	fail "merged jobs file differs: $(diff "$TDIR/one.csv" "$TDIR/all.csv" | head)"
note "the merged run is the run on one host, byte for byte"

# a cell lost: named, with the line that runs it again, which does
rm "$TDIR/arr/cells/4.json"
"$STOPO" whatif --merge "$TDIR/arr" >/dev/null 2>"$TDIR/merge.err" &&
	fail "--merge with a cell missing succeeded"
again=$(sed -n 's/.*run them again: \(sbatch --array=4 [^ ]*\)$/\1/p' \
	"$TDIR/merge.err")
[ -n "$again" ] || fail "no sbatch line: $(cat "$TDIR/merge.err")"
# shellcheck disable=SC2086
id=$(${again/sbatch/sbatch --parsable}) || fail "$again"
wait_array "$id" || fail "array $id (cell 4 again) did not finish"
"$STOPO" whatif --merge "$TDIR/arr" >"$TDIR/all.txt" 2>"$TDIR/merge.err" ||
	fail "--merge after the cell ran again: $(cat "$TDIR/merge.err")"
cmp -s "$TDIR/one.txt" "$TDIR/all.txt" || fail "merged text differs again"
note "cell 4 run again by '$again': merged as before"
exit 0
