#!/bin/sh
# Installs sheaf from its repository at a pinned commit or tag, on Debian
# or Ubuntu, for a CI job that publishes a site (the GitHub Pages and GitLab
# Pages recipes in docs/publishing.md run exactly these lines).
#   SHEAF_REPO=https://…/sheaf.git SHEAF_REF=<commit or tag> PREFIX=/usr/local \
#     sh install-sheaf.sh
# Needs root for apt-get (the build dependencies are Debian packages) unless
# they are installed already.
set -eu
: "${SHEAF_REPO:?set SHEAF_REPO to the sheaf repository to install from}"
: "${SHEAF_REF:?set SHEAF_REF to the commit or tag to install}"
PREFIX=${PREFIX:-/usr/local}
src=${SHEAF_SRC:-${TMPDIR:-/tmp}/sheaf-src}
rm -rf "$src"
git init -q "$src"
git -C "$src" fetch -q --depth 1 "$SHEAF_REPO" "$SHEAF_REF"
git -C "$src" checkout -q FETCH_HEAD
sh "$src/scripts/deps.sh" build
cmake -S "$src" -B "$src/build" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF \
    -DCMAKE_INSTALL_PREFIX="$PREFIX" >/dev/null
cmake --build "$src/build" -j"$(nproc 2>/dev/null || echo 2)"
cmake --install "$src/build" >/dev/null
"$PREFIX/bin/sheaf" --version
