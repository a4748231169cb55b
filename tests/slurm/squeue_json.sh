#!/bin/bash
# squeue --json of this Slurm release (data_parser v0.0.38 in 22.05,
# v0.0.42 in 24.11, v0.0.44 in 25.11, v0.0.45 in 26.05), read by stopo
# report and stopo whatif.  Under plain cons_tres, jobs placed with -w on
# the fat-tree k=4, n=3 as tests/data/squeue_running.json has them (the
# queue report.sh's hand-checked figures are for): pod0 n[0-15], straddle
# n[16-19,32-35] and cross n[20-21,36-37,48-51] (sharing 64 links: MLS
# 80 %, TLS 64 of 168 = 38.10 %), pair n[60-61], and big (40 nodes)
# pending behind them.  SQUEUE_FIXTURE_DIR=DIR keeps the capture there
# as squeue_captured_SERIES.json (how tests/data's were made).
. "$(dirname "$0")/lib.sh"
require_cluster
have_report || skip "stopo report not built"

cat > "$TDIR/topo.conf" <<'CONF'
Topology=fattree k=4 n=3
NodeName=n[0-63]
CONF
cluster_start cons_tres "$TDIR/topo.conf"
for spec in "pod0 16 n[0-15]" "straddle 8 n[16-19,32-35]" \
	"cross 8 n[20-21,36-37,48-51]" "pair 2 n[60-61]" "big 40"; do
	set -- $spec
	id=$(sbatch --parsable -J "$1" -N "$2" ${3:+-w "$3"} -t 60 -o /dev/null \
		--wrap "sleep 300") || fail "sbatch $spec"
	[ "$1" = big ] || started "$id" || fail "$1 did not start"
done
sleep 1
squeue --json > "$TDIR/q.json" || fail "squeue --json"
if [ -n "${SQUEUE_FIXTURE_DIR:-}" ]; then
	cp "$TDIR/q.json" "$SQUEUE_FIXTURE_DIR/squeue_captured_$(echo "$SLURM_SERIES" | tr -d .).json"
fi
scancel -u root

"$STOPO" report --json --topo "$TDIR/topo.conf" "$TDIR/q.json" >"$TDIR/r.json" 2>"$TDIR/r.err" ||
	fail "stopo report: $(cat "$TDIR/r.err")"
/usr/bin/python3 - "$TDIR/r.json" <<'EOF' || fail "stopo report on Slurm $SLURM_SERIES's squeue --json: $(cat "$TDIR/r.json")"
import json, sys
r = json.load(open(sys.argv[1]))
assert abs(r["mls"] - 80.0) < 1e-9, r["mls"]
assert abs(r["tls"] - 100.0 * 64 / 168) < 1e-9, r["tls"]
assert len(r["jobs"]) == 4, len(r["jobs"])
shared = sorted(j["nodes"] for j in r["jobs"] if j["shared"])
assert shared == [8, 8], shared
EOF
"$STOPO" whatif --quiet --no-rates --json --topo "$TDIR/topo.conf" \
	--workload "$TDIR/q.json" --policy linear >"$TDIR/w.json" 2>"$TDIR/w.err" ||
	fail "stopo whatif: $(cat "$TDIR/w.err")"
/usr/bin/python3 - "$TDIR/w.json" <<'EOF' || fail "stopo whatif on Slurm $SLURM_SERIES's squeue --json: $(head -c 600 "$TDIR/w.json")"
import json, sys
w = json.load(open(sys.argv[1]))
assert w["jobs"] == 5 and w["skipped"] == 0, (w["jobs"], w["skipped"])
assert w["policies"][0]["jobs"] == 5, w["policies"][0]
EOF
note "Slurm $SLURM_SERIES: stopo report (MLS 80 %, TLS 38.10 %) and whatif (5 jobs) read squeue --json"
echo "PASS"
