#!/bin/sh
# The layers, bottom to top, and the rule the tree must keep: a file may
# include headers of its own module and of lower layers only, and a layer's
# library may reference symbols of its own and lower layers only (anything
# else it references must come from outside the project: libc, GLPK, ...).
# Two modules of the same rank are independent of each other.
#
#   rank  directory            library
#   0     topo/util            topo/util/libutil
#   1     topo                 topo/libtopo
#   2     evaluator/traffic    evaluator/traffic/libtraffic
#   2     evaluator/nne        evaluator/nne/libnne
#   2     topo/import          topo/import/libimport
#   3     policies             policies/libpolicies
#   4     policies/machine     policies/machine/libmachine
#   5     evaluator/sharing    evaluator/sharing/libsharing
#   5     evaluator/models     evaluator/models/libmodels
#   6     evaluator/sim        evaluator/sim/libsim
#   7     evaluator/cmd        (stopo)
#   8     plugin               (select_topo_cons_tres.so, spank_topo.so)
set -eu
src=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
build=${top_builddir:-$src/_build}
layers='topo/util:0 topo:1 evaluator/traffic:2 evaluator/nne:2 topo/import:2 policies:3 policies/machine:4
evaluator/sharing:5 evaluator/models:5 evaluator/sim:6 evaluator/cmd:7 plugin:8'

rank_of() {
	for l in $layers; do
		[ "${l%:*}" = "$1" ] && { echo "${l#*:}"; return; }
	done
	echo ""
}

bad=0
# 1. Includes.
for l in $layers; do
	dir=${l%:*} rank=${l#*:}
	[ -d "$src/$dir" ] || continue
	for f in "$src/$dir"/*.c "$src/$dir"/*.h; do
		[ -f "$f" ] || continue
		for inc in $(sed -n 's/^#include "\([a-z_/]*\)\/[a-z_0-9]*\.h".*/\1/p' "$f"); do
			r=$(rank_of "$inc")
			[ -n "$r" ] || continue
			if [ "$r" -gt "$rank" ] ||
			   { [ "$r" = "$rank" ] && [ "$inc" != "$dir" ]; }; then
				echo "layers: ${f#$src/} (layer $dir, rank $rank) includes $inc (rank $r)"
				bad=1
			fi
		done
	done
done

# 2. Symbols: what each library leaves undefined must not be defined by a
# library of a higher rank, or of the same rank in another module.
defs=$(mktemp)
trap 'rm -f "$defs"' EXIT
nlibs=0
for l in $layers; do
	dir=${l%:*}
	for a in "$build/$dir"/.libs/lib*.a; do
		[ -f "$a" ] || continue
		nm -g --defined-only "$a" 2>/dev/null |
			awk -v d="$dir" 'NF == 3 { print $3, d }' >>"$defs"
		nlibs=$((nlibs + 1))
	done
done
for l in $layers; do
	dir=${l%:*} rank=${l#*:}
	for a in "$build/$dir"/.libs/lib*.a; do
		[ -f "$a" ] || continue
		for sym in $(nm -g --undefined-only "$a" 2>/dev/null | awk '{ print $NF }' | sort -u); do
			owner=$(awk -v s="$sym" '$1 == s { print $2; exit }' "$defs")
			[ -n "$owner" ] || continue
			r=$(rank_of "$owner")
			if [ "$r" -gt "$rank" ] ||
			   { [ "$r" = "$rank" ] && [ "$owner" != "$dir" ]; }; then
				echo "layers: ${a#$build/} (layer $dir) references $sym of $owner"
				bad=1
			fi
		done
	done
done
if [ "$nlibs" -lt 7 ]; then
	echo "layers: found only $nlibs layer libraries under $build (build first)"
	bad=1
fi
[ $bad = 0 ] && echo "layers: includes and symbols of $nlibs libraries respect the layer order"
exit $bad
