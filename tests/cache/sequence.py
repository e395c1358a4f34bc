#!/usr/bin/python3
"""Builds that take pages from the build cache are clean builds (issue 31).

A small site — posts linking to each other's headings, citations of a
.bib, a shortcode reading a data file, a template of the site's own — is
built once, then edited in turn: a post's body (also with its mtime put
back, and by a rename over it), a post added, one
deleted, one renamed, a template, a data file, a .bib entry, site.yaml
keys. After each edit `sheaf build` runs with the cache (and
SHEAF_CHECK_INCREMENTAL=1, which builds from scratch beside it and aborts
on any difference) and its output is compared byte for byte with a build
with --no-cache into a folder of its own. The stats say how many pages
the cache gave: all of them when nothing changed, all but one after one
body edit, none after a site.yaml edit; and how many outputs were
rendered, against the clean build's count: only the search index when
nothing changed, a few after a body, title or date edit, every one after
an edit that moves a post (its date, its tags), adds, deletes or renames
one, or touches a template, a data file, the .bib or site.yaml.

Then the cache is damaged in the ways a disk, a copy or a crash damage
it — an entry cut short, a manifest of another sheaf, of another site, of
a build that was killed, the record of what each output read cut short or
half replaced by an older one — and each build warns once, uses none of
what it cannot trust, and writes what a clean build writes.

usage: sequence.py path/to/sheaf
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

from common import output_tree, png_bytes

SHEAF = os.path.abspath(sys.argv[1])
TMP = tempfile.mkdtemp(prefix="sheaf-cache-seq-")
# a real style to copy into the site (Debian's citation-style-language-styles)
CSL_IEEE = "/usr/share/citation-style-language/styles/ieee.csl"
SITE = os.path.join(TMP, "site")
ENV = dict(os.environ, NO_COLOR="1", SHEAF_CHECK_INCREMENTAL="1", TMPDIR=TMP)
step_no = 0


def fail(msg):
    print("FAIL cache/sequence: " + msg)
    sys.exit(1)


def write(rel, text):
    path = os.path.join(SITE, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def cached_pages(stdout):
    m = re.search(r"^  markdown: (\d+) pages written, (\d+) from the build cache$", stdout, re.M)
    return int(m.group(2)) if m else 0


def rendered_outputs(stdout):
    m = re.search(r"; (\d+) outputs rendered, ", stdout)
    if not m:
        fail("no count of outputs rendered in --stats:\n" + stdout)
    return int(m.group(1))


last_rendered = None


def build(what, want_cached=None, want_warning=None, rendered=None):
    """Builds with the cache and without; both must agree. rendered: a
    test of the count of outputs the cached build rendered and of the
    count the clean one rendered (every output)."""
    global step_no, last_rendered
    step_no += 1
    r = subprocess.run([SHEAF, "build", "--stats", "-s", SITE], capture_output=True, text=True, env=ENV)
    if r.returncode != 0:
        fail("%s: the cached build failed (%d):\n%s%s" % (what, r.returncode, r.stdout, r.stderr))
    if want_warning is None and r.stderr:
        fail("%s: unexpected diagnostics:\n%s" % (what, r.stderr))
    if want_warning is not None:
        lines = r.stderr.strip().splitlines()
        if len(lines) != 1 or not re.search(want_warning, lines[0]):
            fail("%s: wanted one warning matching %r, got:\n%s" % (what, want_warning, r.stderr))
    got = cached_pages(r.stdout)
    if want_cached is not None and got != want_cached:
        fail("%s: %d pages from the cache, wanted %d\n%s" % (what, got, want_cached, r.stdout))
    last_rendered = rendered_outputs(r.stdout)
    ref = os.path.join(TMP, "ref%d" % step_no)
    c = subprocess.run([SHEAF, "build", "--stats", "--no-cache", "-s", SITE, "-o", ref],
                       capture_output=True, text=True, env=ENV)
    if c.returncode != 0:
        fail("%s: the clean build failed: %s" % (what, c.stderr))
    full = rendered_outputs(c.stdout)
    if rendered is not None and not rendered(last_rendered, full):
        fail("%s: %d outputs rendered (a clean build renders %d), not what was wanted\n%s"
             % (what, last_rendered, full, r.stdout))
    a, b = output_tree(os.path.join(SITE, "public")), output_tree(ref)
    if a != b:
        diff = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
        fail("%s: the cached build differs from a clean one in %s" % (what, diff[:8]))
    shutil.rmtree(ref)
    return got


def png(rel, w, h):
    """A w×h grey PNG at rel."""
    data = png_bytes(w, h)
    path = os.path.join(SITE, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


POST = """---
title: {title}
date: {date}
tags: [{tag}]
---
Intro of {title}. {extra}

## First part

Text with a formula $x^{m}$ and a citation [@lian2017].

## Second part

See [the other post](2024-0{other}-01-p{other}.md#second-part).
"""


def post(m, other, title=None, tag="a", extra="", date=None):
    write("content/posts/2024-0%d-01-p%d.md" % (m, m),
          POST.format(title=title or "Post %d" % m, m=m, other=other, tag=tag, extra=extra,
                      date=date or "2024-0%d-01" % m))


def record_entries():
    """The files of the record of what each output read, by what they hold."""
    out = {}
    for f in glob.glob(os.path.join(SITE, ".sheaf-cache", "v1", "render", "*", "*")):
        with open(f, "rb") as fh:
            data = fh.read()
        for part in (b"head 0", b"jobs 0", b"pages 0"):
            if part in data:
                out[part.decode()] = f
    return out


def main():
    write("site.yaml", "title: Seq\nbase_url: https://example.org/\nbibliography: refs.bib\nsearch: true\n")
    write("refs.bib", "@article{lian2017, author = {Lian, Xiangru and Zhang, Ce}, title = {Can "
          "decentralized algorithms outperform centralized ones}, year = {2017}}\n"
          "@article{wang2023, author = {Wang, Lin}, title = {A survey}, year = {2023}}\n")
    write("data/info.yaml", "motto: first motto\n")
    write("templates/shortcodes/motto.html", "<em>{{ site.data.info.motto }}</em>")
    for m in range(1, 6):
        post(m, m % 5 + 1)
    write("content/about.md", "---\ntitle: About\n---\nThe motto: {{< motto >}}. See "
          "[post one](posts/2024-01-01-p1.md#first-part).\n\n![a square](img/sq.png)\n")
    png("content/img/sq.png", 4, 4)
    n = 6

    ALL = lambda k, full: k == full  # every output rendered again
    FEW = lambda k, full: none < k < full // 2  # only what read the edit
    build("cold", 0, rendered=ALL)
    build("nothing changed", n, rendered=lambda k, full: k < full // 4)
    none = last_rendered  # what runs on every build: the search index
    post(2, 3, extra="An edited body.")
    build("one body edited", n - 1, rendered=FEW)
    # edits a file's mtime does not show: the sources' records (site/srcrec.c)
    # see them by ctime and inode, once the files are past the racy window
    time.sleep(2.2)
    build("nothing changed, every source's record trusted", n, rendered=lambda k, full: k == none)
    p2 = os.path.join(SITE, "content/posts/2024-02-01-p2.md")
    st = os.stat(p2)
    post(2, 3, extra="An edited bodY.")  # the same size
    os.utime(p2, ns=(st.st_atime_ns, st.st_mtime_ns))
    time.sleep(2.2)
    build("a body edited, its size and mtime as they were", n - 1, rendered=FEW)
    p3 = os.path.join(SITE, "content/posts/2024-03-01-p3.md")
    st = os.stat(p3)
    with open(p3) as f:
        text = f.read().replace("Intro of", "Introduction of")
    with open(p3 + ".new", "w") as f:
        f.write(text)
    os.utime(p3 + ".new", ns=(st.st_atime_ns, st.st_mtime_ns))
    os.rename(p3 + ".new", p3)
    time.sleep(2.2)
    build("a post replaced by a rename, its mtime as it was", n - 1, rendered=FEW)
    post(3, 4, title="A new title")
    build("a title edited", rendered=lambda k, full: none < k < full)
    build("nothing changed after the title", n, rendered=lambda k, full: k == none)
    post(3, 4, title="A new title", date="2024-03-02")  # only the date: the same order
    build("a date edited", n - 1, rendered=lambda k, full: none < k < full)
    post(3, 4, title="A new title", date="2024-06-02")  # the newest now: the order changes
    build("a date edited, the order changed", n - 1, rendered=ALL)
    post(3, 4, title="A new title")
    # the cache holds each page's latest head only: its Markdown of two
    # edits before is made again
    build("the date back", n - 1, rendered=ALL)
    post(4, 5, tag="c")
    build("a post's tags edited", None, rendered=ALL)
    post(4, 5)
    build("the tags back", None, rendered=ALL)
    post(2, 3, extra="An edited body, again.")
    build("a body edited again", n - 1, rendered=FEW)
    post(6, 1, tag="b")
    n += 1
    build("a post added", rendered=ALL)
    os.remove(os.path.join(SITE, "content/posts/2024-04-01-p4.md"))
    post(3, 5, title="A new title")  # it linked to the deleted one
    n -= 1
    build("a post deleted", rendered=ALL)
    os.rename(os.path.join(SITE, "content/posts/2024-05-01-p5.md"),
              os.path.join(SITE, "content/posts/2024-05-01-p5-renamed.md"))
    post(3, 1, title="A new title")
    post(2, 1, extra="An edited body.")
    build("a post renamed", rendered=ALL)
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "themes",
                           "default", "templates", "post.html")) as f:
        theme_post = f.read()
    write("templates/post.html", theme_post + "\n<!-- the site's own -->\n")
    build("a template added", n, rendered=ALL)  # every page rendered again, no Markdown
    write("templates/post.html", theme_post + "\n<!-- edited -->\n")
    build("a template edited", n, rendered=ALL)
    write("templates/shortcodes/motto.html", "<strong>{{ site.data.info.motto }}</strong>")
    build("a shortcode's template edited", n - 1, rendered=ALL)
    write("data/info.yaml", "motto: second motto\n")
    build("a data file edited", n - 1, rendered=ALL)
    build("nothing changed after the data", n, rendered=lambda k, full: k < full // 4)
    none = last_rendered
    # the record of what each output read, damaged: a warning, every output rendered
    rec = record_entries()
    if sorted(rec) != ["head 0", "jobs 0", "pages 0"]:
        fail("the record's entries are not in the cache: %s" % sorted(rec))
    with open(rec["jobs 0"], "rb") as fh:
        data = fh.read()
    with open(rec["jobs 0"], "wb") as fh:
        fh.write(data[: len(data) * 2 // 3])
    build("the record cut short", n,
          r"^\.sheaf-cache: warning: 1 entry could not be read back \(cut short or changed since "
          r"written\): ignored and made again$", rendered=ALL)
    build("the record made again", n, rendered=lambda k, full: k == none)
    # a build killed between writing the record's parts: an older part
    # beside the newer head
    with open(record_entries()["jobs 0"], "rb") as fh:
        older = fh.read()
    post(2, 1, extra="An edited body, a third time.")
    build("a body edited, the record written again", n - 1, rendered=FEW)
    with open(record_entries()["jobs 0"], "wb") as fh:
        fh.write(older)
    build("a part of an older record", n,
          r"^\.sheaf-cache: warning: the record of what each output read is incomplete",
          rendered=ALL)
    build("the record whole again", n, rendered=lambda k, full: k == none)
    # an output removed by hand: its job renders again and the part of the
    # record with its files is written again, while the part with the
    # pages' hashes (none changed) is left as it was
    rec = record_entries()
    with open(rec["pages 0"], "rb") as fh:
        pages_before = fh.read()
    with open(rec["jobs 0"], "rb") as fh:
        jobs_before = fh.read()
    about = glob.glob(os.path.join(SITE, "public", "about*", "index.html")) + \
        glob.glob(os.path.join(SITE, "public", "about.html"))
    if len(about) != 1:
        fail("no output of about.md to remove: %s" % about)
    os.unlink(about[0])
    build("an output removed by hand", n, rendered=lambda k, full: none < k < full // 2)
    rec = record_entries()
    with open(rec["jobs 0"], "rb") as fh:
        if fh.read() == jobs_before:
            fail("an output removed by hand: the record's jobs are not written again")
    with open(rec["pages 0"], "rb") as fh:
        if fh.read() != pages_before:
            fail("an output removed by hand: the pages' hashes are written again, none changed")
    build("nothing changed after the removal", n, rendered=lambda k, full: k == none)
    # an output edited in place (its folder unchanged: only the file's own
    # stat can tell), then one replaced by a link to a copy of its bytes:
    # each is written again, and then kept again
    with open(about[0], "ab") as fh:
        fh.write(b"<!-- edited by hand -->")
    build("an output edited in place", n, rendered=lambda k, full: none < k < full // 2)
    build("nothing changed after the edit in place", n, rendered=lambda k, full: k == none)
    copy = os.path.join(TMP, "about-copy.html")
    shutil.copyfile(about[0], copy)
    os.unlink(about[0])
    os.symlink(copy, about[0])
    build("an output replaced by a link", n, rendered=lambda k, full: none < k < full // 2)
    if os.path.islink(about[0]):
        fail("an output replaced by a link: the link was kept")
    build("nothing changed after the link", n, rendered=lambda k, full: k == none)
    write("refs.bib", "@article{lian2017, author = {Lian, Xiangru and Zhang, Ce and Hsieh, Cho-Jui}, "
          "title = {Can decentralized algorithms outperform centralized ones}, year = {2017}}\n"
          "@article{wang2023, author = {Wang, Lin}, title = {A survey}, year = {2023}}\n")
    build("a .bib entry edited", 0, rendered=ALL)  # every page may cite (site.yaml names the .bib)
    write("site.yaml", "title: Seq edited\nbase_url: https://example.org/\nbibliography: refs.bib\n"
          "search: true\n")
    build("a site.yaml key edited", 0, rendered=ALL)
    write("site.yaml", "title: Seq edited\nbase_url: https://example.org/sub/\nbibliography: refs.bib\n"
          "search: true\nmarkdown:\n  smart: false\n")
    build("site.yaml keys added", 0)
    # a CSL style of the site's own: editing the .csl file (site.yaml
    # unchanged) must redo the pages that cite
    with open(CSL_IEEE) as fh:
        style = fh.read()
    write("styles/venue.csl", style)
    write("site.yaml", "title: Seq edited\nbase_url: https://example.org/sub/\nbibliography: refs.bib\n"
          "search: true\nmarkdown:\n  smart: false\ncitation_style: styles/venue.csl\n")
    build("a .csl style named", 0)
    write("styles/venue.csl", style.replace('<group prefix="[" suffix="]" delimiter=", ">',
                                            '<group prefix="(" suffix=")" delimiter=", ">', 1))
    build("the .csl style edited", 0)
    build("nothing changed again", n)
    # a page's own citation_style: (front matter): its .csl file edited
    # must redo that page alone, and so must a change of the name
    write("styles/page.csl", style)
    own = ("---\ntitle: Own style\ndate: 2024-07-01\ncitation_style: %s\n---\n"
           "Cited [@lian2017, p. 4] and [@wang2023].\n")
    write("content/posts/2024-07-01-own.md", own % "styles/page.csl")
    n += 1
    build("a page naming its own .csl style")
    write("styles/page.csl", style.replace('<group prefix="[" suffix="]" delimiter=", ">',
                                           '<group prefix="{" suffix="}" delimiter=", ">', 1))
    build("the page's .csl style edited", n - 1)
    write("content/posts/2024-07-01-own.md", own % "nature")
    build("the page's citation_style edited", n - 1)
    write("content/posts/2024-07-01-own.md", own % "styles/venue.csl")
    build("the page's citation_style now the site's", n - 1)
    # a file of someone else's in the output folder: carried over by the
    # cached build, and not taken by its check for a stale output
    mine = os.path.join(SITE, "public", "posts", "mine.txt")
    with open(mine, "w") as fh:
        fh.write("not sheaf's\n")
    r = subprocess.run([SHEAF, "build", "-q", "-s", SITE], capture_output=True, text=True, env=ENV)
    if r.returncode != 0 or r.stderr:
        fail("a file of someone else's in the output: the cached build failed (%d):\n%s"
             % (r.returncode, r.stderr))
    with open(mine) as fh:
        if fh.read() != "not sheaf's\n":
            fail("a file of someone else's in the output: changed")
    os.unlink(mine)
    # a site that warns: the cached build says what a clean one says
    # (SHEAF_CHECK_INCREMENTAL compares the two builds' diagnostics too)
    write("content/stray/_index.md", "---\ntitle: Stray\n---\nNo section here.\n")
    build("a warning, in the cached build as in a clean one", None,
          r"^content/stray/_index\.md: warning: not used: ")
    build("the same warning again, nothing changed", None, r"^content/stray/_index\.md: warning: not used: ")
    os.remove(os.path.join(SITE, "content/stray/_index.md"))
    build("the warning gone", None)
    png("content/img/sq.png", 6, 3)  # the same file, other sizes: its width and height change
    build("an image replaced", 0)
    for dirpath, _dirs, files in os.walk(SITE):  # a fresh checkout: every file a new time
        for f in files:
            os.utime(os.path.join(dirpath, f), (1e9, 1e9))
    build("every file touched", n)

    # ---- a damaged cache: a warning, nothing of it trusted, a clean build's output
    cache = os.path.join(SITE, ".sheaf-cache", "v1")
    pages = [f for f in glob.glob(os.path.join(cache, "page-heads", "*", "*"))]
    if not pages:
        fail("no entries of the pages' heads in the cache")
    for f in pages:
        with open(f, "rb") as fh:
            data = fh.read()
        with open(f, "wb") as fh:
            fh.write(data[: len(data) // 2])
    build("every entry of heads cut short", 0,
          r"^\.sheaf-cache: warning: %d entries could not be read back \(cut short or changed since "
          r"written\): ignored and made again$" % len(pages))  # each read once
    build("after the damaged entries were made again", n)

    # a copy of the site elsewhere: the cache names the site's folder
    other = os.path.join(TMP, "other")
    shutil.copytree(SITE, other, symlinks=True)
    shutil.rmtree(os.path.join(other, "public"))
    r = subprocess.run([SHEAF, "build", "-q", "-s", other], capture_output=True, text=True, env=ENV)
    if r.returncode != 0 or not re.search(
            r"^\.sheaf-cache: warning: it was made for the site in .*/site, not this one: none of "
            r"the pages it holds is used; they are rendered again$", r.stderr.strip()):
        fail("a cache copied from another site: %d\n%s" % (r.returncode, r.stderr))
    if output_tree(os.path.join(other, "public")) != output_tree(os.path.join(SITE, "public")):
        fail("the copied site's build differs")

    # another version of sheaf: a copy of the binary with another build id
    # is another sheaf to the cache
    other_sheaf = os.path.join(TMP, "sheaf-other")
    shutil.copy(SHEAF, other_sheaf)
    ids = re.findall(r"Build ID: ([0-9a-f]+)",
                     subprocess.run(["readelf", "-n", SHEAF], capture_output=True, text=True).stdout)
    if not ids:
        fail("no build id in the binary (readelf -n)")
    with open(other_sheaf, "r+b") as fh:
        data = fh.read()
        at = data.find(bytes.fromhex(ids[0]))
        fh.seek(at)
        fh.write(bytes(b ^ 0xFF for b in data[at:at + 4]))
    os.chmod(other_sheaf, 0o755)
    r = subprocess.run([other_sheaf, "build", "-q", "-s", SITE], capture_output=True, text=True, env=ENV)
    if r.returncode != 0 or not re.search(
            r"^\.sheaf-cache: warning: it was written by another version of sheaf: none of the pages "
            r"it holds is used; they are rendered again$", r.stderr.strip()):
        fail("a cache of another sheaf: %d\n%s" % (r.returncode, r.stderr))
    build("back with this sheaf", 0,
          r"^\.sheaf-cache: warning: it was written by another version of sheaf")
    build("and again", n)
    print("ok: %d cached builds equal clean ones; damaged, copied and foreign caches refused" % step_no)


try:
    main()
finally:
    shutil.rmtree(TMP, ignore_errors=True)
