#!/usr/bin/python3
"""A page's values taken as the last build's only when nothing they are
made of changed (issue 31).

The render record hashes every entry of every page's map, to find the
outputs that read a value that changed. A page whose inputs (p->inputs,
site/model.c: its source's and its Markdown's identities, and what it
shows of other pages) are the last build's keeps the last build's hashes
without its entries being read. This site's pages show what each of them
takes from the others — their neighbours', related posts' and backlinks'
titles, URLs and dates, the backlinks' link texts, the size of the image a
page shows — and none cites, so every page may be taken as known. Each
edit below changes one of those things in one page only, and the pages
that show it must be made again: every build runs with
SHEAF_CHECK_INCREMENTAL=1 and is compared byte for byte with a clean
build (--no-cache); --stats must say that most pages were known (the
shortcut is taken, so a wrong one would show).

usage: inputs.py path/to/sheaf
"""
import os
import re
import subprocess
import sys

from common import new_site, png_bytes, same_as_clean

SHEAF = os.path.abspath(sys.argv[1])
TMP, SITE, POSTS, ENV = new_site("inputs")
# every value a page's map takes from another page, printed
TEMPLATE = """<!doctype html><title>{{ page.title }}</title>
<p>{{ page.url }} {{ page.date }} {{ page.image_width }}x{{ page.image_height }} {{ page.image }}</p>
{%- if page.prev %}<p>prev {{ page.prev.title }} {{ page.prev.url }} {{ page.prev.date }}</p>{% endif %}
{%- if page.next %}<p>next {{ page.next.title }} {{ page.next.url }} {{ page.next.date }}</p>{% endif %}
{%- for r in page.related %}
<p>related {{ r.title }} {{ r.url }} {{ r.date }} {{ r.shared }}</p>
{%- endfor %}
{%- for b in page.backlinks %}
<p>backlink {{ b.title }} {{ b.url }} {{ b.date }} {{ b.text }}</p>
{%- endfor %}
{{ page.content | safe }}
"""


def fail(msg):
    print("FAIL cache/inputs: " + msg)
    sys.exit(1)


def write(rel, text):
    path = os.path.join(SITE, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def png(rel, w, h):
    """A w×h grey PNG at rel."""
    data = png_bytes(w, h)
    path = os.path.join(SITE, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def post(n, title=None, date=None, tags="x", extra=""):
    write("content/posts/2024-01-%02d-n%d.md" % (n, n),
          "---\ntitle: %s\ndate: %s\ntags: [%s]\n%s---\nBody of note %d.\n" %
          (title or "Note %d" % n, date or "2024-01-%02d" % n, tags, extra, n))


def page(title="About", text="the first note"):
    write("content/about.md", "---\ntitle: %s\n---\nSee [%s](posts/2024-01-01-n1.md).\n" % (title, text))


def build(what, known_at_least):
    r = subprocess.run([SHEAF, "build", "--stats", "-s", SITE], capture_output=True, text=True,
                       env=ENV, timeout=120)
    if r.returncode != 0 or r.stderr:
        fail("%s: the cached build said (%d):\n%s%s" % (what, r.returncode, r.stdout, r.stderr))
    m = re.search(r"values: (\d+) of (\d+) pages' known", r.stdout)
    known = int(m.group(1)) if m else 0
    if known < known_at_least:
        fail("%s: %d pages' values known from the last build, wanted at least %d:\n%s"
             % (what, known, known_at_least, r.stdout))
    same_as_clean(SHEAF, SITE, TMP, ENV, what, fail)


def main():
    write("site.yaml", "title: Inputs\nbase_url: https://example.org/\n")
    write("templates/post.html", TEMPLATE)
    write("templates/page.html", TEMPLATE)
    for n in range(1, 7):
        post(n, tags="x" if n % 2 else "x, y" if n < 6 else "x, y, w")
    # a note that shows an image (its size in its map: image_width/height)
    write("content/posts/2024-01-05-n5.md", "---\ntitle: Note 5\ndate: 2024-01-05\ntags: [x]\n---\n"
          "Body of note 5.\n\n![a square](/img/sq.png)\n")
    png("static/img/sq.png", 4, 4)
    # a note sharing a term with the newest note only (a term is dated by
    # its newest post): only its neighbours' `prev` and `next` show it
    write("content/posts/2024-01-03-n0.md", "---\ntitle: Note 0\ndate: 2024-01-03T18:00:00\n"
          "tags: [w]\n---\nBody of note 0.\n")
    page()
    build("cold", 0)
    build("nothing changed", 8)
    # a backlink's title, from a page that is no post (no neighbour of it)
    page(title="About this site")
    build("the title of a page linking to a note", 5)
    page(title="About this site", text="note number one")
    build("the text of a link to a note", 5)
    # a neighbour's and a related post's date, the order of the posts the same
    post(3, date="2024-01-03T12:00:00")
    build("a note's date, its place the same", 1)
    write("content/posts/2024-01-03-n0.md", "---\ntitle: Note 0\ndate: 2024-01-03T20:00:00\n"
          "tags: [w]\n---\nBody of note 0.\n")
    build("the date of a note only its neighbour shows", 1)
    # a neighbour's URL
    post(4, extra="slug: fourth\n")
    build("a note's slug (its output moves: every page made again)", 0)
    # the image a note shows, replaced by one of another size
    png("static/img/sq.png", 8, 6)
    build("an image's size (every page's Markdown made again)", 0)
    # a related post's title, no neighbour of the page showing it
    post(6, title="The sixth note")
    build("a related note's title (every Markdown made again: links show titles)", 0)
    build("nothing changed at the end", 8)
    lazy_maps()
    print("ok: every page shown with another's values made again when they changed")


# Known pages' maps are made only when an output reads them (site/model.c,
# value.h's TPL_LAZY_MAP): a list that reads every post's map whole (its
# keys before any entry: a map read whole is made too), a
# template or site.yaml changed after a build that left maps unmade (every
# map made then, and hashed again), each compared with a clean build.
INDEX = """<!doctype html><title>{{ site.title }}</title>
{%- for p in site.posts %}
<p>{{ p.keys() | list | join(",") }} {{ p | length }} {{ p.title }} {{ p.summary | safe }}</p>
{%- endfor %}
"""


def lazy_maps():
    write("templates/index.html", INDEX)
    build("a list of every post's map whole", 0)
    build("nothing changed, with the list", 8)
    with open(os.path.join(SITE, "content/posts/2024-01-02-n2.md"), "a") as f:
        f.write("\nA line more in note 2.\n")
    build("a note's body, the list of every map rendered again", 5)
    with open(os.path.join(SITE, "content/posts/2024-01-02-n2.md"), "a") as f:
        f.write("\nAnd another.\n")
    write("templates/post.html", TEMPLATE + "<!-- changed -->\n")
    build("a template, after maps were left unmade", 0)
    build("nothing changed after the template", 8)
    with open(os.path.join(SITE, "content/posts/2024-01-02-n2.md"), "a") as f:
        f.write("\nA third line.\n")
    write("site.yaml", "title: Inputs again\nbase_url: https://example.org/\n")
    build("site.yaml, after maps were left unmade", 0)
    build("nothing changed after site.yaml", 8)


if __name__ == "__main__":
    main()
