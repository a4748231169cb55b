#!/bin/sh
# Every C file outside plugin/slurm_config is formatted as .clang-format
# says (clang-format from Debian's clang-format package).
set -eu
src=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$src"
command -v clang-format >/dev/null || {
	echo "format: clang-format not found (install the Debian package clang-format)"
	exit 77
}
files=$(find topo evaluator policies plugin bench tests -name '*.[ch]' \
	-not -path 'plugin/slurm_config/*' | sort)
if ! clang-format --dry-run -Werror $files 2>/tmp/format.$$; then
	grep 'error:' /tmp/format.$$ | sed 's/:[0-9]*: error:.*//' | sort -u |
		sed 's/^/format: not formatted: /'
	rm -f /tmp/format.$$
	exit 1
fi
rm -f /tmp/format.$$
echo "format: $(echo $files | wc -w) files match .clang-format"
