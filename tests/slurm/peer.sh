#!/bin/sh
# peer.sh - make check's pass of tests/slurm against the other Slurm
# series: `make check-slurm PEER=...` in each peer build tree (configure
# --with-peer-build=DIR:DIR..., scripts/setup.sh: _build24 for 24.11.5,
# _build2511, _build2605), all at once: tests/slurm/lib.sh lets
# STOPO_CLUSTERS (3) emulated clusters run together, and a peer's tests
# wait for a free one.  Which tests (plugin/local.mk): the newest series
# (the last peer) runs SLURM_SEAM, the tests of what the plugin and
# Slurm ask of each other, the others SLURM_SMOKE (loading, placement, a
# restart); every test runs against 22.05 in make check itself.
# PEER_TESTS=series runs all but SLURM_SERIES_FREE against every peer,
# PEER_TESTS=all every test: what make check ran before CI's machine
# took 3.6 times as long to build Slurm (README "Testing").  Passes when
# every test of every peer passes; a skip there is a failure here, as in
# CI.  Each peer's daemons must say they are its series (the version
# check below).
# SchedMD's python suite (make check-schedmd) runs against the newest
# series under fattree-pods (SCHEDMD_RUNS; its linear run, the second of
# make check-schedmd's default, adds parity.sh's check); SCHEDMD=yes
# runs it against every peer, SCHEDMD=no against none.  Its cons_tres
# baseline comes from tests/data/schedmd_base.txt where that file is of
# the suite and release (SCHEDMD_BASE=, empty, runs it).
# Environment (make check): PEER_BUILD, MAKE, SCHEDMD, SCHEDMD_RUNS,
# PEER_TESTS.
[ -n "${PEER_BUILD:-}" ] || { echo "PEER_BUILD not set (configure --with-peer-build)"; exit 99; }
# a make of its own per peer (not make check's jobserver)
unset MAKEFLAGS MFLAGS MAKELEVEL
SCHEDMD_BASE=${SCHEDMD_BASE-${top_srcdir:-.}/tests/data/schedmd_base.txt}
export SCHEDMD_BASE
SCHEDMD_RUNS=${SCHEDMD_RUNS:-fattree-pods}
export SCHEDMD_RUNS
case ${PEER_TESTS:-} in
'' | series | all) ;;
*) echo "PEER_TESTS=$PEER_TESTS: want series or all (or nothing)"; exit 99 ;;
esac
start=$(date +%s)
newest=${PEER_BUILD##*:}
pids=
old_ifs=$IFS
IFS=:
for peer in $PEER_BUILD; do
	IFS=$old_ifs
	(
		version=$(sed -n 's/^SLURM_VERSION = //p' "$peer/Makefile")
		prefix=$(sed -n 's/^SLURM_PREFIX = //p' "$peer/Makefile")
		t0=$(date +%s)
		# the daemons the tests will start are this series'
		for d in slurmctld slurmd; do
			got=$("$prefix/sbin/$d" -V 2>&1)
			[ "$got" = "slurm $version" ] || {
				echo "$peer: $prefix/sbin/$d -V says '$got', want slurm $version" >"$peer/check-slurm.out"
				exit 1
			}
		done
		# SchedMD's suite on the newest series (the last peer), unless
		# SCHEDMD says otherwise (yes: every peer, no: none)
		sm=no
		case ${SCHEDMD:-newest} in
		yes) sm=yes ;;
		newest) [ "$peer" = "$newest" ] && sm=yes ;;
		esac
		case ${PEER_TESTS:-} in
		series) subset=yes ;;
		all) subset=no ;;
		*) subset=smoke; [ "$peer" = "$newest" ] && subset=seam ;;
		esac
		${MAKE:-make} -C "$peer" check-slurm SCHEDMD=$sm PEER=$subset >"$peer/check-slurm.out" 2>&1
		st=$?
		echo "# Slurm $version: $(( $(date +%s) - t0 )) s" >>"$peer/check-slurm.out"
		exit $st
	) &
	pids="$pids $!:$peer"
	IFS=:
done
IFS=$old_ifs
status=0
for p in $pids; do
	pid=${p%%:*} peer=${p#*:}
	wait "$pid"
	st=$?
	version=$(sed -n 's/^SLURM_VERSION = //p' "$peer/Makefile")
	echo "# tests/slurm against Slurm $version ($peer, $(sed -n 's/^# TOTAL: *//p' "$peer/test-suite.log" 2>/dev/null) tests)"
	grep -E '^(PASS|FAIL|SKIP|ERROR|XFAIL|XPASS):|^# Slurm|want slurm|^# (suite|cons_tres|linear|fattree-pods|[0-9]+ tests)' "$peer/check-slurm.out"
	log=$peer/test-suite.log
	if [ $st -ne 0 ]; then
		tail -n 80 "$log" 2>/dev/null || tail -n 40 "$peer/check-slurm.out"
		status=1
		continue
	fi
	skip=$(sed -n 's/^# SKIP: *//p' "$log")
	if [ "${skip:-0}" != 0 ]; then
		echo "skipped against Slurm $version: $skip (a missing tool or build)"
		status=1
	fi
done
echo "# all peers: $(( $(date +%s) - start )) s"
exit $status
