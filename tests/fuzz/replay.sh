#!/bin/sh
# Replay the regression corpus of every fuzz harness (tests/fuzz/harnesses):
# tests/fuzz/replay_NAME over tests/fuzz/corpus/NAME/ and NAME's seeds from
# tests/data/.  An input that once found a bug must not crash, trip a
# sanitizer or break a harness's invariant again.  REPLAY_WRAPPER, when
# set, runs each replay under it (tests/valgrind.sh: valgrind).
set -eu
src=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${top_builddir:-$src/_build}
bad=0 n=0
while read -r name _maxlen _runs seeds; do
	case $name in '#'* | '') continue ;; esac
	prog=$build/tests/fuzz/replay_$name
	if [ ! -x "$prog" ]; then
		echo "replay: $prog not built (make check builds it)"
		bad=1
		continue
	fi
	set -- "$src/tests/fuzz/corpus/$name"
	if [ "$seeds" != - ]; then
		for g in $seeds; do
			for f in "$src"/tests/data/$g; do
				[ -f "$f" ] && set -- "$@" "$f"
			done
		done
	fi
	if out=$(${REPLAY_WRAPPER:-} "$prog" "$@" 2>&1); then
		echo "ok: $name: $(echo "$out" | tail -n 1)"
		n=$((n + 1))
	else
		echo "$out" | tail -n 40
		last=$("$prog" -v "$@" 2>&1 | sed -n 's/^replay: \(.*\) ([0-9]* bytes)$/\1/p' |
			tail -n 1)
		echo "FAIL: $name on ${last:-?}"
		bad=1
	fi
done <"$src/tests/fuzz/harnesses"
[ $bad = 0 ] && echo "replay: the corpora of $n harnesses pass"
exit $bad
