#!/bin/sh
# man.sh SOURCE_DIR BUILD_DIR — the man pages are well-formed (groff reads
# them without a warning) and `man sheaf` finds them after `cmake --install`.
set -eu
src=$1
build=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
for page in "$src"/man/man1/*.1; do
    warnings=$(groff -man -ww -z "$page" 2>&1) || status=1
    if [ -n "$warnings" ]; then
        echo "FAIL: $page:"
        echo "$warnings"
        status=1
    fi
done
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
for page in "$src"/man/man1/*.1; do
    name=$(basename "$page" .1)
    found=$(MANPATH="$tmp/prefix/share/man" man -w "$name" 2>/dev/null) ||
        { echo "FAIL: man -w $name after cmake --install"; status=1; continue; }
    [ "$found" = "$tmp/prefix/share/man/man1/$name.1.gz" ] ||
        { echo "FAIL: man -w $name: $found"; status=1; }
done
MANPATH="$tmp/prefix/share/man" MANWIDTH=80 man sheaf 2>&1 | grep -q 'sheaf - a static blog and site generator' ||
    { echo "FAIL: man sheaf"; status=1; }
[ $status = 0 ] && echo "ok: $(ls "$src"/man/man1/*.1 | wc -l) man pages"
exit $status
