#!/bin/sh
# bench/notebooks.sh — what Jupyter notebooks cost (issue 30): N notebooks,
# each with Markdown cells, code cells with printed output and a plot (a
# 3 KB PNG, a matplotlib plot from tests/nb/notebooks), against N Markdown posts holding the
# same text and code (target: within 2×); and, as the anchor, `jupyter
# nbconvert --to html` on one of the notebooks (Quarto would run it too).
#
#   bench/notebooks.sh [N]          default 500; RUNS=5 SHEAF=build-rel/sheaf
set -eu
bench=notebooks default_posts=500
. "$(dirname "$0")/common.sh"
/usr/bin/python3 - "$WORK" "$N" "$root/tests/nb/notebooks/notebook2.ipynb" <<'PY'
import json, os, random, sys
work, n, source = sys.argv[1], int(sys.argv[2]), sys.argv[3]
png = next("".join(o["data"]["image/png"]) for c in json.load(open(source))["cells"]
           for o in c.get("outputs", []) if "image/png" in o.get("data", {}))
rng = random.Random(30)
words = ("gradient compression straggler allreduce pipeline parallelism scheduling fragmentation "
         "bandwidth convergence momentum sparsity quantization throughput latency").split()
def para():
    return " ".join(rng.choice(words) for _ in range(60)) + "."
for kind in ("nb", "md"):
    os.makedirs(os.path.join(work, kind, "content", "posts"))
    with open(os.path.join(work, kind, "site.yaml"), "w") as f:
        f.write("title: Bench\nbase_url: https://example.org/\n")
for i in range(n):
    date = "2024-%02d-%02d" % (1 + i % 12, 1 + i % 28)
    text = ["## Run %d\n\n%s\n" % (i, para()), "### Notes\n\n%s\n\n%s\n" % (para(), para())]
    code = ["import numpy as np\nx = np.linspace(0, %d, 100)\nprint(x.mean())" % i,
            "for step in range(3):\n    print('step', step, 'loss', %d / (step + 1))" % i]
    cells = [{"cell_type": "markdown", "metadata": {}, "source": text[0]},
             {"cell_type": "code", "execution_count": 1, "metadata": {}, "source": code[0], "outputs": [
                 {"output_type": "stream", "name": "stdout", "text": "%d.5\n" % i}]},
             {"cell_type": "markdown", "metadata": {}, "source": text[1]},
             {"cell_type": "code", "execution_count": 2, "metadata": {}, "source": code[1], "outputs": [
                 {"output_type": "stream", "name": "stdout", "text": "step 0\nstep 1\nstep 2\n"},
                 {"output_type": "display_data", "metadata": {},
                  "data": {"image/png": png, "text/plain": "<Figure size 640x480>"}}]}]
    nb = {"cells": cells, "metadata": {"title": "Notebook %d" % i,
          "kernelspec": {"language": "python", "name": "python3", "display_name": "Python 3"}},
          "nbformat": 4, "nbformat_minor": 5}
    with open(os.path.join(work, "nb", "content", "posts", "%s-n%d.ipynb" % (date, i)), "w") as f:
        json.dump(nb, f, indent=1)
    with open(os.path.join(work, "md", "content", "posts", "%s-n%d.md" % (date, i)), "w") as f:
        f.write("---\ntitle: Notebook %d\n---\n%s\n```python\n%s\n```\n\n%s\n```python\n%s\n```\n"
                % (i, text[0], code[0], text[1], code[1]))
PY
one=$(ls "$WORK/nb/content/posts" | head -1)
echo "corpus: $(du -sh "$WORK/nb/content" | cut -f1) of notebooks, $(du -sh "$WORK/md/content" | cut -f1) of Markdown"
flush_corpus
hyperfine --warmup 1 --runs "$RUNS" \
    --prepare "rm -rf $OUT/nb $OUT/md" \
    -n "$N Markdown posts" "$SHEAF build -q -s $WORK/md -o $OUT/md" \
    -n "$N notebooks with a plot each" "$SHEAF build -q -s $WORK/nb -o $OUT/nb"
if /usr/bin/python3 -m nbconvert --version >/dev/null 2>&1; then
    hyperfine --runs 3 -n "jupyter nbconvert --to html, one notebook" \
        "/usr/bin/python3 -m nbconvert --to html --output-dir $OUT/nbconvert $WORK/nb/content/posts/$one"
fi
rm -rf "$WORK" "$OUT"
