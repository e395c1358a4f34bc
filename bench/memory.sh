#!/bin/sh
# bench/memory.sh — peak memory of a clean `sheaf build`, the time of a
# build after a one-line edit, and that every output is byte-identical to
# a reference: checked by this script (diff -r), not by eye.
#
#   bench/memory.sh [POSTS…]        default 10000; e.g. bench/memory.sh 10000 100000
#   SHEAF=build-rel/sheaf REF=/path/to/other/sheaf bench/memory.sh 10000
#   EDIT=0 REF=… bench/memory.sh 100000   the clean builds only (no edit)
#
# For each size: generates the corpus with bench/gen_corpus.py (once; kept
# in WORK between runs), builds it clean under GNU time (peak RSS, CPU,
# wall), edits one post's body and builds again into the same output
# (the time of that build), builds the edited corpus clean into a fresh
# folder and compares the two outputs. With REF (another sheaf binary,
# e.g. one built from main before a change), the clean output is also
# compared with REF's. Exits non-zero on any difference.
#
# Outputs go to WORK on the disk (default $TMPDIR/sheaf-bench-memory), not
# to a tmpfs: a one-shot build keeps the pages' bodies in a file beside its
# output (docs/internals.md, "Memory of a build"), which on a tmpfs would
# be memory the RSS figure does not show. KEEP=1 keeps the corpora.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
SHEAF=${SHEAF:-$root/build/sheaf}
case $SHEAF in /*) ;; *) SHEAF=$(pwd)/$SHEAF ;; esac
[ -x "$SHEAF" ] || { echo "bench: no sheaf binary at $SHEAF (build it first)" >&2; exit 1; }
WORK=${WORK:-${TMPDIR:-/tmp}/sheaf-bench-memory}
[ $# -gt 0 ] || set -- 10000
mkdir -p "$WORK"
[ -n "${KEEP:-}" ] || trap 'rm -rf "$WORK"' EXIT
status=0

timed() { # label file command… : GNU time's peak RSS (KB), wall, user+sys → file
    label=$1 file=$2; shift 2
    /usr/bin/time -f '%M %e %U %S' -o "$file" "$@" >/dev/null
    set -- $(cat "$file")
    printf '%-28s peak RSS %6d MB  wall %6.2f s  CPU %6.2f s\n' "$label" $(($1 / 1024)) "$2" \
        "$(echo "$3 + $4" | bc)"
}

same() { # a b what
    if diff -r -q -x .sheaf-manifest "$1" "$2" >/dev/null; then
        echo "  identical: $3"
    else
        echo "  DIFFERENT: $3" >&2
        diff -r -q -x .sheaf-manifest "$1" "$2" | head -5 >&2
        status=1
    fi
}

for n in "$@"; do
    c="$WORK/corpus-$n"
    [ -d "$c" ] || python3 "$here/gen_corpus.py" --posts "$n" --out "$c" --flavor native >/dev/null
    sync
    out="$WORK/out-$n" fresh="$WORK/fresh-$n"
    rm -rf "$out" "$fresh" "$WORK/ref-$n"
    echo "== $n posts"
    timed "clean build" "$WORK/t" "$SHEAF" build -q -s "$c" -o "$out"
    if [ -n "${REF:-}" ]; then
        timed "clean build, REF" "$WORK/t" "$REF" build -q -s "$c" -o "$WORK/ref-$n"
        same "$out" "$WORK/ref-$n" "clean build = REF's clean build"
        rm -rf "$WORK/ref-$n"
    fi
    [ "${EDIT:-1}" = 0 ] && { rm -rf "$out"; continue; }
    # one edit: a line added to the body of the newest published post (the
    # last file without `draft: true`: an edited draft changes no output)
    post=$(cd "$c/content/posts" && ls | sort -r | while read -r f; do
        grep -q '^draft: true' "$f" || { echo "$f"; break; }; done)
    cp "$c/content/posts/$post" "$WORK/saved.md"
    printf '\nOne more line, written after the first build.\n' >> "$c/content/posts/$post"
    timed "one-edit build" "$WORK/t" "$SHEAF" build -q -s "$c" -o "$out"
    timed "clean build of the edit" "$WORK/t" "$SHEAF" build -q -s "$c" -o "$fresh"
    same "$out" "$fresh" "one-edit build = clean build"
    cp "$WORK/saved.md" "$c/content/posts/$post"
    rm -rf "$out" "$fresh"
done
exit $status
