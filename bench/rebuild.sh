#!/bin/sh
# bench/rebuild.sh — `sheaf build` with the build cache (.sheaf-cache/)
# beside a clean build, and every cached output checked byte for byte
# against a clean build of the same sources (diff -r, by this script).
#
#   bench/rebuild.sh [POSTS…]       default 10000
#   RUNS=3 SHEAF=build-rel/sheaf bench/rebuild.sh 10000
#
# For each size: generates the corpus with bench/gen_corpus.py (once), then
# times, under GNU time (wall, user and sys CPU, peak RSS):
#   clean, --no-cache          the reference: nothing read from the cache
#   first build, empty cache   a clean build that also writes the cache
#   nothing changed            every page's Markdown from the cache
#   one post's body edited     RUNS times, a line appended each time (the
#                              newest post that is not a draft); the median
#                              is printed too
#   a template edited          templates/post.html: every page rendered
#                              again, no Markdown written
# After each cached build, the edited sources are built clean (--no-cache)
# into a fresh folder and compared with the cached build's output. Exits
# non-zero on any difference. Outputs and the corpus live in WORK on the
# disk (default $TMPDIR/sheaf-bench-rebuild); KEEP=1 keeps them.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
SHEAF=${SHEAF:-$root/build/sheaf}
case $SHEAF in /*) ;; *) SHEAF=$(pwd)/$SHEAF ;; esac
[ -x "$SHEAF" ] || { echo "bench: no sheaf binary at $SHEAF (build it first)" >&2; exit 1; }
RUNS=${RUNS:-3}
WORK=${WORK:-${TMPDIR:-/tmp}/sheaf-bench-rebuild}
[ $# -gt 0 ] || set -- 10000
mkdir -p "$WORK"
[ -n "${KEEP:-}" ] || trap 'rm -rf "$WORK"' EXIT
status=0

timed() { # label command… : prints wall, user, sys, peak RSS; the wall time (s) in $wall
    label=$1; shift
    /usr/bin/time -f '%M %e %U %S' -o "$WORK/t" "$@" >"$WORK/stats" 2>"$WORK/err" || {
        echo "FAILED: $label" >&2; cat "$WORK/err" >&2; exit 1; }
    set -- $(cat "$WORK/t")
    wall=$2
    cached=$(sed -n 's/^  markdown: \([0-9]*\) pages written, \([0-9]*\) from the build cache$/\2/p' "$WORK/stats")
    rendered=$(sed -n 's/^.*; \([0-9]*\) outputs rendered, .*$/\1/p' "$WORK/stats")
    printf '%-30s wall %7.3f s  user %6.2f s  sys %6.2f s  peak RSS %5d MB  pages from the cache %s  outputs rendered %s\n' \
        "$label" "$2" "$3" "$4" $(($1 / 1024)) "${cached:-0}" "${rendered:-?}"
    # the steps inside the stages (--stats), where the time of a cached build goes
    sed -n 's/^  inside them: /  inside: /p' "$WORK/stats"
    [ ! -s "$WORK/err" ] || { echo "  said:"; sed 's/^/    /' "$WORK/err"; }
}

check() { # what: the cached output against a clean build of the same sources
    rm -rf "$WORK/fresh"
    "$SHEAF" build -q --no-cache -s "$c" -o "$WORK/fresh"
    if diff -r -q -x .sheaf-manifest "$WORK/out" "$WORK/fresh" >/dev/null; then
        echo "  identical to a clean build: $1"
    else
        echo "  DIFFERENT from a clean build: $1" >&2
        diff -r -q -x .sheaf-manifest "$WORK/out" "$WORK/fresh" | head -5 >&2
        status=1
    fi
}

for n in "$@"; do
    c="$WORK/corpus-$n"
    [ -d "$c" ] || python3 "$here/gen_corpus.py" --posts "$n" --out "$c" --flavor native >/dev/null 2>&1
    rm -rf "$c/.sheaf-cache" "$c/templates" "$WORK/out" "$WORK/ref"
    sync
    echo "== $n posts ($(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg))"
    timed "clean, --no-cache" "$SHEAF" build --stats --no-cache -s "$c" -o "$WORK/ref"
    rm -rf "$WORK/ref"
    timed "first build, empty cache" "$SHEAF" build --stats -s "$c" -o "$WORK/out"
    timed "nothing changed" "$SHEAF" build --stats -s "$c" -o "$WORK/out"
    check "nothing changed"
    # the newest post that is not a draft (editing a draft changes no output)
    post=$(ls "$c/content/posts" | sort -r | while read -r f; do
        grep -q '^draft: true' "$c/content/posts/$f" || { echo "$f"; break; }; done)
    cp "$c/content/posts/$post" "$WORK/saved.md"
    times=""
    i=1
    while [ "$i" -le "$RUNS" ]; do
        printf '\nOne more line (%d), written after the first build.\n' "$i" >> "$c/content/posts/$post"
        timed "one post's body edited ($i)" "$SHEAF" build --stats -s "$c" -o "$WORK/out"
        times="$times $wall"
        i=$((i + 1))
    done
    echo "  one-edit median: $(echo $times | tr ' ' '\n' | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}') s"
    check "one post's body edited"
    mkdir -p "$c/templates"
    { cat "$root/themes/default/templates/post.html"; echo "<!-- edited -->"; } > "$c/templates/post.html"
    timed "a template edited" "$SHEAF" build --stats -s "$c" -o "$WORK/out"
    check "a template edited"
    cp "$WORK/saved.md" "$c/content/posts/$post"
    rm -rf "$c/templates" "$c/.sheaf-cache" "$WORK/out" "$WORK/fresh"
done
exit $status
