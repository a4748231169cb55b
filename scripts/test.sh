#!/bin/sh
# test.sh - on a fresh Debian 12 machine: install, build and pass every test.
#
# make check runs the Criterion unit suites, the stopo golden-output tests,
# the same unit suites again under AddressSanitizer+UBSan and under valgrind,
# the fuzz corpora's replay, and the tests against real slurmctld/slurmd
# daemons, with Debian 12's Slurm 22.05 and (tests/slurm/peer.sh, in the
# _build24, _build2511 and _build2605 trees setup.sh makes) with 24.11.5,
# 25.11.7 and 26.05.3, and SchedMD's python suite against the newest;
# make fuzz then runs every fuzz harness for about 15 s, and make distcheck
# proves the release tarball builds and passes on its own.  Each step
# says how long it took (CI's budget: README "Testing").
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$top/_build}
t0=$(date +%s)
step() { echo "== $1: $(( $(date +%s) - t0 )) s"; t0=$(date +%s); }
"$top/scripts/setup.sh"
step "set-up (packages, Slurm builds, select/topo builds)"
status=0
make -C "$build" -j"$(nproc)" check VERBOSE=1 || status=$?
step "make check"
if [ $status -ne 0 ]; then
	echo "== make check failed; logs of failing tests:" >&2
	# shellcheck disable=SC2046 # .trs paths are ours: no blanks
	grep -l '^:test-result: FAIL\|^:test-result: ERROR' \
		$(find "$build" -name '*.trs' -not -path '*/_sanitize/*') 2>/dev/null |
		sed 's/\.trs$/.log/' | while read -r log; do
			echo "---- $log"; tail -n 60 "$log"; done
	exit $status
fi
# Each fuzz harness briefly (tests/fuzz/, README "Testing"), about 15 s
# each, deterministically (seed 1, a fixed number of executions): a
# finding fails with the input's path, and the same command finds it again.
make -C "$build" fuzz FUZZ_CI=1 FUZZ_JOBS="$(nproc)"
step "make fuzz"
make -C "$build" -j"$(nproc)" distcheck \
	DISTCHECK_CONFIGURE_FLAGS="--with-slurm-source=$(ls -d ${SLURM_SRC_PARENT:-$top/_deps}/slurm-wlm-22.05.8) --disable-slurm-tests --disable-sanitized-check" >/dev/null
echo "distcheck: passed"
step "make distcheck"
# One closing line a CI reader understands: the make check totals.
pass=$(sed -n 's/^# PASS: *//p' "$build/test-suite.log")
fail=$(sed -n 's/^# FAIL: *//p' "$build/test-suite.log")
skip=$(sed -n 's/^# SKIP: *//p' "$build/test-suite.log")
echo "${pass:-0} passed, ${fail:-0} failed, ${skip:-0} skipped"
# Every test must run here: a skip means a missing tool, not a pass.
if [ "${skip:-0}" != 0 ]; then
	# shellcheck disable=SC2046 # .trs paths are ours: no blanks
	grep -l '^:test-result: SKIP' $(find "$build" -name '*.trs' -not -path '*/_sanitize/*') |
		sed 's/\.trs$/.log/' | while read -r log; do
			echo "skipped: $log: $(tail -n 1 "$log")"; done
	exit 1
fi
