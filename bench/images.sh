#!/bin/sh
# bench/images.sh — the cost of image variants: a site of N posts, each a
# page bundle with one 3–5 MB JPEG photo (2800 × 1900 px, made with libvips:
# noise, the worst case for WebP), built
#   cold     no build cache, no output folder: every variant made by libvips
#   warm     again: every variant from .sheaf-cache/, the output unchanged
#   noproc   again with `images: {process: false}` (sizes, no variants)
# Prints one line per build: seconds (wall), peak RSS, variants written.
#
#   bench/images.sh [N]          default N = 1000 (about 3.5 GB of photos)
#   SHEAF=build/sheaf WORK=/tmp/sheaf-img-bench JOBS=2 bench/images.sh 50
#
# The photos are made once per N and kept in WORK; each is different (its
# own noise), so the cache cannot share one between posts. (The variants
# a build used stay in the cache beyond its 256 MiB: cache_keep_extra.)
# Needs vips (libvips-tools) and GNU time.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
N=${1:-1000}
WORK=${WORK:-${TMPDIR:-/tmp}/sheaf-img-bench}
SHEAF=${SHEAF:-$root/build/sheaf}
JOBS=${JOBS:-$(nproc)}
case $SHEAF in /*) ;; *) SHEAF=$(pwd)/$SHEAF ;; esac
[ -x "$SHEAF" ] || { echo "bench: no sheaf binary at $SHEAF (build it first)" >&2; exit 1; }
command -v vips >/dev/null || { echo "bench: vips is missing (apt-get install libvips-tools)" >&2; exit 1; }
site=$WORK/site-$N
photos=$WORK/photos
mkdir -p "$photos" "$site/content/posts"
i=0
while [ $i -lt "$N" ]; do
    p=$photos/$i.jpg
    [ -s "$p" ] || vips gaussnoise "$p[Q=92]" 2800 1900 --mean $((60 + i % 130)) --sigma 45
    d=$site/content/posts/p$i
    mkdir -p "$d"
    ln -f "$p" "$d/photo.jpg" 2>/dev/null || cp "$p" "$d/photo.jpg"
    printf -- '---\ntitle: Photo %d\ndate: 2024-01-01T00:%02d:%02dZ\n---\nA photo:\n\n![photo %d](photo.jpg)\n' \
        "$i" $((i / 60 % 60)) $((i % 60)) "$i" > "$d/index.md"
    i=$((i + 1))
done
bytes=$(du -sbL "$photos" | cut -f1)
echo "bench/images.sh: $N photos ($((bytes / 1048576)) MiB in $photos), -j $JOBS, $("$SHEAF" --version | head -1)"
config() {
    printf 'title: Photos\nbase_url: https://example.org/\nimages:\n  process: %s\n' "$1" > "$site/site.yaml"
}
run() { # name
    /usr/bin/time -f "%e %M" -o "$WORK/time" "$SHEAF" build -q -j "$JOBS" -s "$site" -o "$site/public"
    set -- "$1" $(cat "$WORK/time")
    n=$(find "$site/public" -name '*w.webp' | wc -l)
    printf '%-8s %7.2f s  %6d MB peak RSS  %5d variants in the output\n' "$1" "$2" $(($3 / 1024)) "$n"
}

rm -rf "$site/.sheaf-cache" "$site/public"
config true
run cold
run warm
config false
run noproc
du -sh "$site/.sheaf-cache" | sed 's/^/cache: /'
