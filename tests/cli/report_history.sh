#!/bin/sh
# report_history.sh - stopo report --history on a log written by hand
# (tests/data/history_topo_jobs.log, select/topo's record format: two
# days, 2026-11-30 and 2026-12-01, three partitions, and one start on
# each side of them), run times from tests/data/history_sacct.json.
# Worked out by hand:
#   11-30 batch: 11 isolated; 12 and 13 share 64 links each (64/80,
#         64/120; their records name the partners: 12 with 31, still
#         running from 11-29, 13 with 12 and 31, as shares_with= says):
#         3 started, 1 isolated (33.33 %), 2 sharing links;
#         node-hours 8 nodes * 1800 s (12) + 8 * 3600 s (13, end - start:
#         no elapsed) = 4 + 8 = 12.00
#   11-30 debug: 15 failed to be evaluated: 1 started, 0 isolated
#   11-30 gpu:   14 isolated: 1, 1, 100 %
#   12-01 batch: 21 isolated, 22 shares 4 of 16 links, 4 nodes * 900 s =
#         1.00 node-hour (22's record predates shares_with=: no link
#         partner named)
#   12-01 debug: 25 (no partition= in its record: sacct's) isolated
#   12-01 gpu:   23 shares a node with 14 (no link): not isolated, no
#         node-hours of link sharing, named by node_shares_with=; 24
#         isolated: 2, 1, 50 %
# 41 (12-02) shares links with 18 jobs: its record names 16, then +2.
# --since 2026-11-30 leaves out job 31 (11-29), --until 2026-12-02 job 41.
. "$top_srcdir/tests/cli/lib.sh"
cli_setup report ""
cd "$data" || exit 99
LOG=history_topo_jobs.log
H="--history --since 2026-11-30 --until 2026-12-02 --sacct history_sacct.json"

cat >"$tmp/want" <<'WANT'
history_topo_jobs.log: 10 job starts, 2026-11-30 to 2026-12-01

DAY         PARTITION    STARTED ISOLATED ISOLATED%  SHARED SHARED_NODE_H
2026-11-30  batch              3        1     33.33       2         12.00
2026-11-30  debug              1        0      0.00       0          0.00
2026-11-30  gpu                1        1    100.00       0          0.00
2026-12-01  batch              2        1     50.00       1          1.00
2026-12-01  debug              1        1    100.00       0          0.00
2026-12-01  gpu                2        1     50.00       0          0.00

most shared jobs (links shared of the job's, with whom; nodes held with other jobs):
2026-11-30  batch        job 12 (8 nodes): 64 of 80 links with job(s) 31
2026-11-30  batch        job 13 (8 nodes): 64 of 120 links with job(s) 12,31
2026-12-01  batch        job 22 (4 nodes): 4 of 16 links
2026-12-01  gpu          job 23 (1 nodes): 0 of 0 links, 1 nodes with job(s) 14
WANT
if run $H $LOG; then
	if diff -u "$tmp/want" "$tmp/out"; then
		pass text
	else
		flunk text "differs from the figures worked out by hand"
	fi
else
	flunk text "exit $st" "$tmp/err"
fi

# --json: the same figures (one row checked whole, the rest by count)
if run $H --json $LOG &&
	python3 - "$tmp/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
rows = {(r["day"], r["partition"]): r for r in d["days"]}
assert d["records"] == 10 and len(rows) == 6, d
b = rows[("2026-11-30", "batch")]
assert (b["started"], b["isolated"], b["shared_links_jobs"]) == (3, 1, 2), b
assert abs(b["isolated_share"] - 1 / 3) < 1e-12, b
assert b["shared_node_hours"] == 12.0, b
assert [j["job"] for j in b["most_shared"]] == [12, 13], b
assert [j["shares_with"] for j in b["most_shared"]] == ["31", "12,31"], b
assert rows[("2026-12-01", "batch")]["most_shared"][0]["shares_with"] == ""
g = rows[("2026-12-01", "gpu")]["most_shared"][0]
assert (g["job"], g["node_shared"], g["node_shares_with"]) == (23, 1, "14"), g
assert g["shares_with"] == "", g
assert rows[("2026-12-01", "debug")]["shared_node_hours"] == 0.0
PY
then
	pass json
else
	flunk json "exit $st or wrong figures" "$tmp/out" "$tmp/err"
fi

# without sacct: node-hours unknown ("-", null), job 25 in partition "-"
if run --history $LOG && grep -q '^2026-11-30  batch              3        1     33.33       2             -$' "$tmp/out" &&
	grep -q '^2026-12-01  -                  1 ' "$tmp/out" &&
	grep -qx '2026-11-29  batch        job 31 (4 nodes): 8 of 8 links with job(s) 30' "$tmp/out" &&
	grep -qx '2026-12-02  batch        job 41 (2 nodes): 4 of 4 links with job(s) 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,+2' "$tmp/out" &&
	grep -q '^history_topo_jobs.log: 12 job starts, 2026-11-29 to 2026-12-02$' "$tmp/out"; then
	pass no_sacct
else
	flunk no_sacct "exit $st" "$tmp/out" "$tmp/err"
fi

# the chart: rendered by rsvg-convert, points worked out by hand
if command -v rsvg-convert >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1; then
	. "$top_srcdir/tests/cli/charts_lib.sh"
	# 3 panels: 90 + 2 * 360 = 810 px.  Partitions by name: batch
	# #4477aa, debug #ee6677, gpu #228833.  x: day 0 at 80 (+600 in
	# column 1), day 1 at 570; halfway 325.
	if run $H --svg "$tmp/h.svg" $LOG; then
		render history "$tmp/h.svg" 1200 810
		# panel 0, jobs started (y 0..5 over 130..390): batch 3 -> 2,
		# halfway 2.5 -> y 260; gpu 1 -> 2: 1.5 -> 312; debug 1 -> 338
		pixel started_batch history 325,260 '#4477aa' "2.5 halfway"
		pixel started_gpu history 325,312 '#228833' "1.5 halfway"
		pixel started_debug history 325,338 '#ee6677' "1 all along"
		# panel 1, % isolated (0..100): gpu 100 -> 50: 75 % -> y 195;
		# batch 33.3 -> 50: 41.7 % -> 281.7; debug 0 -> 100: 50 % -> 260
		pixel iso_gpu history 925,195 '#228833' "75 % halfway"
		pixel iso_batch history 925,282 '#4477aa' "41.7 % halfway"
		pixel iso_debug history 925,260 '#ee6677' "50 % halfway"
		# panel 2 (oy 450), node-hours (0..20 over 490..750): batch
		# 12 -> 1, halfway 6.5 -> 490 + 13.5 / 20 * 260 = 665.5
		pixel nodeh_batch history 325,666 '#4477aa' "6.5 node-h halfway"
	else
		flunk history "exit $st" "$tmp/err"
	fi
else
	echo "skip chart: no rsvg-convert or python3"
fi

# bad input: FILE:LINE: what, exit 2
printf '2026-11-30T08:00:00+0000 job=1 nodes=2 links=4 shared=0\nyesterday job=2 nodes=1\n' >"$tmp/bad.log"
expect_fail -x bad_time 2 "$tmp/bad.log:2: want a time YYYY-MM-DDTHH:MM:SS+hhmm first" -- \
	--history "$tmp/bad.log"
printf '\n2026-11-30T08:00:00+0000 job=1 nodes=two\n' >"$tmp/bad2.log"
expect_fail -x bad_number 2 "$tmp/bad2.log:2: want a whole number" -- \
	--history "$tmp/bad2.log"
printf '2026-11-30T08:00:00+0000 job=1 nodes=1 why="open\n' >"$tmp/bad3.log"
expect_fail -x bad_quote 2 "$tmp/bad3.log:1: a quoted value without its end" -- \
	--history "$tmp/bad3.log"
printf '2026-11-30T08:00:00+0000 links=3\n' >"$tmp/bad4.log"
expect_fail -x not_a_start 2 "$tmp/bad4.log:1: not a job start (no job= or nodes=)" -- \
	--history "$tmp/bad4.log"
expect_fail -x bad_since 2 "--since/--until: want YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS" -- \
	--history --since yesterday $LOG
# without LOG: StateSaveLocation/topo_jobs.log, as scontrol (here a
# stand-in) says; no such line: said so
mkdir "$tmp/bin" "$tmp/state"
cp "$LOG" "$tmp/state/topo_jobs.log"
printf '#!/bin/sh\necho "SLURM_VERSION           = 22.05.8"\necho "StateSaveLocation       = %s"\n' \
	"$tmp/state" >"$tmp/bin/scontrol"
chmod +x "$tmp/bin/scontrol"
if PATH="$tmp/bin:$PATH" run --history --sacct history_sacct.json &&
	grep -qx "$tmp/state/topo_jobs.log: 12 job starts, 2026-11-29 to 2026-12-02" "$tmp/out"; then
	pass default_log
else
	flunk default_log "exit $st" "$tmp/out" "$tmp/err"
fi
printf '#!/bin/sh\necho "SLURM_VERSION = 22.05.8"\n' >"$tmp/bin/scontrol"
PATH="$tmp/bin:$PATH" expect_fail -x no_log 2 "--history: give the log (StateSaveLocation/topo_jobs.log: 'scontrol show config' did not say it)" -- \
	--history
expect_fail -x since_alone 2 "--since, --until and --sacct go with --history" -- \
	--topo fattree:k=4,n=3 --since 2026-11-30
printf '{"jobs": 3}' >"$tmp/sacct.json"
expect_fail -x bad_sacct 2 "$tmp/sacct.json:1: not sacct --json output (no \"jobs\" array)" -- \
	--history --sacct "$tmp/sacct.json" $LOG
finish
