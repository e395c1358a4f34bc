#!/usr/bin/python3
"""A page's body read from the build cache only when used, and checked then
(issue 31).

A one-shot build reads the head of each cached page's entry in its Markdown
stage and the rest — the body, the summary, the search keys and text, a
part of its own under its own HMAC — only when a render or the search
index asks for it. So damage to that part is found late, after the model
is made. Each case below damages the parts of every page, then edits one
post (so the home page, the feed and the search index read the others'
parts) and builds with SHEAF_CHECK_INCREMENTAL=1; the output must be byte
for byte a clean build's:

1. every part with one byte changed in its middle (same length: only the
   HMAC can tell): one warning naming the damaged entries;
2. every part cut short: the same warning;
3. every part gone (what a trim may do): no warning;
and the build after each takes every page from the cache again, silently.

usage: bulk.py path/to/sheaf
"""
import glob
import os
import re
import shutil
import subprocess
import sys

from common import new_site, same_as_clean

POSTS = 12


def fail(msg):
    print("FAIL cache/bulk: " + msg)
    sys.exit(1)


def main():
    sheaf = os.path.abspath(sys.argv[1])
    tmp, site, _posts, env = new_site("bulk")
    with open(os.path.join(site, "site.yaml"), "w") as f:
        f.write("title: Bulk\nbase_url: https://example.org/\nsearch: true\n")
    for i in range(POSTS):
        with open(os.path.join(site, "content", "posts", "2024-01-%02d-p%d.md" % (i + 1, i)), "w") as f:
            f.write("---\ntitle: Post %d\ntags: [t%d]\n---\n\nFirst paragraph of post %d, "
                    "[the next](2024-01-%02d-p%d.md).\n\n<!--more-->\n\n## Part two\n\n"
                    "Words of post %d: gradient compression, 梯度压缩.\n"
                    % (i, i % 3, i, (i + 1) % POSTS + 1, (i + 1) % POSTS, i))

    def build(what, cached, warning=None):
        r = subprocess.run([sheaf, "build", "--stats", "-s", site], capture_output=True, text=True,
                           errors="replace", env=env, timeout=120)
        if r.returncode != 0:
            fail("%s: the build failed (%d):\n%s%s" % (what, r.returncode, r.stdout, r.stderr))
        if warning is None and r.stderr:
            fail("%s: unexpected diagnostics:\n%s" % (what, r.stderr))
        if warning is not None and not re.fullmatch(warning, r.stderr.strip()):
            fail("%s: wanted a warning matching %r, got:\n%s" % (what, warning, r.stderr))
        m = re.search(r"^  markdown: (\d+) pages written, (\d+) from the build cache$", r.stdout, re.M)
        got = int(m.group(2)) if m else 0
        if got != cached:
            fail("%s: %d pages from the cache, wanted %d\n%s" % (what, got, cached, r.stdout))
        a = same_as_clean(sheaf, site, tmp, env, what, fail)

    def parts():
        found = glob.glob(os.path.join(site, ".sheaf-cache", "v1", "page-bulk", "*", "*"))
        found = [f for f in found if not os.path.basename(f).startswith(".")]
        if len(found) < POSTS:
            fail("%d parts in the cache, wanted at least %d" % (len(found), POSTS))
        return found

    edits = [0]

    def edit():
        edits[0] += 1
        with open(os.path.join(site, "content", "posts", "2024-01-01-p0.md"), "a") as f:
            f.write("\nEdit %d.\n" % edits[0])

    build("first build", 0)
    build("nothing changed", POSTS)
    damaged = r"\.sheaf-cache: warning: %d entries could not be read back \(cut short or changed " \
              r"since written\): ignored and made again"

    # 1. a byte changed in the middle of each part: only its HMAC tells
    for f in parts():
        with open(f, "r+b") as fh:
            data = fh.read()
            fh.seek(len(data) // 2 + 8)
            fh.write(bytes([data[len(data) // 2 + 8] ^ 0x20]))
    edit()
    build("every part changed in place", POSTS - 1, damaged % (POSTS - 1))
    build("after the parts were made again", POSTS)

    # 2. each part cut short
    for f in parts():
        with open(f, "r+b") as fh:
            fh.truncate(os.path.getsize(f) // 2)
    edit()
    build("every part cut short", POSTS - 1, damaged % (POSTS - 1))
    build("after the parts were made again", POSTS)

    # 3. the parts removed (as a trim may): made again, nothing to say
    for f in parts():
        os.unlink(f)
    edit()
    build("every part removed", POSTS - 1)
    build("after the parts were made again", POSTS)
    shutil.rmtree(tmp)
    print("ok: damaged, cut and missing body parts found when read, and the output a clean build's")


if __name__ == "__main__":
    main()
