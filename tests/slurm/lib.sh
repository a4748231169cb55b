# shellcheck shell=bash
# tests/slurm/lib.sh - shared helpers of the tests against real Slurm
# daemons (sourced).  Each test starts its own emulated cluster with
# scripts/slurm-cluster.sh in a temp directory and always tears it down.
#
# Environment (set by make check): top_srcdir, top_builddir, STOPO, and
# SLURM_PREFIX when the build tree was configured against a Slurm built
# into a prefix (24.11, 25.11, 26.05: scripts/setup-slurm.sh): its
# daemons and commands then come first in PATH; SLURM_VERSION, the
# release the build tree was configured with (cluster_start checks the
# daemons are it).

: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
: "${STOPO:=$top_builddir/stopo}"
CLUSTER="$top_srcdir/scripts/slurm-cluster.sh"
if [ -n "${SLURM_PREFIX:-}" ]; then
	PATH=$SLURM_PREFIX/sbin:$SLURM_PREFIX/bin:$PATH
	export PATH SLURM_PREFIX
fi
# The Slurm release the tests run against, e.g. 24.11 (some behaviour
# differs: select_topo(8), "Slurm versions").
SLURM_SERIES=$(slurmctld -V 2>/dev/null | sed -n 's/^slurm[^0-9]*\([0-9]*\.[0-9]*\).*/\1/p')

skip() { echo "SKIP: $*"; exit 77; }
fail() {
	echo "FAIL: $*" >&2
	if [ -n "${TDIR:-}" ] && [ -f "$TDIR/c/log/slurmctld.log" ]; then
		echo "--- slurmctld.log (tail)" >&2
		tail -n 30 "$TDIR/c/log/slurmctld.log" >&2
		# the verdict again, last: CI shows a log's tail
		echo "FAIL: $*" >&2
	fi
	exit 1
}
note() { echo "# $*"; }

# Preconditions: root, daemons installed, plugins built.
require_cluster() {
	[ "$(id -u)" = 0 ] || skip "needs root (emulated cluster runs SlurmUser=root)"
	for c in slurmctld slurmd munged sbatch squeue scontrol sinfo ss; do
		command -v "$c" >/dev/null || skip "$c not installed"
	done
	[ -f "$top_builddir/plugin/.libs/select_topo_cons_tres.so" ] ||
		skip "select_topo_cons_tres.so not built (configure --with-slurm-source)"
	# At most STOPO_CLUSTERS emulated clusters at once on this host
	# (default 3: a suite spends most of its time waiting for jobs and
	# scheduler passes, about a sixth of a CPU; three suites, 24.11,
	# 25.11 and 26.05, ran side by side on 2 cores in 15 min, all
	# passing).  A slot is a lock file held for the test's life: take
	# the first free one, polling once a second.
	if command -v flock >/dev/null; then
		local slot slots=${STOPO_CLUSTERS:-3}
		while :; do
			for slot in $(seq 0 $((slots - 1))); do
				exec 9>"/tmp/stopo-slurm-cluster.$slot.lock"
				flock -n 9 && break 2
				exec 9>&-
			done
			sleep 1
		done
	fi
	TDIR=$(mktemp -d /tmp/stopo-slurm-test.XXXXXX) || fail "mktemp"
	chmod 755 "$TDIR"
	# Background samplers first: a test that fails while one runs would
	# leave it holding the cluster lock, and every later test waiting.
	trap on_exit EXIT
	trap 'exit 1' INT TERM
}

# The EXIT trap: samplers killed, the cluster stopped (a passing test
# fails when a process of it outlives the stop), TDIR removed unless
# KEEP_TDIR is set.
on_exit() {
	local rc=$?
	# shellcheck disable=SC2046 # job ids: one word each
	kill $(jobs -p) 2>/dev/null
	cluster_stop || { [ "$rc" = 0 ] && rc=1; }
	[ -n "${KEEP_TDIR:-}" ] || rm -rf "$TDIR"
	exit "$rc"
}

# cpus_of PID: the CPUs PID may run on (its affinity), comma separated.
cpus_of() {
	awk '/^Cpus_allowed_list:/ { print $2 }' "/proc/$1/status" 2>/dev/null |
		tr ',' '\n' |
		awk -F- 'NF == 2 { for (i = $1; i <= $2; i++) print i; next }
			$1 != "" { print $1 }' | paste -sd, -
}

# ctld_cpu_split: export CTLD_CPUS (the first CPU this shell may run on)
# and NODE_CPUSET (the others) for cluster_start, so slurmctld gets a CPU
# of its own; returns 1, setting nothing, with fewer than 2 CPUs.
ctld_cpu_split() {
	local all
	all=$(cpus_of $$)
	case $all in *,*) ;; *) return 1 ;; esac
	export CTLD_CPUS=${all%%,*} NODE_CPUSET=${all#*,}
}

# cluster_start SELECT TOPO_CONF_FILE [NODES]: the cluster up, its
# slurmctld and slurmd of the release the build tree was configured
# with (SLURM_VERSION, from make check).
cluster_start() {
	local v
	SELECT=$1 TOPO_CONF=$2 NODES=${3:-64} PLUGIN_BUILDDIR=$top_builddir \
		"$CLUSTER" start "$TDIR/c" >"$TDIR/start.log" 2>&1 ||
		{ cat "$TDIR/start.log" >&2; fail "cluster did not start"; }
	export SLURM_CONF="$TDIR/c/etc/slurm.conf"
	[ -n "${SLURM_VERSION:-}" ] || return 0
	v=$(scontrol show config | sed -n 's/^SLURM_VERSION *= *//p')
	[ "$v" = "$SLURM_VERSION" ] ||
		fail "slurmctld is Slurm '$v', the build is $SLURM_VERSION's"
	v=$(scontrol show node n0 | tr ' ' '\n' | sed -n 's/^Version=//p')
	[ "$v" = "$SLURM_VERSION" ] ||
		fail "slurmd n0 is Slurm '$v', the build is $SLURM_VERSION's"
}

# cluster_stop: stop the cluster (if any); 1, naming them on stderr, when
# processes of it (cluster_leftovers) are still there 5 s later.
cluster_stop() {
	local i left
	[ -n "${TDIR:-}" ] && [ -d "$TDIR/c" ] || return 0
	"$CLUSTER" stop "$TDIR/c" >/dev/null 2>&1
	for i in $(seq 1 50); do
		left=$(cluster_leftovers)
		[ -z "$left" ] && return 0
		sleep 0.1
	done
	echo "FAIL: processes left after stopping the cluster: $left" >&2
	return 1
}

# cluster_leftovers: "PID command" of every process still tied to the
# cluster directory (working directory, an open file or its command line
# under it: a daemon, a slurmstepd, a job script; zombies show none).
cluster_leftovers() {
	local p d=$TDIR/c/
	# shellcheck disable=SC2010 # /proc names are digits or plain words
	for p in $(ls /proc | grep -x '[0-9]*'); do
		[ "$p" = $$ ] || [ "$p" = "$BASHPID" ] && continue
		# shellcheck disable=SC2010 # the symlink targets ls -l shows are the point
		if ls -l "/proc/$p/cwd" "/proc/$p/fd" 2>/dev/null | grep -q -- "-> $d" ||
			{ tr '\0' ' ' <"/proc/$p/cmdline"; } 2>/dev/null | grep -q -- "$d"; then
			echo "$p $({ tr '\0' ' ' <"/proc/$p/cmdline"; } 2>/dev/null)"
		fi
	done
}

# A fresh cluster directory (after cluster_stop) for a second run.
cluster_reset() {
	cluster_stop || fail "the cluster's processes outlived its stop"
	rm -rf "$TDIR/c"
}

# Whether slurmctld runs: the one started, or the one a 24.11 reconfigure
# started in its place (SlurmctldPidFile).
ctld_alive() {
	local p
	p=$(cat "$TDIR/c/slurmctld.pidfile" 2>/dev/null)
	{ [ -n "$p" ] && kill -0 "$p" 2>/dev/null; } ||
		kill -0 "$(cat "$TDIR/c/ctld.pid")" 2>/dev/null
}

# submit N SECONDS [sbatch options...] -> prints the job id
submit() {
	local n=$1 s=$2
	shift 2
	mkdir -p "$TDIR/jobout"
	sbatch --parsable -N "$n" -o "$TDIR/jobout/%j.out" "$@" --wrap "sleep $s" 2>"$TDIR/sbatch.err" ||
		{ cat "$TDIR/sbatch.err" >&2; return 1; }
}

# start_jobs SECONDS NAME=N ...: in turn, a job of N nodes sleeping
# SECONDS, submitted once the one before runs; its id goes into the
# variable NAME.  Fails the test when one is refused or does not start.
start_jobs() {
	local s=$1 spec id
	shift
	for spec in "$@"; do
		id=$(submit "${spec#*=}" "$s") || fail "sbatch -N ${spec#*=} (job $spec)"
		started "$id" || fail "job ${spec%%=*} ($id, ${spec#*=} nodes) did not start"
		printf -v "${spec%%=*}" %s "$id"
	done
}

# Jobs not yet finished (pending, running, completing).
active_jobs() {
	squeue -h -t PD,R,CG,CF -o '%i' 2>/dev/null | wc -l
}

# wait_all TIMEOUT: until no job is active; 1 on timeout.
wait_all() {
	local end=$(( $(date +%s) + $1 ))
	while [ "$(date +%s)" -lt $end ]; do
		[ "$(active_jobs)" = 0 ] && return 0
		sleep 0.5
	done
	return 1
}

# snapshot NAME: squeue --json of the running jobs, kept for the report.
snapshot() {
	squeue --json > "$TDIR/snap.$1.json" 2>/dev/null
}

# wait_log PATTERN [SECONDS]: until slurmctld's log has a line matching
# the fixed string PATTERN (default 10 s); 1 if it never comes.
wait_log() {
	local i
	for i in $(seq 1 $(( ${2:-10} * 2 ))); do
		grep -qF -- "$1" "$TDIR/c/log/slurmctld.log" && return 0
		sleep 0.5
	done
	return 1
}

# field ID KEY: the value of KEY in scontrol show job ID.
field() { scontrol show job "$1" | tr ' ' '\n' | sed -n "s/^$2=//p" | head -n 1; }

# started ID: waits until the job runs or ended (30 s).
started() {
	local i st
	for i in $(seq 1 60); do
		st=$(field "$1" JobState)
		case $st in RUNNING|COMPLETED|COMPLETING) return 0 ;; esac
		sleep 0.5
	done
	return 1
}

# topo_reason ID: select/topo's reason for the pending job ID, read where
# users read it: the job's SystemComment (squeue -O system_comment), which
# holds it while the job waits on both versions.  22.05 also keeps it as
# the Reason (squeue %r); 24.11's main scheduler resets that to Resources
# between backfill passes (select_topo(8)).  On 22.05 a Reason that
# differs from the SystemComment is printed beside it, so that a caller
# matching the text fails.
topo_reason() {
	local c r
	c=$(squeue -h -j "$1" -O 'system_comment:2000' | sed 's/ *$//')
	if [ "$SLURM_SERIES" = 22.05 ]; then
		r=$(squeue -h -j "$1" -o '%r')
		[ "$r" = "$c" ] || c="SystemComment '$c' but Reason '$r'"
	fi
	echo "$c"
}

# have_report: whether stopo has the report subcommand.
have_report() {
	"$STOPO" report --help >/dev/null 2>&1
}

# sharing FILE TOPOCONF -> prints "MLS TLS" of the running jobs in FILE.
sharing() {
	"$STOPO" report --json --topo "$2" "$1" 2>"$TDIR/report.err" |
		python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["mls"], d["tls"])' ||
		{ cat "$TDIR/report.err" >&2; return 1; }
}

# job_states -> "id state" lines of every job slurmctld knows (24.11's
# squeue --json lists finished jobs only with -t all, and job_state as a
# list: its first entry is the base state).
job_states() {
	squeue --json -t all 2>/dev/null | python3 -c '
import json, sys
for j in json.load(sys.stdin)["jobs"]:
    st = j["job_state"]
    print(j["job_id"], st[0] if isinstance(st, list) else st)'
}

# A scripted workload: lines "DELAY NODES SECONDS" (DELAY seconds after
# the previous submission).  The default mix below has 1- to 32-node
# jobs arriving over ~8 s and running 1-3 s.
WORKLOAD_64='0 16 2
0 4 3
0 2 2
0 8 3
0 1 2
0 3 3
1 32 2
0 2 2
0 5 2
0 1 1
1 12 3
0 4 2
0 6 2
1 16 2
0 2 1
0 1 3
1 7 2
0 3 2
1 32 2
0 4 1
1 2 2
0 1 1
1 9 2
0 16 1'

# run_workload NAME TIMEOUT [sbatch options]: submit $WORKLOAD (default
# WORKLOAD_64), snapshot squeue --json every 0.5 s until every job has
# finished; job ids in $TDIR/NAME.jobs, snapshots $TDIR/snap.NAME.*.json.
run_workload() {
	local name=$1 timeout=$2 i=0 end
	shift 2
	: > "$TDIR/$name.jobs"
	( while :; do i=$((i + 1)); snapshot "$name.$i"; sleep 0.5; done ) &
	local sampler=$!
	echo "${WORKLOAD:-$WORKLOAD_64}" | while read -r delay n s; do
		[ -n "$n" ] || continue
		sleep "$delay"
		submit "$n" "$s" "$@" >> "$TDIR/$name.jobs" || echo "submit failed: $n nodes" >&2
	done
	sleep 1
	end=$(( $(date +%s) + timeout ))
	while [ "$(active_jobs)" != 0 ] && [ "$(date +%s)" -lt $end ]; do
		sleep 0.5
	done
	kill "$sampler" 2>/dev/null
	wait "$sampler" 2>/dev/null
	[ "$(active_jobs)" = 0 ] || { squeue >&2; fail "$name: jobs still active after ${timeout}s"; }
}

# all_completed NAME [ALLOWED]: every job of NAME ended COMPLETED, but for
# at most ALLOWED (default 0) failures, which are shown; ALLOWED "stock"
# is a tenth of the jobs (at least one).  The comparison runs under the
# stock plugins allow that: what they are there for is to show sharing,
# and batch launches that fail on a loaded 2-core host under stock Slurm
# (CI saw two of 40 jobs' scripts exit 2 at once under 24.11's cons_tres,
# slurmd pinned to one CPU) say nothing about select/topo, whose runs
# stay strict.  One launch failure is told apart under every plugin and
# not counted, up to a tenth of the jobs (at least one), each shown: the
# job's batch script gone from its node's spool when slurmstepd ran it
# (its stepd logs "execve(): .../jobN/slurm_script: No such file or
# directory"; CI saw it once under select/topo, 22.05, a 1-node job
# placed and logged as planned).  The spool is slurmd's: no plugin of
# this project writes or removes anything there.  Slurm's own race
# (src/common/stepd_api.c, 22.05 to 26.05): slurmd, connecting to a
# step whose stepd has bound its socket but does not listen yet, gets
# ECONNREFUSED and _handle_stray_script deletes the batch script.
all_completed() {
	local id st bh bad=0 allowed=${2:-0} gone=0 maxgone
	maxgone=$(( $(wc -l < "$TDIR/$1.jobs") / 10 ))
	[ "$maxgone" -ge 1 ] || maxgone=1
	if [ "$allowed" = stock ]; then
		allowed=$maxgone
	fi
	job_states > "$TDIR/states"
	while read -r id; do
		st=$(awk -v id="$id" '$1 == id {print $2}' "$TDIR/states")
		if [ "$st" != COMPLETED ]; then
			echo "job $id: ${st:-LOST}" >&2
			# what the daemons said about it, to tell a placement
			# error from a launch failure
			scontrol show job "$id" 2>&1 | grep -E "JobState|ExitCode|NodeList|Reason" >&2
			grep -h "JobId=${id}[^0-9]\|job ${id}[^0-9]\|StepId=$id\." \
				"$TDIR"/c/log/*.log 2>/dev/null | tail -n 20 >&2
			# what its batch host's slurmd and stepd said went wrong
			# (an execve error names no job), and its output
			bh=$(scontrol show job "$id" 2>/dev/null | sed -n 's/.*BatchHost=\([^ ]*\).*/\1/p')
			[ -z "$bh" ] || grep -h "error" "$TDIR/c/log/slurmd-$bh.log" 2>/dev/null |
				tail -n 8 >&2
			tail -n 5 "$TDIR/jobout/$id.out" 2>/dev/null >&2
			if [ -n "$bh" ] && [ $gone -lt "$maxgone" ] &&
			   grep -q "execve(): .*/job0*$id/slurm_script: No such file or directory" \
				"$TDIR/c/log/slurmd-$bh.log" 2>/dev/null; then
				gone=$((gone + 1))
				note "$1: job $id: its batch script was gone from $bh's spool when slurmstepd ran it (a launch failure, not counted)"
				continue
			fi
			bad=$((bad + 1))
		fi
	done < "$TDIR/$1.jobs"
	[ $bad -le "$allowed" ] || return 1
	[ $bad = 0 ] || note "$1: $bad job(s) did not complete under a stock plugin (allowed: $allowed)"
	return 0
}

# max_sharing NAME TOPOCONF: the largest MLS and TLS over the snapshots
# of NAME ("MLS TLS SAMPLES"); per snapshot "MLS TLS FILE" lines are kept
# in $TDIR/sharing.NAME.
max_sharing() {
	local f n=0
	: > "$TDIR/sharing.$1"
	for f in "$TDIR"/snap."$1".*.json; do
		[ -s "$f" ] || continue
		echo "$(sharing "$f" "$2" || echo fail) $f" >> "$TDIR/sharing.$1"
		grep -q "^fail" "$TDIR/sharing.$1" && fail "stopo report failed on $f"
		n=$((n + 1))
	done
	awk -v n=$n '$1 > m { m = $1 } $2 > t { t = $2 } END { print m + 0, t + 0, n }' "$TDIR/sharing.$1"
}
