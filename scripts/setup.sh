#!/bin/sh
# setup.sh - install what select/topo needs on Debian 12 and build it.
#
#   scripts/setup.sh            install packages, fetch Slurm's sources, build
#   scripts/setup.sh --deps     only install packages and fetch 22.05's source
#
# Builds select/topo against each supported Slurm series: Debian 12's
# 22.05.8 in _build, and in a build tree each (the peers, whose
# tests/slurm make check in _build runs as well) Debian 13's 24.11.5 in
# _build24, SchedMD's 25.11.7 in _build2511 and 26.05.3 in _build2605,
# each Slurm built into _deps/ by scripts/setup-slurm.sh (reused once
# built; the two tarballs come from ../shared/slurm/).
# Needs root (apt-get).  Idempotent: a second run only rebuilds.
# Environment: BUILD_DIR (default ./_build), SLURM_SRC_PARENT (./_deps),
# SLURM_PEERS (default "24.11.5 25.11.7 26.05.3"; empty: 22.05 only;
# SLURM24=no, the old switch, means empty too).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$top/_build}
deps=${SLURM_SRC_PARENT:-$top/_deps}
slurm_version=22.05.8

say() { printf '== %s\n' "$*" >&2; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

packages="build-essential autoconf automake libtool pkg-config
 libglpk-dev glpk-utils libhwloc-dev hwloc libcriterion-dev libjson-c-dev
 libyaml-dev
 libslurm-dev slurmctld slurmd slurm-client munge valgrind dpkg-dev
 iproute2 procps diffutils python3 clang-format clang libclang-rt-14-dev
 shellcheck
 python3-pytest python3-requests python3-pexpect
 librsvg2-bin prometheus"
missing=
for p in $packages; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	say "installing Debian packages:$missing"
	as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
	# The daemons must not start from the package scripts: tests start
	# their own on loopback.
	own_policy=
	if [ ! -e /usr/sbin/policy-rc.d ]; then
		printf '#!/bin/sh\nexit 101\n' | as_root tee /usr/sbin/policy-rc.d >/dev/null
		as_root chmod +x /usr/sbin/policy-rc.d
		own_policy=1
	fi
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends $missing >/dev/null
	[ -z "$own_policy" ] || as_root rm -f /usr/sbin/policy-rc.d
fi

# Slurm's source tree, for the plugin's internal headers (src/common/*.h).
src="$deps/slurm-wlm-$slurm_version"
if [ ! -f "$src/src/common/select.h" ]; then
	say "fetching Debian's slurm-wlm $slurm_version source package"
	if ! grep -rqs '^Types:.*deb-src' /etc/apt/sources.list.d/ &&
	   ! grep -qs '^deb-src' /etc/apt/sources.list; then
		if [ -f /etc/apt/sources.list.d/debian.sources ]; then
			sed 's/^Types: deb$/Types: deb-src/' \
				/etc/apt/sources.list.d/debian.sources |
				as_root tee /etc/apt/sources.list.d/debian-src.sources >/dev/null
		else
			grep '^deb ' /etc/apt/sources.list | sed 's/^deb /deb-src /' |
				as_root tee /etc/apt/sources.list.d/debian-src.list >/dev/null
		fi
		as_root apt-get update -qq
	fi
	mkdir -p "$deps"
	(cd "$deps" && apt-get source -qq "slurm-wlm=$slurm_version-*" >/dev/null 2>&1 ||
		apt-get source -qq slurm-wlm >/dev/null 2>&1)
	[ -f "$src/src/common/select.h" ] || {
		echo "setup.sh: could not unpack Slurm's source into $src" >&2
		exit 1
	}
fi
[ "${1:-}" = --deps ] && exit 0

# shellcheck disable=SC3013 # dash and bash both have -nt
if [ ! -x "$top/configure" ] || [ "$top/configure.ac" -nt "$top/configure" ]; then
	say "autoreconf"
	(cd "$top" && autoreconf -fi >/dev/null 2>&1)
fi

# The other series beside 22.05: Slurm built into $deps by
# setup-slurm.sh, select/topo configured against it in a build tree of
# its own (_build24, _build2511, _build2605), whose tests/slurm make
# check in $build runs too (--with-peer-build).  A tarball missing from
# ../shared/slurm leaves its series out, loudly.
peers=${SLURM_PEERS-24.11.5 25.11.7 26.05.3}
[ "${SLURM24:-yes}" != no ] || peers=
peer=
for v in $peers; do
	case $v in
	24.11.5) srcdir=$deps/slurm-wlm-$v ;;
	*) srcdir=$deps/slurm-$v-src ;;
	esac
	series=$(echo "$v" | cut -d. -f1-2 | tr -d .)
	[ "$series" = 2411 ] && series=24
	pb=$top/_build$series
	rc=0
	"$top/scripts/setup-slurm.sh" "$v" || rc=$?
	if [ $rc = 3 ]; then
		say "Slurm $v LEFT OUT: its tarball is missing (see above)"
		continue
	fi
	[ $rc = 0 ] || exit $rc
	mkdir -p "$pb"
	if [ ! -f "$pb/Makefile" ]; then
		say "configure against Slurm $v (build directory $pb)"
		(cd "$pb" && "$top/configure" -q \
			--with-slurm-source="$srcdir" \
			--with-slurm-build="$deps/slurm-$v-build")
	fi
	say "make (Slurm $v)"
	make -s -C "$pb" -j"$(nproc)" >/dev/null
	peer=${peer:+$peer:}$pb
done

mkdir -p "$build"
if [ ! -f "$build/Makefile" ] ||
   [ "$(sed -n 's/^PEER_BUILD = //p' "$build/Makefile")" != "$peer" ]; then
	say "configure (build directory $build)"
	(cd "$build" && "$top/configure" -q --with-slurm-source="$src" \
		${peer:+--with-peer-build="$peer"})
fi
say "make"
make -s -C "$build" -j"$(nproc)" >/dev/null
say "built $build/stopo"
