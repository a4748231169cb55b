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
. "$top_srcdir/tests/cli/lib.sh"

# the rates (CSV columns 4 on) rounded to 9 digits
round() {
	awk -F, 'BEGIN { OFS = "," }
		NR > 1 { for (i = 4; i <= NF; i++) $i = sprintf("%.9g", $i) }
		{ print }'
}
cli_setup eval "$golden/eval_" round

# count NAME N REGEX: stdout of the last run has N lines matching REGEX
count() {
	n=$(grep -c -- "$3" "$tmp/out")
	if [ "$n" -ne "$2" ]; then
		flunk "$1" "$n lines match '$3', want $2"
	else
		pass "$1"
	fi
}

D=dragonfly:p=2,a=4,h=2,g=9
# Hand-worked (see tests/data/flows_shared.txt).  The nne column: both
# inter-group flows leave switch 0 on the one global link to group 8, so
# its relative demand is 2 and every node injects B_eff = 1/2 (paper 004
# Eq. 5: the bound holds for all nodes alike, flow 2's too).
golden shared.csv -- --topo $D --routing min --flows "$data/flows_shared.txt" \
	--csv
golden ranks.csv -- --topo $D --routing min --nodes 0,1,70,71 \
	--flows "$data/flows_ranks.txt" --csv

# The registered models, from the list of the unknown-model message:
# --model all must run every one of them, however many there are.
run --topo $D --flows "$data/flows_shared.txt" --model nosuch
models=$(sed -n 's/.*(known: \([^)]*\)).*/\1/p' "$tmp/err")
nmodels=$(echo "$models" | tr ',' '\n' | grep -c .)
case $models in
"hm, jm, mcf, mmf"*) pass known_models ;;
*) flunk known_models "no model list: $models" "$tmp/err" ;;
esac
# The UGAL models (ugal0 .. ugal5) need routing ugal on a dragonfly or
# cascade: under another routing --model all runs every other model.
pmodels=$(echo "$models" | tr ',' '\n' | sed 's/^ *//' | grep -v '^ugal')
npmodels=$(echo "$pmodels" | grep -c .)
run --topo $D --flows "$data/flows_shared.txt" --json ||
	flunk json_ugal "exit $st" "$tmp/err"
count all_models_ugal "$nmodels" '"model":'
expect_fail ugal_needs_ugal 2 "--model: model 'ugal3': needs routing ugal, not min" \
	-- --topo $D --routing min --pattern perm --model ugal3

# JSON contract: one object per model, every key of issue 3
run --topo $D --routing min --flows "$data/flows_shared.txt" --json ||
	flunk json "exit $st"
count json_models 1 '"models":'
for k in model flows aggregate mean_rate min_rate max_rate rates alpha \
	nodes jain; do
	count "json_$k" "$npmodels" "\"$k\":"
done
count json_lp_alpha 2 '"alpha":0.3333333333' # mcf and mmf's first level
run --topo $D --routing min --flows "$data/flows_shared.txt" --model mmf \
	--json
count json_single 0 '"models":'
count json_single_model 1 '"model":"mmf"'
count json_single_agg 1 '"aggregate":2'

# The template LP models' JSON (mcf, ugal0 .. ugal5) adds the LP's
# variables, the certified bound on alpha, the gap and the solver (the
# other models' JSON does not).  Model
# 3 on dfly(2,4,2,9), perm, seed 1: alpha 0.734702799 is the optimum of
# the same LP built the other way, by enumerating routing_paths and
# grouping the paths by (class, hops), solved with GLPK (test_ugal.c,
# ugal_lp/model3_equals_enumeration, which pins this value); "paths" is
# the number of paths mcf enumerates for the same flows.
run --topo $D --pattern perm --seed 1 --model ugal3 --json ||
	flunk ugal3_json "exit $st" "$tmp/err"
count ugal3_alpha 1 '"alpha":0\.734702799'
count ugal3_bound 1 '"bound":0\.734702799'
count ugal3_gap 1 '"gap":0\(\.0\)*,'
count ugal3_solver 1 '"solver":"glpk"'
count ugal3_variables 1 '"variables":[1-9][0-9]*,'
upaths=$(sed -n 's/.*"paths":\([0-9]*\).*/\1/p' "$tmp/out")
run --topo $D --pattern perm --seed 1 --model mcf --json
count mcf_solver 1 '"solver":"glpk"'
count ugal3_paths 1 "\"paths\":$upaths,"
run --topo $D --pattern perm --seed 1 --model ugal3 ||
	flunk ugal3_text "exit $st" "$tmp/err"
count ugal3_text 1 '^ugal3: alpha 0\.734703, bound 0\.734703, gap 0 (glpk)'

# The engines: --fast solves the same LP with the first-order solver to a
# certified interval holding GLPK's optimum 0.734702799 (above), at most
# --gap apart; text and JSON give both ends.  --gap takes a fraction or a
# percentage.
for g in 0.001 0.01%; do
	run --topo $D --pattern perm --seed 1 --model ugal3 --fast --gap $g \
		--json || flunk "fast_$g" "exit $st" "$tmp/err"
	count "fast_solver_$g" 1 '"solver":"pdhg"'
	lo=$(sed -n 's/.*"alpha":\([0-9.e-]*\).*/\1/p' "$tmp/out")
	hi=$(sed -n 's/.*"bound":\([0-9.e-]*\).*/\1/p' "$tmp/out")
	gp=$(sed -n 's/.*"gap":\([0-9.e-]*\).*/\1/p' "$tmp/out")
	want=$(echo $g | sed 's/0.01%/0.0001/')
	if awk -v l="$lo" -v h="$hi" -v g="$gp" -v w="$want" 'BEGIN {
		o = 0.734702799
		exit !(l <= o + 1e-9 && h >= o - 1e-9 && g <= w &&
		       (h - l) / l <= w * (1 + 1e-9))
	}'; then
		pass "fast_brackets_$g"
	else
		flunk "fast_brackets_$g" "[$lo, $hi] gap $gp, optimum 0.734702799"
	fi
done
run --topo $D --pattern perm --seed 1 --model ugal3 --fast ||
	flunk fast_text "exit $st" "$tmp/err"
count fast_text 1 '^ugal3: alpha 0\.7[0-9]*, bound 0\.7[0-9]*, gap [0-9.e-]* (pdhg)'
# auto: exact at this size, whatever --gap says
run --topo $D --pattern perm --seed 1 --model ugal3 --gap 5% --json
count auto_small_exact 1 '"solver":"glpk"'

# --repeat: mean and a confidence half-width per model
run --topo $D --routing min --pattern random:1 --model all --repeat 4 \
	--seed 3 || flunk repeat "exit $st" "$tmp/err"
count repeat_rows "$npmodels" "^\\($(echo $pmodels | sed 's/ /\\|/g')\\) .*+-"
run --topo $D --routing min --pattern random:1 --model jm --repeat 4 \
	--seed 3 --json
count repeat_json_ci 1 '"ci95":'
count repeat_json_n 1 '"repeat":4'

# the same seed gives the same flows; the text report runs
"$STOPO" eval --topo $D --pattern perm:1 --model jm --csv --seed 9 >"$tmp/a"
"$STOPO" eval --topo $D --pattern perm:1 --model jm --csv --seed 9 >"$tmp/b"
if cmp -s "$tmp/a" "$tmp/b"; then
	pass same_seed
else
	flunk same_seed "two runs with --seed 9 differ"
fi
run --topo $D --pattern transpose --nodes 0-63 --model hm ||
	flunk text "exit $st"
count text_links 1 'hm: most loaded links'

# a topo.conf's Routing= is the routing unless --routing says otherwise:
# the file's min gives the hand-worked shared.csv of --routing min
R=$data/good_routing_min.conf
golden shared.csv -- --topo "$R" --flows "$data/flows_shared.txt" --csv
run --topo "$R" --flows "$data/flows_shared.txt" --model hm --json
count conf_routing 1 '"routing":"min"'
run --topo "$R" --routing ugal --flows "$data/flows_shared.txt" --model hm \
	--json
count conf_routing_override 1 '"routing":"ugal:intra=local"'

expect_fail bad_conf_policy 2 \
	"bad_policy_option.conf:4: policy 'clustered:max=4' of partition debug" \
	-- --topo "$data/bad_policy_option.conf" --pattern perm
expect_fail file_line 2 "flows_bad_range.txt:3: node 99 out of range" \
	-- --topo $D --flows "$data/flows_bad_range.txt"
expect_fail bad_pattern 2 "unknown pattern 'nosuch'" \
	-- --topo $D --pattern nosuch
expect_fail bit_pow2 2 "power-of-two" -- --topo $D --pattern bitrev
expect_fail repeat_fixed 2 "needs a random pattern" \
	-- --topo $D --pattern transpose --nodes 0-15 --repeat 3
expect_fail bad_model 2 "unknown model 'xx'" \
	-- --topo $D --pattern perm --model xx
expect_fail both 2 "exactly one of" -- --topo $D --pattern perm --flows x
expect_fail bad_nodes 2 "bad node list" \
	-- --topo $D --pattern perm --nodes 0-99
expect_fail time_limit 1 "time-limit" \
	-- --topo dragonfly:p=3,a=6,h=3,g=19 --routing ugal --pattern perm:1 \
	--model mcf --time-limit 1 --exact
expect_fail time_limit_fast 1 "time-limit" \
	-- --topo dragonfly:p=3,a=6,h=3,g=19 --routing ugal --pattern perm:1 \
	--model mcf --time-limit 1 --fast --gap 1e-6
expect_fail gap_zero 2 "--gap 0: want a relative gap from 1e-6" \
	-- --topo $D --pattern perm --model mcf --gap 0
expect_fail gap_word 2 "--gap x%: want a relative gap" \
	-- --topo $D --pattern perm --model mcf --gap x%
expect_fail gap_exact 2 "--exact has none" \
	-- --topo $D --pattern perm --model mcf --exact --gap 1%
expect_fail exact_fast 2 "--exact and --fast exclude each other" \
	-- --topo $D --pattern perm --model mcf --exact --fast
# --bw sets the nne model's bandwidths only.  The shared path's links
# (a local and the global one) carry demand 2: at capacity 4 the
# injection links bind, B_eff 1 for every node (shared.csv: 1/2)
expect_fail bw_not_nne 2 "--bw sets the nne model's bandwidths" -- \
	--topo $D --routing min --flows "$data/flows_shared.txt" --model mcf \
	--bw 1,1,4
expect_fail bad_bw 2 "--bw 1,x,1: want three positive" -- --topo $D \
	--routing min --flows "$data/flows_shared.txt" --model nne --bw 1,x,1
run --topo $D --routing min --flows "$data/flows_shared.txt" --model nne \
	--bw 1,4,4 --json
count bw_global 1 '"alpha":1.0'

# --flows - reads standard input: the same rates as the file's
run --topo $D --routing min --flows "$data/flows_shared.txt" --csv
cp "$tmp/out" "$tmp/file.csv"
run --topo $D --routing min --flows - --csv <"$data/flows_shared.txt"
if [ "$st" -eq 0 ] && [ -s "$tmp/out" ] && cmp -s "$tmp/file.csv" "$tmp/out"
then
	pass flows_stdin
else
	flunk flows_stdin "exit $st; stdin's output differs" "$tmp/err"
fi
# --nodes takes a hostlist of the topo.conf's names, as paths, report
# and place do: n[00-03] is nodes 0-3
T="$data/report_topo.conf"
run --topo "$T" --pattern shift:1 --model hm --nodes 0-3 --json
grep -v '"seconds"' "$tmp/out" >"$tmp/ids.json"
run --topo "$T" --pattern shift:1 --model hm --nodes 'n[00-03]' --json
grep -v '"seconds"' "$tmp/out" >"$tmp/names.json"
if [ "$st" -eq 0 ] && [ -s "$tmp/names.json" ] &&
   cmp -s "$tmp/ids.json" "$tmp/names.json"; then
	pass nodes_hostlist
else
	flunk nodes_hostlist "exit $st; hostlist output differs" "$tmp/err"
fi
expect_fail -x bw_twice 2 \
	"--bw and --model nne:inject=2 both set bandwidths: give them once" \
	-- --topo $D --pattern perm:1 --model nne:inject=2 --bw 1,1,1
printf '0 1\n2 3 1e100\n' >"$tmp/huge.flows"
expect_fail -x demand_huge 2 \
	"$tmp/huge.flows:2: demand must be a number from 1e-12 to 1e12" \
	-- --topo $D --flows "$tmp/huge.flows" --model mcf
expect_fail -x repeat_cap 2 "--repeat 2000000000: want 1 to 1000000" \
	-- --topo $D --pattern perm:1 --model hm --repeat 2000000000
finish
