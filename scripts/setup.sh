#!/bin/sh
# setup.sh - install what select/topo needs on Debian 12 and build it.
#
#   scripts/setup.sh            install packages, fetch Slurm's source, build
#   scripts/setup.sh --deps     only install packages and fetch the source
#
# Builds twice: against Debian 12's Slurm 22.05.8 in _build, and against
# Debian 13's 24.11.5 (scripts/setup-slurm24.sh builds it into _deps/) in
# _build24, whose real-daemon tests make check in _build runs as well.
# Needs root (apt-get).  Idempotent: a second run only rebuilds.
# Environment: BUILD_DIR (default ./_build), BUILD24_DIR (./_build24),
# SLURM_SRC_PARENT (default ./_deps), SLURM24=no (22.05 only).
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
 iproute2 procps diffutils python3 clang-format clang libclang-rt-14-dev"
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

if [ ! -x "$top/configure" ] || [ "$top/configure.ac" -nt "$top/configure" ]; then
	say "autoreconf"
	(cd "$top" && autoreconf -fi >/dev/null 2>&1)
fi

# Slurm 24.11.5 (Debian 13's) beside 22.05: built into
# $deps/slurm-24.11.5 by setup-slurm24.sh (reused when there), the
# plugins built against it in $build24, whose tests/slurm make check in
# $build runs too (--with-peer-build).  SLURM24=no leaves it out.
peer=
if [ "${SLURM24:-yes}" != no ]; then
	"$top/scripts/setup-slurm24.sh"
	build24=${BUILD24_DIR:-$top/_build24}
	mkdir -p "$build24"
	if [ ! -f "$build24/Makefile" ]; then
		say "configure against Slurm 24.11.5 (build directory $build24)"
		(cd "$build24" && "$top/configure" -q \
			--with-slurm-source="$deps/slurm-wlm-24.11.5" \
			--with-slurm-build="$deps/slurm-24.11.5-build")
	fi
	say "make (Slurm 24.11.5)"
	make -s -C "$build24" -j"$(nproc)" >/dev/null
	peer=$(cd "$build24" && pwd)
fi

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
