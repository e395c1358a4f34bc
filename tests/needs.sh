#!/bin/sh
# needs.sh — runs a test that needs packages from tests/node_modules (npm)
# and the programs that run them, or skips it: when one is missing it says
# which and how to install it, and exits 77, which ctest reports as a
# skipped test (SKIP_RETURN_CODE 77) instead of a failure. scripts/test.sh
# installs them first (scripts/deps.sh test), so there the test always runs.
#   tests/needs.sh "NPM PACKAGES" "PROGRAMS" COMMAND [ARG...]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
packages=$1
programs=$2
shift 2
missing=""
for p in $packages; do
    [ -e "$here/node_modules/$p/package.json" ] || missing="$missing $p (npm)"
done
for p in $programs; do
    command -v "$p" >/dev/null 2>&1 || missing="$missing $p"
done
if [ -n "$missing" ]; then
    echo "skipped: this test needs$missing; scripts/deps.sh test installs them" \
         "(the npm packages: npm ci --prefix tests)"
    exit 77
fi
exec "$@"
