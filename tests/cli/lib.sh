# shellcheck shell=sh
# tests/cli/lib.sh - the golden-output harness of the stopo subcommand
# tests (sourced).  A script names its subcommand and golden files once,
# then has one line per case, and ends with finish:
#
#	. "$top_srcdir/tests/cli/lib.sh"
#	cli_setup topo "$golden/topo_"
#	golden fattree.txt -- --topo fattree:k=4,n=3
#	expect_fail bad_family 2 "unknown topology family" -- --topo x:a=1
#	finish
#
# Each case prints "ok   NAME" or "FAIL NAME: why" (with a diff or the
# stderr of stopo); finish exits 1 when any case failed.  Checks of their
# own call pass/flunk, and run for a stopo run in the same files.
#
# Environment (set by make check): STOPO, the stopo to test, and
# top_srcdir.  UPDATE_GOLDEN=1 rewrites the golden files instead of
# comparing (review the diff before committing).
#
# Set here: $data (tests/data), $golden (tests/data/golden), $tmp (a
# temporary directory removed on exit), $st (the last run's exit status).
set -u
: "${STOPO:?}" "${top_srcdir:?}"
data="$top_srcdir/tests/data"
# shellcheck disable=SC2034 # for the scripts that source this file
golden="$data/golden"
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
nfail=0
st=0
cli_sub=
cli_prefix=
cli_filter='cat'

# cli_setup SUBCOMMAND GOLDEN_PREFIX [FILTER]: every case runs
# `stopo SUBCOMMAND`; the golden file of case NAME is GOLDEN_PREFIXNAME;
# FILTER (a command or function, stdin to stdout; default cat) turns
# stopo's stdout into what is compared, e.g. to drop wall-clock times.
cli_setup() {
	cli_sub=$1
	cli_prefix=$2
	cli_filter=${3:-cat}
}

# pass NAME: report a case that passed
pass() {
	echo "ok   $1"
}

# flunk NAME WHY [FILE...]: count a failed case, say why, show the files
flunk() {
	echo "FAIL $1: $2"
	shift 2
	[ $# -eq 0 ] || cat "$@"
	nfail=$((nfail + 1))
}

# run [--] ARGS...: stopo SUBCOMMAND ARGS, stdout to $tmp/out, stderr to
# $tmp/err (stdin is the caller's); sets and returns $st
run() {
	[ "${1-}" != -- ] || shift
	"$STOPO" "$cli_sub" "$@" >"$tmp/out" 2>"$tmp/err"
	st=$?
	return $st
}

# the cases take their stopo arguments after a "--"
dashdash() {
	[ "$1" = -- ] && return 0
	echo "lib.sh: case $2: '--' must come before the stopo arguments" >&2
	exit 99
}

# compare NAME FILE: FILE must equal the golden file of NAME
compare() {
	if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
		cp "$2" "$cli_prefix$1"
		echo "new  $1"
	elif ! diff -u "$cli_prefix$1" "$2"; then
		flunk "$1" "output differs from golden"
	else
		pass "$1"
	fi
}

# golden NAME -- ARGS...: stopo exits 0 and its stdout, filtered, equals
# the golden file of NAME, whose values the script's comments say were
# worked out independently (by hand, from a paper's formula, ...)
golden() {
	dashdash "${2-}" "$1"
	g_name=$1
	shift 2
	if ! run "$@"; then
		flunk "$g_name" "exit $st, want 0" "$tmp/err"
		return
	fi
	$cli_filter <"$tmp/out" >"$tmp/filtered"
	compare "$g_name" "$tmp/filtered"
}

# pinned NAME -- ARGS...: the same check, but the golden file is the
# program's own output, pinned against regressions (reviewed when it was
# written, not worked out independently)
pinned() {
	golden "$@"
}

# expect_fail [-x] NAME STATUS MESSAGE -- ARGS...: stopo exits STATUS and
# its stderr contains MESSAGE (a fixed string, not a pattern).  With -x
# stderr is exactly "stopo SUBCOMMAND: MESSAGE" and stdout is empty.
expect_fail() {
	f_exact=0
	if [ "$1" = -x ]; then
		f_exact=1
		shift
	fi
	dashdash "${4-}" "$1"
	f_name=$1 f_want=$2 f_msg=$3
	shift 4
	run "$@"
	if [ "$st" -ne "$f_want" ]; then
		flunk "$f_name" "exit $st, want $f_want; stderr:" "$tmp/err"
	elif [ $f_exact = 1 ]; then
		printf 'stopo %s: %s\n' "$cli_sub" "$f_msg" >"$tmp/want"
		if ! diff -u "$tmp/want" "$tmp/err"; then
			flunk "$f_name" "stderr differs"
		elif [ -s "$tmp/out" ]; then
			flunk "$f_name" "stdout is not empty:" "$tmp/out"
		else
			pass "$f_name"
		fi
	elif ! grep -q -F -- "$f_msg" "$tmp/err"; then
		flunk "$f_name" "stderr lacks '$f_msg':" "$tmp/err"
	else
		pass "$f_name"
	fi
}

# finish: exit 1 when a case failed, else 0
finish() {
	if [ "$nfail" -ne 0 ]; then
		echo "$nfail case(s) failed"
		exit 1
	fi
	exit 0
}
