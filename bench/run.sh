#!/bin/sh
# bench/run.sh — clean-build benchmark of sheaf against Hugo and the cmark-gfm
# "floor" (cmark-gfm with sheaf's extensions + one file write per post, one
# thread) on the same corpus.
#
#   bench/run.sh [SIZE…]            default sizes: 1000 10000
#   RUNS=5 WORK=/tmp/sheaf-bench SHEAF=build/sheaf bench/run.sh 1000 10000 100000
#   NO_HUGO=1 bench/run.sh 100000   skip Hugo (at 100,000 posts it needs ~25 GB)
#   OUT=/dev/shm/sheaf-bench bench/run.sh   write the outputs to a tmpfs
#   HIGHLIGHT=1 bench/run.sh 2000 10000   build-time code highlighting on in
#                                   sheaf and Hugo (markup.highlight.codeFences)
#
# Corpora come from bench/gen_corpus.py (deterministic: same posts, dates,
# tags and links in the native and the Hugo flavour). Each build runs RUNS
# times after a warm-up with its output folder removed first; then one more
# run under GNU time gives peak RSS. Needs hyperfine, hugo, /usr/bin/time, a
# C compiler and libcmark-gfm-dev (for the floor).
#
# Between runs the previous output is moved aside, not deleted: on ext4,
# creating files soon after deleting thousands makes the inode allocator skip
# every recently freed inode (recently_deleted() in a perf profile), so each
# clean build would run slower than the one before it, for every tool alike.
# The moved outputs are deleted at the end. On a tmpfs (OUT=/dev/shm/…) the
# question does not arise and outputs are deleted between runs.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
WORK=${WORK:-${TMPDIR:-/tmp}/sheaf-bench}
RUNS=${RUNS:-5}
SHEAF=${SHEAF:-$root/build/sheaf}
case $SHEAF in /*) ;; *) SHEAF=$(pwd)/$SHEAF ;; esac
[ -x "$SHEAF" ] || { echo "bench: no sheaf binary at $SHEAF (build it first)" >&2; exit 1; }
[ $# -gt 0 ] || set -- 1000 10000
OUT=${OUT:-$WORK/out}
mkdir -p "$WORK/corpora" "$OUT/.old" "$WORK/results"
if [ "$(stat -f -c %T "$OUT")" = tmpfs ]; then
    # deleting costs nothing to the next build in memory, and keeps memory free
    printf 'rm -rf "$1"\n' > "$WORK/stash.sh"
else
    printf '[ -e "$1" ] && mv "$1" "%s/.old/${1##*/}.$(date +%%s%%N)"; true\n' "$OUT" > "$WORK/stash.sh"
fi
trap 'rm -rf "$OUT/.old"' EXIT
cc -O2 -o "$WORK/floor" "$here/floor.c" $(pkg-config --cflags --libs libcmark-gfm)

hl=${HIGHLIGHT:+-hl}
gen() { # flavor size
    [ -d "$WORK/corpora/$1-$2$hl" ] ||
        python3 "$here/gen_corpus.py" --posts "$2" --out "$WORK/corpora/$1-$2$hl" --flavor "$1" \
            ${HIGHLIGHT:+--highlight} >/dev/null
}

# Waits (up to a minute) until the machine is idle: after deleting gigabytes,
# ext4 and the disk keep kernel threads busy for a while.
settle() {
    i=0
    while [ $i -lt 60 ]; do
        set -- $(head -1 /proc/stat)
        b1=$(($2 + $3 + $4 + $7 + $8)) t1=$(($2 + $3 + $4 + $5 + $6 + $7 + $8))
        sleep 1
        set -- $(head -1 /proc/stat)
        b2=$(($2 + $3 + $4 + $7 + $8)) t2=$(($2 + $3 + $4 + $5 + $6 + $7 + $8))
        [ $(( (b2 - b1) * 100 )) -lt $(( (t2 - t1) * 3 )) ] && return
        i=$((i + 1))
    done
    echo "bench: the machine is still busy after a minute; figures will be noisy" >&2
}

measure() { # name size command…
    name=$1 n=$2; shift 2
    settle
    out="$OUT/$name-$n"
    hyperfine -N --style basic --warmup 1 --runs "$RUNS" --prepare "sh $WORK/stash.sh $out" \
        --export-json "$WORK/results/$name-$n.json" --command-name "$name-$n" "$*" >/dev/null
    sh "$WORK/stash.sh" "$out"
    /usr/bin/time -f '%M' -o "$WORK/results/$name-$n.rss" "$@" >/dev/null 2>&1
}

for n in "$@"; do
    gen native "$n"
    c="$WORK/corpora/native-$n$hl"
    echo "== $n posts"
    measure floor "$n" "$WORK/floor" "$c/content/posts" "$OUT/floor-$n"
    measure sheaf "$n" "$SHEAF" build -q -s "$c" -o "$OUT/sheaf-$n"
    measure sheaf1 "$n" "$SHEAF" build -q -j 1 -s "$c" -o "$OUT/sheaf1-$n"
    if [ -z "${NO_HUGO:-}" ] && command -v hugo >/dev/null; then
        gen hugo "$n"
        measure hugo "$n" hugo --quiet -s "$WORK/corpora/hugo-$n$hl" -d "$OUT/hugo-$n"
    fi
    # Where sheaf's time goes, and that a second build rewrites nothing.
    "$SHEAF" build -s "$c" -o "$OUT/sheaf-$n" >/dev/null
    "$SHEAF" build --stats -s "$c" -o "$OUT/sheaf-$n" > "$WORK/results/sheaf-$n.stats" 2>&1 || true
done
python3 "$here/summarize.py" "$WORK/results" "$@"
