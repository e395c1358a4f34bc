#!/bin/sh
# The publishing recipes of docs/publishing.md, tried end to end here:
#  1. docs/recipes/rsync.sh publishes the example site to a folder (rsync
#     with a local destination stands in for host:path), a second run
#     removes what the build no longer makes;
#  2. docs/recipes/install-sheaf.sh (building from source, for a machine
#     the release binary does not fit) installs sheaf from this repository
#     at its current commit (its Debian packages are installed already
#     here), whose binary then builds the example site. Step 2 builds sheaf
#     from scratch: slow. (The CI recipes install the release binary
#     instead: tests/release/recipes.sh.)
#   tests/deploy/recipes.sh path/to/sheaf
# SHEAF_SKIP_SLOW=1 stops after step 1 and the check of step 2's lines
# (ctest's deploy/recipes); without it (deploy/recipes-install, labelled
# slow) the install runs, or the script exits 77 (skipped) outside a git
# checkout.
set -eu
sheaf=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "recipes.sh: FAIL: $*" >&2; exit 1; }

# 1. rsync to a folder
mkdir "$tmp/bin" "$tmp/site"
ln -s "$sheaf" "$tmp/bin/sheaf"
cp -r "$root/site.yaml" "$root/refs.bib" "$root/content" "$tmp/site/"
( cd "$tmp/site" && PATH="$tmp/bin:$PATH" BASE_URL=https://example.org/notes/ DEST="$tmp/www" \
    sh "$root/docs/recipes/rsync.sh" ) >"$tmp/log" 2>&1 || { cat "$tmp/log"; fail "rsync.sh"; }
[ -f "$tmp/www/index.html" ] || fail "rsync.sh: no index.html in the destination"
[ -f "$tmp/www/posts/distributed-training-research/index.html" ] || fail "rsync.sh: no post"
grep -q 'https://example.org/notes/posts/distributed-training-research/' "$tmp/www/sitemap.xml" ||
    fail "rsync.sh: the sitemap lacks the absolute URL"
[ ! -e "$tmp/www/.sheaf-manifest" ] || fail "rsync.sh: the manifest was published"
rm "$tmp/site/content/about.md"
( cd "$tmp/site" && PATH="$tmp/bin:$PATH" BASE_URL=https://example.org/notes/ DEST="$tmp/www" \
    sh "$root/docs/recipes/rsync.sh" ) >"$tmp/log" 2>&1 || { cat "$tmp/log"; fail "rsync.sh again"; }
[ ! -e "$tmp/www/about/index.html" ] || fail "rsync.sh: a page no longer built stayed on the server"
echo "ok rsync.sh publishes and prunes"

# 2. building from source
if [ -n "${SHEAF_SKIP_SLOW:-}" ]; then
    echo "recipes.sh: install step skipped (SHEAF_SKIP_SLOW)"
    exit 0
fi
# The install step builds this checkout's commit: outside a git checkout
# there is none, and the test is reported as skipped (exit 77, ctest's
# SKIP_RETURN_CODE), not as passed.
git -C "$root" rev-parse HEAD >/dev/null 2>&1 || { echo "recipes.sh: not a git checkout: install step skipped"; exit 77; }
SHEAF_REPO="$root" SHEAF_REF=$(git -C "$root" rev-parse HEAD) PREFIX="$tmp/prefix" SHEAF_SRC="$tmp/src" \
    sh "$root/docs/recipes/install-sheaf.sh" >"$tmp/log" 2>&1 || { tail -30 "$tmp/log"; fail "install-sheaf.sh"; }
"$tmp/prefix/bin/sheaf" build -q -s "$tmp/site" -o "$tmp/out2" --base-url https://example.org/ ||
    fail "the installed sheaf does not build the example site"
[ -f "$tmp/out2/index.html" ] || fail "the installed sheaf wrote no index.html"
echo "ok install-sheaf.sh installs sheaf at $(git -C "$root" rev-parse --short HEAD), which builds the site"
