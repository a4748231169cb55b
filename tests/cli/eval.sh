#!/bin/sh
# eval.sh - golden-output tests of `stopo eval`.  The CSV golden files were
# worked by hand (see tests/data/flows_shared.txt): on
# dragonfly:p=2,a=4,h=2,g=9 with min routing, flows 0->70 (demand 2) and
# 1->71 share the one MIN path of switch 0 -> switch 35, so HM and JM give
# 1/2 each (demands ignored); MCF gives alpha*demand with 2a + a <= 1,
# alpha = 1/3, to every flow (the in-switch flow 2->3 too); weighted MMF
# saturates both shared flows at level 1/3 (2/3, 1/3) and the in-switch
# flow at its injection capacity 1.  Rates are compared to 9 digits.
# UPDATE_GOLDEN=1 rewrites the files (review the diff before committing).
set -u
: "${STOPO:?}" "${top_srcdir:?}"
golden="$top_srcdir/tests/data/golden"
data="$top_srcdir/tests/data"
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0
D=dragonfly:p=2,a=4,h=2,g=9

round() {
	awk -F, 'BEGIN { OFS = "," }
		NR > 1 { for (i = 4; i <= NF; i++) $i = sprintf("%.9g", $i) }
		{ print }'
}

# check NAME ARGS...: exit 0, CSV stdout (rounded) equals golden/eval_NAME
check() {
	name=$1
	shift
	"$STOPO" eval "$@" >"$tmp/out" 2>"$tmp/err"
	st=$?
	if [ "$st" -ne 0 ]; then
		echo "FAIL $name: exit $st"; cat "$tmp/err"; fail=1
		return
	fi
	round <"$tmp/out" >"$tmp/r"
	if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
		cp "$tmp/r" "$golden/eval_$name"
	elif ! diff -u "$golden/eval_$name" "$tmp/r"; then
		echo "FAIL $name: output differs from golden"; fail=1
	else
		echo "ok   $name"
	fi
}

# error NAME STATUS PATTERN ARGS...: exit STATUS, stderr matches PATTERN
error() {
	name=$1 want=$2 pat=$3
	shift 3
	"$STOPO" eval "$@" >"$tmp/out" 2>"$tmp/err"
	st=$?
	if [ "$st" -ne "$want" ] || ! grep -q -- "$pat" "$tmp/err"; then
		echo "FAIL $name: exit $st (want $want), stderr:"; cat "$tmp/err"
		fail=1
	else
		echo "ok   $name"
	fi
}

# count NAME N REGEX: stdout of the last run has N lines matching REGEX
count() {
	n=$(grep -c -- "$3" "$tmp/out")
	if [ "$n" -ne "$2" ]; then
		echo "FAIL $1: $n lines match '$3', want $2"; fail=1
	else
		echo "ok   $1"
	fi
}

check shared.csv --topo $D --routing min --flows "$data/flows_shared.txt" --csv
check ranks.csv --topo $D --routing min --nodes 0,1,70,71 \
	--flows "$data/flows_ranks.txt" --csv

# JSON contract: one object per model, every key of issue 3
"$STOPO" eval --topo $D --routing min --flows "$data/flows_shared.txt" \
	--json >"$tmp/out" 2>"$tmp/err" || { echo "FAIL json: exit $?"; fail=1; }
count json_models 1 '"models":'
for k in model flows aggregate mean_rate min_rate max_rate rates alpha \
	nodes jain; do
	count "json_$k" 4 "\"$k\":"
done
count json_lp_alpha 2 '"alpha":0.3333333333' # mcf and mmf's first level
"$STOPO" eval --topo $D --routing min --flows "$data/flows_shared.txt" \
	--model mmf --json >"$tmp/out" 2>"$tmp/err"
count json_single 0 '"models":'
count json_single_model 1 '"model":"mmf"'
count json_single_agg 1 '"aggregate":2'

# --repeat: mean and a confidence half-width per model
"$STOPO" eval --topo $D --routing min --pattern random:1 --model all \
	--repeat 4 --seed 3 >"$tmp/out" 2>"$tmp/err" ||
	{ echo "FAIL repeat: exit $?"; cat "$tmp/err"; fail=1; }
count repeat_rows 4 '^\(hm\|jm\|mcf\|mmf\) .*+-'
"$STOPO" eval --topo $D --routing min --pattern random:1 --model jm \
	--repeat 4 --seed 3 --json >"$tmp/out" 2>&1
count repeat_json_ci 1 '"ci95":'
count repeat_json_n 1 '"repeat":4'

# the same seed gives the same flows; the text report runs
"$STOPO" eval --topo $D --pattern perm:1 --model jm --csv --seed 9 >"$tmp/a"
"$STOPO" eval --topo $D --pattern perm:1 --model jm --csv --seed 9 >"$tmp/b"
if cmp -s "$tmp/a" "$tmp/b"; then echo "ok   same_seed"; else
	echo "FAIL same_seed"; fail=1; fi
"$STOPO" eval --topo $D --pattern transpose --nodes 0-63 --model hm \
	>"$tmp/out" 2>"$tmp/err" || { echo "FAIL text: exit $?"; fail=1; }
count text_links 1 'hm: most loaded links'

error file_line 2 "flows_bad_range.txt:3: node 99 out of range" \
	--topo $D --flows "$data/flows_bad_range.txt"
error bad_pattern 2 "unknown pattern 'nosuch'" --topo $D --pattern nosuch
error bit_pow2 2 "power-of-two" --topo $D --pattern bitrev
error repeat_fixed 2 "needs a random pattern" --topo $D --pattern transpose \
	--nodes 0-15 --repeat 3
error bad_model 2 "unknown model 'xx'" --topo $D --pattern perm --model xx
error both 2 "exactly one of" --topo $D --pattern perm --flows x
error bad_nodes 2 "bad node list" --topo $D --pattern perm --nodes 0-99
error time_limit 1 "time-limit" --topo dragonfly:p=3,a=6,h=3,g=19 \
	--routing ugal --pattern perm:1 --model mcf --time-limit 1
exit $fail
