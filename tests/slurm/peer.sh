#!/bin/sh
# peer.sh - make check's second pass of tests/slurm: `make check-slurm` in
# the peer build tree (configure --with-peer-build), configured against
# another Slurm version (scripts/setup.sh: _build24, Slurm 24.11.5).
# Passes when every test there passes; a skip there is a failure here,
# as in CI.  Environment (make check): PEER_BUILD, MAKE.
[ -n "${PEER_BUILD:-}" ] || { echo "PEER_BUILD not set (configure --with-peer-build)"; exit 99; }
version=$(sed -n 's/^SLURM_VERSION = //p' "$PEER_BUILD/Makefile")
echo "# tests/slurm against Slurm $version ($PEER_BUILD)"
start=$(date +%s)
# a make of its own (not make check's jobserver): the tests take turns anyway
unset MAKEFLAGS MFLAGS MAKELEVEL
${MAKE:-make} -C "$PEER_BUILD" check-slurm >"$PEER_BUILD/check-slurm.out" 2>&1
st=$?
grep -E '^(PASS|FAIL|SKIP|ERROR|XFAIL|XPASS):' "$PEER_BUILD/check-slurm.out"
echo "# $(( $(date +%s) - start )) s"
log=$PEER_BUILD/test-suite.log
if [ $st -ne 0 ]; then
	tail -n 80 "$log" 2>/dev/null || tail -n 40 "$PEER_BUILD/check-slurm.out"
	exit 1
fi
skip=$(sed -n 's/^# SKIP: *//p' "$log")
if [ "${skip:-0}" != 0 ]; then
	echo "skipped against Slurm $version: $skip (a missing tool or build)"
	exit 1
fi
exit 0
