#!/bin/bash
# stopo report --history against real daemons: on fattree k=4,n=3 (64
# nodes), jobs of two partitions, batch (fattree-pods: isolated) and open
# (linear: contiguous nodes, sharing leaf links), started one at a time;
# right after each start `stopo report` samples the running jobs.  The
# history of the run, read from the plugin's topo_jobs.log, agrees with
# the samples: per partition the jobs started, those isolated and those
# sharing links, and every sharing job's shared and total links and the
# jobs it shared links with (the record's shares_with=) are what the
# sample taken at its start said of it.
. "$(dirname "$0")/lib.sh"
require_cluster
have_report || skip "stopo report not built"

cat > "$TDIR/topo.conf" <<'CONF'
Topology=fattree k=4 n=3
NodeName=n[0-63]
PartitionPolicy=batch:fattree-pods:rule=paper
PartitionPolicy=open:linear
CONF

SLURM_EXTRA='PartitionName=open Nodes=ALL MaxTime=INFINITE State=UP OverSubscribe=EXCLUSIVE' \
	cluster_start topo "$TDIR/topo.conf"

# partition:nodes of each job, in start order; open's 6-node jobs span
# leaves (linear), so the later ones share leaf links with earlier ones
jobs="batch:4 open:6 open:6 batch:16 open:6 batch:4 open:2"
k=0
: > "$TDIR/samples"
for spec in $jobs; do
	k=$((k + 1))
	id=$(submit "${spec#*:}" 300 -p "${spec%%:*}") || fail "sbatch ($spec)"
	started "$id" || fail "job $id ($spec) did not start: $(field "$id" Reason)"
	squeue --json > "$TDIR/snap.$k.json" || fail "squeue --json"
	"$STOPO" report --json --topo "$TDIR/topo.conf" "$TDIR/snap.$k.json" \
		> "$TDIR/report.$k.json" 2>"$TDIR/report.err" ||
		fail "stopo report: $(cat "$TDIR/report.err")"
	# the sample of the job just started: ID PARTITION LINKS SHARED
	# ISOLATED PARTNERS (the jobs sharing its links, "-" when none)
	python3 - "$TDIR/report.$k.json" "$id" "${spec%%:*}" >> "$TDIR/samples" <<'PY' ||
import json, sys
d = json.load(open(sys.argv[1]))
j = [x for x in d["jobs"] if x["id"] == int(sys.argv[2])][0]
print(j["id"], sys.argv[3], j["links"], j["shared"], int(j["isolated"]),
      ",".join(str(x) for x in j["shares_with"]) or "-")
PY
		fail "job $id not in the report of its start"
done
note "samples (id partition links shared isolated partners):"
sed 's/^/#   /' "$TDIR/samples"

log=$TDIR/c/state/topo_jobs.log
for _ in $(seq 1 40); do
	[ "$(grep -c " job=" "$log" 2>/dev/null)" -ge $k ] && break
	sleep 0.5
done
[ "$(grep -c " job=" "$log")" = $k ] || fail "not one record per start: $(cat "$log")"
"$STOPO" report --history --top 0 --json "$log" > "$TDIR/history.json" 2>"$TDIR/history.err" ||
	fail "stopo report --history: $(cat "$TDIR/history.err")"
"$STOPO" report --history --top 0 "$log" | sed 's/^/#   /'

python3 - "$TDIR/history.json" "$TDIR/samples" <<'PY' || fail "the history disagrees with the samples"
import json, sys
h = json.load(open(sys.argv[1]))
samples = [l.split() for l in open(sys.argv[2])]
want = {}
for sid, part, links, shared, iso, partners in samples:
    w = want.setdefault(part, {"started": 0, "isolated": 0, "shared": 0, "jobs": {}})
    w["started"] += 1
    w["isolated"] += int(iso)
    if int(shared):
        w["shared"] += 1
        w["jobs"][int(sid)] = (int(links), int(shared), partners)
got = {}
for r in h["days"]:  # one day, unless the run spans midnight
    g = got.setdefault(r["partition"], {"started": 0, "isolated": 0, "shared": 0, "jobs": {}})
    g["started"] += r["started"]
    g["isolated"] += r["isolated"]
    g["shared"] += r["shared_links_jobs"]
    for j in r["most_shared"]:
        if j["shared"]:
            g["jobs"][j["job"]] = (j["links"], j["shared"], j["shares_with"] or "-")
ok = got == want
print("# history:", got)
print("# samples:", want)
shared = sum(w["shared"] for w in want.values())
isolated = sum(w["isolated"] for w in want.values())
if not (shared and isolated):
    print("# the run must have jobs isolated and jobs sharing to tell")
    ok = False
# a partner named in a record is a job of the run started before it
ids = [int(l[0]) for l in samples]
for p in want.values():
    for sid, (_, _, partners) in p["jobs"].items():
        if partners == "-" or not all(
                int(x) in ids[:ids.index(sid)] for x in partners.split(",")):
            print("# job %d: partners %s are not earlier jobs" % (sid, partners))
            ok = False
sys.exit(0 if ok else 1)
PY
# the records themselves: a job that shared links ends its record with
# shares_with= naming its sample's partners; one that did not has none
while read -r sid _ _ shared _ partners; do
	if [ "$shared" != 0 ]; then
		grep -q " job=$sid .* shares_with=$partners\$" "$log" ||
			fail "record of job $sid does not end shares_with=$partners: $(grep " job=$sid " "$log")"
	elif grep " job=$sid " "$log" | grep -q " shares_with="; then
		fail "record of job $sid (no link shared) names partners: $(grep " job=$sid " "$log")"
	fi
done < "$TDIR/samples"
# without LOG: the cluster's StateSaveLocation, as scontrol says
"$STOPO" report --history --top 0 --json > "$TDIR/history_default.json" ||
	fail "stopo report --history without LOG"
cmp -s "$TDIR/history.json" "$TDIR/history_default.json" ||
	fail "--history without LOG read another log: $(diff "$TDIR/history.json" "$TDIR/history_default.json")"
# the chart of the run renders
"$STOPO" report --history --svg "$TDIR/history.svg" "$log" >/dev/null ||
	fail "--history --svg"
if command -v rsvg-convert >/dev/null; then
	rsvg-convert -o "$TDIR/history.png" "$TDIR/history.svg" 2>"$TDIR/rsvg.err" &&
		[ ! -s "$TDIR/rsvg.err" ] || fail "rsvg-convert: $(cat "$TDIR/rsvg.err")"
fi
# --metrics now (every job still runs: nothing changed since the last
# sample): promtool accepts it, and MLS, TLS and the jobs isolated and
# shared per partition are the last sample's
"$STOPO" report --topo "$TDIR/topo.conf" --metrics > "$TDIR/stopo.prom" ||
	fail "stopo report --metrics"
if command -v promtool >/dev/null; then
	promtool check metrics < "$TDIR/stopo.prom" ||
		fail "promtool check metrics: $(cat "$TDIR/stopo.prom")"
fi
python3 - "$TDIR/stopo.prom" "$TDIR/report.$k.json" "$TDIR/samples" <<'PY' ||
import json, sys
got = {}
for l in open(sys.argv[1]):
    if not l.startswith("#"):
        name, value = l.rsplit(" ", 1)
        got[name] = float(value)
d = json.load(open(sys.argv[2]))
part = {int(l.split()[0]): l.split()[1] for l in open(sys.argv[3])}
want = {"stopo_mls_ratio": round(d["mls"] / 100, 6),
        "stopo_tls_ratio": round(d["tls"] / 100, 6)}
for j in d["jobs"]:
    k = 'stopo_jobs_running{partition="%s",sharing="%s"}' % (
        part[j["id"]], "isolated" if j["isolated"] else "shared")
    want[k] = want.get(k, 0) + 1
bad = {k: (v, got.get(k)) for k, v in want.items() if abs(got.get(k, -1) - v) > 1e-6}
print("# metrics:", {k: got[k] for k in want if k in got})
sys.exit(1 if bad else 0)
PY
	fail "--metrics disagrees with the last sample: $(cat "$TDIR/stopo.prom")"
scancel -u root >/dev/null 2>&1
wait_all 60 || fail "jobs did not end after scancel"
ctld_alive || fail "slurmctld died"
echo "PASS"
