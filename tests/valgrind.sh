#!/bin/sh
# Re-run every unit suite under valgrind memcheck; any error fails.
set -eu
status=0
for t in $UNIT_TESTS; do
	log="$top_builddir/$t.valgrind.log"
	if ! "$VALGRIND" -q --error-exitcode=99 --leak-check=full \
		--errors-for-leak-kinds=definite --trace-children=yes \
		--log-file="$log.%p" "$top_builddir/$t" -j1 >/dev/null 2>&1; then
		echo "FAIL: $t under valgrind"
		status=1
	fi
	for f in "$log".*; do
		[ -s "$f" ] && { echo "== $f"; cat "$f"; status=1; }
		rm -f "$f"
	done
done
exit $status
