#!/usr/bin/python3
"""The pages' heads in the build cache, packed in a few entries (issue 31).

A one-shot build reads every page's head (its Markdown but the body) from
a few entries of kind page-heads, split by a hash of the source path. This
checks what the packing must not change:

1. One entry of heads cut short: the cache says so (a warning), the pages
   it held are rendered again, the others are taken from the cache, and
   the output is a clean build's. The next build takes every page from the
   cache, silently (the entry was written again).
2. An entry of heads that checks (its HMAC forged with the cache's own
   secret) but does not read back as heads: a warning of its own, the same
   outcome.
3. Entries of heads of another site folder or of another sheaf are never
   used: the site is copied elsewhere, or built by a copy of the binary
   with another build id, and the manifest is forged to say it is this
   site's, of this sheaf, with the same generation; the build still takes
   no page from the cache.
4. The bulk parts a build does not read (no search index: the bodies of
   pages no rendered output shows) are still counted as used, so a trim
   under a tiny limit (SHEAF_CACHE_MAX) keeps them.

usage: heads.py path/to/sheaf
"""
import glob
import hashlib
import hmac
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

from common import same_as_clean

POSTS = 40


def fail(msg):
    print("FAIL cache/heads: " + msg)
    sys.exit(1)


def entries(site, kind):
    return sorted(f for f in glob.glob(os.path.join(site, ".sheaf-cache", "v1", kind, "*", "*"))
                  if not os.path.basename(f).startswith("."))


def read_entry(path):
    with open(path, "rb") as fh:
        data = fh.read()
    if data[:4] != b"SHC2":
        fail("unexpected entry format %r" % data[:4])
    klen, vlen = struct.unpack("<II", data[4:12])
    return data[44:44 + klen], data[44 + klen:44 + klen + vlen]


def forge(site, path, kind, key, value):
    """Writes the entry at path: kind, key → value, with a valid MAC under
    the cache's own secret."""
    with open(os.path.join(site, ".sheaf-cache", "v1", ".key"), "rb") as fh:
        secret = fh.read()
    mac = hmac.new(secret, kind.encode() + b"\0" + struct.pack("<I", len(key)) + key + value,
                   hashlib.sha256).digest()
    with open(path, "wb") as fh:
        fh.write(b"SHC2" + struct.pack("<II", len(key), len(value)) + mac + key + value)


def manifest(site):
    [m] = entries(site, "manifest")
    key, value = read_entry(m)
    return m, key, value.decode().split("\n")


def main():
    sheaf = os.path.abspath(sys.argv[1])
    tmp = tempfile.mkdtemp(prefix="sheaf-cache-heads-")
    env = dict(os.environ, NO_COLOR="1", TMPDIR=tmp, SHEAF_CHECK_INCREMENTAL="1")
    env.pop("SHEAF_CACHE_MAX", None)

    def make_site(site, search):
        os.makedirs(os.path.join(site, "content", "posts"))
        with open(os.path.join(site, "site.yaml"), "w") as f:
            f.write("title: Heads\nbase_url: https://example.org/\nsearch: %s\n" % ("true" if search else "false"))
        for i in range(POSTS):
            with open(os.path.join(site, "content", "posts", "2024-01-%02d-p%d.md" % (i % 28 + 1, i)), "w") as f:
                f.write("---\ntitle: Post %d\ntags: [t%d]\n---\n\nPost %d links to [the next](/posts/p%d/#two).\n\n"
                        "<!--more-->\n\n## Two\n\n%s\n" % (i, i % 3, i, (i + 1) % POSTS,
                                                        " ".join("w%d-%d" % (i, k) for k in range(300))))

    def build(what, site, want_cached, warning=None, binary=None, e=None):
        r = subprocess.run([binary or sheaf, "build", "--stats", "-s", site], capture_output=True, text=True,
                           errors="replace", env=e or env, timeout=300)
        if r.returncode != 0:
            fail("%s: the build failed (%d):\n%s%s" % (what, r.returncode, r.stdout, r.stderr))
        lines = r.stderr.strip().splitlines()
        if warning is None and lines:
            fail("%s: unexpected diagnostics:\n%s" % (what, r.stderr))
        if warning is not None and (len(lines) != 1 or not re.search(warning, lines[0])):
            fail("%s: wanted one warning matching %r, got:\n%s" % (what, warning, r.stderr))
        m = re.search(r"^  markdown: (\d+) pages written, (\d+) from the build cache$", r.stdout, re.M)
        got = int(m.group(2)) if m else 0
        if not want_cached(got):
            fail("%s: %d pages from the cache, not what was wanted\n%s" % (what, got, r.stdout))
        same_as_clean(binary or sheaf, site, tmp, env, what, fail, timeout=300)
        return got

    def every(n):
        return lambda k: k == n

    site = os.path.join(tmp, "site")
    make_site(site, True)
    build("first build", site, every(0))
    build("nothing changed", site, every(POSTS))
    shards = entries(site, "page-heads")
    if len(shards) < 4:
        fail("the heads are in %d entries, wanted several" % len(shards))

    # 1. one entry cut short
    with open(shards[0], "rb") as fh:
        data = fh.read()
    with open(shards[0], "wb") as fh:
        fh.write(data[: len(data) // 2])
    build("an entry of heads cut short", site, lambda k: 0 < k < POSTS,
          r"^\.sheaf-cache: warning: 1 entry could not be read back \(cut short or changed since "
          r"written\): ignored and made again$")
    build("after the entry cut short", site, every(POSTS))

    # 2. an entry that checks but holds no heads this sheaf reads: the one
    # with the most heads, its last cut, so that the heads before it read
    # back and must still not be taken (the entry is ignored whole)
    def heads_in(path):
        v = read_entry(path)[1]
        if v[:6] != b"SHMH1\n" or v[6] >= 0x80:
            fail("unexpected entry of heads %r" % v[:8])
        return v[6]
    fullest = max(shards[1:], key=heads_in)
    n = heads_in(fullest)
    if n < 2:
        fail("no entry of heads holds two heads: make more posts")
    key, value = read_entry(fullest)
    forge(site, fullest, "page-heads", key, value[: len(value) - 7])
    build("an entry of heads that does not read back", site, every(POSTS - n),
          r"^\.sheaf-cache: warning: 1 entry of the pages' heads in the build cache could not be read "
          r"back: the pages it held were rendered again$")
    build("after the entry that did not read back", site, every(POSTS))

    # 3a. another site folder: the cache copied with the site, and its
    # manifest made to name the copy, so that only the heads' keys differ
    other = os.path.join(tmp, "other")
    shutil.copytree(site, other, symlinks=True)
    path, mkey, lines = manifest(other)
    lines[2] = os.path.realpath(other)
    forge(other, path, "manifest", mkey, "\n".join(lines).encode())
    build("the heads of another site folder", other, every(0))
    build("the copy again", other, every(POSTS))

    # 3b. another sheaf: a copy of the binary with another build id, and the
    # manifest made to name it
    ids = re.findall(r"Build ID: ([0-9a-f]+)",
                     subprocess.run(["readelf", "-n", sheaf], capture_output=True, text=True).stdout)
    if not ids:
        fail("no build id in the binary (readelf -n)")
    other_sheaf = os.path.join(tmp, "sheaf-other")
    shutil.copy(sheaf, other_sheaf)
    with open(other_sheaf, "r+b") as fh:
        data = fh.read()
        at = data.find(bytes.fromhex(ids[0]))
        fh.seek(at)
        flipped = bytes(b ^ 0xFF for b in data[at:at + 4])
        fh.write(flipped)
    os.chmod(other_sheaf, 0o755)
    other_id = "id:" + (flipped + bytes.fromhex(ids[0])[4:]).hex()
    path, mkey, lines = manifest(site)
    if lines[1] != "id:" + ids[0]:
        fail("the manifest names %r, not this sheaf's build id" % lines[1])
    lines[1] = other_id
    forge(site, path, "manifest", mkey, "\n".join(lines).encode())
    build("the heads of another sheaf", site, every(0), binary=other_sheaf)
    shutil.rmtree(other)

    # 4. a trim under a tiny limit keeps the bulk parts a build did not read
    small = os.path.join(tmp, "small")
    make_site(small, False)
    tiny = dict(env, SHEAF_CACHE_MAX="4096")
    tiny.pop("SHEAF_CHECK_INCREMENTAL")  # it reads every body
    build("a site without search", small, every(0), e=tiny)
    parts = entries(small, "page-bulk")
    if len(parts) != POSTS:
        fail("%d bulk parts, wanted %d" % (len(parts), POSTS))
    for f in parts:  # older than anything else: a trim's first choice
        os.utime(f, (999999000, 999999000))
    # an entry no build uses, newer than the parts, far larger than the
    # rest of the cache: the trim must remove it, and would go on with the
    # parts were they not counted as used
    planted = os.path.join(os.path.dirname(parts[0]), "%030x" % 0xabc123)
    with open(planted, "wb") as fh:
        fh.write(b"SHC2" + b"\0" * (4 << 20))
    os.utime(planted, (1000000000, 1000000000))
    with open(os.path.join(small, "content", "posts", "2024-01-01-p0.md"), "a") as f:
        f.write("\nAn edit.\n")
    build("one edit, tiny limit", small, every(POSTS - 1), e=tiny)
    if os.path.exists(planted):
        fail("the trim did not remove an unused entry over the limit (no walk?)")
    gone = set(parts) - set(entries(small, "page-bulk"))
    if len(gone) > 1:  # the edited page's old part
        fail("a trim removed %d bulk parts the build used" % len(gone))
    shutil.rmtree(tmp)
    print("ok cache/heads: cut and unreadable entries of heads redone; another site's or sheaf's not used; "
          "unread bulk parts kept by a trim")


main()
