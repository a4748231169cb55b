#!/bin/sh
# whatif.sh - golden-output tests of `stopo whatif`.  The schedules in the
# golden files were worked out by hand (see the comments at the top of
# tests/data/whatif_small.swf and whatif_hold.swf; the unit test
# tests/unit/test_whatif.c asserts the same start times).
# UPDATE_GOLDEN=1 rewrites them (review the diff before committing).
set -u
: "${STOPO:?}" "${top_srcdir:?}"
data="$top_srcdir/tests/data"
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0
# file names in the output are as given: run from the data directory
cd "$data" || exit 99

# check NAME ARGS...: exit 0 and stdout equal to data/whatif_golden_NAME
# ("seconds", wall time, and "spec", the canonical policy spec with
# every default, are left out)
check() {
	name=$1
	shift
	"$STOPO" whatif "$@" >"$tmp/raw" 2>"$tmp/err"
	st=$?
	grep -v -e '"seconds"' -e '"spec"' "$tmp/raw" >"$tmp/out"
	if [ "$st" -ne 0 ]; then
		echo "FAIL $name: exit $st"; cat "$tmp/err"; fail=1
		return
	fi
	if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
		cp "$tmp/out" "whatif_golden_$name"
	elif ! diff -u "whatif_golden_$name" "$tmp/out"; then
		echo "FAIL $name: output differs from golden"; fail=1
	else
		echo "ok   $name"
	fi
}

# error NAME STATUS PATTERN ARGS...: exit STATUS, stderr matches PATTERN
error() {
	name=$1 want=$2 pat=$3
	shift 3
	"$STOPO" whatif "$@" >"$tmp/out" 2>"$tmp/err"
	st=$?
	if [ "$st" -ne "$want" ] || ! grep -q -- "$pat" "$tmp/err"; then
		echo "FAIL $name: exit $st (want $want), stderr:"; cat "$tmp/err"
		fail=1
	else
		echo "ok   $name"
	fi
}

FT3=fattree:k=4,n=3
FT2=fattree:k=4,n=2
check small.txt --topo $FT3 --workload "whatif_small.swf" \
	--policy linear --no-rates
check small_jobs.csv --topo $FT3 --workload "whatif_small.swf" \
	--policy linear --no-rates --jobs-out - --json
check hold.json --topo $FT2 --workload "whatif_hold.swf" \
	--policy fattree-pods,linear --no-rates --json
check hold_jobs.csv --topo $FT2 --workload "whatif_hold.swf" \
	--policy fattree-pods,linear --no-rates --jobs-out "$tmp/jobs.csv" \
	--quiet --json
cp "$tmp/jobs.csv" "$tmp/jobs_hold.csv" 2>/dev/null
if ! diff -u "whatif_golden_hold.csv" "$tmp/jobs_hold.csv"; then
	if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
		cp "$tmp/jobs_hold.csv" "whatif_golden_hold.csv"
	else
		echo "FAIL hold.csv: --jobs-out differs"; fail=1
	fi
else
	echo "ok   hold.csv"
fi

# the same schedule from a CSV and a JSON job list
"$STOPO" whatif --topo $FT3 --workload "whatif_small.swf" \
	--policy linear --no-rates --jobs-out "$tmp/a.csv" >/dev/null
for f in whatif_jobs.csv whatif_jobs.json; do
	"$STOPO" whatif --topo $FT3 --workload "$f" --policy linear \
		--no-rates --jobs-out "$tmp/b.csv" >/dev/null
	if cmp -s "$tmp/a.csv" "$tmp/b.csv"; then
		echo "ok   same schedule from $f"
	else
		echo "FAIL $f: schedule differs from the SWF's"
		diff "$tmp/a.csv" "$tmp/b.csv"; fail=1
	fi
done

# rates are predicted unless --no-rates
"$STOPO" whatif --topo $FT2 --workload "whatif_hold.swf" \
	--policy linear --json >"$tmp/r.json" 2>"$tmp/err"
if grep -q '"rate_sum":[0-9]' "$tmp/r.json"; then
	echo "ok   rates"
else
	echo "FAIL rates"; cat "$tmp/r.json" "$tmp/err"; fail=1
fi

# scaling: --scale 2 doubles every job: 21-24 take 2 whole leaves each
# (two at a time), job 25 (8 nodes) gets leaves 0-1 at t=200, job 27 (34
# nodes) is still dropped
"$STOPO" whatif --topo $FT2 --workload "whatif_hold.swf" \
	--policy fattree-pods --no-rates --scale 2 --jobs-out "$tmp/s.csv" \
	>/dev/null 2>"$tmp/err"
if grep -q '^fattree-pods,25,10,200,250,"0-7"$' "$tmp/s.csv" &&
   grep -q '^fattree-pods,27,30,,,$' "$tmp/s.csv"; then
	echo "ok   scale"
else
	echo "FAIL scale"; cat "$tmp/s.csv" "$tmp/err"; fail=1
fi

# bad records: file:line errors, or skipped and counted
error bad_record 2 "whatif_bad.swf:4: field 4: run time unknown" \
	--topo $FT2 --workload "whatif_bad.swf" --policy linear
"$STOPO" whatif --topo $FT2 --workload "whatif_bad.swf" \
	--policy linear --skip-bad --no-rates --json >"$tmp/out" 2>"$tmp/err"
if grep -q 'skipped 2 bad records' "$tmp/err" &&
   grep -q '"skipped":2' "$tmp/out" && grep -q '"started":3' "$tmp/out"; then
	echo "ok   skip_bad"
else
	echo "FAIL skip_bad"; cat "$tmp/out" "$tmp/err"; fail=1
fi
error no_file 2 "no_such.swf: No such file" --topo $FT2 \
	--workload no_such.swf --policy linear
error bad_policy 2 "nosuch" --topo $FT2 \
	--workload "whatif_hold.swf" --policy nosuch
error wrong_family 2 "fattree-pods" --topo dragonfly:p=2,a=4,h=2,g=5 \
	--workload "whatif_hold.swf" --policy fattree-pods
error missing 2 "are required" --topo $FT2
error bad_scale 2 "--scale" --topo $FT2 --workload "whatif_hold.swf" \
	--policy linear --scale -3
error bad_topo 2 "" --topo nosuchfamily --workload "whatif_hold.swf" \
	--policy linear
"$STOPO" whatif --help | grep -q -- "--jobs-out" && echo "ok   help" ||
	{ echo "FAIL help"; fail=1; }
exit $fail
