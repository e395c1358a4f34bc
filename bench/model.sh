#!/bin/sh
# bench/model.sh — what the content model costs a site that uses it: the
# same posts built as one section with tags, and spread over 2 sections with
# tags and categories (issue 15's case: its list pages, term pages and
# feeds are the extra outputs).
#
#   bench/model.sh [POSTS]         default 10000; RUNS=5 SHEAF=build-rel/sheaf
#
# Generates both corpora with bench/gen_corpus.py (same seed, same posts),
# then times clean builds with hyperfine, outputs in a tmpfs, and prints
# each build's output count.
set -eu
bench=model default_posts=10000
. "$(dirname "$0")/common.sh"
python3 "$here/gen_corpus.py" --posts "$N" --out "$WORK/one" --flavor native >/dev/null
python3 "$here/gen_corpus.py" --posts "$N" --out "$WORK/two" --flavor native --sections 2 --categories >/dev/null
for c in one two; do
    "$SHEAF" build -q -s "$WORK/$c" -o "$OUT/$c"
    printf '%s: %s outputs\n' "$c" "$(find "$OUT/$c" -type f ! -name .sheaf-manifest | wc -l)"
done
flush_corpus
hyperfine -N --warmup 1 --runs "$RUNS" \
    --prepare "rm -rf $OUT/one $OUT/two" \
    -n "$N posts, 1 section, tags" "$SHEAF build -q -s $WORK/one -o $OUT/one" \
    -n "$N posts, 2 sections, tags and categories" "$SHEAF build -q -s $WORK/two -o $OUT/two"
rm -rf "$WORK" "$OUT"
