#!/usr/bin/python3
"""Every post's related posts kept in the build cache (issue 31).

The related posts (the posts sharing the most terms and cited works) are
kept in one cache entry with a digest of what they are made from. Each
build below runs with SHEAF_CHECK_INCREMENTAL=1 and is compared byte for
byte with a clean build (--no-cache); a site template prints every
related post with its `shared` count, so any wrong list shows:

1. a body edited: the entry is used, not written again;
2. a post's tags, two posts' tags swapped, a post's categories, its date, its draft state, a citation
   and site.yaml's `related:` changed in turn: each changes some post's
   related posts, and the entry is written again;
3. the entry with a byte changed (its HMAC fails): the cache's warning,
   the lists made again;
4. the entry forged with the cache's own secret, its digest right but its
   lists not this site's (a page number past the last): a warning of its
   own, the lists made again.

usage: related.py path/to/sheaf
"""
import hashlib
import hmac
import os
import re
import shutil
import struct
import subprocess
import sys

from common import new_site, same_as_clean

POSTS = 14
TEMPLATE = """<!doctype html><title>{{ page.title }}</title>
{%- for r in page.related %}
<p>{{ r.url }} {{ r.shared }}</p>
{%- endfor %}
"""


def fail(msg):
    print("FAIL cache/related: " + msg)
    sys.exit(1)


def main():
    sheaf = os.path.abspath(sys.argv[1])
    tmp, site, posts, env = new_site("related")
    os.makedirs(os.path.join(site, "templates"))
    with open(os.path.join(site, "templates", "post.html"), "w") as f:
        f.write(TEMPLATE)

    def config(related):
        with open(os.path.join(site, "site.yaml"), "w") as f:
            f.write("title: Related\nbase_url: https://example.org/\nrelated: %d\n"
                    "bibliography: refs.bib\n" % related)

    config(4)
    with open(os.path.join(site, "refs.bib"), "w") as f:
        f.write("@article{lian2017, title={Decentralized}, author={Lian, X.}, journal={NeurIPS}, "
                "year={2017}}\n")

    def post(i, tags, cats=(), day=None, draft=False, cite=False, body=""):
        with open(os.path.join(posts, "p%02d.md" % i), "w") as f:
            f.write("---\ntitle: Post %d\ndate: 2024-02-%02d\ntags: [%s]\n" % (i, day or i + 1, ", ".join(tags)))
            if cats:
                f.write("categories: [%s]\n" % ", ".join(cats))
            if draft:
                f.write("draft: true\n")
            f.write("---\n\nPost %d.%s\n%s" % (i, " See [@lian2017]." if cite else "", body))

    # tags overlap so that lists have ties (broken by date), posts with no
    # tags, and more candidates than `related:` keeps
    for i in range(POSTS):
        tags = ["t%d" % (i % 3), "u%d" % (i % 2)] if i % 5 else []
        post(i, tags, cats=["c%d" % (i % 4)] if i % 3 == 0 else (), cite=i in (2, 7))

    def entry():
        d = os.path.join(site, ".sheaf-cache", "v1", "related")
        found = []
        for dirpath, _dirs, files in os.walk(d):
            found += [os.path.join(dirpath, f) for f in files if not f.startswith(".")]
        if len(found) != 1:
            fail("%d entries of related posts in the cache, wanted 1" % len(found))
        return found[0]

    def build(what, warning=None):
        r = subprocess.run([sheaf, "build", "-s", site], capture_output=True, text=True,
                           errors="replace", env=env, timeout=120)
        if r.returncode != 0:
            fail("%s: the build failed (%d):\n%s%s" % (what, r.returncode, r.stdout, r.stderr))
        if warning is None and r.stderr:
            fail("%s: unexpected diagnostics:\n%s" % (what, r.stderr))
        if warning is not None and not re.fullmatch(warning, r.stderr.strip()):
            fail("%s: wanted a warning matching %r, got:\n%s" % (what, warning, r.stderr))
        a = same_as_clean(sheaf, site, tmp, env, what, fail)
        return a

    def ident(path):
        st = os.stat(path)
        return (st.st_ino, st.st_mtime_ns)

    def lists(tree):
        return {k: v for k, v in tree.items() if k.startswith("posts/")}

    first = build("first build")
    shown = b"".join(v for k, v in first.items() if k.startswith("posts/"))
    if b"<p>/posts/p" not in shown or b" 2</p>" not in shown:
        fail("the template shows no related posts with their shared count")
    e = entry()
    was = ident(e)

    # 1. a body edit: the lists come from the entry
    post(1, ["t1", "u1"], body="More words.\n")
    build("a body edited")
    if ident(entry()) != was:
        fail("a body edit wrote the related posts again")

    # 2. each edit below changes some post's related posts: rewritten
    before = lists(first)
    steps = [
        ("a post's tags", lambda: post(4, ["t0", "u1", "v"])),
        # as many posts in each tag as before: only who is in which differs
        ("two posts' tags swapped", lambda: (post(2, ["t0", "u0"], cite=True),
                                             post(3, ["t2", "u1"], cats=["c3"]))),
        ("a post's categories", lambda: post(6, ["t0", "u0"], cats=["c1"])),
        ("a post's date", lambda: post(8, ["t2", "u0"], day=28)),
        ("a post made a draft", lambda: post(11, ["t2", "u1"], draft=True)),
        ("a post citing a work", lambda: post(13, ["t1", "u1"], cite=True)),
        ("site.yaml's related", lambda: config(2)),
    ]
    for what, change in steps:
        change()
        tree = build(what)
        now = lists(tree)
        if now == before:
            fail("%s: no post's related posts changed (the test does not test it)" % what)
        before = now
        if ident(entry()) == was:
            fail("%s: the related posts were not written again" % what)
        was = ident(entry())
    build("nothing changed")
    if ident(entry()) != was:
        fail("an unchanged site wrote the related posts again")

    # 3. a byte of the entry changed: its HMAC fails
    with open(entry(), "r+b") as fh:
        data = fh.read()
        fh.seek(len(data) - 3)
        fh.write(bytes([data[-3] ^ 0x01]))
    build("the entry damaged", r"\.sheaf-cache: warning: 1 entry could not be read back \(cut short or "
          r"changed since written\): ignored and made again")
    build("after the entry was made again")

    # 4. forged with the cache's secret: the right digest, a page past the last
    path = entry()
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"SHC2":
        fail("unexpected entry format %r" % data[:4])
    klen, vlen = struct.unpack("<II", data[4:12])
    key = data[44:44 + klen]
    value = data[44 + klen:]
    if len(value) != vlen or value[:6] != b"SHRL1\n":
        fail("unexpected value format %r" % value[:6])
    head = value[:6 + 32]
    # want 2, POSTS - 1 posts (one a draft), their pages; the first post
    # then lists one related post: page 100, sharing one group
    npages = POSTS
    forged = head + bytes([2, POSTS - 1, npages, 1, 100, 1]) + bytes([0] * (POSTS - 2))
    with open(os.path.join(site, ".sheaf-cache", "v1", ".key"), "rb") as f:
        secret = f.read()
    mac = hmac.new(secret, b"related\0" + struct.pack("<I", klen) + key + forged, hashlib.sha256).digest()
    with open(path, "wb") as f:
        f.write(b"SHC2" + struct.pack("<II", klen, len(forged)) + mac + key + forged)
    build("the entry forged", r"\.sheaf-cache: warning: the related posts in the build cache could not be "
          r"read back: ignored, made again")
    with open(entry(), "rb") as f:
        if f.read()[44 + klen:] == forged:
            fail("the forged entry was not replaced")
    build("after the entry was made again")
    shutil.rmtree(tmp)
    print("ok: related posts from the cache equal a clean build's through edits, damage and forgery")


if __name__ == "__main__":
    main()
