#!/bin/sh
# whatif_runtime.sh - `stopo whatif` with run times moved by interference
# (--isolation-gain, issue 47): schedules, metrics and break-even gains
# worked by hand in the comments; --isolation-gain 0 is today's output,
# byte for byte, against the golden files of tests/cli/whatif.sh.
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

# The case: fattree:k=4,n=3 (leaves of 4 nodes, pods of 16),
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
