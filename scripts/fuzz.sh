#!/bin/sh
# fuzz.sh - what `make fuzz` runs: build the libFuzzer harnesses of
# tests/fuzz/ with clang -fsanitize=fuzzer,address,undefined in
# $top_builddir/_fuzz (its own configure, like tests/sanitize.sh's
# _sanitize), then run each for FUZZ_TIME seconds (default 60) over a
# scratch corpus, _fuzz/corpus/NAME/, seeded from tests/fuzz/corpus/NAME/
# and tests/data/ (tests/fuzz/harnesses).  Prints each harness's
# executions; stops at the first finding with a non-zero status and the
# path of the input that found it (_fuzz/findings/NAME/...).
#
# FUZZ_CI=1 makes the run deterministic, as CI wants it: seed 1 and the
# number of executions tests/fuzz/harnesses gives each harness instead of
# a time, so that a finding in CI is found again by the same command.
#
# Environment: FUZZ_TIME (seconds per harness), FUZZ_TARGETS (names, all
# by default), FUZZ_CC (clang), FUZZ_JOBS (make -j and harnesses at once, 2), FUZZ_ARGS (more
# libFuzzer options).  Without clang and libFuzzer (Debian: clang and
# libclang-rt-14-dev) it says so and exits 0.
set -eu
src=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
build=${top_builddir:-$src/_build}
time=${FUZZ_TIME:-60}
cc=${FUZZ_CC:-clang}
dir=$build/_fuzz
# Command-line variables of the outer make must not leak into _fuzz's.
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES

mkdir -p "$dir"
probe=$dir/probe
printf '%s\n' '#include <stddef.h>' '#include <stdint.h>' \
	'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);' \
	'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)' \
	'{ return d && n > 1 ? 0 : 0; }' >"$probe.c"
if ! "$cc" -fsanitize=fuzzer,address,undefined "$probe.c" -o "$probe" \
	>/dev/null 2>&1; then
	echo "fuzz: skipped: $cc with libFuzzer not found (Debian packages clang and libclang-rt-14-dev)"
	rm -f "$probe" "$probe.c"
	exit 0
fi
rm -f "$probe" "$probe.c"

cd "$dir"
if [ ! -f Makefile ]; then
	echo "fuzz: configuring $dir (CC=$cc)"
	"$src/configure" --quiet --disable-sanitized-check --enable-debug \
		--disable-slurm-tests CC="$cc" \
		CFLAGS="-g -O1 -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" \
		LDFLAGS="-fsanitize=address,undefined" >/dev/null
fi
echo "fuzz: building the harnesses"
make -s -j"${FUZZ_JOBS:-2}" fuzz-build FUZZ_LINK=-fsanitize=fuzzer \
	>build.log 2>&1 || {
	tail -n 40 build.log
	exit 1
}

export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
# run_one NAME MAXLEN RUNS SEEDS: one harness over its corpus
run_one() {
	name=$1 maxlen=$2 runs=$3 seeds=$4
	corpus=$dir/corpus/$name findings=$dir/findings/$name log=$dir/$name.log
	# FUZZ_CI starts from the committed corpus only: the same inputs
	[ -z "${FUZZ_CI:-}" ] || rm -rf "$corpus"
	mkdir -p "$corpus" "$findings"
	cp "$src/tests/fuzz/corpus/$name"/* "$corpus/" 2>/dev/null || true
	if [ "$seeds" != - ]; then
		for g in $seeds; do
			for f in "$src"/tests/data/$g; do
				[ -f "$f" ] && cp "$f" "$corpus/"
			done
		done
	fi
	chmod -R u+w "$corpus"
	rc=0 t0=$(date +%s)
	if [ -n "${FUZZ_CI:-}" ]; then
		limit="-seed=1 -runs=$runs"
	else
		limit="-max_total_time=$time"
	fi
	# shellcheck disable=SC2086
	"$dir/tests/fuzz/fuzz_$name" $limit \
		-max_len="$maxlen" -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$findings/" \
		${FUZZ_ARGS:-} "$corpus" >"$log" 2>&1 || rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" |
		tail -n 1)
	if [ $rc -ne 0 ]; then
		grep -v '^#[0-9]\|^INFO\|^ *$' "$log" | tail -n 40
		found=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" |
			tail -n 1)
		echo "fuzz: $name: FINDING after ${execs:-?} executions: ${found:-see $log}"
		return 1
	fi
	echo "${execs:-0}" >"$dir/$name.execs"
	printf 'fuzz: %-13s %11s executions in %ss, no finding\n' "$name" \
		"${execs:-?}" "$(($(date +%s) - t0))"
}

# The harnesses FUZZ_JOBS at a time (each on a core of its own): shard i
# runs every FUZZ_JOBS-th harness in turn; a finding stops its shard and
# fails the run once all shards are done.
jobs=${FUZZ_JOBS:-2}
start=$(date +%s)
total=0
grep -v '^#' "$src/tests/fuzz/harnesses" | while read -r name maxlen runs seeds; do
	[ -n "$name" ] || continue
	if [ -n "${FUZZ_TARGETS:-}" ]; then
		case " $FUZZ_TARGETS " in *" $name "*) ;; *) continue ;; esac
	fi
	echo "$name $maxlen $runs $seeds"
done >"$dir/todo"
pids=
shard=0
while [ $shard -lt "$jobs" ]; do
	awk -v j="$jobs" -v s=$shard 'NR % j == s' "$dir/todo" >"$dir/todo.$shard"
	(
		while read -r name maxlen runs seeds; do
			run_one "$name" "$maxlen" "$runs" "$seeds" || exit 1
		done <"$dir/todo.$shard"
	) &
	pids="$pids $!"
	shard=$((shard + 1))
done
rc=0
for p in $pids; do
	wait "$p" || rc=1
done
[ $rc -eq 0 ] || exit 1
while read -r name rest; do
	total=$((total + $(cat "$dir/$name.execs")))
done <"$dir/todo"
echo "fuzz: $total executions in $(($(date +%s) - start)) s, no finding"
