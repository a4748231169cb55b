#!/bin/sh
# tests/timed-driver, make check's LOG_DRIVER: each result line carries
# the test's time, the log ends with it, and only a failure (FAIL or
# ERROR in the .trs, whatever the colours; XFAIL is none) prints the
# log's last lines at once.
set -u
src=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
[ -f "$src/build-aux/test-driver" ] || { echo "SKIP: no build-aux/test-driver (autoreconf)"; exit 77; }
tmp=$(mktemp -d /tmp/timed_driver.XXXXXX) || exit 99
trap 'rm -rf "$tmp"' EXIT
fails=0
# run NAME XFAIL BODY: the driver's output for a test script BODY
run() {
	printf 'echo marker-%s\n%s\n' "$1" "$3" >"$tmp/$1.sh"
	(cd "$tmp" && sh "$src/tests/timed-driver" --test-name "$1.sh" \
		--log-file "$1.log" --trs-file "$1.trs" --expect-failure "$2" \
		--color-tests yes --enable-hard-errors yes -- sh "$1.sh")
}
check() { # NAME WHAT CONDITION...
	name=$1 what=$2
	shift 2
	if "$@"; then echo "ok   $name: $what"; else echo "FAIL $name: $what"; fails=$((fails + 1)); fi
}
out=$(run fail no 'exit 1')
check fail "result line with its time" \
	sh -c 'printf "%s\n" "$1" | grep -q "FAIL.*: fail.sh (0 s)\$"' _ "$out"
check fail "the log's tail shown" \
	sh -c 'printf "%s\n" "$1" | grep -qx "marker-fail"' _ "$out"
check fail "the log ends with the time" \
	sh -c '[ "$(tail -n 1 "$1")" = "# 0 s" ]' _ "$tmp/fail.log"
out=$(run xfail yes 'exit 1')
check xfail "an expected failure shows no log" \
	sh -c '! printf "%s\n" "$1" | grep -q "marker-xfail"' _ "$out"
check xfail "result line" \
	sh -c 'printf "%s\n" "$1" | grep -q "XFAIL.*: xfail.sh (0 s)\$"' _ "$out"
out=$(run pass no 'exit 0')
check pass "a pass shows no log" \
	sh -c '! printf "%s\n" "$1" | grep -q "marker-pass"' _ "$out"
out=$(run error no 'exit 99')
check error "a hard error shows its log" \
	sh -c 'printf "%s\n" "$1" | grep -qx "marker-error"' _ "$out"
[ $fails = 0 ] || exit 1
echo "timed_driver: 7 checks"
