#!/bin/sh
# report.sh - golden-output tests of `stopo report`.  The values were
# worked out by hand on fattree:k=4,n=3 (leaves of 4 nodes, pods of 4
# leaves, 16 core switches; ecmp): job 101/201 fills pod 0 (32 links, none
# shared); 102/202 spans leaves 4 and 8 (pods 1, 2): 4+16+16+4 links each
# way = 80; 103/203 spans leaves 5, 9, 12 (pods 1-3): 3*8 + 3*32 = 120;
# they share the 64 core links of pods 1 and 2: MLS 64/80 = 80 %, TLS
# 64/(32+80+120-64) = 38.10 %; 104/204 is on one leaf (no link).
# UPDATE_GOLDEN=1 rewrites the golden files (review the diff).
. "$top_srcdir/tests/cli/lib.sh"
cli_setup report "$data/report_golden_"
cd "$data" || exit 99

CONF=report_topo.conf
golden squeue.txt -- --topo $CONF squeue_running.json
golden squeue.json -- --topo $CONF squeue_running.json --json --top 3
golden indices.txt -- --topo fattree:k=4,n=3 --jobs report_jobs.txt --top 4
golden names.json -- --topo $CONF --jobs report_names.txt --json --top 0
golden dragonfly.txt -- --topo dragonfly:p=2,a=4,h=2,g=9 --routing ugal \
	--jobs report_jobs.txt --top 2
golden dragonfly_min.txt -- --topo dragonfly:p=2,a=4,h=2,g=9 --routing min \
	--jobs report_jobs.txt --top 2

# stdin, and the same numbers as from the file
"$STOPO" report --topo $CONF - <squeue_running.json >"$tmp/stdin" 2>&1
if cmp -s "$tmp/stdin" report_golden_squeue.txt; then
	pass stdin
else
	flunk stdin "differs from report_golden_squeue.txt" "$tmp/stdin"
fi

# Slurm 24.11's squeue --json (data_parser v0.0.42: job_state a list of
# the state and its flags, numbers as {set, infinite, number}), the same
# jobs: the same report
"$STOPO" report --topo $CONF squeue_running_2411.json >"$tmp/s2411" 2>&1
if cmp -s "$tmp/s2411" report_golden_squeue.txt; then
	pass squeue_2411
else
	flunk squeue_2411 "differs from report_golden_squeue.txt" "$tmp/s2411"
fi

# squeue --json as each Slurm release writes it, captured from its real
# daemons (tests/slurm/squeue_json.sh: data_parser v0.0.38 in 22.05,
# v0.0.42 in 24.11, v0.0.44 in 25.11, v0.0.45 in 26.05): the queue above
# with job ids 1-5, so the same report, figures worked out above.
for v in 2205 2411 2511 2605; do
	"$STOPO" report --topo captured_topo.conf squeue_captured_$v.json \
		>"$tmp/c$v" 2>&1
	if grep -qx "MLS: 80.00 %" "$tmp/c$v" &&
		grep -qx "TLS: 38.10 % (64 of 168 used links shared)" "$tmp/c$v" &&
		grep -qx "jobs: 4 running" "$tmp/c$v" &&
		{ [ $v = 2205 ] || cmp -s "$tmp/c2205" "$tmp/c$v"; }; then
		pass captured_$v
	else
		flunk captured_$v "report of Slurm $v's squeue --json" "$tmp/c$v"
	fi
done

# --check: exit 1 when links are shared, 0 when every job is isolated
run --topo $CONF squeue_running.json --check
if [ $st -eq 1 ]; then
	pass check_shared
else
	flunk check_shared "exit $st, want 1"
fi
printf '1 0-15\n2 16-31\n3 60\n' >"$tmp/iso.txt"
if run --topo fattree:k=4,n=3 --jobs "$tmp/iso.txt" --check &&
   grep -q '^MLS: 0.00 %' "$tmp/out"; then
	pass check_isolated
else
	flunk check_isolated "exit $st, want 0 and MLS 0.00 %" "$tmp/out"
fi

# Two jobs on one node share its injection link.  In a job file that is
# an error naming both jobs (or the job listing a node twice) ...
printf '1 0-3\n2 2-5\n3 8-11\n' >"$tmp/twice.txt"
run --topo fattree:k=4,n=3 --jobs "$tmp/twice.txt"
if [ $st -eq 2 ] && grep -q "twice.txt:2: node 2 is held by job 1 (line 1) and job 2$" "$tmp/err"; then
	pass jobs_file_node_twice
else
	flunk jobs_file_node_twice "exit $st, want 2 naming jobs 1 and 2" "$tmp/err"
fi
printf '1 0-3,2\n' >"$tmp/twice1.txt"
run --topo fattree:k=4,n=3 --jobs "$tmp/twice1.txt"
if [ $st -eq 2 ] && grep -q "twice1.txt:1: job 1 lists node 2 twice$" "$tmp/err"; then
	pass jobs_file_node_listed_twice
else
	flunk jobs_file_node_listed_twice "exit $st" "$tmp/err"
fi
# ... in live data (squeue: OverSubscribe= partitions do it) a finding:
# job 104 on n[50-51] inside 103's n[48-51] (by hand); --check fails,
# neither is isolated.
run --topo $CONF squeue_twice.json --check
if [ $st -eq 1 ] && grep -q '^shared nodes: 2$' "$tmp/out" &&
   grep -q '^n50  *103,104$' "$tmp/out" && grep -q '^n51  *103,104$' "$tmp/out" &&
   grep -q '^104  .* no  ' "$tmp/out" && grep -q '^101  .* yes  ' "$tmp/out"; then
	pass check_shared_node
else
	flunk check_shared_node "exit $st, want 1 and n50, n51 held by 103,104" "$tmp/out"
fi
run --topo $CONF squeue_twice.json --json
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1]));
assert d["shared_nodes"] == 2
assert [(x["node"], x["jobs"]) for x in d["nodes_held_twice"]] == [("n50", [103, 104]), ("n51", [103, 104])]
assert [j["isolated"] for j in d["jobs"] if j["id"] in (103, 104)] == [False, False]' "$tmp/out"; then
	pass shared_node_json
else
	flunk shared_node_json "nodes_held_twice" "$tmp/out"
fi

# Which job broke whose isolation: with topo.conf's partition policies,
# job 102 (batch, fattree-pods) shares 64 of its 80 links (by hand, see
# the top) with 103, which runs in the clustered partition clus.
run --topo report_policy.conf squeue_broken.json
if [ $st -eq 0 ] &&
   grep -q '^isolation broken: 1 job placed isolated shares links$' "$tmp/out" &&
   grep -q '^  job 102 (batch, fattree-pods:large=pods,rule=links): 64 of its 80 links used by 103 (clus, clustered:seed=1,scatter=10)$' "$tmp/out"; then
	pass broken_by
else
	flunk broken_by "job 102 broken by 103" "$tmp/out"
fi
run --topo report_policy.conf squeue_broken.json --json
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1]));
assert [(b["job"], b["partition"], [(x["job"], x["partition"], x["isolating"]) for x in b["by"]]) for b in d["broken"]] == [(102, "batch", [(103, "clus", False)])]' "$tmp/out"; then
	pass broken_by_json
else
	flunk broken_by_json "broken" "$tmp/out"
fi

# What select/topo recorded of each placement (AdminComment placement=,
# select_topo(8)) decides who broke isolation: 102 placed shared by
# design (it shares 64 links with 103, as above) is no breach; the same
# 102 placed isolated is, unless 103 (placed after it) was placed shared.
# 101 isolated shares nothing; 104 has no record.
placed() {
	python3 - squeue_broken.json "$1" "${2- placement=oblivious}" \
		>"$tmp/placed.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
c = {101: " placement=isolated",
     102: sys.argv[2],
     103: sys.argv[3]}
for j in d["jobs"]:
    if j["job_id"] in c:
        j["admin_comment"] = "topo: model=jm rate=1.0" + c[j["job_id"]]
json.dump(d, sys.stdout)
PY
}
placed ' placement=shared why="shared: job 103 spans pods"'
run --topo report_policy.conf "$tmp/placed.json"
if [ $st -eq 0 ] && ! grep -q '^isolation broken' "$tmp/out" &&
   grep -q '^placed by select/topo: 1 isolated, 1 shared by design, 1 oblivious, 1 not recorded$' "$tmp/out" &&
   grep -q '^102 .* no        shared    103$' "$tmp/out" &&
   grep -q '^  job 102: shared: job 103 spans pods$' "$tmp/out"; then
	pass placed_shared
else
	flunk placed_shared "102 shared by design" "$tmp/out"
fi
run --topo report_policy.conf "$tmp/placed.json" --json
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1]));
j = {x["id"]: x for x in d["jobs"]}
assert d["broken"] == [] and d["placements"] == {"isolated": 1, "shared": 1, "oblivious": 1, "unknown": 1}
assert j[102]["placement"] == "shared" and j[102]["placement_why"] == "shared: job 103 spans pods"
assert j[101]["placement"] == "isolated" and j[104]["placement"] is None' "$tmp/out"; then
	pass placed_shared_json
else
	flunk placed_shared_json "placements" "$tmp/out"
fi
placed ' placement=isolated'
run --topo report_policy.conf "$tmp/placed.json" --json
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1]));
assert [(b["job"], [x["job"] for x in b["by"]]) for b in d["broken"]] == [(102, [103])]' "$tmp/out"; then
	pass placed_isolated_broken
else
	flunk placed_isolated_broken "102 placed isolated, shares" "$tmp/out"
fi
placed ' placement=isolated' ' placement=shared why="shared: spans pods"'
run --topo report_policy.conf "$tmp/placed.json" --json
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1]));
assert d["broken"] == [] and d["placements"]["shared"] == 1 and d["placements"]["isolated"] == 2' "$tmp/out"; then
	pass placed_isolated_then_shared
else
	flunk placed_isolated_then_shared "103 placed shared over 102" "$tmp/out"
fi

# the SVG picture: well-formed (xmllint when installed; the unit test
# test_linkshare parses it with its own checker), with the numbers
run --topo $CONF squeue_running.json --svg "$tmp/r.svg"
if grep -q '^<svg ' "$tmp/r.svg" && tail -n 1 "$tmp/r.svg" | grep -q '</svg>' &&
   grep -q 'MLS 80.00 %, TLS 38.10 %' "$tmp/r.svg" &&
   grep -q 'job 102: 8 nodes, 80 links, 64 shared (80.0 %) with job 103' \
	"$tmp/r.svg" &&
   [ "$(grep -c '<title>node ' "$tmp/r.svg")" -eq 64 ]; then
	pass svg
else
	flunk svg "not the SVG worked out"
fi
if command -v xmllint >/dev/null 2>&1; then
	if xmllint --noout "$tmp/r.svg"; then
		pass svg_xmllint
	else
		flunk svg_xmllint "not well-formed XML"
	fi
fi

expect_fail bad_name 2 \
	"squeue_badnode.json: jobs[1]: job 302: node 'gpu1' is not in topo.conf NodeName=" \
	-- --topo $CONF squeue_badnode.json
expect_fail bad_jobs_line 2 \
	"report_bad.txt:2: job 202: node 'n99' is not in topo.conf" \
	-- --topo $CONF --jobs report_bad.txt
expect_fail names_without_conf 2 "need a topo.conf with NodeName=" \
	-- --topo fattree:k=4,n=3 squeue_running.json
expect_fail out_of_range 2 "bad node list '60-70'" \
	-- --topo fattree:k=4,n=3 --jobs /dev/stdin <<EOT
1 60-70
EOT
expect_fail bad_json 2 "report_topo.conf:1: bad JSON" \
	-- --topo $CONF report_topo.conf
expect_fail bad_conf_policy 2 \
	"bad_policy_topology.conf:3: policy 'dragonfly-groups' of partition batch" \
	-- --topo bad_policy_topology.conf --jobs report_jobs.txt
expect_fail no_topo 2 "--topo SPEC is required" -- squeue_running.json
expect_fail both 2 "not both" \
	-- --topo $CONF squeue_running.json --jobs report_jobs.txt
expect_fail no_file 2 "nothere.json: No such file" -- --topo $CONF nothere.json
if "$STOPO" report --help | grep -q -- "--svg"; then
	pass help
else
	flunk help "--help does not mention --svg"
fi
finish
