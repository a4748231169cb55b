#!/bin/sh
# Re-run every unit suite, and replay the fuzz harnesses' corpora, in a
# second build made with AddressSanitizer and UndefinedBehaviorSanitizer
# (any report fails the run), configured with --enable-debug so that
# topo_check() runs after every topology built.
set -eu
# Command-line variables of the outer make (TEST_LOGS ...) must not leak in.
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES
dir="$top_builddir/_sanitize"
mkdir -p "$dir"
cd "$dir"
if [ ! -f Makefile ]; then
	"$top_srcdir/configure" --quiet --disable-sanitized-check --enable-debug \
		--disable-slurm-tests \
		CFLAGS="-O1 -g -fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all -fno-omit-frame-pointer" \
		LDFLAGS="-fsanitize=address,undefined,float-cast-overflow" >/dev/null
fi
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:halt_on_error=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
# The fuzz harnesses' replays are no tests of their own: build them first.
make -s -j"$(nproc)" ${FUZZ_REPLAYS:-} >/dev/null 2>&1 &&
	make -s -j"$(nproc)" check-TESTS \
		TESTS="$UNIT_TESTS${FUZZ_REPLAYS:+ tests/fuzz/replay.sh}" \
		>/dev/null 2>&1 || {
	cat tests/unit/*.log tests/fuzz/*.log 2>/dev/null | tail -n 100
	exit 1
}
echo "sanitized unit suites passed: $UNIT_TESTS"
[ -z "${FUZZ_REPLAYS:-}" ] ||
	echo "sanitized fuzz corpora passed: $(grep "^replay:" tests/fuzz/replay.sh.log | tail -n 1)"
