#!/bin/sh
# Every shell script under scripts/ and tests/ passes shellcheck at
# warning severity (its style and info notes are advice, not failures).
# SC2154, "referenced but not assigned", is off: top_srcdir and
# top_builddir come from make's environment, and the Slurm tests name
# their job variables through eval (sub a ..., start_jobs a=3 ...),
# neither of which shellcheck can see.
set -eu
src=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$src"
command -v shellcheck >/dev/null || {
	echo "shellcheck: not found (install the Debian package shellcheck)"
	exit 77
}
files=$( (find scripts tests -name '*.sh' -not -path 'tests/data/*'; echo tests/timed-driver) | sort)
# shellcheck disable=SC2086 # our script paths: no blanks
if ! shellcheck -S warning -e SC2154 -f gcc $files; then
	echo "shellcheck: findings above"
	exit 1
fi
echo "shellcheck: $(echo $files | wc -w) scripts clean"
