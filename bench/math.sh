#!/bin/sh
# bench/math.sh — what formulas cost: the same corpus built without them,
# with them and an empty cache (every formula rendered by KaTeX), and with
# them and a warm cache (output deleted, .sheaf-cache/ kept: every formula
# read back).
#
#   bench/math.sh [POSTS]          default 2000; RUNS=5 SHEAF=build/sheaf
#
# The corpora come from bench/gen_corpus.py (native flavour; --math adds
# one to three paragraphs of inline formulas to every post and a display
# formula to half of them, numbers varied so formulas are distinct).
# Outputs go to a tmpfs; timings by hyperfine (wall and CPU).
set -eu
bench=math default_posts=2000
. "$(dirname "$0")/common.sh"
trap 'rm -rf "$WORK" "$OUT"' EXIT
python3 "$here/gen_corpus.py" --posts "$N" --out "$WORK/plain" --flavor native
python3 "$here/gen_corpus.py" --posts "$N" --out "$WORK/math" --flavor native --math
formulas=$(cat "$WORK"/math/content/posts/*.md | grep -o '\$[^$]*\$' | wc -l)
echo "$N posts; about $formulas formulas in the math corpus"
flush_corpus
hyperfine --warmup 1 --runs "$RUNS" \
    --prepare "rm -rf $OUT/plain $OUT/math $WORK/math/.sheaf-cache" \
    -n "$N posts, no formulas" "$SHEAF build -s $WORK/plain -o $OUT/plain -q" \
    -n "$N posts with formulas, empty cache" "$SHEAF build -s $WORK/math -o $OUT/math -q"
"$SHEAF" build -s "$WORK/math" -o "$OUT/math" -q # fills the cache
hyperfine --warmup 1 --runs "$RUNS" --prepare "rm -rf $OUT/math" \
    -n "$N posts with formulas, warm cache" "$SHEAF build -s $WORK/math -o $OUT/math -q"
