# lib.sh — shared by the release tests: the release files of DIST, the
# example site, and how to fail or skip (ctest reads exit 77 as skipped).
fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIPPED: $*"; exit 77; }
root=$(cd "$(dirname "$0")/../.." && pwd)
version=$(sed -n 's/^project(sheaf VERSION \([0-9.]*\).*/\1/p' "$root/CMakeLists.txt")
release_bin() { # DIST → the static binary's path
    f=$1/sheaf-$version-linux-$(uname -m)
    [ -f "$f" ] || fail "$f is missing: run scripts/release.sh (the test release/files)"
    echo "$f"
}
release_deb() { # DIST → the .deb's path
    f=$1/sheaf_${version}_$(dpkg --print-architecture).deb
    [ -f "$f" ] || fail "$f is missing: run scripts/release.sh (the test release/files)"
    echo "$f"
}
copy_example_site() { # DIR: the repository's example site, copied into DIR
    mkdir -p "$1"
    for f in site.yaml refs.bib content templates static data themes; do
        [ -e "$root/$f" ] && cp -r "$root/$f" "$1/"
    done
    return 0
}
