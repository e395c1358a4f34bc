#!/usr/bin/python3
"""The checks of output paths, remembered in the build cache (issue 31).

Once every page has its path, a build checks that no two pages, aliases
or files make one output (site_assign_paths); after the model, it checks
the outputs only the model knows (tag pages, later pages of lists, feeds
and their copies, the search index's files) against every page, alias and
file (site/paths.c). With the build cache, a check that passed is
remembered by a fingerprint of what it reads, and a build with the same
fingerprint skips it. Each step here
changes one thing that check reads and must be caught by the build that
follows, with the cache of the step before it:

1. the first build, then one with nothing changed: both pass;
2. a page at content/tags.md: its /tags/ is the index of tags (error);
3. that page gone: passes again; an alias /tags/t0/atom.xml on a post
   (the feed of tag t0: error) — a page's aliases, no page added; gone;
4. a file static/index.xml, then `feed_copies: [index.xml]` in site.yaml:
   the home feed's copy is that file (error) — a setting, no source;
5. the setting gone; a page content/tags/later.md (/tags/later/), then
   the tag `later` on a post: the tag's page is that page (error) — a
   term, the page itself unchanged;
6. the tag gone: passes;
7. a page whose slug is another's (two sources, one output: error), gone;
   an alias that is another post's path (error), gone: the first check's
   — a page added, a page's aliases — and the output is a clean build's.

usage: paths.py path/to/sheaf
"""
import os
import shutil
import subprocess
import sys

from common import new_site, same_as_clean


def fail(msg):
    print("FAIL cache/paths: " + msg)
    sys.exit(1)


def main():
    sheaf = os.path.abspath(sys.argv[1])
    tmp, site, posts, env = new_site("paths")
    # not beside a clean build (SHEAF_CHECK_INCREMENTAL): that one checks
    # the paths itself, and would say the error this test waits for
    env.pop("SHEAF_CHECK_INCREMENTAL", None)

    def write(rel, text):
        path = os.path.join(site, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)

    def build(what, want_error=None):
        c = subprocess.run([sheaf, "build", "-s", site], capture_output=True, text=True,
                           errors="replace", env=env, timeout=120)
        if want_error is None and c.returncode != 0:
            fail("%s: the build failed: %s" % (what, c.stderr))
        if want_error is not None and (c.returncode == 0 or want_error not in c.stderr):
            fail("%s: want an error saying %r, got exit %d and: %s" % (what, want_error, c.returncode, c.stderr))

    config = "title: Paths\nbase_url: https://example.org/\nsearch: true\n"
    write("site.yaml", config)
    for i in range(6):
        write("content/posts/2024-01-%02d-p%d.md" % (i + 1, i),
              "---\ntitle: P%d\ntags: [t%d]\n---\nPost %d.\n" % (i, i % 2, i))
    build("first build")
    build("nothing changed")

    write("content/tags.md", "---\ntitle: Tags by hand\n---\nMine.\n")
    build("a page at /tags/", "which sheaf generates itself")
    os.remove(os.path.join(site, "content", "tags.md"))
    build("that page gone")
    write("content/posts/2024-01-02-p1.md", "---\ntitle: P1\ntags: [t1]\naliases: [/tags/t0/atom.xml]\n---\nPost 1.\n")
    build("an alias at the feed of tag t0", "which sheaf generates itself")
    write("content/posts/2024-01-02-p1.md", "---\ntitle: P1\ntags: [t1]\n---\nPost 1.\n")
    build("the alias gone")

    write("static/index.xml", "<x/>\n")
    build("a file static/index.xml")
    write("site.yaml", config + "feed_copies: [index.xml]\n")
    build("feed_copies: [index.xml] beside static/index.xml", "index.xml")
    write("site.yaml", config)
    os.remove(os.path.join(site, "static", "index.xml"))
    build("the setting and the file gone")

    write("content/tags/later.md", "---\ntitle: Later by hand\n---\nMine.\n")
    build("a page at /tags/later/")
    write("content/posts/2024-01-01-p0.md", "---\ntitle: P0\ntags: [t0, later]\n---\nPost 0.\n")
    build("the tag 'later' on a post", "tags/later")
    write("content/posts/2024-01-01-p0.md", "---\ntitle: P0\ntags: [t0]\n---\nPost 0.\n")
    build("the tag gone")

    write("content/posts/2024-02-01-x.md", "---\ntitle: X\nslug: p0\n---\nX.\n")
    build("a page with the slug of another", "two sources, one output path")
    os.remove(os.path.join(site, "content", "posts", "2024-02-01-x.md"))
    build("that page gone")
    write("content/posts/2024-01-03-p2.md", "---\ntitle: P2\ntags: [t0]\naliases: [/posts/p1/]\n---\nPost 2.\n")
    build("an alias at another post's path", "posts/p1")
    write("content/posts/2024-01-03-p2.md", "---\ntitle: P2\ntags: [t0]\n---\nPost 2.\n")
    build("the alias gone")
    same_as_clean(sheaf, site, tmp, env, "the alias gone", fail)
    shutil.rmtree(tmp)
    print("ok cache/paths")


main()
