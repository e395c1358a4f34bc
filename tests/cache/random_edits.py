#!/usr/bin/python3
"""Random edits, each followed by a cached build compared with a clean one
(issue 31: never wrong).

tests/cache/sequence.py walks one planned sequence of edits. This test
draws them: from a seed, a small site with most of what a page can read
of another (random_site.py) is edited STEPS times at random, and after
each edit:
- `sheaf build` with the cache, under SHEAF_CHECK_INCREMENTAL=1 (which
  builds from scratch beside it and fails on any byte of difference);
- `sheaf build --no-cache` into a folder of its own;
and the two must agree: the same exit status, the same diagnostics, and,
when they succeed, the same files with the same bytes. Now and then a file
of someone else's is put in the output folder (its top, or a page's
folder): it must outlive every later build, unchanged. An edit may break
the site (a link to a draft or to a post deleted, a citation of an entry
taken out): then both builds must fail alike, and the next good build must
again equal a clean one.

usage: random_edits.py path/to/sheaf [STEPS [SEED]]   (default 40, 1)
A failure prints the seed, the step and the edits so far, so that the
sequence can be run again.
"""
import os
import re
import shutil
import subprocess
import sys

from common import new_site, output_tree
import random_site as rs

SHEAF = os.path.abspath(sys.argv[1])
STEPS = int(sys.argv[2]) if len(sys.argv) > 2 else 40
SEED = int(sys.argv[3]) if len(sys.argv) > 3 else 1
TMP, SITE, POSTS, ENV = new_site("random")
done = []  # the edits so far, for the report


def fail(msg):
    print("FAIL cache/random_edits (seed %d, step %d): %s" % (SEED, len(done), msg))
    print("the edits so far:\n  " + "\n  ".join(done))
    sys.exit(1)


# ---- the builds ---------------------------------------------------------------

def normal(stderr, out):
    """Diagnostics as a sorted list, the output folder's name made neutral;
    what a build says of the cache left out (only one build reads it)."""
    return sorted(line.replace(out, "OUT") for line in stderr.splitlines()
                  if not line.startswith(".sheaf-cache: "))


def check():
    out = os.path.join(SITE, "public")
    r = subprocess.run([SHEAF, "build", "-q", "-s", SITE, "-o", out], capture_output=True, text=True,
                       errors="replace", env=ENV, timeout=300)
    ref = os.path.join(TMP, "ref")
    shutil.rmtree(ref, ignore_errors=True)
    c = subprocess.run([SHEAF, "build", "-q", "--no-cache", "-s", SITE, "-o", ref], capture_output=True,
                       text=True, errors="replace", env=ENV, timeout=300)
    if "SHEAF_CHECK_INCREMENTAL" in r.stderr or "differs from a build from scratch" in r.stderr:
        fail("the cached build differs from its own check:\n" + r.stderr)
    if r.returncode != c.returncode:
        fail("the cached build exited %d, a clean one %d:\ncached:\n%s\nclean:\n%s"
             % (r.returncode, c.returncode, r.stderr, c.stderr))
    a, b = normal(r.stderr, out), normal(c.stderr, ref)
    if a != b:
        fail("the diagnostics differ:\ncached:\n%s\nclean:\n%s" % ("\n".join(a), "\n".join(b)))
    x = output_tree(out)
    for rel, data in user.items():  # sheaf never deletes or writes what it did not make
        if x.get(rel) != data:
            fail("%s, a file sheaf did not make in its output folder, is %s" % (
                rel, "gone" if rel not in x else "changed"))
    if r.returncode == 0:
        x = {k: v for k, v in x.items() if k not in user}
        y = output_tree(ref)
        if x != y:
            diff = sorted(k for k in set(x) | set(y) if x.get(k) != y.get(k))
            fail("the cached build differs from a clean one in %s" % diff[:8])
    if r.returncode != 0:
        errors = [x for x in r.stderr.splitlines() if ": error: " in x]
        broken.append(re.sub(r"^.*?: error: ", "", errors[0] if errors else r.stderr.strip())[:60])
    return r.returncode


broken = []  # what broke the site, each time it was broken
user = {}  # files put in the output folder by someone else: path → bytes


def user_file():
    """A file of someone else's in the output folder: at its top, or in
    the folder of one of sheaf's pages (which may go away later: the file
    stays, and so does its folder)."""
    out = os.path.join(SITE, "public")
    folders = [d for d, _, files in os.walk(out) if "index.html" in files]
    folder = rs.rng.choice(folders) if folders and rs.rng.random() < 0.7 else out
    rel = os.path.relpath(os.path.join(folder, "mine-%d.txt" % len(user)), out)
    data = ("%s\n" % rs.words(4)).encode()
    with open(os.path.join(out, rel), "wb") as f:
        f.write(data)
    user[rel] = data
    return "a file of someone else's at public/%s" % rel


def main():
    rs.init(SITE, SEED)
    check()
    failed = 0
    for _ in range(STEPS):
        done.append(user_file() if rs.rng.random() < 0.08 else rs.draw())
        if check() != 0:
            failed += 1
    print("ok: %d random edits (seed %d), each cached build equal to a clean one (%d broke the site "
          "in both alike)" % (STEPS, SEED, failed))
    for why in sorted(set(broken), key=broken.count, reverse=True)[:5]:
        print("  %3d× %s" % (broken.count(why), why))


try:
    main()
finally:
    if os.environ.get("KEEP"):  # for a look at the site and its output
        print("kept: " + TMP)
    else:
        shutil.rmtree(TMP, ignore_errors=True)
