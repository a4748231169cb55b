#!/bin/sh
# setup-slurm.sh - build a Slurm release into a prefix under _deps/, so
# that select/topo can be built and tested against it beside the system's
# 22.05 (scripts/setup.sh).
#
#   scripts/setup-slurm.sh 24.11.5    Debian 13's slurm-wlm source package
#   scripts/setup-slurm.sh 25.11.7    SchedMD's release tarball
#   scripts/setup-slurm.sh 26.05.3    (from ../shared/slurm/, or $SLURM_TARBALLS)
#
# Each goes to $SLURM_SRC_PARENT (default ./_deps): the source tree
# (slurm-wlm-24.11.5 for Debian's, slurm-VERSION-src for a tarball), the
# build tree slurm-VERSION-build (configure --with-slurm-build takes it)
# and the installation slurm-VERSION (daemons, commands, stock plugins).
# Idempotent: when the prefix holds a slurmctld of this version the script
# only says where things are.  Needs root only to install libmunge-dev.
# Exit status 3: the tarball is not there (the series is then left out).
#
# Debian 12 has no deb-src line for trixie: for 24.11.5 a private sources
# list (apt's own configuration untouched) gives the Sources index and so
# each file's SHA-256; the files come from the pool (the .orig.tar.gz from
# the main archive, the .debian.tar.xz of the +deb13u1 security update
# from trixie-security; the .dsc is served by neither, so the package is
# unpacked by hand and debian/patches/series applied with patch(1)).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
deps=${SLURM_SRC_PARENT:-$top/_deps}
version=${1:?usage: setup-slurm.sh VERSION (24.11.5, 25.11.7 or 26.05.3)}
tarballs=${SLURM_TARBALLS:-$top/../shared/slurm}
bld=$deps/slurm-$version-build
prefix=$deps/slurm-$version

say() { printf '== %s\n' "$*" >&2; }
die() { printf 'setup-slurm.sh: %s\n' "$*" >&2; exit 1; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

case $version in
24.11.5) src=$deps/slurm-wlm-$version debrev=4+deb13u1 ;;
25.11.7 | 26.05.3) src=$deps/slurm-$version-src ;;
*) die "$version: not a series select/topo supports (24.11.5, 25.11.7, 26.05.3; 22.05.8 is Debian 12's packages)" ;;
esac

if [ -x "$prefix/sbin/slurmctld" ] &&
   "$prefix/sbin/slurmctld" -V 2>/dev/null | grep -qx "slurm $version" &&
   [ -f "$bld/slurm/slurm_version.h" ]; then
	say "Slurm $version already built: $prefix"
	exit 0
fi

dpkg-query -W -f='${Status}' libmunge-dev 2>/dev/null | grep -q 'ok installed' || {
	say "installing libmunge-dev"
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends libmunge-dev >/dev/null
}

mkdir -p "$deps"
fetch_debian() {
	apt=$deps/apt-trixie
	mkdir -p "$apt/lists/partial" "$apt/archives/partial"
	cat >"$apt/sources.list" <<EOF
deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main
deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian-security trixie-security main
EOF
	aptopts="-o Dir::Etc::sourcelist=$apt/sources.list
		-o Dir::Etc::sourceparts=- -o Dir::State::Lists=$apt/lists
		-o Dir::Cache::Archives=$apt/archives -o APT::Get::List-Cleanup=0
		-o Debug::NoLocking=1"
	say "reading trixie's Sources index (private list $apt/sources.list)"
	# shellcheck disable=SC2086
	apt-get $aptopts update -qq >/dev/null ||
		die "apt-get update on $apt/sources.list failed"
	# Each line: 'URI' name size SHA256:hash
	# shellcheck disable=SC2086
	apt-get $aptopts source --print-uris -qq "slurm-wlm=$version-$debrev" \
		>"$apt/uris" 2>/dev/null ||
		die "slurm-wlm $version-$debrev is not in trixie's Sources index"
	for f in "slurm-wlm_$version.orig.tar.gz" "slurm-wlm_$version-$debrev.debian.tar.xz"; do
		sum=$(awk -v f="$f" '$2 == f { sub(/^SHA256:/, "", $4); print $4 }' "$apt/uris")
		[ -n "$sum" ] || die "$f: not listed in the Sources index"
		if [ -f "$deps/$f" ] && echo "$sum  $deps/$f" | sha256sum -c --status; then
			continue
		fi
		say "downloading $f"
		ok=
		for pool in http://deb.debian.org/debian/pool/main \
			    http://deb.debian.org/debian-security/pool/updates/main; do
			if curl -fsL -o "$deps/$f.part" "$pool/s/slurm-wlm/$f"; then
				ok=1
				break
			fi
		done
		[ -n "$ok" ] || die "$f: not found in trixie's pools"
		echo "$sum  $deps/$f.part" | sha256sum -c --status ||
			die "$f: SHA-256 differs from the Sources index"
		mv "$deps/$f.part" "$deps/$f"
	done
	say "unpacking into $src"
	rm -rf "$src"
	mkdir -p "$src"
	tar -xzf "$deps/slurm-wlm_$version.orig.tar.gz" -C "$src" --strip-components=1
	tar -xJf "$deps/slurm-wlm_$version-$debrev.debian.tar.xz" -C "$src"
	while read -r p; do
		case $p in '' | '#'*) continue ;; esac
		patch -s -p1 -d "$src" <"$src/debian/patches/$p" ||
			die "debian/patches/$p does not apply"
	done <"$src/debian/patches/series"
	: >"$src/debian/.applied"
}
fetch_tarball() {
	tgz=$tarballs/slurm-$version.tar.gz
	if [ ! -f "$tgz" ]; then
		printf 'setup-slurm.sh: %s not found: Slurm %s is left out (set SLURM_TARBALLS to the directory holding it)\n' \
			"$tgz" "$version" >&2
		exit 3
	fi
	say "unpacking $tgz into $src"
	rm -rf "$src"
	mkdir -p "$src"
	tar -xzf "$tgz" -C "$src" --strip-components=1 ||
		die "$tgz: cannot unpack"
	grep -q "^ *Version:[[:space:]]*${version%.*}" "$src/META" ||
		die "$tgz: META says $(sed -n 's/^ *Version:[[:space:]]*//p' "$src/META"), not $version"
	: >"$src/.unpacked"
}
case $version in
24.11.5) [ -f "$src/debian/.applied" ] || fetch_debian ;;
*) [ -f "$src/.unpacked" ] || fetch_tarball ;;
esac

# Out-of-tree build of src/ only (Debian's man-page patch breaks doc/ out
# of tree; the tests need no documentation).  --disable-static halves the
# time; --enable-multiple-slurmd for slurmd -N; --disable-debug with
# SLURM_CFLAGS (default -O0, no debugging information: Slurm's default
# adds -ggdb3) compiles faster: job_mgr.c of 24.11 in 1.8 s of CPU
# at -O0, 4.2 s at -O1.  The tests' daemons spend their time waiting on
# jobs, not computing.
mkdir -p "$bld"
if [ ! -f "$bld/config.status" ]; then
	say "configure Slurm $version (build tree $bld, prefix $prefix)"
	(cd "$bld" && "$src/configure" -q --prefix="$prefix" --with-munge \
		--enable-multiple-slurmd --disable-static --disable-debug \
		CFLAGS="${SLURM_CFLAGS:--O0 -fno-strict-aliasing}" \
		--sysconfdir="$prefix/etc" >"$bld/configure.out" 2>&1) ||
		die "configure failed: see $bld/configure.out and $bld/config.log"
fi
# make's recipes and libtool (run as $(SHELL) libtool) under dash where
# there is one: libtool forks for every step, and dash's forks are
# cheaper; 25.11.7's make took 183 s with dash, 275 s with bash, the
# installation 43 s and 60 s, the same 167 plugins installed.
mkshell=/bin/sh
[ -x /bin/dash ] && mkshell=/bin/dash
say "make Slurm $version (the longest step: several CPU-minutes)"
make -s -C "$bld/src" -j"$(nproc)" SHELL="$mkshell" >"$bld/make.out" 2>&1 ||
	die "make failed: see $bld/make.out"
make -s -C "$bld/src" install SHELL="$mkshell" >"$bld/install.out" 2>&1 ||
	die "make install failed: see $bld/install.out"
"$prefix/sbin/slurmctld" -V | grep -qx "slurm $version" ||
	die "$prefix/sbin/slurmctld is not version $version"
say "Slurm $version installed in $prefix"
