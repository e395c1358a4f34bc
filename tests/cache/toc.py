#!/usr/bin/python3
"""A page's table of contents made on first read in a cached build (issue 31).

A one-shot build with the build cache gives each page's `toc` a stand-in
(its headings' count and hash) and makes the real list only when a
template reads it, so a build that renders few pages makes few tables of
contents. Here the home page lists every post with its `toc` (and nothing
else of its body), so its render is the first read of the other posts'
tocs; each cached build must write what a clean build writes:

1. the first build (every page written, the cache filled);
2. nothing changed: every page from the cache, nothing rendered but the
   search index;
3. one post's body edited (a heading added): the home page renders again
   and reads the tocs of the posts it lists, all still stand-ins;
4. another post's heading renamed (its id too): its page and the home page.

Each build runs with SHEAF_CHECK_INCREMENTAL=1 (a clean build beside it,
compared byte for byte) and is compared here with a `--no-cache` build.

usage: toc.py path/to/sheaf
"""
import os
import re
import shutil
import subprocess
import sys

from common import new_site, output_tree, same_as_clean

POSTS = 8
INDEX = """<!doctype html><title>{{ site.title }}</title>
{%- for post in paginator.pages %}
<h2>{{ post.title }}</h2><ol>
{%- for h in post.toc %}<li id="{{ h.id }}" data-level="{{ h.level }}">{{ h.title }}
{%- if h.children %}<ol>{% for c in h.children %}<li>{{ c.id }}: {{ c.title }}</li>{% endfor %}</ol>{% endif %}</li>
{%- endfor %}</ol>
{%- endfor %}
"""


def fail(msg):
    print("FAIL cache/toc: " + msg)
    sys.exit(1)


def post(i, extra=""):
    if i == POSTS - 1:  # one without headings: its toc is the empty list
        return "---\ntitle: Post %d\n---\n\nOnly a paragraph.\n" % i
    return ("---\ntitle: Post %d\ntags: [t%d]\n---\n\nIntro of post %d.\n\n## First of %d\n\nText.\n\n"
            "### Below first of %d\n\nMore.\n\n## Second of %d\n\nEnd.\n%s" % (i, i % 2, i, i, i, i, extra))


def main():
    sheaf = os.path.abspath(sys.argv[1])
    tmp, site, posts, env = new_site("toc")
    os.makedirs(os.path.join(site, "templates"))
    with open(os.path.join(site, "site.yaml"), "w") as f:
        f.write("title: Tocs\nbase_url: https://example.org/\nsearch: true\n")
    with open(os.path.join(site, "templates", "index.html"), "w") as f:
        f.write(INDEX)

    def write(i, extra=""):
        with open(os.path.join(posts, "2024-02-%02d-p%d.md" % (i + 1, i)), "w") as f:
            f.write(post(i, extra))

    for i in range(POSTS):
        write(i)

    def build(what, cached, rendered=None):
        r = subprocess.run([sheaf, "build", "--stats", "-s", site], capture_output=True, text=True,
                           errors="replace", env=env, timeout=120)
        if r.returncode != 0 or r.stderr:
            fail("%s: the build failed (%d) or said something:\n%s%s" % (what, r.returncode, r.stdout, r.stderr))
        m = re.search(r"^  markdown: (\d+) pages written, (\d+) from the build cache$", r.stdout, re.M)
        if (int(m.group(2)) if m else 0) != cached:
            fail("%s: wanted %d pages from the cache:\n%s" % (what, cached, r.stdout))
        m = re.search(r"^  outputs: (\d+) rendered", r.stdout, re.M)
        if rendered is not None and (not m or int(m.group(1)) > rendered):
            fail("%s: wanted at most %d outputs rendered:\n%s" % (what, rendered, r.stdout))
        a = same_as_clean(sheaf, site, tmp, env, what, fail)
        home = a.get("index.html", b"")
        if b"Below first of 3" not in home or b"\x01" in home:
            fail("%s: the home page does not list the posts' tocs:\n%s" % (what, home[:600]))

    build("first build", 0)
    build("nothing changed", POSTS, rendered=1)
    write(5, "\n## Added later\n\nA new part.\n")
    build("a heading added to one post", POSTS - 1)
    with open(os.path.join(posts, "2024-02-03-p2.md")) as f:
        text = f.read()
    with open(os.path.join(posts, "2024-02-03-p2.md"), "w") as f:
        f.write(text.replace("## Second of 2", "## Renamed second of 2"))
    build("a heading of another post renamed", POSTS - 1)
    if b"renamed-second-of-2" not in output_tree(os.path.join(site, "public"))["index.html"]:
        fail("the renamed heading's id is not on the home page")
    shutil.rmtree(tmp)
    print("ok cache/toc")


if __name__ == "__main__":
    main()
