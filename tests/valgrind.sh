#!/bin/bash
# Re-run every unit suite under valgrind memcheck, one suite per core at a
# time, then replay the fuzz corpora under it; any memory error or definite
# leak fails.  The tests tests/valgrind.skip names (the long ones, which
# run natively and under the sanitizers) are left out: VALGRIND_ALL=1
# runs them too.
set -eu
skip='' SKIP_LIST=''
if [ -z "${VALGRIND_ALL:-}" ]; then
	SKIP_LIST=$(sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$top_srcdir/tests/valgrind.skip")
	skip=$(printf '%s\n' "$SKIP_LIST" | paste -sd'|' -)
fi
FILTER=${skip:+!($skip)}
one() {
	local t=$1 log="$top_builddir/$1.valgrind.log" bad=0 f left t0=$SECONDS
	rm -f "$log".*
	if ! "$VALGRIND" -q --error-exitcode=99 --leak-check=full \
		--errors-for-leak-kinds=definite --trace-children=yes \
		--log-file="$log.%p" "$top_builddir/$t" -j1 ${FILTER:+--filter="$FILTER"} \
		>"$log.out" 2>&1; then
		echo "FAIL: $t under valgrind"
		tail -n 30 "$log.out"
		bad=1
	fi
	for f in "$log".[0-9]*; do
		[ -f "$f" ] || continue
		if [ -s "$f" ]; then echo "== $f"; cat "$f"; bad=1; fi
		rm -f "$f"
	done
	# A filter that leaves a suite nothing to run must be because every
	# test of it is listed, never a pattern gone wrong.
	if [ $bad = 0 ] && grep -q 'Synthesis: Tested: 0 ' "$log.out"; then
		left=$("$top_builddir/$t" --list 2>/dev/null | awk '
			/^[^ ]*: [0-9]+ tests?$/ { s = $1; sub(/:$/, "", s); next }
			{ print s "/" $NF }' | grep -vxFf <(printf '%s\n' "$SKIP_LIST"))
		if [ -n "$left" ]; then
			echo "FAIL: $t ran no test under valgrind, yet valgrind.skip leaves: $left"
			bad=1
		fi
	fi
	rm -f "$log.out"
	[ $bad = 0 ] && echo "ok: $t under valgrind ($((SECONDS - t0)) s)"
	return $bad
}
export -f one
export VALGRIND top_builddir FILTER SKIP_LIST
rc=0
printf '%s\n' $UNIT_TESTS |
	xargs -P "$(nproc 2>/dev/null || echo 2)" -I{} bash -c 'one "$1"' _ {} ||
	rc=$?
# The fuzz harnesses' corpora too: any memory error or definite leak fails.
if [ -n "${FUZZ_REPLAYS:-}" ]; then
	REPLAY_WRAPPER="$VALGRIND -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite" \
		"$top_srcdir/tests/fuzz/replay.sh" || rc=1
fi
exit $rc
