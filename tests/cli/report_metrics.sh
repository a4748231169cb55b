#!/bin/sh
# report_metrics.sh - stopo report --metrics: the Prometheus text format,
# checked by promtool (Debian's prometheus package; that case skips
# without it), every value worked out by hand.
#
# tests/data/metrics_squeue.json is squeue_running.json (see report.sh)
# with the jobs in two partitions: long = 101 (pod 0, 32 links, none
# shared) and 103 (leaves 5, 9, 12: 120 links, 64 shared); short = 102
# (leaves 4, 8: 80 links, 64 shared) and 104 (one leaf, no link); 105
# pending.  Machine: MLS 64/80 = 0.8, TLS 64/168 = 0.380952.  long: MLS
# 64/120 = 0.533333, TLS 64 of its 32 + 120 links = 0.421053, one job
# isolated, one shared; short: MLS 0.8, TLS 64/80 = 0.8, one and one.
. "$top_srcdir/tests/cli/lib.sh"
cli_setup report ""
cd "$data" || exit 99

cat >"$tmp/want" <<'WANT'
stopo_mls_ratio 0.8
stopo_tls_ratio 0.380952
stopo_partition_mls_ratio{partition="long"} 0.533333
stopo_partition_mls_ratio{partition="short"} 0.8
stopo_partition_tls_ratio{partition="long"} 0.421053
stopo_partition_tls_ratio{partition="short"} 0.8
stopo_jobs_running{partition="long",sharing="isolated"} 1
stopo_jobs_running{partition="long",sharing="shared"} 1
stopo_jobs_running{partition="short",sharing="isolated"} 1
stopo_jobs_running{partition="short",sharing="shared"} 1
stopo_links_used 168
stopo_links_shared 64
stopo_nodes_shared 0
stopo_isolation_broken_jobs 0
WANT
if run --topo report_topo.conf metrics_squeue.json --metrics; then
	grep -v '^#' "$tmp/out" >"$tmp/values"
	if diff -u "$tmp/want" "$tmp/values"; then
		pass values
	else
		flunk values "values differ from the hand-worked ones"
	fi
	# every metric has its HELP and TYPE gauge once, before its samples
	for m in $(sed 's/[{ ].*//' "$tmp/want" | uniq); do
		[ "$(grep -c "^# TYPE $m gauge\$" "$tmp/out")" = 1 ] &&
			[ "$(grep -c "^# HELP $m " "$tmp/out")" = 1 ] ||
			flunk "type_$m" "no single HELP/TYPE for $m" "$tmp/out"
	done
	pass help_type
	if command -v promtool >/dev/null 2>&1; then
		if promtool check metrics <"$tmp/out" >"$tmp/lint" 2>&1; then
			pass promtool
		else
			flunk promtool "promtool check metrics" "$tmp/lint"
		fi
	else
		echo "skip promtool: not installed (Debian: prometheus)"
	fi
else
	flunk values "exit $st" "$tmp/err"
fi

# no jobs: zeros, still valid (the families with labels have no sample)
printf '' >"$tmp/none.txt"
if run --topo fattree:k=4,n=3 --jobs "$tmp/none.txt" --metrics &&
	grep -qx 'stopo_mls_ratio 0' "$tmp/out" &&
	grep -qx 'stopo_links_used 0' "$tmp/out" &&
	! grep -q '^stopo_jobs_running' "$tmp/out"; then
	pass empty
else
	flunk empty "exit $st or not zeros" "$tmp/out" "$tmp/err"
fi

# --history --metrics: counters over tests/data/history_topo_jobs.log
# (see report_history.sh), per partition, worked out by hand: batch
# starts 31 11 12 13 21 22 41 = 7, isolated 11 21 = 2, sharing links
# 31 12 13 22 41 = 5; gpu 14 23 24 = 3, isolated 14 24 = 2 (23 shares a
# node), none sharing links; debug 15 (failed: not isolated) 1, 0, 0;
# job 25 has no partition= ("-"): 1, 1, 0.
cat >"$tmp/want_c" <<'WANT'
stopo_job_starts_total{partition="-"} 1
stopo_job_starts_total{partition="batch"} 7
stopo_job_starts_total{partition="debug"} 1
stopo_job_starts_total{partition="gpu"} 3
stopo_job_starts_isolated_total{partition="-"} 1
stopo_job_starts_isolated_total{partition="batch"} 2
stopo_job_starts_isolated_total{partition="debug"} 0
stopo_job_starts_isolated_total{partition="gpu"} 2
stopo_job_starts_shared_links_total{partition="-"} 0
stopo_job_starts_shared_links_total{partition="batch"} 5
stopo_job_starts_shared_links_total{partition="debug"} 0
stopo_job_starts_shared_links_total{partition="gpu"} 0
WANT
if run --history --metrics history_topo_jobs.log; then
	grep -v '^#' "$tmp/out" >"$tmp/counters"
	if diff -u "$tmp/want_c" "$tmp/counters" &&
		[ "$(grep -c '^# TYPE stopo_job_starts[a-z_]*_total counter$' "$tmp/out")" = 3 ]; then
		pass counters
	else
		flunk counters "counters differ from the hand-worked ones" "$tmp/out"
	fi
	if command -v promtool >/dev/null 2>&1; then
		if promtool check metrics <"$tmp/out" >"$tmp/lint" 2>&1; then
			pass promtool_counters
		else
			flunk promtool_counters "promtool check metrics" "$tmp/lint"
		fi
	fi
else
	flunk counters "exit $st" "$tmp/err"
fi

expect_fail -x json_and_metrics 2 "give --json or --metrics, not both" -- \
	--topo report_topo.conf metrics_squeue.json --metrics --json
finish
