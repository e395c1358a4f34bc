#!/bin/sh
# release.sh — the release files, in dist/ (docs/install.md):
#   sheaf-VERSION-linux-ARCH         the static binary: every library linked in
#   sheaf_VERSION_ARCH.deb           the Debian package of the dynamic build
#   *.sha256                         their checksums, as `sha256sum -c` reads them
#   sheaf-VERSION-licenses.txt       the licences of everything in the binary
# Installs what is missing (scripts/deps.sh release), builds libmicrohttpd
# without GnuTLS from its Debian source package (scripts/third_party.sh),
# then the two builds in build-release/. Writes only those files in dist/.
#   scripts/release.sh [DIST]        DIST: where to put them (default dist)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
dist=${1:-$root/dist}
mkdir -p "$dist"
dist=$(cd "$dist" && pwd)
cd "$root"
sh scripts/deps.sh release
version=$(sed -n 's/^project(sheaf VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
arch=$(uname -m)
debarch=$(dpkg --print-architecture)
jobs=$(nproc 2>/dev/null || echo 2)
work=$root/build-release

echo "== libmicrohttpd without GnuTLS (Debian's source package)"
sh scripts/third_party.sh "$work/third_party"

echo "== the static binary"
cmake -S . -B "$work/static" -DCMAKE_BUILD_TYPE=Release -DSHEAF_STATIC=ON \
    -DSHEAF_DEPS_PREFIX="$work/third_party/prefix" -DBUILD_TESTING=OFF >/dev/null
cmake --build "$work/static" -j "$jobs" --target sheaf >/dev/null
bin=sheaf-$version-linux-$arch
strip -o "$dist/$bin" "$work/static/sheaf"
file "$dist/$bin" | grep -q 'statically linked' ||
    { echo "release.sh: $bin is not statically linked: $(file -b "$dist/$bin")" >&2; exit 1; }

echo "== the Debian package"
cmake -S . -B "$work/deb" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF \
    -DCMAKE_INSTALL_PREFIX=/usr >/dev/null
cmake --build "$work/deb" -j "$jobs" >/dev/null
deb=sheaf_${version}_$debarch.deb
(cd "$work/deb" && cpack -G DEB >/dev/null)
cp "$work/deb/$deb" "$dist/$deb"

echo "== licences and checksums"
{
    echo "sheaf $version, and what its static binary holds. Each part's licence follows."
    echo
    echo "== sheaf"
    cat LICENSE
    # The Debian packages whose code is linked or compiled in, then the
    # library built from source here.
    for p in libcmark-gfm-dev libcmark-gfm-extensions-dev libgumbo-dev libyaml-dev \
             libutf8proc-dev libpcre2-dev libtomlplusplus-dev duktape-dev libjs-katex \
             libjs-highlight.js citation-style-language-styles citation-style-language-locales libc6-dev libstdc++-12-dev libgcc-12-dev; do
        f=/usr/share/doc/$p/copyright
        [ -f "$f" ] || continue
        echo; echo "== $p $(dpkg-query -W -f='${Version}' "$p" 2>/dev/null)"; cat "$f"
    done
    echo; echo "== citeproc-js (third_party/citeproc, under the CPAL-1.0; its README says why)"
    cat third_party/citeproc/LICENSE
    echo; echo "== libmicrohttpd (built from Debian's source package)"
    cat "$work/third_party/licenses/libmicrohttpd.copyright"
} >"$dist/sheaf-$version-licenses.txt"
(cd "$dist" && sha256sum "$bin" >"$bin.sha256" && sha256sum "$deb" >"$deb.sha256")
ls -l "$dist/$bin" "$dist/$deb"
echo "release.sh: sheaf $version in $dist"
