#!/bin/sh
# whatif.sh - golden-output tests of `stopo whatif`.  The schedules in the
# golden files were worked out by hand (see the comments at the top of
# tests/data/whatif_small.swf and whatif_hold.swf; the unit test
# tests/unit/test_whatif.c asserts the same start times).
# UPDATE_GOLDEN=1 rewrites them (review the diff before committing).
. "$top_srcdir/tests/cli/lib.sh"

# "seconds", wall time, and "spec", the canonical policy spec with every
# default, are left out of the comparison
steady() {
	grep -v -e '"seconds"' -e '"spec"'
}
cli_setup whatif "$data/whatif_golden_" steady
# file names in the output are as given: run from the data directory
cd "$data" || exit 99

FT3=fattree:k=4,n=3
FT2=fattree:k=4,n=2
golden small.txt -- --topo $FT3 --workload "whatif_small.swf" \
	--policy linear --no-rates
golden small_jobs.csv -- --topo $FT3 --workload "whatif_small.swf" \
	--policy linear --no-rates --jobs-out -
golden hold.json -- --topo $FT2 --workload "whatif_hold.swf" \
	--policy fattree-pods:rule=paper,linear --no-rates --json
golden hold_jobs.csv -- --topo $FT2 --workload "whatif_hold.swf" \
	--policy fattree-pods:rule=paper,linear --no-rates \
	--jobs-out "$tmp/jobs.csv" --quiet --json
# the --jobs-out file of that run
compare hold.csv "$tmp/jobs.csv"

# the same schedule from a CSV and a JSON job list
"$STOPO" whatif --topo $FT3 --workload "whatif_small.swf" \
	--policy linear --no-rates --jobs-out "$tmp/a.csv" >/dev/null
for f in whatif_jobs.csv whatif_jobs.json; do
	"$STOPO" whatif --topo $FT3 --workload "$f" --policy linear \
		--no-rates --jobs-out "$tmp/b.csv" >/dev/null
	if cmp -s "$tmp/a.csv" "$tmp/b.csv"; then
		pass "same schedule from $f"
	else
		diff "$tmp/a.csv" "$tmp/b.csv"
		flunk "$f" "schedule differs from the SWF's"
	fi
done

# a policy label with several options is one quoted CSV field
run --topo $FT3 --workload "whatif_small.swf" --no-rates \
	--policy fattree-pods:rule=paper,large=leaves,linear \
	--jobs-out "$tmp/q.csv"
if python3 -c '
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
assert all(len(r) == 10 for r in rows), [r for r in rows if len(r) != 10]
assert {r[0] for r in rows[1:]} == {"fattree-pods:rule=paper,large=leaves", "linear"}
' "$tmp/q.csv" 2>"$tmp/err"; then
	pass quoted_label
else
	flunk quoted_label "the label split the CSV row" "$tmp/err" "$tmp/q.csv"
fi

# rates are predicted unless --no-rates
run --topo $FT2 --workload "whatif_hold.swf" --policy linear --json \
	--jobs-out "$tmp/r.csv"
if grep -q '"rate_sum":[0-9]' "$tmp/out" &&
   grep -q '^linear,21,0,0,100,"0-2",no,yes,[0-9][0-9.e+-]*,$' "$tmp/r.csv"; then
	pass rates
else
	flunk rates "no rate_sum or no rate column" "$tmp/out" "$tmp/r.csv"
fi

# scaling: --scale 2 doubles every job: 21-24 take 2 whole leaves each
# (two at a time), job 25 (8 nodes) gets leaves 0-1 at t=200, job 27 (34
# nodes) is still dropped
run --topo $FT2 --workload "whatif_hold.swf" \
	--policy fattree-pods:rule=paper --no-rates --scale 2 \
	--jobs-out "$tmp/s.csv"
ftp=fattree-pods:rule=paper
if grep -q "^$ftp,25,10,200,250,\"0-7\",yes,yes,,\$" "$tmp/s.csv" &&
   grep -q "^$ftp,27,30,,,,,,,\"34 nodes requested, the machine has 16\"\$" \
	"$tmp/s.csv"; then
	pass scale
else
	flunk scale "jobs 25, 27 not as worked out" "$tmp/s.csv" "$tmp/err"
fi

# bench/round_units.sh (make bench's "rounded" column): on
# fattree:k=4,n=3 (leaves of 4 nodes, pods of 16, 64 nodes), an SWF of
# MaxNodes 16 scaled by 4 (auto) gives 1 -> 4 (one leaf, kept), 2 -> 8
# and 3 -> 12 (whole leaves), 5 -> 20 and 7 -> 28 (above a pod: whole
# pods, 32), 16 -> 64; a CSV keeps its sizes before rounding (9 -> 12,
# 17 -> 32, 3 -> 3).  Times pass through; limit -1 is the run time.
printf '; MaxNodes: 16\n' >"$tmp/ru.swf"
for p in 1 2 3 5 7 16; do
	printf '%s 0 -1 100 %s -1 -1 -1 -1 -1 1 -1 -1 -1 0 -1 -1 -1\n' "$p" "$p"
done >>"$tmp/ru.swf"
sh "$top_srcdir/bench/round_units.sh" "$tmp/ru.swf" 4 3 auto \
	>"$tmp/ru.csv" 2>"$tmp/err"
printf 'id,submit,nodes,runtime,limit\n1,0,9,100,100\n2,0,17,100,200\n3,0,3,100,100\n' \
	>"$tmp/ru_in.csv"
sh "$top_srcdir/bench/round_units.sh" "$tmp/ru_in.csv" 4 3 \
	>"$tmp/ru2.csv" 2>>"$tmp/err"
if [ "$(cut -d, -f3 "$tmp/ru.csv" | tr '\n' ' ')" = "nodes 4 8 12 32 32 64 " ] &&
   grep -q '^1,0,4,100,100$' "$tmp/ru.csv" &&
   [ "$(cut -d, -f3,5 "$tmp/ru2.csv" | tr '\n' ' ')" = "nodes,limit 12,100 32,200 3,100 " ]; then
	pass round_units
else
	flunk round_units "sizes not as worked out" "$tmp/ru.csv" \
		"$tmp/ru2.csv" "$tmp/err"
fi

# bench/isolation_bound.sh (make bench's "bound" column), worked by hand
# on fattree:k=2,n=3 (leaves of 2 nodes, pods of 4, 8 nodes): jobs 1, 2
# of 5 nodes and 3 of 2 at time 0, jobs 4, 5 of 6 nodes at 100, each
# running 10 s; node-time 240.  Nodes: from 100, 120 node-s / 8 = 15, so
# the last end is >= 115 (26.09 %).  Leaves (a job above 2 nodes holds
# ceil(n/2) * 2): 6+6+0 and 6+6 -> from 100, 115 again.  Pods (above 4
# nodes: ceil(n/4) * 4): 8+8+0+8+8 -> from 0, 40; from 100, 160 / 8 = 20,
# so >= 120: 240 / (8 * 120) = 25 %.  The schedule meets it: jobs 1 and
# 2 each cross both pods (1 and 3 at 0, 2 at 10), 4 and 5 too (100,
# 110), so fattree-pods reports 25 % exactly (as linear, with 8 nodes).
printf 'id,submit,nodes,runtime,limit\n1,0,5,10,10\n2,0,5,10,10\n3,0,2,10,10\n4,100,6,10,10\n5,100,6,10,10\n' \
	>"$tmp/hb.csv"
sh "$top_srcdir/bench/isolation_bound.sh" "$tmp/hb.csv" 2 3 \
	>"$tmp/hb.out" 2>"$tmp/err"
"$STOPO" whatif --quiet --no-rates --json --topo fattree:k=2,n=3 \
	--workload "$tmp/hb.csv" --policy fattree-pods >"$tmp/hb.json" \
	2>>"$tmp/err"
if [ "$(tr -s ' ' <"$tmp/hb.out" | tr '\n' '|')" = \
	"nodes 115.0 26.09|level 0 115.0 26.09|level 1 120.0 25.00|bound 25.00|" ] &&
   grep -q '"utilization": *0.25,' "$tmp/hb.json"; then
	pass isolation_bound
else
	flunk isolation_bound "bounds not as worked out" "$tmp/hb.out" \
		"$tmp/hb.json" "$tmp/err"
fi

# bad records: file:line errors, or skipped and counted
expect_fail bad_record 2 "whatif_bad.swf:4: field 4: run time unknown" \
	-- --topo $FT2 --workload "whatif_bad.swf" --policy linear
run --topo $FT2 --workload "whatif_bad.swf" --policy linear --skip-bad \
	--no-rates --json
if grep -q 'skipped 2 bad records' "$tmp/err" &&
   grep -q '"skipped":2' "$tmp/out" && grep -q '"started":3' "$tmp/out"; then
	pass skip_bad
else
	flunk skip_bad "want 2 skipped, 3 started" "$tmp/out" "$tmp/err"
fi
expect_fail bad_conf_policy 2 \
	"bad_policy_unknown.conf:3: policy 'nosuch:x=1': unknown policy" \
	-- --topo bad_policy_unknown.conf --workload "whatif_hold.swf" \
	--policy linear
expect_fail no_file 2 "no_such.swf: No such file" \
	-- --topo $FT2 --workload no_such.swf --policy linear
expect_fail bad_policy 2 "nosuch" \
	-- --topo $FT2 --workload "whatif_hold.swf" --policy nosuch
expect_fail wrong_family 2 "fattree-pods" \
	-- --topo dragonfly:p=2,a=4,h=2,g=5 --workload "whatif_hold.swf" \
	--policy fattree-pods
expect_fail -x policy_twice 2 \
	"--policy given twice: give it once, with a comma-separated list" \
	-- --topo $FT2 --workload "whatif_hold.swf" --policy linear \
	--policy clustered
expect_fail -x json_jobs_out_stdout 2 \
	"--json prints to stdout: give --jobs-out a file" \
	-- --topo $FT2 --workload "whatif_hold.swf" --policy linear --json \
	--jobs-out -
expect_fail -x limit_zero 2 "--limit-jobs 0: want 1 or more jobs" \
	-- --topo $FT2 --workload "whatif_hold.swf" --limit-jobs 0
expect_fail bad_pattern_option 2 "stopo whatif: --pattern: pattern 'bogus'" \
	-- --topo $FT2 --workload "whatif_hold.swf" --no-rates --pattern bogus
# an unwritable --jobs-out fails before the run (no progress, no output)
expect_fail -x jobs_out_unwritable 1 \
	"--jobs-out $tmp/no/such/dir.csv: No such file or directory" \
	-- --topo $FT2 --workload "whatif_hold.swf" --jobs-out \
	"$tmp/no/such/dir.csv"
expect_fail -x empty_workload 2 "-: no jobs" \
	-- --topo $FT2 --workload - --policy linear </dev/null
# every job dropped: the means over started jobs are n/a (null)
printf '1 0 -1 10 65 -1 -1 65 10\n' >"$tmp/big.swf"
run --topo fattree:k=4,n=3 --workload "$tmp/big.swf" --policy linear -q
grep -q '^mean bounded slowdown  *n/a$' "$tmp/out" &&
	grep -q '^comm. rate per job  *n/a$' "$tmp/out" && st1=0 || st1=1
run --topo fattree:k=4,n=3 --workload "$tmp/big.swf" --policy linear -q \
	--json
if [ $st1 = 0 ] && python3 -c '
import json, sys
p = json.load(sys.stdin)["policies"][0]
assert p["started"] == 0 and p["dropped"] == 1
assert p["mean_wait"] is None and p["mean_bsld"] is None
assert p["rate_mean"] is None and p["rate_sum"] == 0' <"$tmp/out"; then
	pass no_job_started
else
	flunk no_job_started "want n/a and null means" "$tmp/out"
fi
# no --policy: the topo.conf's DefaultPolicy= (what the plugin runs for
# a partition without a line of its own), the same schedule as naming it
run --topo report_topo.conf --workload "whatif_small.swf" --no-rates -q \
	--jobs-out "$tmp/dp.csv"
grep -q '^policy  *linear (DefaultPolicy)$' "$tmp/out" && st1=0 || st1=1
run --topo report_topo.conf --workload "whatif_small.swf" --no-rates -q \
	--policy linear --jobs-out "$tmp/lin.csv"
if [ $st1 = 0 ] &&
   [ "$(cut -d, -f2- "$tmp/dp.csv")" = "$(cut -d, -f2- "$tmp/lin.csv")" ] &&
   grep -q '^linear (DefaultPolicy),1,' "$tmp/dp.csv"; then
	pass default_policy_line
else
	flunk default_policy_line "want linear (DefaultPolicy)" "$tmp/out" \
		"$tmp/dp.csv"
fi
for p in "linear," ",linear" "linear,,clustered"; do
	expect_fail -x "policy_empty_item_$p" 2 \
		"--policy $p: an empty policy between commas, or one longer than 255 characters" \
		-- --topo $FT2 --workload "whatif_hold.swf" --policy "$p"
done
# a job of run time 0 shares no link at any moment: job 2 (0-39, 0 s)
# starts at t=100 beside job 4 (40-49, 100-110) and ends in the same
# second; by hand nothing ever runs beside anything else, so MLS and TLS
# max are 0 and all four jobs ran isolated
printf 'id,submit,nodes,runtime,limit\n1,0,64,100,100\n2,1,40,0,1000\n3,2,60,50,50\n4,3,10,10,10\n' \
	>"$tmp/zero.csv"
run --topo $FT3 --workload "$tmp/zero.csv" --policy linear --no-rates -q \
	--json
if python3 -c '
import json, sys
p = json.load(sys.stdin)["policies"][0]
assert p["mls_max"] == 0 and p["tls_max"] == 0, p
assert p["isolated_jobs"] == 4 and p["started"] == 4, p' <"$tmp/out"; then
	pass zero_runtime
else
	flunk zero_runtime "a 0 s job counted as sharing" "$tmp/out"
fi
# an squeue snapshot whose running jobs share nodes (OverSubscribe): job
# 1 holds n[00-31] to t=400, job 2 n[16-40] to t=160 and n[16-31] are
# both's; by hand job 5 (30 nodes) starts at 160 on the 30 nodes free
# then (n[32-61]) and job 3 (40) at 400 when job 1 ends: no pending job
# lands on a node a running job still holds (before: job 3 took n16-31
# at 160 beside job 1)
cat >"$tmp/shared.json" <<'EOF2'
{"jobs":[{"job_id":1,"job_state":"RUNNING","nodes":"n[00-31]","start_time":100,"submit_time":50,"time_limit":5},
{"job_id":2,"job_state":"RUNNING","nodes":"n[16-40],n20","start_time":100,"submit_time":50,"time_limit":1},
{"job_id":3,"job_state":"PENDING","node_count":40,"submit_time":60,"time_limit":2},
{"job_id":5,"job_state":"PENDING","node_count":30,"submit_time":60,"time_limit":2}]}
EOF2
run --topo report_topo.conf --workload "$tmp/shared.json" --policy linear \
	--no-rates -q --jobs-out "$tmp/shared.csv"
if grep -q -F "warning: 16 nodes held by two or more running jobs" \
	"$tmp/err" && grep -q '^linear,3,60,400,' "$tmp/shared.csv" &&
   grep -q '^linear,5,60,160,280,"32-61",' "$tmp/shared.csv" &&
   grep -q '^isolation violations  *0$' "$tmp/out"; then
	pass snapshot_shared_nodes
else
	flunk snapshot_shared_nodes "want job 5 at 160, job 3 at 400" \
		"$tmp/shared.csv" "$tmp/err"
fi
# --scale auto past 32 bits: 67,108,865 x 64 / MaxNodes 1 is 2^32 + 64
# nodes, not 64 (the count wrapped): dropped as larger than the machine
printf '; MaxNodes: 1\n1 0 -1 10 67108865 -1 -1 67108865 20\n2 0 -1 10 1 -1 -1 1 20\n' \
	>"$tmp/wrap.swf"
run --topo $FT3 --workload "$tmp/wrap.swf" --scale auto --policy linear \
	--no-rates -q --jobs-out "$tmp/wrap.csv"
if grep -q '^linear,1,0,,,,,,,"4294967295 nodes requested' "$tmp/wrap.csv" &&
   grep -q '^linear,2,0,0,10,"0-63",' "$tmp/wrap.csv"; then
	pass scale_auto_wrap
else
	flunk scale_auto_wrap "job 1 must be dropped" "$tmp/wrap.csv" \
		"$tmp/err"
fi
expect_fail missing 2 "--workload is required" -- --topo $FT2
expect_fail missing_topo 2 "--topo is required" \
	-- --workload "whatif_hold.swf" --policy linear
expect_fail missing_both 2 "--topo and --workload are required" \
	-- --policy linear
expect_fail bad_scale 2 "--scale" \
	-- --topo $FT2 --workload "whatif_hold.swf" --policy linear --scale -3
expect_fail -x scale_huge 2 "--scale: '1e308': want a number above 0, at most 1e6, or 'auto'" \
	-- --topo $FT2 --workload "whatif_hold.swf" --policy linear \
	--scale 1e308
expect_fail bad_topo 2 "" \
	-- --topo nosuchfamily --workload "whatif_hold.swf" --policy linear
if "$STOPO" whatif --help | grep -q -- "--jobs-out"; then
	pass help
else
	flunk help "--help does not mention --jobs-out"
fi
# --policy default on a dragonfly under ugal: dragonfly-balanced.  Job 5
# (20 nodes) fits group 0 of 32 nodes, isolated; job 9 (40 nodes) spans
# groups while job 5 runs: the groups without a multi-router job, 1 and 2
# (32-63, then 64-71), shared, the reason naming job 5 by its id (the
# policy knows it as 1)
printf '5 0 -1 100 20 -1 -1 20 100 -1 1 1 1 -1 -1 -1 -1 -1\n9 5 -1 100 40 -1 -1 40 100 -1 1 1 1 -1 -1 -1 -1 -1\n' >"$tmp/df.swf"
run --topo dragonfly:p=4,a=8,h=4,g=8 --workload "$tmp/df.swf" \
	--policy default --no-rates --jobs-out "$tmp/df.csv"
if grep -q '^dragonfly-balanced (default),5,0,0,100,"0-19",yes,no,,$' "$tmp/df.csv" &&
   grep -q '^dragonfly-balanced (default),9,5,5,105,"32-71",no,no,,"shared: spans 2 groups while 1 multi-router job runs (e.g. job 5); Valiant detours cross every group"$' \
	"$tmp/df.csv"; then
	pass default_balanced_why
else
	flunk default_balanced_why "jobs 5, 9 not as worked out" "$tmp/df.csv" \
		"$tmp/err"
fi
# without --policy: the default policy alone, the same two rows
run --topo dragonfly:p=4,a=8,h=4,g=8 --workload "$tmp/df.swf" \
	--no-rates --jobs-out "$tmp/df_nopol.csv"
if [ "$(cut -d, -f1 "$tmp/df_nopol.csv" | sort -u | tr '\n' ' ')" = \
	'dragonfly-balanced (default) policy ' ] &&
   [ "$(grep -c '^dragonfly-balanced (default),' "$tmp/df_nopol.csv")" = 2 ] &&
   grep -q '^dragonfly-balanced (default),9,5,5,105,"32-71",no,no,,"shared: spans' \
	"$tmp/df_nopol.csv"; then
	pass no_policy_default
else
	flunk no_policy_default "not the default policy alone" \
		"$tmp/df_nopol.csv" "$tmp/err"
fi
# Job 5's claim was true at its start (no violation); job 9, placed
# shared later, joined its links by design: 1 isolated, later shared.
# dragonfly-groups (large=wait) holds 9 until 5 ends: neither.
run --topo dragonfly:p=4,a=8,h=4,g=8 --workload "$tmp/df.swf" \
	--policy default,dragonfly-groups --no-rates --json
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1]));
r = [(p["isolation_violations"], p["isolated_later_shared"], p["isolated_jobs"]) for p in d["policies"]]
assert r == [(0, 1, 0), (0, 0, 2)], r' "$tmp/out"; then
	pass later_shared
else
	flunk later_shared "violations/later shared" "$tmp/out" "$tmp/err"
fi
# nne: a 4x4x2 grid job on dfly(2,4,2,9) under min spans groups: gamma
# (1,2,2), lambda (4,2,1), 8 groups of 4 nodes, one per router (nodes
# 8g + 2k, tests/unit/test_policy.c nne_grid_plan).  Its rate under
# --model nne follows the planned rank order: rank r = x0 + 4 (x1 + 4 x2)
# on node 8 (x0 + 4 (x1/2)) + 2 ((x1%2) + 2 (x2%2)); stopo eval on that
# order gives the same rate (32 = B_eff 1 x 32 nodes), the same nodes in
# ascending order 24.
printf 'id,submit,nodes,runtime,limit,pattern\n1,0,32,100,100,stencil:dims=4x4x2\n' \
	>"$tmp/grid.csv"
run --topo dragonfly:p=2,a=4,h=2,g=9 --routing min --workload "$tmp/grid.csv" \
	--policy nne --model nne --jobs-out "$tmp/grid_out.csv"
order=$(awk 'BEGIN { for (r = 0; r < 32; r++) { x0 = r % 4; x1 = int(r / 4) % 4
	x2 = int(r / 16); printf "%s%d", r ? "," : "",
	8 * (x0 + 4 * int(x1 / 2)) + 2 * ((x1 % 2) + 2 * (x2 % 2)) } }')
sorted=$(echo "$order" | tr , '\n' | sort -n | tr '\n' , | sed 's/,$//')
ev=$("$STOPO" eval --topo dragonfly:p=2,a=4,h=2,g=9 --routing min \
	--pattern stencil:dims=4x4x2 --nodes "$order" --model nne --json |
	sed -n 's/^ *"aggregate":\([0-9.]*\).*/\1/p' | head -1)
evs=$("$STOPO" eval --topo dragonfly:p=2,a=4,h=2,g=9 --routing min \
	--pattern stencil:dims=4x4x2 --nodes "$sorted" --model nne --json |
	sed -n 's/^ *"aggregate":\([0-9.]*\).*/\1/p' | head -1)
if grep -q "^nne,1,0,0,100,\"$sorted\",yes,yes,32,\$" "$tmp/grid_out.csv" &&
	awk -v a="$ev" -v b="$evs" 'BEGIN { exit !(a - 32 < 1e-9 &&
		32 - a < 1e-9 && b - 24 < 1e-9 && 24 - b < 1e-9) }'; then
	pass nne_rank_order
else
	flunk nne_rank_order "rate not the rank order's (eval: $ev, sorted $evs)" \
		"$tmp/grid_out.csv" "$tmp/err"
fi
# Slurm 24.11's squeue --json (job_state a list, numbers as {set,
# infinite, number}) is the same queue as 22.05's: the same run
for f in squeue_running squeue_running_2411; do
	"$STOPO" whatif --quiet --no-rates --json --topo report_topo.conf \
		--workload $f.json --policy linear,fattree-pods 2>"$tmp/err" |
		grep -v -e seconds -e '"workload"' >"$tmp/$f.out"
done
if [ -s "$tmp/squeue_running.out" ] &&
	cmp -s "$tmp/squeue_running.out" "$tmp/squeue_running_2411.out"; then
	pass squeue_2411
else
	flunk squeue_2411 "24.11 squeue --json differs from 22.05's" \
		"$tmp/squeue_running_2411.out" "$tmp/err"
fi
# squeue --json captured from each release's daemons (the same queue,
# tests/slurm/squeue_json.sh): 5 jobs read (4 running, big pending), the
# same run from every release's format.
for v in 2205 2411 2511 2605; do
	"$STOPO" whatif --quiet --no-rates --json --topo captured_topo.conf \
		--workload squeue_captured_$v.json --policy linear,fattree-pods \
		2>"$tmp/err" | grep -e '"jobs"' -e '"skipped"' -e '"started"' \
		-e '"dropped"' -e '"mls_max"' -e '"isolat' >"$tmp/c$v.out"
	# (the captures were taken seconds apart: waits, means and the later
	# sharing differ by a second's order; what was read, and the sharing
	# at the start, may not)
	if grep -q '"jobs":5,' "$tmp/c$v.out" && grep -q '"skipped":0,' "$tmp/c$v.out" &&
		grep -q '"mls_max":80.0' "$tmp/c$v.out" &&
		{ [ $v = 2205 ] || cmp -s "$tmp/c2205.out" "$tmp/c$v.out"; }; then
		pass captured_$v
	else
		flunk captured_$v "Slurm $v's squeue --json" "$tmp/c$v.out" "$tmp/err"
	fi
done
# A fat-tree graph (good_graph_fattree.conf: pod 0 = l0 n0-1, l1 n2-3;
# pod 1 = l2 n4-5, l3 n6-7, l4 n8) under ecmp: default is fattree-pods.
# Worked by hand: the 1-node job takes the leaf with fewest free nodes
# (l4, node 8); the 3-node job whole leaves of the best-fit pod (pod 0,
# 4 whole nodes, before pod 1's l2 l3, 4, by id): 0-2; the 4-node job
# pod 1's whole l2 l3: 4-7.  All isolated.
printf 'id,submit,nodes,runtime,limit\n1,0,1,100,100\n2,0,3,100,100\n3,0,4,100,100\n' \
	>"$tmp/graph.csv"
run --topo good_graph_fattree.conf --routing ecmp --workload "$tmp/graph.csv" \
	--policy default --no-rates --jobs-out "$tmp/graph_out.csv"
if [ "$(cut -d, -f1,2,6,7 "$tmp/graph_out.csv" | tr '\n' ' ')" = \
	'policy,id,nodes,isolated fattree-pods (default),1,"8",yes fattree-pods (default),2,"0-2",yes fattree-pods (default),3,"4-7",yes ' ]; then
	pass graph_fattree_pods
else
	flunk graph_fattree_pods "not the placements worked out" \
		"$tmp/graph_out.csv" "$tmp/err"
fi
# A dragonfly graph (good_graph_dragonfly.conf: 4 groups of 3 routers of
# 2 nodes, switch r of group g = r(3g + r), nodes 6g..6g+5), under min by
# default dragonfly-groups.  By hand: the 4-node job fits group 0 (all
# groups equal: lowest id) on its routers with most free (r0 r1): 0-3;
# the 2-node job one router, fewest free then lowest id: r2, 4-5; the
# 7-node job m = 2 whole groups, the first whole ones (1, 2): 6-12.  Under
# ugal dragonfly-groups holds the 7-node job (Valiant detours cross
# group 0, where job 1 spans routers) until job 1 ends at 100, then takes
# groups 0 and 1: 0-6.
printf 'id,submit,nodes,runtime,limit\n1,0,4,100,100\n2,0,2,100,100\n3,0,7,100,100\n' \
	>"$tmp/gdf.csv"
for r in min ugal; do
	sed "s/^Topology=graph\$/Topology=graph\\
Routing=$r/" good_graph_dragonfly.conf >"$tmp/gdf_$r.conf"
done
run --topo "$tmp/gdf_min.conf" --workload "$tmp/gdf.csv" --policy default \
	--no-rates --jobs-out "$tmp/gdf_min.csv" &&
	run --topo "$tmp/gdf_ugal.conf" --workload "$tmp/gdf.csv" \
		--policy dragonfly-groups --no-rates --jobs-out "$tmp/gdf_ugal.csv"
if [ "$(cut -d, -f1,2,4,6,7 "$tmp/gdf_min.csv" "$tmp/gdf_ugal.csv" | grep -v ^policy | tr '\n' ' ')" = \
	'dragonfly-groups (default),1,0,"0-3",yes dragonfly-groups (default),2,0,"4-5",yes dragonfly-groups (default),3,0,"6-12",yes dragonfly-groups,1,0,"0-3",yes dragonfly-groups,2,0,"4-5",yes dragonfly-groups,3,100,"0-6",yes ' ]; then
	pass graph_dragonfly_groups
else
	flunk graph_dragonfly_groups "not the placements worked out" \
		"$tmp/gdf_min.csv" "$tmp/err"
fi
expect_fail model_family 2 "--model: model 'nne'" -- --topo fattree:k=4,n=3 \
	--workload "$tmp/grid.csv" --policy linear --model nne

# progress: --progress 0 reports after every job placed but the last
# (that one is "done in"), per policy; --quiet none; the times are left
# out (valgrind runs this too).  One thread: the policies in turn.
run --topo fattree:k=4,n=3 --workload "$tmp/gdf.csv" --no-rates \
	--policy linear,fattree-pods --progress 0 --threads 1
got=$(sed -e 's/ after [0-9]* s (about [0-9]* s left)$//' \
	-e 's/: done in [0-9.]* s$/: done/' "$tmp/err" | tr '\n' '|')
if [ $st -eq 0 ] && [ "$got" = "stopo whatif: linear: 1/3 jobs|stopo whatif: linear: 2/3 jobs|stopo whatif: linear: done|stopo whatif: fattree-pods: 1/3 jobs|stopo whatif: fattree-pods: 2/3 jobs|stopo whatif: fattree-pods: done|" ]; then
	pass progress_every_job
else
	flunk progress_every_job "not one line per job placed" "$tmp/err"
fi
run --topo fattree:k=4,n=3 --workload "$tmp/gdf.csv" --no-rates \
	--policy linear --progress 0 --quiet
if [ $st -eq 0 ] && [ ! -s "$tmp/err" ]; then
	pass progress_quiet
else
	flunk progress_quiet "progress despite --quiet" "$tmp/err"
fi
# --threads: the policies run side by side give what they give one
# after the other (rates under jm and hm, a random policy); the first
# failing policy in --policy order is the error, whatever thread saw it
for m in jm hm; do
	for t in 1 3; do
		"$STOPO" whatif --topo dragonfly:p=2,a=4,h=2,g=9 --routing ugal \
			--workload whatif_small.swf --model $m --threads $t \
			--policy linear,random,dragonfly-groups:large=shared,clustered \
			--json 2>"$tmp/err" | steady >"$tmp/th_$m$t.json"
	done
	if [ -s "$tmp/th_${m}1.json" ] && grep -q '"rate_sum"' "$tmp/th_${m}1.json" &&
		cmp -s "$tmp/th_${m}1.json" "$tmp/th_${m}3.json"; then
		pass threads_same_results_$m
	else
		flunk threads_same_results_$m "3 threads differ from 1" \
			"$tmp/th_${m}3.json" "$tmp/err"
	fi
done
# one policy on 4 threads: jm's rates computed after the simulation on
# the 4 (from the sharing components recorded at each start), the same
# numbers as on one
for t in 1 4; do
	"$STOPO" whatif --topo dragonfly:p=2,a=4,h=2,g=9 --routing ugal \
		--workload whatif_small.swf --threads $t --policy random \
		--json --jobs-out "$tmp/thj$t.csv" 2>"$tmp/err" |
		steady >"$tmp/thr$t.json"
done
# and its progress counts the rates: with --progress 0 a line after
# every one but the last (6 jobs of whatif_small.swf span routers)
"$STOPO" whatif --topo dragonfly:p=2,a=4,h=2,g=9 --routing ugal \
	--workload whatif_small.swf --threads 4 --policy random \
	--progress 0 >/dev/null 2>"$tmp/thp.err"
if [ "$(grep -c '^stopo whatif: random: [1-5]/6 rates after' "$tmp/thp.err")" = 5 ] &&
	! grep -q 'jobs after' "$tmp/thp.err"; then
	pass threads_rates_progress
else
	flunk threads_rates_progress "not 5 lines of rates" "$tmp/thp.err"
fi
if grep -q '"rate_sum":[1-9]' "$tmp/thr1.json" &&
	cmp -s "$tmp/thr1.json" "$tmp/thr4.json" &&
	cmp -s "$tmp/thj1.csv" "$tmp/thj4.csv"; then
	pass threads_deferred_rates
else
	flunk threads_deferred_rates "4 threads differ from 1" \
		"$tmp/thr4.json" "$tmp/thj4.csv" "$tmp/err"
fi
expect_fail threads_first_error 2 "policy mesh-blocks: topology fattree" \
	-- --topo fattree:k=4,n=3 --workload "$tmp/gdf.csv" --threads 3 \
	--policy linear,mesh-blocks,fattree-pods,dragonfly-groups
expect_fail threads_zero 2 "--threads must be positive" -- \
	--topo fattree:k=4,n=3 --workload "$tmp/gdf.csv" --policy linear \
	--threads 0
expect_fail threads_many 2 "--threads 1025: at most 1024" -- \
	--topo fattree:k=4,n=3 --workload "$tmp/gdf.csv" --policy linear \
	--threads 1025
expect_fail progress_bad 2 "--progress: 'x' is not a non-negative integer" \
	-- --topo fattree:k=4,n=3 --workload "$tmp/gdf.csv" --policy linear \
	--progress x
finish
