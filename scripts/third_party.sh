#!/bin/sh
# third_party.sh — the one static library of the release binary that Debian
# does not ship as sheaf needs it, built from Debian's own source package at
# a pinned version (docs/install.md): libmicrohttpd without GnuTLS (Debian's
# libmicrohttpd.a needs GnuTLS and its five libraries, of which Debian ships
# no static p11-kit; the preview server speaks loopback HTTP only). Every
# other library's .a comes from its -dev package, and Duktape from the
# amalgamated source duktape-dev ships, which CMake compiles (SHEAF_STATIC).
#
#   scripts/third_party.sh DIR
#
# fetches the sources with apt (deb-src entries made from the machine's own
# Debian entries, in a private apt state under DIR: the system's apt
# configuration is not touched), checks that apt verified them, builds them
# into DIR/prefix and copies their licences to DIR/licenses. Runs again only
# what is missing, so a second call is cheap.
set -eu

# The pin: source package and Debian version.
MHD_PKG=libmicrohttpd MHD_VER=0.9.75-6

dir=${1:?usage: third_party.sh DIR}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
prefix=$dir/prefix
jobs=$(nproc 2>/dev/null || echo 2)

if [ -f "$prefix/lib/libmicrohttpd.a" ]; then
    exit 0
fi

# --- a private apt with deb-src entries for this machine's Debian release
apt_dir=$dir/apt
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial"
list=$apt_dir/sources.list
sh "$(dirname "$0")/debian-sources.sh" deb-src >"$list"

apt_opts="-o Dir::Etc::SourceList=$list -o Dir::Etc::SourceParts=/nonexistent
 -o Dir::State::Lists=$apt_dir/lists -o Dir::Cache=$apt_dir/cache -o Debug::NoLocking=1
 -o APT::Sandbox::User=root"
# shellcheck disable=SC2086
apt-get -q $apt_opts update >"$apt_dir/update.log" 2>&1 ||
    { cat "$apt_dir/update.log" >&2; echo "third_party.sh: apt-get update (deb-src) failed" >&2; exit 1; }

fetch() { # package version → unpacked in $dir/src/package-version
    [ -d "$dir/src/$1-$2" ] && return 0
    mkdir -p "$dir/src/dl-$1"
    # apt verifies the .dsc's signature chain and every file's checksum.
    # shellcheck disable=SC2086
    (cd "$dir/src/dl-$1" && apt-get -q $apt_opts source --download-only "$1=$2" >"$dir/src/dl-$1.log" 2>&1) ||
        { cat "$dir/src/dl-$1.log" >&2; false; } ||
        { echo "third_party.sh: cannot fetch the source of $1 $2 (is the pin still in the archive? see docs/install.md)" >&2; exit 1; }
    dpkg-source --no-check -x "$dir/src/dl-$1/$1_$(echo "$2" | sed 's/^[0-9]*://').dsc" "$dir/src/$1-$2" >/dev/null
}

mkdir -p "$prefix/lib" "$prefix/include" "$dir/licenses"

# --- libmicrohttpd, HTTP only
fetch "$MHD_PKG" "$MHD_VER"
s=$dir/src/$MHD_PKG-$MHD_VER
(cd "$s" && ./configure -q --prefix="$prefix" --disable-shared --enable-static \
    --disable-https --without-gnutls --disable-curl --disable-doc --disable-examples \
    --disable-dauth --disable-bauth --disable-postprocessor \
    CFLAGS="-O2 -g0" >"$dir/mhd-configure.log" 2>&1 &&
    make -s -j"$jobs" -C src/microhttpd >"$dir/mhd-make.log" 2>&1 &&
    make -s -C src/microhttpd install >/dev/null && make -s -C src/include install >/dev/null) ||
    { tail -30 "$dir"/mhd-*.log >&2; echo "third_party.sh: building libmicrohttpd failed" >&2; exit 1; }
cp "$s/COPYING" "$dir/licenses/libmicrohttpd.COPYING"
cp "$s/debian/copyright" "$dir/licenses/libmicrohttpd.copyright"
