#!/bin/sh
# configure and the Slurm series: it reads SLURM_VERSION_NUMBER from the
# tree it is given, says the series, refuses one it does not support with
# the list of those it does, and refuses a tree whose META says another
# release.  Fake trees (the files configure reads, nothing else) under a
# temporary directory; configure runs with the plugins' checks only.
set -u
src=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
tmp=$(mktemp -d /tmp/configure_series.XXXXXX) || exit 99
trap 'rm -rf "$tmp"' EXIT
fails=0

# tree DIR VERSION NUMBER: a configured Slurm tree of release VERSION
# whose slurm_version.h says NUMBER
tree() {
	mkdir -p "$1/src/slurmctld" "$1/slurm"
	: >"$1/src/slurmctld/slurmctld.h"
	: >"$1/config.h"
	printf '  Version:\t%s\n' "$2" >"$1/META"
	printf '#define SLURM_VERSION_NUMBER %s\n' "$3" >"$1/slurm/slurm_version.h"
}
# expect NAME STATUS TEXT configure-args...: configure exits STATUS
# (0 or not) and prints TEXT
expect() {
	name=$1 want=$2 text=$3
	shift 3
	mkdir -p "$tmp/b.$name"
	(cd "$tmp/b.$name" && "$src/configure" "$@") >"$tmp/$name.out" 2>&1
	st=$?
	if { [ "$want" = 0 ] && [ $st = 0 ]; } || { [ "$want" != 0 ] && [ $st != 0 ]; }; then
		if grep -qF -- "$text" "$tmp/$name.out"; then
			echo "ok   $name"
			return
		fi
	fi
	echo "FAIL $name (exit $st): want '$text'"
	tail -n 3 "$tmp/$name.out"
	fails=$((fails + 1))
}

tree "$tmp/s2302" 23.02.7 0x170207
expect unsupported 1 \
	"Slurm 23.02.7 (series 23.02) is not supported: select/topo builds against 22.05, 24.11, 25.11 and 26.05" \
	--with-slurm-source="$tmp/s2302"
tree "$tmp/s2605" 26.05.3 0x1a0503
expect series 0 "26.05 (Slurm 26.05.3, SLURM_VERSION_NUMBER 1705219 in $tmp/s2605/slurm/slurm_version.h)" \
	--with-slurm-source="$tmp/s2605" --disable-slurm-tests
tree "$tmp/s2511" 25.11.6 0x190b07
expect meta 1 "says Slurm 25.11.7 but $tmp/s2511/META says 25.11.6" \
	--with-slurm-source="$tmp/s2511"
[ $fails = 0 ] || exit 1
echo "configure_series: 3 cases"
