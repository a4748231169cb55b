#!/bin/sh
# issue47.sh STOPO SRCDIR - make bench's part of issue 47 (stopo whatif
# on real workloads, run times moved by interference), numbers against
# the issue's targets:
#   1. the shared traces (../shared/workloads, --scale auto on the
#      smallest 3-level fat-tree that holds their MaxNodes, ecmp): each
#      isolating policy's mean wait and utilisation as ratios to linear's
#      (target: wait within 1.25x at 98 % of linear's utilisation),
#      and under each trace its jobs that span pods alone
#      (isolation_rounding.sh: what rounding them to whole pods, which
#      isolating them implies, costs their waits); then each trace on
#      its own machine's network at its node count (the SP2 switch as a
#      4-ary tree, bench/ktree_graph.py; HPC2N's SCI torus, -c 2);
#   2. HPC2N's 202,871 jobs on fattree:k=18,n=3 --no-rates: fattree-pods'
#      wall time against linear's in the same run (target: within 2x);
#   3. --comm-fraction 0.3 --model hm on the 10,000-job workload, the
#      11,130-node dragonfly under ugal, four policies (target: 60 s),
#      and the same with jm on the first 300 jobs (stopped after
#      JM_LIMIT seconds, default 600); then linear alone with hm on one
#      thread and on every core (its ratings shared out among them:
#      the same output).
# Each part is skipped when its workload is missing.
set -eu
stopo=${1:?usage: issue47.sh STOPO SRCDIR}
src=${2:?usage: issue47.sh STOPO SRCDIR}
wl=${WORKLOADS:-$src/../shared/workloads}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "== issue 47: isolating policies beside linear on the shared traces (--no-rates)"
printf '%-8s %-16s %-26s %10s %9s %8s %8s\n' trace topology policy "wait s" "x linear" util% "% lin"
for t in KTH-SP2-1996-2.1-cln:5 SDSC-SP2-1998-4.2-cln:6 HPC2N-2002-2.2-cln:7; do
	f=$wl/${t%:*}.swf.gz k=${t#*:}
	[ -f "$f" ] || { echo "   $f not found, skipped"; continue; }
	gzip -dc "$f" >"$tmp/w.swf"
	"$stopo" whatif --quiet --no-rates --skip-bad --json \
		--topo "fattree:k=$k,n=3" --workload "$tmp/w.swf" --scale auto \
		--policy linear,fattree-pods,fattree-pods:rule=paper \
		2>/dev/null >"$tmp/out.json"
	python3 - "${t%%-*}" "fattree:k=$k,n=3" "$tmp/out.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[3]))
lin = d["policies"][0]
for p in d["policies"]:
    print("%-8s %-16s %-26s %10.1f %9.2f %8.2f %8.1f" % (
        sys.argv[1], sys.argv[2], p["policy"], p["mean_wait"],
        p["mean_wait"] / lin["mean_wait"], 100 * p["utilization"],
        100 * p["utilization"] / lin["utilization"]))
PY
	echo "   its jobs above a pod alone (count, % of node-seconds; wait s, x linear, util%):"
	sh "$src/bench/isolation_rounding.sh" "$stopo" "$tmp/w.swf" "$k" |
		sed 's/^/   /'
done

echo "== issue 47: the same traces on the traced machine's own network, its node count, --scale auto = 1 (target: wait within 1.25x at >= 98 % of linear's utilisation)"
echo "   KTH-SP2, SDSC-SP2: the SP2 switch, a 4-ary tree of 8-port chips (bench/ktree_graph.py 4 4 NODES), ecmp;"
echo "   HPC2N: Seth's SCI 3-D torus of 120 dual nodes (torus:dims=4x5x6, -c 2), dor"
printf '%-8s %-24s %-26s %10s %9s %8s %8s\n' trace network policy "wait s" "x linear" util% "% lin"
for t in KTH-SP2-1996-2.1-cln:100 SDSC-SP2-1998-4.2-cln:128 HPC2N-2002-2.2-cln:torus; do
	f=$wl/${t%:*}.swf.gz m=${t#*:}
	[ -f "$f" ] || { echo "   $f not found, skipped"; continue; }
	gzip -dc "$f" >"$tmp/w.swf"
	if [ "$m" = torus ]; then
		set -- --topo torus:dims=4x5x6 -c 2 \
			--policy linear,mesh-blocks
		net=torus:dims=4x5x6
	else
		python3 "$src/bench/ktree_graph.py" 4 4 "$m" >"$tmp/tree.conf"
		set -- --topo "$tmp/tree.conf" --routing ecmp \
			--policy linear,fattree-pods,fattree-pods:rule=paper
		net="4-ary 4-tree, $m nodes"
	fi
	"$stopo" whatif --quiet --no-rates --skip-bad --json \
		--workload "$tmp/w.swf" --scale auto "$@" \
		2>/dev/null >"$tmp/out.json"
	python3 - "${t%%-*}" "$net" "$tmp/out.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[3]))
lin = d["policies"][0]
for i, p in enumerate(d["policies"]):
    x = p["mean_wait"] / lin["mean_wait"]
    u = p["utilization"] / lin["utilization"]
    print("%-8s %-24s %-26s %10.1f %9.3f %8.2f %8.1f%s" % (
        sys.argv[1], sys.argv[2], p["policy"], p["mean_wait"], x,
        100 * p["utilization"], 100 * u,
        "" if i != 1 else
        ("  met" if x <= 1.25 and u >= 0.98 else "  MISSED")))
PY
done

f=$wl/HPC2N-2002-2.2-cln.swf.gz
if [ -f "$f" ]; then
	echo "== issue 47: HPC2N (202,871 jobs), --scale auto, fattree:k=18,n=3, --no-rates (target: fattree-pods within 2x of linear)"
	gzip -dc "$f" >"$tmp/h.swf"
	"$stopo" whatif --no-rates --progress 100000 --topo fattree:k=18,n=3 \
		--workload "$tmp/h.swf" --scale auto --policy linear,fattree-pods \
		2>"$tmp/err" >/dev/null
	awk '/done in/ { sub(/:$/, "", $3); t[$3] = $(NF - 1) }
	END { printf "   linear %.1f s, fattree-pods %.1f s: %.2fx (%s)\n",
		t["linear"], t["fattree-pods"], t["fattree-pods"] / t["linear"],
		t["fattree-pods"] <= 2 * t["linear"] ? "met" : "MISSED" }' "$tmp/err"
fi

swf=$wl/lublin_256.swf
if [ -f "$swf" ]; then
	echo "== issue 47: --comm-fraction 0.3, 4 policies x 10,000 jobs, dragonfly:p=7,a=15,h=8,g=106, ugal (target 60 s with hm)"
	# jm rates a running job by an LP over its flows at every start and
	# end: it gets JM_LIMIT seconds (default 600), then is stopped
	for m in "hm" "jm -n 300"; do
		lim=0
		[ "$m" = hm ] || lim=${JM_LIMIT:-600}
		t0=$(date +%s)
		rc=0
		# shellcheck disable=SC2086
		timeout "$lim" "$stopo" whatif --topo dragonfly:p=7,a=15,h=8,g=106 \
			--routing ugal:intra=local --workload "$swf" --scale auto \
			--quiet --comm-fraction 0.3 --model $m \
			--policy linear,clustered,dragonfly-groups,dragonfly-groups:large=shared \
			>"$tmp/out" || rc=$?
		t1=$(date +%s)
		if [ "$rc" = 124 ]; then
			echo "   --model $m: not finished after $lim s (JM_LIMIT)"
			continue
		fi
		[ "$rc" = 0 ] || exit "$rc"
		grep -E '^(policy|mean turnaround|jobs killed)' "$tmp/out"
		echo "   --model $m: $((t1 - t0)) s wall on $(nproc) cores"
	done
	# one policy's ratings shared out among its threads: linear on one
	# thread and on every core, the same output (times aside)
	n=$(nproc)
	if [ "$n" -gt 1 ]; then
		for th in 1 "$n"; do
			t0=$(date +%s)
			"$stopo" whatif --topo dragonfly:p=7,a=15,h=8,g=106 \
				--routing ugal:intra=local --workload "$swf" \
				--scale auto --quiet --comm-fraction 0.3 --model hm \
				--policy linear --threads "$th" --json |
				grep -v '"seconds"' >"$tmp/lin$th.json"
			echo "   --model hm, linear alone on $th thread(s): $(($(date +%s) - t0)) s wall"
		done
		cmp -s "$tmp/lin1.json" "$tmp/lin$n.json" ||
			{ echo "   linear on 1 and $n threads differ"; exit 1; }
	fi
fi
