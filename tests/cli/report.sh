#!/bin/sh
# report.sh - golden-output tests of `stopo report`.  The values were
# worked out by hand on fattree:k=4,n=3 (leaves of 4 nodes, pods of 4
# leaves, 16 core switches; ecmp): job 101/201 fills pod 0 (32 links, none
# shared); 102/202 spans leaves 4 and 8 (pods 1, 2): 4+16+16+4 links each
# way = 80; 103/203 spans leaves 5, 9, 12 (pods 1-3): 3*8 + 3*32 = 120;
# they share the 64 core links of pods 1 and 2: MLS 64/80 = 80 %, TLS
# 64/(32+80+120-64) = 38.10 %; 104/204 is on one leaf (no link).
# UPDATE_GOLDEN=1 rewrites the golden files (review the diff).
set -u
: "${STOPO:?}" "${top_srcdir:?}"
data="$top_srcdir/tests/data"
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0
cd "$data" || exit 99

# check NAME STATUS ARGS...: exit STATUS, stdout = report_golden_NAME
check() {
	name=$1 want=$2
	shift 2
	"$STOPO" report "$@" >"$tmp/out" 2>"$tmp/err"
	st=$?
	if [ "$st" -ne "$want" ]; then
		echo "FAIL $name: exit $st, want $want"; cat "$tmp/err"; fail=1
		return
	fi
	if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
		cp "$tmp/out" "report_golden_$name"
	elif ! diff -u "report_golden_$name" "$tmp/out"; then
		echo "FAIL $name: output differs from golden"; fail=1
	else
		echo "ok   $name"
	fi
}

# error NAME STATUS PATTERN ARGS...: exit STATUS, stderr matches PATTERN
error() {
	name=$1 want=$2 pat=$3
	shift 3
	"$STOPO" report "$@" >"$tmp/out" 2>"$tmp/err"
	st=$?
	if [ "$st" -ne "$want" ] || ! grep -q -- "$pat" "$tmp/err"; then
		echo "FAIL $name: exit $st (want $want), stderr:"; cat "$tmp/err"
		fail=1
	else
		echo "ok   $name"
	fi
}

CONF=report_topo.conf
check squeue.txt 0 --topo $CONF squeue_running.json
check squeue.json 0 --topo $CONF squeue_running.json --json --top 3
check indices.txt 0 --topo fattree:k=4,n=3 --jobs report_jobs.txt --top 4
check names.json 0 --topo $CONF --jobs report_names.txt --json --top 0
check dragonfly.txt 0 --topo dragonfly:p=2,a=4,h=2,g=9 --routing ugal \
	--jobs report_jobs.txt --top 2
check dragonfly_min.txt 0 --topo dragonfly:p=2,a=4,h=2,g=9 --routing min \
	--jobs report_jobs.txt --top 2

# stdin, and the same numbers as from the file
"$STOPO" report --topo $CONF - <squeue_running.json >"$tmp/stdin" 2>&1
if cmp -s "$tmp/stdin" report_golden_squeue.txt; then
	echo "ok   stdin"
else
	echo "FAIL stdin"; cat "$tmp/stdin"; fail=1
fi

# --check: exit 1 when links are shared, 0 when every job is isolated
"$STOPO" report --topo $CONF squeue_running.json --check >/dev/null
[ $? -eq 1 ] && echo "ok   check_shared" || { echo "FAIL check_shared"; fail=1; }
printf '1 0-15\n2 16-31\n3 60\n' >"$tmp/iso.txt"
"$STOPO" report --topo fattree:k=4,n=3 --jobs "$tmp/iso.txt" --check \
	>"$tmp/out"
if [ $? -eq 0 ] && grep -q '^MLS: 0.00 %' "$tmp/out"; then
	echo "ok   check_isolated"
else
	echo "FAIL check_isolated"; cat "$tmp/out"; fail=1
fi

# the SVG picture: well-formed (xmllint when installed; the unit test
# test_linkshare parses it with its own checker), with the numbers
"$STOPO" report --topo $CONF squeue_running.json --svg "$tmp/r.svg" \
	>/dev/null
if grep -q '^<svg ' "$tmp/r.svg" && tail -n 1 "$tmp/r.svg" | grep -q '</svg>' &&
   grep -q 'MLS 80.00 %, TLS 38.10 %' "$tmp/r.svg" &&
   grep -q 'job 102: 8 nodes, 80 links, 64 shared (80.0 %) with job 103' \
	"$tmp/r.svg" &&
   [ "$(grep -c '<title>node ' "$tmp/r.svg")" -eq 64 ]; then
	echo "ok   svg"
else
	echo "FAIL svg"; fail=1
fi
if command -v xmllint >/dev/null 2>&1; then
	if xmllint --noout "$tmp/r.svg"; then
		echo "ok   svg_xmllint"
	else
		echo "FAIL svg_xmllint"; fail=1
	fi
fi

error bad_name 2 "squeue_badnode.json: jobs\[1\]: job 302: node 'gpu1' is not in topo.conf NodeName=" \
	--topo $CONF squeue_badnode.json
error bad_jobs_line 2 "report_bad.txt:2: job 202: node 'n99' is not in topo.conf" \
	--topo $CONF --jobs report_bad.txt
error names_without_conf 2 "need a topo.conf with NodeName=" \
	--topo fattree:k=4,n=3 squeue_running.json
error out_of_range 2 "bad node list '60-70'" --topo fattree:k=4,n=3 \
	--jobs /dev/stdin <<EOT
1 60-70
EOT
error bad_json 2 "report_topo.conf:1: bad JSON" --topo $CONF report_topo.conf
error no_topo 2 "--topo SPEC is required" squeue_running.json
error both 2 "not both" --topo $CONF squeue_running.json --jobs report_jobs.txt
error no_file 2 "nothere.json: No such file" --topo $CONF nothere.json
"$STOPO" report --help | grep -q -- "--svg" && echo "ok   help" ||
	{ echo "FAIL help"; fail=1; }
exit $fail
