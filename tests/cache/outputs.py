#!/usr/bin/python3
"""Links to outputs in a cached build (issue 31).

A link written relative to a page's own output (`../../tags/t0/`) is
resolved against the set of every output path. A one-shot build with the
build cache makes that set only when a page's Markdown asks for it (a
build that takes every page from the cache makes none), so each build
here must still find those links, as a clean build does:

1. the first build (every page written, the cache filled);
2. nothing changed: every page from the cache;
3. the post with the links edited: its Markdown is rendered again, the
   first to ask for the set;
4. every bulk part removed: each page's body is made again from its
   source when first read, after the Markdown stage (the set made then);
5. a post added whose link names its own new tag page, which only the
   set of this build holds (every page is written again: the pages a
   link may name changed).

Each build runs with SHEAF_CHECK_INCREMENTAL=1 (a clean build beside it,
compared byte for byte) and says nothing (a link the set lacked would be
reported as missing); its output is compared with a `--no-cache` build's.

usage: outputs.py path/to/sheaf
"""
import glob
import os
import re
import shutil
import subprocess
import sys

from common import new_site, same_as_clean

POSTS = 6
LINKS = ("\nSee [the t0 tag](../../tags/t0/), [its feed](../../tags/t0/atom.xml) "
         "and [all tags](../../tags/).\n")


def fail(msg):
    print("FAIL cache/outputs: " + msg)
    sys.exit(1)


def main():
    sheaf = os.path.abspath(sys.argv[1])
    tmp, site, posts, env = new_site("outputs")
    with open(os.path.join(site, "site.yaml"), "w") as f:
        f.write("title: Outputs\nbase_url: https://example.org/\n")

    def write(i, extra=""):
        with open(os.path.join(posts, "2024-03-%02d-p%d.md" % (i + 1, i)), "w") as f:
            f.write("---\ntitle: Post %d\ntags: [t%d]\n---\n\nBody of post %d.\n%s" % (i, i % 3, i, extra))

    for i in range(POSTS):
        write(i, LINKS if i == 0 else "")

    def build(what, cached):
        r = subprocess.run([sheaf, "build", "--stats", "-s", site], capture_output=True, text=True,
                           errors="replace", env=env, timeout=120)
        if r.returncode != 0 or r.stderr:
            fail("%s: the build failed (%d) or said something:\n%s%s" % (what, r.returncode, r.stdout, r.stderr))
        m = re.search(r"^  markdown: (\d+) pages written, (\d+) from the build cache$", r.stdout, re.M)
        if (int(m.group(2)) if m else 0) != cached:
            fail("%s: wanted %d pages from the cache:\n%s" % (what, cached, r.stdout))
        return same_as_clean(sheaf, site, tmp, env, what, fail)

    def has_links(tree, what, page="posts/p0/index.html", to=("../../tags/t0/", "../../tags/")):
        html = tree.get(page, b"")
        for t in to:
            if ('href="%s"' % t).encode() not in html:
                fail("%s: %s has no link to %s:\n%s" % (what, page, t, html[:800]))

    has_links(build("first build", 0), "first build")
    has_links(build("nothing changed", POSTS), "nothing changed")
    write(0, LINKS + "\nEdited.\n")
    has_links(build("the post with the links edited", POSTS - 1), "the post with the links edited")
    parts = [f for f in glob.glob(os.path.join(site, ".sheaf-cache", "v1", "page-bulk", "*", "*"))
             if not os.path.basename(f).startswith(".")]
    if len(parts) < POSTS:
        fail("%d bulk parts in the cache, wanted at least %d" % (len(parts), POSTS))
    for f in parts:
        os.remove(f)
    has_links(build("every bulk part removed", POSTS), "every bulk part removed")
    with open(os.path.join(posts, "2024-03-20-new.md"), "w") as f:
        f.write("---\ntitle: New\ntags: [fresh]\n---\n\nSee [my tag](../../tags/fresh/).\n")
    tree = build("a post added, linking to its own new tag", 0)
    has_links(tree, "a post added", "posts/new/index.html", ("../../tags/fresh/",))
    shutil.rmtree(tmp)
    print("ok cache/outputs")


if __name__ == "__main__":
    main()
