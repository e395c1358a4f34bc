#!/bin/sh
# bench/images.sh — the cost of image variants: a site of N posts, each a
# page bundle with one 3–5 MB JPEG photo (2800 × 1900 px, noise: the worst
# case for WebP), built
#   cold     no build cache, no output folder: every variant made by libvips
#   warm     again: every variant kept in the output folder, unread
#   noproc   again with `images: {process: false}` (sizes, no variants)
# Prints the machine's load, then one line per build: seconds (wall), CPU
# seconds (user + system: on a shared machine the steadier figure), peak
# RSS, variants in the output.
#
#   bench/images.sh [N]          default N = 1000 (about 3.5 GB of photos)
#   SHEAF=build/sheaf WORK=/tmp/sheaf-img-bench JOBS=2 bench/images.sh 50
#   KEEP=1 bench/images.sh 1000  keep the photos and the site in WORK
#
# Noise takes libvips about a second a photo to make, so it makes BASES
# of them (default 40) and each photo is one of those with a JPEG comment
# of its own (the post's number) after the start marker: every photo's
# bytes differ, so no two share a hash, a cache entry or a variant, and
# each costs libvips a whole decode and encode. Without KEEP the photos
# and the site are removed at the end (the bases stay, in WORK/photos).
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
BASES=${BASES:-40}
mkdir -p "$photos" "$site/content/posts"
b=0
while [ $b -lt "$BASES" ] && [ $b -lt "$N" ]; do
    p=$photos/base$b.jpg
    [ -s "$p" ] || vips gaussnoise "$p[Q=92]" 2800 1900 --mean $((60 + b % 130)) --sigma 45
    b=$((b + 1))
done
i=0
while [ $i -lt "$N" ]; do
    d=$site/content/posts/p$i
    mkdir -p "$d"
    if [ ! -s "$d/photo.jpg" ]; then
        base=$photos/base$((i % BASES)).jpg
        # SOI, then a COM segment: FF FE, length 16 (itself and 14 bytes)
        { head -c 2 "$base"; printf '\377\376\000\020photo %08d' "$i"; tail -c +3 "$base"; } > "$d/photo.jpg"
    fi
    printf -- '---\ntitle: Photo %d\ndate: 2024-01-01T00:%02d:%02dZ\n---\nA photo:\n\n![photo %d](photo.jpg)\n' \
        "$i" $((i / 60 % 60)) $((i % 60)) "$i" > "$d/index.md"
    i=$((i + 1))
done
bytes=$(du -sb "$site/content" | cut -f1)
echo "bench/images.sh: $N photos ($((bytes / 1048576)) MiB), -j $JOBS, $("$SHEAF" --version | head -1)"
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) before the builds"
config() {
    printf 'title: Photos\nbase_url: https://example.org/\nimages:\n  process: %s\n' "$1" > "$site/site.yaml"
}
run() { # name
    /usr/bin/time -f "%e %U %S %M" -o "$WORK/time" "$SHEAF" build -q -j "$JOBS" -s "$site" -o "$site/public"
    set -- "$1" $(cat "$WORK/time")
    n=$(find "$site/public" -name '*w.webp' | wc -l)
    cpu=$(echo "$3 $4" | awk '{ printf "%.2f", $1 + $2 }')
    printf '%-8s %7.2f s  %7s s CPU  %6d MB peak RSS  %5d variants in the output  (load %s)\n' \
        "$1" "$2" "$cpu" $(($5 / 1024)) "$n" "$(cut -d' ' -f1 /proc/loadavg)"
}

rm -rf "$site/.sheaf-cache" "$site/public"
config true
run cold
run warm
run warm
config false
run noproc
run noproc
du -sh "$site/.sheaf-cache" | sed 's/^/cache: /'
[ -n "${KEEP:-}" ] || rm -rf "$site"
