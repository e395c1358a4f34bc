#!/bin/sh
# bench/static.sh — the release binary against the dynamic build: the same
# 10,000-post corpus built by both, one after the other in one hyperfine
# run (wall and CPU), then peak RSS of each under GNU time, and the start
# time of `sheaf --version`.
#
#   STATIC=dist/sheaf-0.1.0-linux-x86_64 SHEAF=build-rel/sheaf bench/static.sh [POSTS]
#
# SHEAF: a Release build (cmake -DCMAKE_BUILD_TYPE=Release); STATIC: what
# scripts/release.sh made. Outputs go to a tmpfs, removed at the end.
set -eu
bench=static default_posts=10000
. "$(dirname "$0")/common.sh"
STATIC=${STATIC:?set STATIC to the static binary (scripts/release.sh)}
case $STATIC in /*) ;; *) STATIC=$(pwd)/$STATIC ;; esac
trap 'rm -rf "$WORK" "$OUT"' EXIT
python3 "$here/gen_corpus.py" --posts "$N" --out "$WORK/corpus" --flavor native
flush_corpus
"$SHEAF" build -q -s "$WORK/corpus" -o "$OUT/d" && "$STATIC" build -q -s "$WORK/corpus" -o "$OUT/s"
diff -r "$OUT/d" "$OUT/s" >/dev/null || { echo "static.sh: the two builds differ" >&2; exit 1; }
hyperfine -N --style basic --warmup 1 --runs "$RUNS" --prepare "rm -rf $OUT/d $OUT/s" \
    -n "dynamic, $N posts" "$SHEAF build -q -s $WORK/corpus -o $OUT/d" \
    -n "static, $N posts" "$STATIC build -q -s $WORK/corpus -o $OUT/s"
for b in "$SHEAF" "$STATIC"; do
    rm -rf "$OUT/x"
    /usr/bin/time -f "%M KB peak RSS, %e s: $b" "$b" build -q -s "$WORK/corpus" -o "$OUT/x"
done
hyperfine -N --style basic --warmup 5 --runs 100 -n "dynamic --version" "$SHEAF --version" \
    -n "static --version" "$STATIC --version"
