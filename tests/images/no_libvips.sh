#!/bin/sh
# images/no-libvips: sheaf opens libvips (about a hundred shared libraries,
# 17 MB) only when a page shows an image that gets variants — a site of
# posts, an SVG and a PNG narrower than images.widths never loads it; one
# wide PNG does (which shows this test can see the load). ld.so says which
# files it opens under LD_DEBUG=files.
#   tests/images/no_libvips.sh SHEAF
set -eu
SHEAF=$1
work=$(mktemp -d "${TMPDIR:-/tmp}/sheaf-novips-XXXXXX")
trap 'rm -rf "$work"' EXIT
site=$work/site
mkdir -p "$site/content/posts" "$site/static/img"
printf 'title: T\nbase_url: https://example.org/\n' > "$site/site.yaml"
python3 - "$site/static/img" <<'PY'
import struct, sys, zlib
def png(path, w, h):
    raw = b''.join(b'\0' + bytes([(x * 7) % 256 for x in range(w)]) for _ in range(h))
    def chunk(t, d):
        return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d))
    open(path, 'wb').write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 0, 0, 0, 0))
                           + chunk(b'IDAT', zlib.compress(raw)) + chunk(b'IEND', b''))
png(sys.argv[1] + '/small.png', 100, 10)
png(sys.argv[1] + '/wide.png', 600, 10)
PY
printf '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 20 10"/>\n' > "$site/static/img/d.svg"
printf -- '---\ntitle: A\ndate: 2024-01-01\n---\nText, ![d](/img/d.svg) and ![s](/img/small.png).\n' \
    > "$site/content/posts/a.md"
loads() { # whether a build of the site opens libvips
    LD_DEBUG=files "$SHEAF" build -q -s "$site" -o "$work/out" 2> "$work/ld.log"
    grep -q 'file=libvips' "$work/ld.log"
}
if loads; then
    echo "FAIL: a site without an image to make variants of loaded libvips:" >&2
    grep 'file=libvips' "$work/ld.log" >&2
    exit 1
fi
grep -q 'width="100"' "$work/out/posts/a/index.html" || { echo "FAIL: the PNG was not sized" >&2; exit 1; }
printf 'And ![w](/img/wide.png).\n' >> "$site/content/posts/a.md"
if ! loads; then
    if [ -f "$work/out/img/wide.480w.webp" ]; then
        echo "FAIL: variants made but LD_DEBUG saw no libvips (the check above proves nothing)" >&2
        exit 1
    fi
    echo "skipped: this sheaf makes no variants (built without libvips, or libvips42 missing)"
    exit 77
fi
[ -f "$work/out/img/wide.480w.webp" ] || { echo "FAIL: no variant of the wide PNG" >&2; exit 1; }
echo "ok: libvips loaded only for the wide PNG"
