#!/bin/sh
# The Nu HTML Checker over what sheaf builds with the default theme: the
# example site (site.yaml, content/) plus the theme's mock posts (a Chinese
# post, code, tables, nested headings, enough posts to paginate), under a
# sub-path base URL, and beside it (under nb/) a site of the real public
# notebooks of tests/nb/notebooks (plots, pandas tables as HTML, LaTeX,
# tracebacks, widgets' fallbacks, attachments), their raw HTML let through
# (markdown.unsafe) and no bibliography (some write `@eqn:x` as text).
# Every HTML page and the stylesheet: 0 errors.
#   tests/theme/vnu.sh SHEAF_BINARY
set -eu
sheaf=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
vnu=$root/tests/node_modules/vnu-jar/build/dist/vnu.jar
[ -f "$vnu" ] || { echo "vnu.sh: no $vnu (scripts/deps.sh test installs it)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r "$root/site.yaml" "$root/refs.bib" "$root/content" "$tmp/"
cp "$root"/tests/theme/mock/*.md "$root"/tests/theme/mock/*.ipynb "$tmp/content/posts/"
"$sheaf" build -q -s "$tmp" -o "$tmp/out" --base-url https://example.github.io/notes/
mkdir -p "$tmp/nb/content/posts"
printf 'title: Notebooks\nbase_url: https://example.org/\nmarkdown:\n  unsafe: true\n' >"$tmp/nb/site.yaml"
i=0
for nb in "$root"/tests/nb/notebooks/*.ipynb; do
    i=$((i + 1))
    cp "$nb" "$tmp/nb/content/posts/2023-05-$(printf %02d $i)-$(basename "$nb")"
done
"$sheaf" build -q -s "$tmp/nb" -o "$tmp/out/nb" --base-url https://example.github.io/notes/nb/ 2>"$tmp/nb.err" ||
    { cat "$tmp/nb.err" >&2; exit 1; }
pages=$(find "$tmp/out" -name '*.html' | wc -l)
[ "$pages" -ge 27 ] || { echo "vnu.sh: only $pages HTML pages built" >&2; exit 1; }
# the feed: well-formed Atom with the elements RFC 4287 requires
/usr/bin/python3 - "$tmp/out/atom.xml" <<'PY'
import sys, xml.etree.ElementTree as ET
A = "{http://www.w3.org/2005/Atom}"
feed = ET.parse(sys.argv[1]).getroot()
assert feed.tag == A + "feed", feed.tag
for k in ("id", "title", "updated"):
    assert feed.find(A + k) is not None and feed.find(A + k).text, "feed lacks " + k
entries = feed.findall(A + "entry")
assert entries, "no entries"
for e in entries:
    for k in ("id", "title", "updated"):
        assert e.find(A + k) is not None and e.find(A + k).text, "an entry lacks " + k
    assert e.find(A + "id").text.startswith("https://"), "an entry's id is not absolute"
print("vnu.sh: atom.xml is well-formed Atom with %d entries" % len(entries))
PY
java -jar "$vnu" --skip-non-html --errors-only "$tmp/out"
java -jar "$vnu" --css --errors-only --filterfile "$root/tests/theme/vnu-css.filter" "$tmp/out/style.css"
echo "vnu.sh: $pages HTML pages and style.css: no errors"
