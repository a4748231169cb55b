#!/bin/bash
# SchedMD's own regression suite (testsuite/python of a Slurm source
# tree, pytest, local-config mode: tests that need another configuration
# skip themselves) against the emulated 64-node cluster of 4-CPU nodes
# (CR_Core, one shared partition), three times: under plain cons_tres,
# under select/topo with the partition's policy linear, and with
# fattree-pods.  Every test that passes under cons_tres must pass under
# select/topo, linear and fattree-pods alike, but for those that give an
# explicit node list (-w, SLURM_HOSTFILE), which an isolating policy
# refuses (select_topo(8)): under fattree-pods they must fail.
#
# Environment: SCHEDMD_SUITE=DIR (testsuite/python; default: the
# configured Slurm tree's, else Debian 13's 24.11.5 in _deps: the SchedMD
# tarballs of 25.11 and 26.05 carry none), SCHEDMD_TESTS="tests/x.py ..."
# (a subset), SCHEDMD_KEEP=DIR (keep each run's junit XML there).
. "$(dirname "$0")/lib.sh"
require_cluster
py=/usr/bin/python3
$py -c 'import pytest, requests, pexpect' 2>/dev/null ||
	skip "python3-pytest, python3-requests and python3-pexpect (Debian) are needed"
suite=${SCHEDMD_SUITE:-}
if [ -z "$suite" ]; then
	src=$(sed -n 's/^SLURM_SRC = //p' "$top_builddir/Makefile" 2>/dev/null)
	for d in "$src/testsuite/python" "$top_srcdir/_deps/slurm-wlm-24.11.5/testsuite/python"; do
		[ -f "$d/conftest.py" ] && { suite=$d; break; }
	done
fi
[ -n "$suite" ] && [ -f "$suite/conftest.py" ] ||
	skip "no testsuite/python (set SCHEDMD_SUITE)"
note "suite: $suite (Slurm $SLURM_SERIES daemons)"

# The tests giving explicit node lists, refused under an isolating
# policy (the plugin cannot honour -w; srun reads SLURM_HOSTFILE as -w).
REFUSED='test_hostfile|test_nodelist|SLURM_HOSTFILE|test_--nodelist'

cat > "$TDIR/linear.conf" <<'CONF'
Topology=fattree k=4 n=3
NodeName=n[0-63]
PartitionPolicy=batch:linear
CONF
sed 's/batch:linear/batch:fattree-pods/' "$TDIR/linear.conf" > "$TDIR/fattree-pods.conf"

# run NAME SELECT TOPOCONF: the suite against a fresh cluster; outcomes
# "test outcome" in $TDIR/NAME.res
run() {
	local name=$1 t0
	t0=$(date +%s)
	NODE_CPUS=4 BATCH_OPTS= cluster_start "$2" "$3"
	cat > "$TDIR/testsuite.conf" <<EOF
SlurmSourceDir=$(cd "$suite/../.." && pwd)
SlurmBuildDir=$(cd "$suite/../.." && pwd)
SlurmInstallDir=${SLURM_PREFIX:-/usr}
SlurmConfigDir=$TDIR/c/etc
EOF
	( cd "$suite" && SLURM_TESTSUITE_CONF=$TDIR/testsuite.conf timeout 3000 \
		$py -m pytest -p no:cacheprovider -q --local-config \
		--junitxml="$TDIR/$name.xml" ${SCHEDMD_TESTS:-tests} \
		>"$TDIR/$name.out" 2>&1 )
	$py - "$TDIR/$name.xml" >"$TDIR/$name.res" <<'EOF' ||
import sys, xml.etree.ElementTree as ET
for c in ET.parse(sys.argv[1]).getroot().iter("testcase"):
    name = c.get("classname", "") + "::" + c.get("name", "")
    kind = "passed"
    for k in ("failure", "error", "skipped"):
        if c.find(k) is not None:
            kind = k
    print(name, kind)
EOF
		fail "$name: no results: $(tail -n 5 "$TDIR/$name.out")"
	[ -n "${SCHEDMD_KEEP:-}" ] && mkdir -p "$SCHEDMD_KEEP" &&
		cp "$TDIR/$name.xml" "$TDIR/$name.out" "$SCHEDMD_KEEP/"
	note "$name: $(awk '{ n[$2]++ } END { for (k in n) printf "%s %d, ", k, n[k] }' "$TDIR/$name.res")$(( $(date +%s) - t0 )) s"
	cluster_reset
}
run cons_tres cons_tres "$TDIR/linear.conf"
run linear topo "$TDIR/linear.conf"
run fattree-pods topo "$TDIR/fattree-pods.conf"

awk '$2 == "passed" { print $1 }' "$TDIR/cons_tres.res" | sort > "$TDIR/base"
[ -s "$TDIR/base" ] || fail "no test passed under cons_tres: $(tail -n 20 "$TDIR/cons_tres.out")"
# outcome NAME TEST
outcome() { awk -v t="$2" '$1 == t { print $2 }' "$TDIR/$1.res"; }
bad=
while read -r t; do
	o=$(outcome linear "$t")
	[ "$o" = passed ] || bad="$bad
linear: $t: ${o:-missing}"
	o=$(outcome fattree-pods "$t")
	if echo "$t" | grep -Eq "$REFUSED"; then
		[ "$o" != passed ] || bad="$bad
fattree-pods: $t passed, but an explicit node list must be refused"
		note "fattree-pods: $t refused ($o), as it must be"
	else
		[ "$o" = passed ] || bad="$bad
fattree-pods: $t: ${o:-missing}"
	fi
done < "$TDIR/base"
if [ -n "$bad" ]; then
	echo "tests that pass under cons_tres but not under select/topo:$bad" >&2
	for n in linear fattree-pods; do
		grep -E "^(FAILED|ERROR)" "$TDIR/$n.out" | head -n 20 >&2
	done
	fail "select/topo lost tests cons_tres passes"
fi
note "$(wc -l < "$TDIR/base") tests pass under cons_tres, and under select/topo (linear, fattree-pods but the refused node lists)"
echo "PASS"
