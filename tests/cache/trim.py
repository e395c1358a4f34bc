#!/usr/bin/python3
"""The build cache's trim keeps what the build used, and a build that wrote
little does not walk the cache (issue 31).

1. Under a tiny limit (SHEAF_CACHE_MAX), far below what the site's pages
   take, each build still takes every unchanged page from the cache: its
   trim removes only entries the build did not use (an old entry planted
   beside them goes), never a page's head nor its bulk part, which a cached
   build does not read. The output equals a clean build's.
2. Under the default limit, a one-edit build renders that one page again
   and does not walk the cache: strace sees no stat of an entry by its
   name relative to a shard folder (what the walk does, and nothing else);
   under the tiny limit the same build does walk (the check can see it).

usage: trim.py path/to/sheaf
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

from common import same_as_clean

POSTS = 30


def fail(msg):
    print("FAIL cache/trim: " + msg)
    sys.exit(1)


def main():
    sheaf = os.path.abspath(sys.argv[1])
    tmp = tempfile.mkdtemp(prefix="sheaf-cache-trim-")
    site = os.path.join(tmp, "site")
    env = dict(os.environ, NO_COLOR="1", TMPDIR=tmp)
    env.pop("SHEAF_CHECK_INCREMENTAL", None)
    env.pop("SHEAF_CACHE_MAX", None)
    tiny = dict(env, SHEAF_CACHE_MAX="4096")
    os.makedirs(os.path.join(site, "content", "posts"))
    with open(os.path.join(site, "site.yaml"), "w") as f:
        f.write("title: Trim\nbase_url: https://example.org/\nsearch: true\n")
    for i in range(POSTS):
        with open(os.path.join(site, "content", "posts", "2024-01-%02d-p%d.md" % (i + 1, i)), "w") as f:
            f.write("---\ntitle: Post %d\ntags: [t%d]\n---\n\nFirst paragraph of post %d.\n\n"
                    "<!--more-->\n\n## Part two\n\n%s\n" % (i, i % 3, i, " ".join("word%d-%d" % (i, k) for k in range(6000))))
    edits = [0]

    def edit():
        edits[0] += 1
        with open(os.path.join(site, "content", "posts", "2024-01-01-p0.md"), "a") as f:
            f.write("\nEdit %d.\n" % edits[0])

    def build(what, e, written, cached, strace=False):
        cmd = [sheaf, "build", "--stats", "-s", site]
        log = os.path.join(tmp, "trace")
        if strace:
            cmd = ["strace", "-f", "-qq", "-o", log, "-e", "trace=newfstatat,fstatat64"] + cmd
            # LeakSanitizer cannot run under ptrace
            e = dict(e, ASAN_OPTIONS=":".join(x for x in (e.get("ASAN_OPTIONS", ""), "detect_leaks=0") if x))
        r = subprocess.run(cmd, capture_output=True, text=True, errors="replace", env=e, timeout=300)
        if r.returncode != 0 or r.stderr.strip():
            fail("%s: the build failed or warned (%d):\n%s%s" % (what, r.returncode, r.stdout, r.stderr))
        m = re.search(r"^  markdown: (\d+) pages written, (\d+) from the build cache$", r.stdout, re.M)
        got = (int(m.group(1)), int(m.group(2))) if m else (POSTS, 0) if written == POSTS else None
        if got != (written, cached):
            fail("%s: pages written, from the cache: %s, wanted %s\n%s" % (what, got, (written, cached), r.stdout))
        a = same_as_clean(sheaf, site, tmp, env, what, fail, timeout=300)
        if not strace:
            return 0
        with open(log) as fh:
            walked = len(re.findall(r'fstatat(?:64)?\((?!AT_FDCWD)\d+, "[0-9a-f]{30}"', fh.read()))
        os.unlink(log)
        return walked

    def entries(kind):
        return [f for f in glob.glob(os.path.join(site, ".sheaf-cache", "v1", kind, "*", "*"))
                if not os.path.basename(f).startswith(".")]

    # 1. a tiny limit
    build("first build, tiny limit", tiny, POSTS, 0)
    if not entries("page-heads") or len(entries("page-bulk")) < POSTS:
        fail("the pages' entries are not in the cache: %d entries of heads, %d parts"
             % (len(entries("page-heads")), len(entries("page-bulk"))))
    size = sum(os.path.getsize(f) for f in glob.glob(os.path.join(site, ".sheaf-cache", "v1", "*", "*", "*")))
    if size < 4 * 4096:
        fail("the site's cache (%d bytes) is not far over the tiny limit" % size)
    # entries no build uses any more, old: three of 1 MiB (a build's limit
    # is raised by what it keeps besides, render/build.c: about 1 MiB here)
    shard = os.path.dirname(entries("page-bulk")[0])
    planted = []
    for i in range(3):
        p = os.path.join(shard, "%030x" % (0xabc000 + i))
        with open(p, "wb") as fh:
            fh.write(b"SHC2" + b"\0" * (1 << 20))
        os.utime(p, (1000000000 + i, 1000000000 + i))
        planted.append(p)
    build("nothing changed, tiny limit", tiny, 0, POSTS)
    edit()
    # (the planted entries are no page's: a walk may take them in any build,
    # now that a cache over its limit is walked once per eighth of its size)
    kept = (set(entries("page-heads")) | set(entries("page-bulk"))) - set(planted)
    # the pages' parts older than the unused entries: a trim that took them
    # as unused (a cached build does not read them) would remove them first
    for f in entries("page-bulk"):
        if f not in planted:
            os.utime(f, (999999000, 999999000))
    if build("one edit, tiny limit", tiny, 1, POSTS - 1, strace=True) == 0:
        fail("one edit under a tiny limit: no walk seen (the check cannot see one)")
    # all but the edited page's old head and part stay, the parts too,
    # though a cached build reads few of them
    gone = kept - set(entries("page-heads")) - set(entries("page-bulk"))
    if len(gone) > 2:
        fail("a trim removed %d of the pages' entries the build used, e.g. %s" % (len(gone), sorted(gone)[:3]))
    if os.path.exists(planted[0]) or os.path.exists(planted[1]):
        fail("entries no build used survived a trim over the limit: %s"
             % [os.path.basename(p) for p in planted if os.path.exists(p)])
    edit()
    build("another edit, tiny limit", tiny, 1, POSTS - 1)

    # 2. the default limit: a one-edit build writes a little, and does not walk
    for n in range(3):
        edit()
        walked = build("one edit %d, default limit" % n, env, 1, POSTS - 1, strace=True)
        if walked:
            fail("one edit %d under the default limit walked the cache (%d entries stat-ed)" % (n, walked))
    shutil.rmtree(tmp)
    print("ok cache/trim: used entries survive a tiny limit; a one-edit build does not walk the cache")


main()
