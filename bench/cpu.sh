#!/bin/sh
# bench/cpu.sh — the CPU of a one-thread `sheaf build` against the floor
# (bench/floor.c: cmark-gfm with sheaf's extensions, one folder a post) on
# the same corpus, as a ratio, and that the output is byte-identical to a
# reference build: checked by this script (diff -r), not by eye.
#
#   bench/cpu.sh [POSTS]              default 2000
#   REF=/path/to/other/sheaf bench/cpu.sh 2000     also diff against REF's output
#   TIME=10000 bench/cpu.sh 2000      also user CPU seconds at 10,000 posts
#   PROFILE=1 bench/cpu.sh            keep the callgrind files, print the top functions
#
# Instructions: `valgrind --tool=callgrind` of `floor` and of
# `sheaf build -q -j 1 --no-cache` (user space only: the kernel's file work is
# not counted). Counted work, so the ratio does not depend on the load — the
# right figure on a shared machine or a VM without hardware counters. With
# TIME=N, both programs also run RUNS times (default 3) on an N-post corpus
# under GNU time, and the user and system CPU seconds of each one's best run are printed with
# the load average beside them: those do depend on the load.
#
# Corpora come from bench/gen_corpus.py (kept in WORK); outputs go to a tmpfs.
# Needs valgrind, /usr/bin/time, a C compiler and libcmark-gfm-dev.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
SHEAF=${SHEAF:-$root/build/sheaf}
case $SHEAF in /*) ;; *) SHEAF=$(pwd)/$SHEAF ;; esac
[ -x "$SHEAF" ] || { echo "bench: no sheaf binary at $SHEAF (build it first)" >&2; exit 1; }
N=${1:-2000}
RUNS=${RUNS:-3}
WORK=${WORK:-${TMPDIR:-/tmp}/sheaf-bench-cpu}
OUT=${OUT:-/dev/shm/sheaf-bench-cpu}
mkdir -p "$WORK"
rm -rf "$OUT"
mkdir -p "$OUT"
trap 'rm -rf "$OUT"' EXIT
cc -O2 -o "$WORK/floor" "$here/floor.c" $(pkg-config --cflags --libs libcmark-gfm) \
    -lcmark-gfm-extensions
corpus() { # posts → its folder
    [ -d "$WORK/corpus-$1" ] ||
        python3 "$here/gen_corpus.py" --posts "$1" --out "$WORK/corpus-$1" >/dev/null
    echo "$WORK/corpus-$1"
}
status=0

c=$(corpus "$N")
instr() { # name command… : callgrind's instruction count
    f="$WORK/$1.callgrind"
    shift
    valgrind --tool=callgrind --callgrind-out-file="$f" "$@" >/dev/null 2>&1
    sed -n 's/^summary: //p' "$f"
}
echo "== $N posts, instructions (callgrind), load $(cut -d' ' -f1-3 /proc/loadavg)"
fi=$(instr floor "$WORK/floor" "$c/content/posts" "$OUT/floor")
si=$(instr sheaf "$SHEAF" build -q -j 1 --no-cache -s "$c" -o "$OUT/sheaf")
printf 'floor  %14d\nsheaf  %14d\nratio  %14s\n' "$fi" "$si" "$(echo "scale=3; $si / $fi" | bc)"
if [ -n "${REF:-}" ]; then
    "$REF" build -q -j 1 --no-cache -s "$c" -o "$OUT/ref" >/dev/null
    if diff -r -q -x .sheaf-manifest "$OUT/sheaf" "$OUT/ref" >/dev/null; then
        echo "  identical: sheaf's output = REF's"
    else
        echo "  DIFFERENT: sheaf's output and REF's" >&2
        diff -r -q -x .sheaf-manifest "$OUT/sheaf" "$OUT/ref" | head -5 >&2
        status=1
    fi
    rm -rf "$OUT/ref"
fi
if [ -n "${PROFILE:-}" ]; then
    callgrind_annotate "$WORK/sheaf.callgrind" 2>/dev/null | sed -n '/^Ir/,$p' | head -30
else
    rm -f "$WORK/floor.callgrind" "$WORK/sheaf.callgrind"
fi
rm -rf "$OUT/floor" "$OUT/sheaf"

if [ -n "${TIME:-}" ]; then
    c=$(corpus "$TIME")
    sync
    best() { # name command… : "user sys" CPU seconds of the run of RUNS with the least user+sys
        name=$1
        shift
        b= bu= bs=
        i=0
        while [ $i -lt "$RUNS" ]; do
            rm -rf "$OUT/$name"
            /usr/bin/time -f '%U %S' -o "$WORK/t" "$@" >/dev/null 2>&1
            t=$(awk '{ print $1 + $2 }' "$WORK/t")
            if [ -z "$b" ] || [ "$(echo "$t < $b" | bc)" = 1 ]; then
                b=$t bu=$(cut -d' ' -f1 "$WORK/t") bs=$(cut -d' ' -f2 "$WORK/t")
            fi
            i=$((i + 1))
        done
        rm -rf "$OUT/$name"
        echo "$bu $bs"
    }
    echo "== $TIME posts, CPU seconds (best of $RUNS by user+sys), load $(cut -d' ' -f1-3 /proc/loadavg)"
    set -- $(best floor "$WORK/floor" "$c/content/posts" "$OUT/floor") \
        $(best sheaf "$SHEAF" build -q -j 1 --no-cache -s "$c" -o "$OUT/sheaf")
    printf '        %8s %8s %8s\n' user sys user+sys
    printf 'floor   %8s %8s %8s\n' "$1" "$2" "$(echo "$1 + $2" | bc)"
    printf 'sheaf   %8s %8s %8s\n' "$3" "$4" "$(echo "$3 + $4" | bc)"
    printf 'ratio   %8s %8s %8s\n' "$(echo "scale=3; $3 / $1" | bc)" "$(echo "scale=3; $4 / $2" | bc)" \
        "$(echo "scale=3; ($3 + $4) / ($1 + $2)" | bc)"
    echo "   (load after: $(cut -d' ' -f1-3 /proc/loadavg))"
fi
exit $status
