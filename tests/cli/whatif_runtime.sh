#!/bin/sh
# whatif_runtime.sh - `stopo whatif` with run times moved by interference
# (--isolation-gain and --comm-fraction, issue 47): schedules, metrics
# and break-even gains worked by hand in the comments; --isolation-gain
# 0, and an isolating policy under --comm-fraction, give today's output
# byte for byte (against the golden files of tests/cli/whatif.sh, or
# the same run without the option).
. "$top_srcdir/tests/cli/lib.sh"

steady() {
	grep -v -e '"seconds"' -e '"spec"'
}
cli_setup whatif "$data/whatif_golden_" steady
cd "$data" || exit 99
FT3=fattree:k=4,n=3
FT2=fattree:k=4,n=2

# --isolation-gain 0 (also written 0.0) changes nothing: the goldens of
# whatif.sh, text, JSON and the jobs CSV
for g in 0 0.0; do
	golden small.txt -- --topo $FT3 --workload "whatif_small.swf" \
		--policy linear --no-rates --isolation-gain $g
	golden small_jobs.csv -- --topo $FT3 --workload "whatif_small.swf" \
		--policy linear --no-rates --jobs-out - --isolation-gain $g
	golden hold.json -- --topo $FT2 --workload "whatif_hold.swf" \
		--policy fattree-pods:rule=paper,linear --no-rates --json \
		--isolation-gain $g
done

# The issue's case: fattree:k=4,n=3 (leaves of 4 nodes, pods of 16),
# ecmp, linear, three jobs at 0: A (24 nodes, 100 s) on 0-23, B (24
# nodes, 40 s) on 24-47, C (4 nodes, 50 s) on leaf 12.  A and B cross
# pod 1's boundary (A holds leaves 4-5 of it, B leaves 6-7) and share
# its up-links while both run; C uses no switch link.  G = 0.25: B
# shares all its 40 s (ends 40), C runs alone at 1.25 (50 / 1.25 = 40),
# A does 40 s by then and its 60 s left alone take 48 s: 88.  Stretch
# 88/100, 40/40, 40/50.
printf 'id,submit,nodes,runtime,limit\n1,0,24,100,100\n2,0,24,40,40\n3,0,4,50,50\n' \
	>"$tmp/abc.csv"
run --topo $FT3 --workload "$tmp/abc.csv" --policy linear --no-rates \
	--isolation-gain 0.25 --jobs-out "$tmp/abc_jobs.csv"
printf '%s\n' 'policy,id,submit,start,end,nodes,isolated,ran_isolated,rate,why,stretch,killed' \
	'linear,1,0,0,88,"0-23",no,no,,,0.88,no' \
	'linear,2,0,0,40,"24-47",no,no,,,1,no' \
	'linear,3,0,0,40,"48-51",no,yes,,,0.8,no' >"$tmp/abc_want.csv"
# turnaround 88, 40, 40: mean 56, 95th percentile 88; 3 jobs and
# 24*100 + 24*40 + 4*50 = 3,560 node-s of trace work in 88 s: 2,945.45
# jobs and 970.9 node-h a day; stretch mean 2.68/3 = 0.8933
if [ $st = 0 ] && cmp -s "$tmp/abc_jobs.csv" "$tmp/abc_want.csv" &&
   grep -q '^mean turnaround s  *56\.0$' "$tmp/out" &&
   grep -q '^95th pct turnaround s  *88\.0$' "$tmp/out" &&
   grep -q '^throughput jobs/day  *2945\.45$' "$tmp/out" &&
   grep -q '^throughput node-h/day  *970\.9$' "$tmp/out" &&
   grep -q '^mean stretch  *0\.8933$' "$tmp/out" &&
   grep -q '^max stretch  *1\.0000$' "$tmp/out" &&
   grep -q '^jobs killed at limit  *0$' "$tmp/out" &&
   grep -q '^isolation gain 0.25: a job runs 1.25 times faster while it shares no link$' "$tmp/out"; then
	pass gain_by_hand
else
	diff "$tmp/abc_want.csv" "$tmp/abc_jobs.csv"
	flunk gain_by_hand "not 88, 40, 40 and their metrics" "$tmp/out" \
		"$tmp/err"
fi
run --topo $FT3 --workload "$tmp/abc.csv" --policy linear --no-rates \
	--isolation-gain 0.25 --json
if python3 -c '
import json, sys
d = json.load(sys.stdin)
p = d["policies"][0]
assert d["isolation_gain"] == 0.25, d
assert p["mean_turnaround"] == 56 and p["p95_turnaround"] == 88, p
assert abs(p["jobs_per_day"] - 3 * 86400 / 88) < 1e-9, p
assert abs(p["nodeh_per_day"] - 3560 / 3600 * 86400 / 88) < 1e-9, p
assert abs(p["mean_stretch"] - 2.68 / 3) < 1e-12 and p["max_stretch"] == 1, p
assert p["killed"] == 0 and p["lost_nodeh"] == 0, p' <"$tmp/out"; then
	pass gain_json
else
	flunk gain_json "JSON not as worked out" "$tmp/out" "$tmp/err"
fi

# Break-even by hand: J1 (40 nodes) and J2 (20 nodes), 100 s each, at 0.
# linear runs both at once on 0-39 and 40-59, both crossing pod 2: they
# share all the time, turnaround 100 and 100 whatever G.  fattree-pods
# must keep their links apart: J1 spans 3 pods and J2 would need 2
# more, so J2 waits for J1 and both run alone: with G, J1 ends at
# e = ceil(100 / (1 + G)) and J2 at 2e, mean turnaround 1.5e.  Sweep 0
# to 1 by 0.25: e = 100, 80, 67, 58, 50: means 150, 120, 100.5, 87, 75
# against 100: ahead from G 0.75; the difference 0.5 at 0.5 and -13 at
# 0.75 crosses 0 at 0.5 + 0.25 * 0.5 / 13.5 = 0.509.
printf 'id,submit,nodes,runtime,limit\n1,0,40,100,100\n2,0,20,100,100\n' \
	>"$tmp/be.csv"
run --topo $FT3 --workload "$tmp/be.csv" --policy linear,fattree-pods \
	--no-rates --isolation-gain 0:1:0.25
sed -n '/^mean turnaround s$/,/^95th/p' "$tmp/out" | tr -s ' ' >"$tmp/be_ta"
printf '%s\n' 'mean turnaround s' '  G 0 100.0 150.0' '  G 0.25 100.0 120.0' \
	'  G 0.5 100.0 100.5' '  G 0.75 100.0 87.0' '  G 1 100.0 75.0' \
	'95th pct turnaround s' | tr -s ' ' >"$tmp/be_want"
if [ $st = 0 ] && cmp -s "$tmp/be_ta" "$tmp/be_want" &&
   grep -q '^  fattree-pods against linear: from G 0.75 (the difference crosses 0 near G 0.509)$' \
	"$tmp/out"; then
	pass break_even_by_hand
else
	diff "$tmp/be_want" "$tmp/be_ta"
	flunk break_even_by_hand "not as worked out" "$tmp/out" "$tmp/err"
fi
run --topo $FT3 --workload "$tmp/be.csv" --policy linear,fattree-pods \
	--no-rates --isolation-gain 0:1:0.25 --json --jobs-out "$tmp/be.csv.out"
if python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["sweep"] == {"parameter": "isolation_gain",
		      "values": [0, 0.25, 0.5, 0.75, 1]}, d["sweep"]
ta = [[p["mean_turnaround"] for p in c["policies"]] for c in d["cells"]]
assert ta == [[100, 150], [100, 120], [100, 100.5], [100, 87], [100, 75]], ta
(be,) = d["break_even"]
assert be["policy"] == "fattree-pods" and be["baseline"] == "linear", be
assert be["from"] == 0.75 and abs(be["crossing"] - (0.5 + 0.25 * 0.5 / 13.5)) < 1e-12, be
' <"$tmp/out" && grep -q '^0.5,fattree-pods,2,0,67,134,"0-19",yes,yes,,,0.67,no$' \
	"$tmp/be.csv.out"; then
	pass break_even_json
else
	flunk break_even_json "not as worked out" "$tmp/out" "$tmp/be.csv.out"
fi
# only baselines: no break-even, and the sweep says what to add
run --topo $FT3 --workload "$tmp/be.csv" --policy linear --no-rates \
	--isolation-gain 0:0.2:0.1
if [ $st = 0 ] && grep -q '^break-even: give an isolating policy and a baseline' \
	"$tmp/out"; then
	pass break_even_needs_both
else
	flunk break_even_needs_both "no hint" "$tmp/out" "$tmp/err"
fi

# --comm-fraction, by hand (tests/unit/test_whatif.c has the same): on
# whatif_star.conf (switches of two nodes around a hub, links of
# capacity 1, one path between two nodes) linear puts X (1 node) on n0,
# A (2 nodes, 60 s, limit 80) on n1-n2 and B (2 nodes, 90 s) on n3-n4.
# Their flows meet on the hub's links to and from s1: each gets 1/2 of
# what it gets alone (hm and jm alike), so with F = 0.5 both run at
# 1 / (0.5 + 0.5 / 0.5) = 2/3.  A would need 90 s: killed at 80; B,
# alone after 80 with 36.7 s left, ends at 117.  A's rate at its start
# is 2 (alone), B's 1.
printf 'id,submit,nodes,runtime,limit\n1,0,1,1000,1000\n2,0,2,60,80\n3,0,2,90,200\n' \
	>"$tmp/star.csv"
printf '%s\n' 'policy,id,submit,start,end,nodes,isolated,ran_isolated,rate,why,stretch,killed' \
	'linear,1,0,0,1000,"0",no,yes,0,,1,no' \
	'linear,2,0,0,80,"1-2",no,no,2,,1.33333,yes' \
	'linear,3,0,0,117,"3-4",no,no,1,,1.3,no' >"$tmp/star_want.csv"
for m in hm jm; do
	run --topo whatif_star.conf --workload "$tmp/star.csv" --policy linear \
		--model $m --comm-fraction 0.5 --jobs-out "$tmp/star_$m.csv"
	if [ $st = 0 ] && cmp -s "$tmp/star_$m.csv" "$tmp/star_want.csv" &&
	   grep -q '^jobs killed at limit  *1$' "$tmp/out" &&
	   grep -q '^work lost node-h  *0\.04$' "$tmp/out" &&
	   grep -q '^comm. fraction 0.5 (jobs without their own)' "$tmp/out"; then
		pass comm_fraction_by_hand_$m
	else
		diff "$tmp/star_want.csv" "$tmp/star_$m.csv"
		flunk comm_fraction_by_hand_$m "not 80 (killed) and 117" \
			"$tmp/out" "$tmp/err"
	fi
done
# the job's own fraction: B's 0 in the workload, never slowed (90)
printf 'id,submit,nodes,runtime,limit,pattern,comm_fraction\n1,0,1,1000,1000,,\n2,0,2,60,80,,\n3,0,2,90,200,,0\n' \
	>"$tmp/star_own.csv"
run --topo whatif_star.conf --workload "$tmp/star_own.csv" --policy linear \
	--model hm --comm-fraction 0.5 --jobs-out "$tmp/star_own_out.csv"
if [ $st = 0 ] && grep -q '^linear,3,0,0,90,"3-4",no,no,1,,1,no$' "$tmp/star_own_out.csv" &&
   grep -q '^linear,2,0,0,80,"1-2",no,no,2,,1.33333,yes$' "$tmp/star_own_out.csv"; then
	pass comm_fraction_per_job
else
	flunk comm_fraction_per_job "B's own 0 not used" "$tmp/star_own_out.csv"
fi
# An isolating policy is never slowed: fattree-pods on whatif_hold.swf
# with --comm-fraction 1 prints today's rows (the run-time rows and the
# footer added) and today's jobs CSV (stretch 1, killed no added)
for p in fattree-pods:rule=paper fattree-pods; do
	"$STOPO" whatif --topo $FT2 --workload whatif_hold.swf --policy $p \
		--model hm --jobs-out "$tmp/iso0.csv" >"$tmp/iso0.txt" 2>&1
	"$STOPO" whatif --topo $FT2 --workload whatif_hold.swf --policy $p \
		--model hm --comm-fraction 1 --jobs-out "$tmp/iso1.csv" \
		>"$tmp/iso1.txt" 2>&1
	sed -e '/^mean turnaround s/,/^work lost node-h/d' -e '/^comm. fraction 1 /d' \
		"$tmp/iso1.txt" >"$tmp/iso1_rows.txt"
	sed -e 's/,stretch,killed$//' -e 's/,1,no$//' -e 's/",,$/"/' "$tmp/iso1.csv" \
		>"$tmp/iso1_cols.csv"
	if cmp -s "$tmp/iso0.txt" "$tmp/iso1_rows.txt" &&
	   cmp -s "$tmp/iso0.csv" "$tmp/iso1_cols.csv" &&
	   [ "$(grep -c ',1,no$' "$tmp/iso1.csv")" = 6 ] &&
	   grep -q '^jobs killed at limit  *0$' "$tmp/iso1.txt"; then
		pass "comm_fraction_isolating_unchanged_$p"
	else
		diff "$tmp/iso0.txt" "$tmp/iso1_rows.txt"
		diff "$tmp/iso0.csv" "$tmp/iso1_cols.csv"
		flunk "comm_fraction_isolating_unchanged_$p" "the schedule moved"
	fi
done
# Under --comm-fraction, the cells of policies that place every job
# isolated are simulated last (they cost least: never rated again): on
# one thread linear's progress comes before fattree-pods', whose column
# stays first; with rates at the starts only or none, in the order
# given.
for r in comm-fraction rates no-rates; do
	case $r in
	comm-fraction) opts="--model hm --comm-fraction 0.5" want=linear ;;
	rates) opts="--model hm" want=fattree-pods ;;
	*) opts=--no-rates want=fattree-pods ;;
	esac
	# shellcheck disable=SC2086
	run --topo $FT3 --workload whatif_small.swf --threads 1 --progress 0 \
		--policy fattree-pods,linear $opts
	first=$(sed -n 's/^stopo whatif: \([a-z-]*\): .*/\1/p' "$tmp/err" |
		head -n 1)
	if [ $st = 0 ] && [ "$first" = "$want" ] &&
	   grep -q '^policy  *fattree-pods  *linear$' "$tmp/out"; then
		pass "cells_isolating_last_$r"
	else
		flunk "cells_isolating_last_$r" "first $first, want $want" \
			"$tmp/out" "$tmp/err"
	fi
done
# A sweep of F: the break-even recomputed from the JSON's turnarounds
# (a second reading of the rule: the least F from which the isolating
# policy stays below the baseline, and the linear crossing before it),
# and the F = 0 cell's schedule is the trace's.
run --topo $FT3 --workload whatif_small.swf --policy linear,fattree-pods \
	--model hm --comm-fraction 0:1:0.25 --json --jobs-out "$tmp/fs.csv"
if [ $st = 0 ] && python3 -c '
import json, math, sys
d = json.load(sys.stdin)
v = d["sweep"]["values"]
assert d["sweep"]["parameter"] == "comm_fraction" and v == [0, 0.25, 0.5, 0.75, 1], d["sweep"]
ta = [[p["mean_turnaround"] for p in c["policies"]] for c in d["cells"]]
diff = [a[1] - a[0] for a in ta]
frm = None
for k in range(len(v) - 1, -1, -1):
    if diff[k] < 0:
        frm = k
    else:
        break
(be,) = d["break_even"]
if frm is None:
    assert be["from"] is None and be["crossing"] is None, be
else:
    assert be["from"] == v[frm], (be, diff)
    if frm == 0:
        assert be["crossing"] is None
    else:
        x = v[frm - 1] + 0.25 * diff[frm - 1] / (diff[frm - 1] - diff[frm])
        assert abs(be["crossing"] - x) < 1e-12, (be, x)
assert all("killed" in p for c in d["cells"] for p in c["policies"])
' <"$tmp/out" && "$STOPO" whatif --topo $FT3 --workload whatif_small.swf \
	--policy linear --model hm --jobs-out "$tmp/fs0.csv" >/dev/null 2>&1 &&
   [ "$(grep '^0,linear,' "$tmp/fs.csv" | sed -e 's/^0,//' -e 's/,[^,]*,[^,]*$//')" = \
	"$(grep '^linear,' "$tmp/fs0.csv")" ]; then
	pass comm_fraction_sweep
else
	flunk comm_fraction_sweep "break-even or F = 0 not as recomputed" \
		"$tmp/out" "$tmp/err"
fi
expect_fail -x comm_fraction_and_gain 2 \
	"--isolation-gain and --comm-fraction read the trace's run times two ways (with the interference of the traced machine, or alone): give one" \
	-- --topo $FT3 --workload "$tmp/be.csv" --isolation-gain 0.1 \
	--comm-fraction 0.2
expect_fail -x comm_fraction_no_rates 2 \
	"--comm-fraction slows jobs by their predicted rates: drop --no-rates (--model hm is the fastest)" \
	-- --topo $FT3 --workload "$tmp/be.csv" --comm-fraction 0.2 --no-rates
expect_fail -x comm_fraction_range 2 \
	"--comm-fraction '1.5': want values from 0 to 1" \
	-- --topo $FT3 --workload "$tmp/be.csv" --comm-fraction 1.5
# --array DIR writes the run as a Slurm job array; its cells run here
# one by one, as its tasks would (tests/slurm/whatif_array.sh runs them
# under real slurmd), and --merge DIR prints what the run prints, byte
# for byte: a sweep of gains (text, jobs CSV) and of fractions (JSON but
# its wall times)
arr="$tmp/arr"
for form in json text; do
	case $form in
	text) opts="--isolation-gain 0:0.2:0.1" out=txt cells=6 values=3 ;;
	json) opts="--comm-fraction 0:0.5:0.5 --model hm --json" out=json \
		cells=4 values=2 ;;
	esac
	rm -rf "$arr"
	# shellcheck disable=SC2086
	"$STOPO" whatif --topo $FT3 --workload whatif_small.swf --quiet \
		--policy linear,fattree-pods $opts --jobs-out "$tmp/one.csv" \
		>"$tmp/one.$out" 2>"$tmp/one.err"
	# shellcheck disable=SC2086
	"$STOPO" whatif --topo $FT3 --workload whatif_small.swf --quiet \
		--policy linear,fattree-pods $opts --jobs-out "$tmp/all.csv" \
		--array "$arr" >"$tmp/arr.out" 2>"$tmp/arr.err"
	n=$(sed -n 's/^#SBATCH --array=0-\([0-9]*\)$/\1/p' "$arr/whatif.sbatch")
	ok=1
	for k in $(seq 0 "$n"); do
		"$STOPO" whatif --array "$arr" --cell "$k" 2>>"$tmp/arr.err" ||
			ok=0
	done
	"$STOPO" whatif --merge "$arr" >"$tmp/all.$out" 2>>"$tmp/arr.err" || ok=0
	if [ $out = json ]; then
		grep -v '"seconds"' "$tmp/one.json" >"$tmp/one.cmp"
		grep -v '"seconds"' "$tmp/all.json" >"$tmp/all.cmp"
	else
		cp "$tmp/one.txt" "$tmp/one.cmp"
		cp "$tmp/all.txt" "$tmp/all.cmp"
	fi
	if [ $ok = 1 ] && [ "$n" = $((cells - 1)) ] &&
	   grep -q "^$arr: $cells cells (2 policies x $values values); submit with$" \
		"$tmp/arr.out" &&
	   cmp -s "$tmp/one.cmp" "$tmp/all.cmp" &&
	   cmp -s "$tmp/one.csv" "$tmp/all.csv" && [ -s "$tmp/one.csv" ]; then
		pass "array_merge_identical_$form"
	else
		diff "$tmp/one.cmp" "$tmp/all.cmp"
		flunk "array_merge_identical_$form" "merged run differs" \
			"$tmp/arr.out" "$tmp/arr.err"
	fi
done
rm "$arr/cells/4.json" "$arr/cells/1.json"
expect_fail -x array_cells_missing 2 \
	"$arr: 2 of 6 cells not done (1,4; see $arr/logs); run them again: sbatch --array=1,4 $arr/whatif.sbatch" \
	-- --merge "$arr"
printf '{"policy":' >"$arr/cells/1.json"
expect_fail array_cell_cut_short 2 \
	"$arr/cells/1.json: not a whole cell (a task cut short?); run it again: sbatch --array=1" \
	-- --merge "$arr"
expect_fail -x array_cell_range 2 "--cell 6: $arr has cells 0 to 5" \
	-- --array "$arr" --cell 6
expect_fail -x array_merge_alone 2 \
	"--merge DIR takes the options --array wrote into DIR: give no other" \
	-- --merge "$arr" --json
expect_fail -x array_cell_needs_array 2 \
	"--cell K runs a cell of a sweep written by --array DIR: give --array DIR" \
	-- --cell 1
expect_fail array_not_array 2 "(not a directory --array wrote)" \
	-- --merge "$tmp"
mkdir "$tmp/full" && : >"$tmp/full/x"
expect_fail array_dir_not_empty 1 "(give a new or empty directory)" \
	-- --topo $FT3 --workload whatif_small.swf --array "$tmp/full"
expect_fail -x array_stdin 2 \
	"--array: the workload is copied into DIR for the tasks: give a file, not -" \
	-- --topo $FT3 --workload - --array "$tmp/new" </dev/null
expect_fail -x gain_negative 2 \
	"--isolation-gain '-0.1': want values from 0 to 1e+06" \
	-- --topo $FT3 --workload "$tmp/be.csv" --isolation-gain -0.1
expect_fail -x gain_word 2 "--isolation-gain 'much': want a number or LO:HI:STEP" \
	-- --topo $FT3 --workload "$tmp/be.csv" --isolation-gain much
expect_fail -x gain_two 2 "--isolation-gain '0:1': a sweep is LO:HI:STEP" \
	-- --topo $FT3 --workload "$tmp/be.csv" --isolation-gain 0:1
expect_fail -x gain_step 2 \
	"--isolation-gain '0.3:0:0.1': want LO <= HI and a STEP above 0" \
	-- --topo $FT3 --workload "$tmp/be.csv" --isolation-gain 0.3:0:0.1
expect_fail -x gain_many 2 \
	"--isolation-gain '0:1:0.0001': more than 1000 values; take a larger STEP" \
	-- --topo $FT3 --workload "$tmp/be.csv" --isolation-gain 0:1:0.0001
if "$STOPO" whatif --help | grep -q -- "--isolation-gain G|LO:HI:STEP"; then
	pass help_gain
else
	flunk help_gain "--help does not mention --isolation-gain"
fi
finish
