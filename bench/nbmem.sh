#!/bin/sh
# bench/nbmem.sh — the memory a huge notebook costs (issue 30): one
# generated notebook of about MB megabytes (default 200) whose code cells
# each show a distinct 400×600 PNG of noise (about 1 MB of base64 each),
# built as the only post of a site under GNU time. Reports peak RSS, CPU
# and wall, and checks that every image was written at its size.
#
#   bench/nbmem.sh [MB]            default 200; SHEAF=build-rel/sheaf
#
# The notebook is mapped, not read (docs/internals.md, "Notebooks"): peak
# RSS should not grow with MB. For scale, the same site without the
# notebook is built too.
set -eu
bench=nbmem default_posts=200
. "$(dirname "$0")/common.sh"
MB=$N
[ -x "$SHEAF" ] || { echo "bench: no sheaf binary at $SHEAF (build it first)" >&2; exit 1; }
/usr/bin/python3 - "$WORK" "$MB" <<'PY'
import base64, json, os, random, struct, sys, zlib
work, mb = sys.argv[1], int(sys.argv[2])
rng = random.Random(30)
def png(w, h, seed):
    r = random.Random(seed)
    raw = b"".join(b"\0" + r.randbytes(w * 3) for _ in range(h))
    def chunk(t, d):
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 1)) + chunk(b"IEND", b""))
for kind in ("nb", "empty"):
    os.makedirs(os.path.join(work, kind, "content", "posts"))
    with open(os.path.join(work, kind, "site.yaml"), "w") as f:
        f.write("title: Bench\nbase_url: https://example.org/\n")
with open(os.path.join(work, "empty", "content", "posts", "2024-01-01-a.md"), "w") as f:
    f.write("---\ntitle: A\n---\nText.\n")
cells, size, i = [], 0, 0
while size < mb * 1000 * 1000:
    b64 = base64.encodebytes(png(400, 600, i)).decode()  # 76-column lines, as nbformat writes
    cells.append({"cell_type": "markdown", "metadata": {}, "source": "## Plot %d\n\nSome text." % i})
    cells.append({"cell_type": "code", "execution_count": i + 1, "metadata": {},
                  "source": "plot(%d)" % i, "outputs": [
                      {"output_type": "display_data", "metadata": {},
                       "data": {"image/png": b64, "text/plain": "<Figure size 400x600>"}}]})
    size += len(b64)
    i += 1
path = os.path.join(work, "nb", "content", "posts", "2024-01-01-huge.ipynb")
with open(path, "w") as f:
    json.dump({"cells": cells, "metadata": {"kernelspec": {"language": "python", "name": "python3",
               "display_name": "Python 3"}}, "nbformat": 4, "nbformat_minor": 5}, f, indent=1)
print("notebook: %.1f MB, %d images" % (os.path.getsize(path) / 1e6, i))
with open(os.path.join(work, "count"), "w") as f:
    f.write(str(i))
PY
flush_corpus
for kind in empty nb; do
    rm -rf "$WORK/out-$kind"
    /usr/bin/time -v "$SHEAF" build -q -s "$WORK/$kind" -o "$WORK/out-$kind" 2>"$WORK/time-$kind" ||
        { cat "$WORK/time-$kind" >&2; exit 1; }
    echo "$kind: $(grep -E 'Maximum resident' "$WORK/time-$kind" | sed 's/.*: //') KB peak RSS," \
         "$(grep -E 'User time' "$WORK/time-$kind" | sed 's/.*: //') s user," \
         "$(grep -E 'System time' "$WORK/time-$kind" | sed 's/.*: //') s sys," \
         "$(grep -E 'Elapsed' "$WORK/time-$kind" | sed 's/.*: //') wall"
done
written=$(find "$WORK/out-nb/posts" -name '*.png' | wc -l)
[ "$written" -eq "$(cat "$WORK/count")" ] || { echo "nbmem: $written images written, $(cat "$WORK/count") expected" >&2; exit 1; }
echo "nbmem: all $written images written"
rm -rf "$WORK" "$OUT"
