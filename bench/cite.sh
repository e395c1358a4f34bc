#!/bin/sh
# bench/cite.sh — what citations cost: the same corpus built with and
# without them (issue 14's target: within 1.2×), and with a CSL style
# (issue 29's: a warm build within 1.3× of the built-in author-year one).
#
#   bench/cite.sh [POSTS]          default 10000; RUNS=5 SHEAF=build-rel/sheaf
#                                  STYLE=ieee (a bundled CSL style; none: skip)
#
# Generates the native corpus (bench/gen_corpus.py), copies it, and in the
# copy adds refs.bib with 2,000 entries (authors with accents, arXiv and DOI
# links, @string macros) and three citations to every post — one
# bracketed, one with a locator, one narrative — then times clean builds of
# both with hyperfine, outputs in a tmpfs.
set -eu
bench=cite default_posts=10000
. "$(dirname "$0")/common.sh"
python3 "$here/gen_corpus.py" --posts "$N" --out "$WORK/plain" --flavor native
cp -r "$WORK/plain" "$WORK/cited"
python3 - "$WORK/cited" <<'PY'
import os, random, sys
site = sys.argv[1]
rng = random.Random(14)
given = ["Ana", "Bo", "Chen", "Dmitri", "Élise", "Farid", "Grete", "Hiro", "Ines", "Jörg"]
family = ["M{\\\"u}ller", "Zhang", "Nakamura", "Ibáñez", "O'Neil", "van der Berg", "Kowalski",
          "Okafor", "Lindqvist", "王"]
with open(os.path.join(site, "refs.bib"), "w", encoding="utf-8") as f:
    f.write('@string{nsdi = "USENIX Symposium on Networked Systems Design and Implementation"}\n')
    for i in range(2000):
        authors = " and ".join("%s, %s" % (rng.choice(family), rng.choice(given))
                               for _ in range(rng.randint(1, 6)))
        link = ("doi = {10.1000/bench.%d}" % i) if i % 2 else \
               ("eprint = {%04d.%05d}, archivePrefix = {arXiv}" % (1800 + i % 600, i))
        f.write("@inproceedings{ref%d,\n  author = {%s},\n  title = {A Study of {SGD} Number %d},\n"
                "  booktitle = nsdi,\n  year = %d,\n  pages = {%d--%d},\n  %s\n}\n"
                % (i, authors, i, 2000 + i % 25, i, i + 12, link))
with open(os.path.join(site, "site.yaml"), "a", encoding="utf-8") as f:
    f.write("bibliography: refs.bib\n")
posts = os.path.join(site, "content", "posts")
for name in sorted(os.listdir(posts)):
    p = os.path.join(posts, name)
    a, b, c = rng.sample(range(2000), 3)
    with open(p, "a", encoding="utf-8") as f:
        f.write("\nAs shown before [@ref%d], and again [see @ref%d, p. 4]; @ref%d agrees.\n" % (a, b, c))
PY
STYLE=${STYLE:-ieee}
if [ "$STYLE" != none ]; then
    cp -r "$WORK/cited" "$WORK/csl"
    echo "citation_style: $STYLE" >>"$WORK/csl/site.yaml"
fi
flush_corpus
if [ "$STYLE" != none ]; then
    # cold: an empty .sheaf-cache, every page and entry through citeproc-js
    echo "cold build, $STYLE (CSL), empty cache:"
    /usr/bin/time -f "  %e s wall, %U s user, %M KB max RSS" \
        "$SHEAF" build --stats -s "$WORK/csl" -o "$OUT/csl" | tail -n 1
fi
set -- -n "$N posts" "$SHEAF build -s $WORK/plain -o $OUT/plain" \
    -n "$N posts, 3 citations each of 2,000 entries" "$SHEAF build -s $WORK/cited -o $OUT/cited"
if [ "$STYLE" != none ]; then
    # warm: the cache the cold build left (hyperfine's warmup keeps it so)
    set -- "$@" -n "$N posts, the same in $STYLE (CSL), warm cache" "$SHEAF build -s $WORK/csl -o $OUT/csl"
fi
hyperfine --warmup 1 --runs "$RUNS" \
    --prepare "rm -rf $OUT/plain $OUT/cited $OUT/csl" "$@"
rm -rf "$WORK" "$OUT"
