#!/bin/sh
# deps.sh — install what is missing, with Debian's apt (run as root).
#   scripts/deps.sh build   the libraries and tools needed to build sheaf
#   scripts/deps.sh release the above plus what scripts/release.sh uses
#   scripts/deps.sh test    the above plus what the test suite uses
# Installs nothing when everything is already there, so it is cheap to run.
set -eu

build_pkgs="build-essential cmake pkg-config libcmark-gfm-dev libcmark-gfm-extensions-dev libgumbo-dev libyaml-dev libtomlplusplus-dev libmicrohttpd-dev libutf8proc-dev libpcre2-dev nettle-dev libvips-dev libgraphviz-dev duktape-dev libjs-highlight.js libjs-katex citation-style-language-styles citation-style-language-locales"
# The release files (scripts/release.sh): a Debian package and its source
# packages' tools, and what checks the binary is static.
release_pkgs="$build_pkgs dpkg-dev file"
test_pkgs="$release_pkgs libvips-tools podman firefox-esr strace mmdebstrap lintian clang libfuzzer-14-dev python3 python3-jinja2 python3-yaml python3-nbconvert nginx rsync chromium default-jre-headless nodejs npm valgrind wrk zsh fish groff-base man-db"

case "${1:-build}" in
    build) want=$build_pkgs ;;
    release) want=$release_pkgs ;;
    test) want=$test_pkgs ;;
    *) echo "usage: $0 build|release|test" >&2; exit 2 ;;
esac

missing=""
for p in $want; do
    # npm may come from outside Debian (e.g. a newer Node.js install): a
    # working command is enough.
    case $p in
        nodejs) command -v node >/dev/null 2>&1 && continue ;;
        npm) command -v npm >/dev/null 2>&1 && continue ;;
    esac
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done

if [ -n "$missing" ]; then
    if [ "$(id -u)" != 0 ]; then
        echo "deps.sh: missing Debian packages:$missing (run this script as root, or install them)" >&2
        exit 1
    fi
    echo "deps.sh: installing$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q
    # shellcheck disable=SC2086
    apt-get install -y -q --no-install-recommends $missing
fi

if [ "${1:-build}" = test ]; then
    # The browser driver, the HTML checker, the accessibility checker and
    # Lighthouse, pinned in tests/package-lock.json.
    here=$(cd "$(dirname "$0")/.." && pwd)
    if [ ! -f "$here/tests/node_modules/vnu-jar/build/dist/vnu.jar" ] ||
       [ ! -d "$here/tests/node_modules/playwright-core" ] ||
       [ ! -f "$here/tests/node_modules/axe-core/axe.min.js" ] ||
       [ ! -d "$here/tests/node_modules/lighthouse" ]; then
        echo "deps.sh: installing the test suite's npm packages into tests/node_modules"
        npm ci --prefix "$here/tests" --no-audit --no-fund --ignore-scripts
    fi
fi
