#!/bin/bash
# A dragonfly (p=2,a=4,h=2,g=9: 72 nodes, 8 per group) whose topo.conf
# names no policy: every partition gets the family's default under its
# routing (ugal), dragonfly-balanced (stopo-policies(7)).  A mixed job
# stream with jobs that span groups while others run, which no isolating
# placement can start at once under UGAL's Valiant detours, must:
#   - complete, every job, and resolve to dragonfly-balanced;
#   - record for each start what the policy said (topo_jobs.log and the
#     job's AdminComment: placement=isolated or placement=shared why=...),
#     both kinds present;
#   - keep the claim exact: a job placed isolated shares no link at its
#     start (topo_jobs.log shared=0; the plugin logs an error otherwise),
#     and in every squeue snapshot `stopo report` finds no breach: every
#     link an isolated job shares is shared with a job placed shared;
#   - and show the sharing the policy predicted: some snapshot has a job
#     placed shared sharing links, with the policy's reason.
. "$(dirname "$0")/lib.sh"
require_cluster
have_report || skip "stopo report not built"

conf=$TDIR/dfly.conf
cat > "$conf" <<'CONF'
Topology=dragonfly p=2 a=4 h=2 g=9
NodeName=n[0-71]
CONF
"$STOPO" topo --topo "$conf" | grep -q '^default policy: *dragonfly-balanced ' ||
	fail "stopo topo does not name dragonfly-balanced as the default"

cluster_start topo "$conf" 72
WORKLOAD='0 16 4
0 6 3
0 4 3
0 2 3
0 1 2
0 16 3
1 8 2
0 3 2
1 24 2
0 2 2
1 5 2
0 1 2
0 12 2
0 6 2' run_workload balanced 180
all_completed balanced || fail "a job did not complete"
ctld_alive || fail "slurmctld died"

log=$TDIR/c/state/topo_jobs.log
njobs=$(wc -l < "$TDIR/balanced.jobs")
n=$(grep -c " policy=dragonfly-balanced " "$log")
[ "$n" = "$njobs" ] ||
	{ cat "$log" >&2; fail "$n of $njobs starts under dragonfly-balanced"; }
niso=$(grep -c " placement=isolated" "$log")
nsh=$(grep -c ' placement=shared why="shared: ' "$log")
note "starts: $niso placed isolated, $nsh placed shared"
[ "$niso" -ge 3 ] || { cat "$log" >&2; fail "only $niso placed isolated"; }
[ "$nsh" -ge 1 ] || { cat "$log" >&2; fail "no job placed shared"; }
[ $((niso + nsh)) = "$njobs" ] || { cat "$log" >&2; fail "a start without its placement"; }
bad=$(grep " placement=isolated" "$log" | grep -v " shared=0 " || true)
[ -z "$bad" ] || fail "placed isolated but sharing links at the start: $bad"
! grep -q "placed isolated by .* shares" "$TDIR/c/log/slurmctld.log" ||
	fail "the plugin found an isolated claim broken"

# Every snapshot through stopo report: no breach, and the shared ones seen.
# The plugin writes a start's record (AdminComment) from its evaluation
# worker, after the job runs: a snapshot taken in between shows a running
# job without a placement, against which no claim can be checked; such
# snapshots are counted and passed over (every start's record is checked
# in topo_jobs.log above), and most must be complete.
: > "$TDIR/seen"
: > "$TDIR/early"
nsnap=0
for f in "$TDIR"/snap.balanced.*.json; do
	[ -s "$f" ] || continue
	nsnap=$((nsnap + 1))
	"$STOPO" report --json --topo "$conf" "$f" > "$TDIR/rep.json" 2>"$TDIR/rep.err" ||
		{ cat "$TDIR/rep.err" >&2; fail "stopo report failed on $f"; }
	python3 - "$TDIR/rep.json" "$TDIR/early" >> "$TDIR/seen" <<'PY' || fail "isolation broken in $f: $(cat "$TDIR/rep.json")"
import json, sys
d = json.load(open(sys.argv[1]))
if d["placements"]["unknown"]:
    open(sys.argv[2], "a").write("%s\n" % sys.argv[1])
    sys.exit(0)
assert d["broken"] == [], d["broken"]
jobs = {j["id"]: j for j in d["jobs"]}
for j in jobs.values():
    assert j["placement"] in ("isolated", "shared"), j
    # the claim against the links: an isolated job shares only with
    # jobs placed shared (report's broken says the same, here by hand)
    if j["placement"] == "isolated":
        assert all(jobs[x]["placement"] == "shared" for x in j["shares_with"]), j
    if j["placement"] == "shared" and j["shared"] > 0:
        print(j["id"], j["shared"], j["placement_why"])
PY
done
nearly=$(wc -l < "$TDIR/early")
note "snapshots: $nsnap, $nearly taken before a start's record"
[ $((2 * nearly)) -lt "$nsnap" ] ||
	fail "$nearly of $nsnap snapshots lack a start's record"
note "shared placements seen sharing: $(sort -u -k1,1n "$TDIR/seen" | wc -l) job(s)"
[ -s "$TDIR/seen" ] || fail "no snapshot shows a job placed shared sharing links"
echo "PASS"
