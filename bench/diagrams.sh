#!/bin/sh
# bench/diagrams.sh — what ```dot diagrams cost: N posts with one diagram
# each (12 to 30 nodes, labels half CJK, every diagram distinct) built with
# an empty cache (every diagram laid out by Graphviz, one at a time: its
# calls hold one lock) and with a warm cache (output deleted, .sheaf-cache/
# kept: Graphviz not called), against the same posts with the diagram
# written as a plain code block.
#
#   bench/diagrams.sh [POSTS]       default 200; RUNS=5 SHEAF=build/sheaf
set -eu
bench=diagrams default_posts=200
. "$(dirname "$0")/common.sh"
trap 'rm -rf "$WORK" "$OUT"' EXIT
python3 - "$N" "$WORK" <<'PY'
import os, random, sys
n, work = int(sys.argv[1]), sys.argv[2]
random.seed(28)
words = ["worker", "server", "梯度压缩", "参数服务器", "scheduler", "聚合", "GPU", "network"]
for flavour in ("plain", "dot"):
    d = os.path.join(work, flavour, "content", "posts")
    os.makedirs(d)
    open(os.path.join(work, flavour, "site.yaml"), "w").write("title: Diagrams bench\n")
    for i in range(n):
        k = random.randint(12, 30)
        lines = ["digraph {", "  rankdir=LR"]
        for j in range(k):
            lines.append(f'  n{j} [label="{random.choice(words)} {i}.{j}"]')
        for j in range(1, k):
            lines.append(f"  n{random.randrange(j)} -> n{j}")
        fence = "```dot" if flavour == "dot" else "```text"
        body = f"Post {i}.\n\n{fence}\n" + "\n".join(lines) + "\n}\n```\n"
        open(os.path.join(d, f"2024-01-01-p{i}.md"), "w").write(
            f"---\ntitle: Post {i}\n---\n{body}")
PY
echo "$N posts, one diagram each"
flush_corpus
hyperfine --warmup 1 --runs "$RUNS" \
    --prepare "rm -rf $OUT/plain $OUT/dot $WORK/dot/.sheaf-cache" \
    -n "$N posts, diagrams as code" "$SHEAF build -s $WORK/plain -o $OUT/plain -q" \
    -n "$N posts with diagrams, empty cache" "$SHEAF build -s $WORK/dot -o $OUT/dot -q"
"$SHEAF" build -s "$WORK/dot" -o "$OUT/dot" -q # fills the cache
hyperfine --warmup 1 --runs "$RUNS" --prepare "rm -rf $OUT/dot" \
    -n "$N posts with diagrams, warm cache" "$SHEAF build -s $WORK/dot -o $OUT/dot -q"
