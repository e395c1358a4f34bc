#!/usr/bin/python3
"""The build cache is untrusted input (issue 34, finding 14).

A site repository can hold a .sheaf-cache/ (git stores it, links too), and
whoever can write there could put markup into a page: the issue's attack
rewrote a formula's entry with `<script>` and recomputed its checksum.

1. An entry forged with the cache's own secret (the strongest attacker:
   one who can read the cache) but holding markup is not used: the formula
   is rendered again, the page has no <script>, the entry is replaced.
2. A secret sheaf did not make (mode 0644, as a git checkout leaves it)
   is replaced, so an entry made with it (well-formed MathML, the wrong
   formula) is a miss.
3. An entry that is a link to /dev/zero or a FIFO is a miss, at once, and
   said as a damaged entry.
4. A .sheaf-cache that is a symbolic link is not used (one warning), and
   nothing is written where it leads; nor a link inside it (v1/math).

usage: poison.py path/to/sheaf
"""
import hashlib
import hmac
import os
import shutil
import struct
import subprocess
import sys
import tempfile

MATHML = '<math xmlns="http://www.w3.org/1998/Math/MathML">'


def fail(msg):
    print("FAIL cache/poison: " + msg)
    sys.exit(1)


def build(sheaf, site, out):
    # the page's bytes change (not its HTML), so its Markdown is not taken
    # whole from the cache's page entries and the formula is looked up
    with open(os.path.join(site, "content", "posts", "f.md"), "a") as f:
        f.write("\n")
    r = subprocess.run([sheaf, "build", "-q", "-s", site, "-o", out], capture_output=True,
                       text=True, timeout=60)
    return r


def page(out):
    with open(os.path.join(out, "posts", "f", "index.html"), encoding="utf-8") as f:
        return f.read()


def entries(cache, kind="math"):
    found = []
    for dirpath, _dirs, files in os.walk(os.path.join(cache, "v1", kind)):
        found += [os.path.join(dirpath, f) for f in files if not f.startswith(".")]
    return found


def forge(cache, path, value, secret=None):
    """Rewrites the entry at path to hold value, with a valid MAC under the
    cache's secret (or the one given)."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"SHC2":
        fail("unexpected entry format %r" % data[:4])
    klen = struct.unpack("<I", data[4:8])[0]
    key = data[44:44 + klen]
    if secret is None:
        with open(os.path.join(cache, "v1", ".key"), "rb") as f:
            secret = f.read()
    value = value.encode()
    mac = hmac.new(secret, b"math\0" + struct.pack("<I", klen) + key + value, hashlib.sha256).digest()
    with open(path, "wb") as f:
        f.write(b"SHC2" + struct.pack("<II", klen, len(value)) + mac + key + value)


def main():
    sheaf = os.path.abspath(sys.argv[1])
    tmp = tempfile.mkdtemp(prefix="sheaf-cache-poison-")
    try:
        site = os.path.join(tmp, "site")
        out = os.path.join(tmp, "out")
        os.makedirs(os.path.join(site, "content", "posts"))
        with open(os.path.join(site, "site.yaml"), "w") as f:
            f.write("title: Poison\nbase_url: https://example.org/\n")
        with open(os.path.join(site, "content", "posts", "f.md"), "w") as f:
            f.write("---\ntitle: F\ndate: 2024-01-01\n---\nA formula: $x$.\n")
        cache = os.path.join(site, ".sheaf-cache")
        r = build(sheaf, site, out)
        if r.returncode != 0 or r.stderr:
            fail("first build: %d %s" % (r.returncode, r.stderr))
        good = page(out)
        if "<mi>x</mi>" not in good:
            fail("no formula in the page")
        key = os.path.join(cache, "v1", ".key")
        if os.stat(key).st_mode & 0o777 != 0o600:
            fail("the secret is not 0600")
        [entry] = entries(cache)

        # 1. markup under a valid MAC
        forge(cache, entry, MATHML + "<mi>x</mi></math><script>alert(1)</script>")
        r = build(sheaf, site, out)
        if r.returncode != 0 or r.stderr:
            fail("build with a poisoned entry: %d %s" % (r.returncode, r.stderr))
        if "<script>alert(1)" in page(out) or page(out) != good:
            fail("the poisoned entry reached the page")
        with open(entry, "rb") as f:
            if b"<script>" in f.read():
                fail("the poisoned entry was not replaced")

        # 2. a secret sheaf did not make: its entries miss
        forge(cache, entry, MATHML + "<mi>y</mi></math>")
        os.chmod(key, 0o644)
        r = build(sheaf, site, out)
        if r.returncode != 0 or r.stderr:
            fail("build with a 0644 secret: %d %s" % (r.returncode, r.stderr))
        if "<mi>y</mi>" in page(out) or page(out) != good:
            fail("an entry made with a secret sheaf did not make was used")
        if os.stat(key).st_mode & 0o777 != 0o600:
            fail("the 0644 secret was not replaced")

        # 3. links to special files, a FIFO: a miss, at once (timeout=60)
        for kind in ("zero", "fifo"):
            os.unlink(entry)
            if kind == "zero":
                os.symlink("/dev/zero", entry)
            else:
                os.mkfifo(entry)
            r = build(sheaf, site, out)
            said = ".sheaf-cache: warning: 1 entry could not be read back (cut short or changed since written): ignored and made again"
            if r.returncode != 0 or r.stderr.strip() != said or page(out) != good:
                fail("build with an entry that is %s: %d %s" % (kind, r.returncode, r.stderr))

        # 4. a symbolic link as the cache folder, or inside it
        elsewhere = os.path.join(tmp, "elsewhere")
        os.makedirs(elsewhere)
        shutil.rmtree(cache)
        os.symlink(elsewhere, cache)
        r = build(sheaf, site, out)
        want = ("sheaf: warning: build cache: %s is a symbolic link: sheaf never reads or writes its "
                "cache through one (remove it) (building without it; --no-cache turns it off)" % cache)
        if r.returncode != 0 or r.stderr.strip() != want:
            fail("symlinked cache: %d\n%s\nwanted:\n%s" % (r.returncode, r.stderr, want))
        if os.listdir(elsewhere):
            fail("the build wrote through the symlinked cache: %s" % os.listdir(elsewhere))
        if page(out) != good:
            fail("symlinked cache: the page differs")
        os.unlink(cache)
        os.makedirs(os.path.join(cache, "v1"))
        os.symlink(elsewhere, os.path.join(cache, "v1", "math"))
        r = build(sheaf, site, out)
        if r.returncode != 0 or "v1/math is a symbolic link" not in r.stderr or os.listdir(elsewhere):
            fail("a link inside the cache: %d %s %s" % (r.returncode, r.stderr, os.listdir(elsewhere)))
        # a shard that is a link (the folder listing says so: no lstat of each)
        os.unlink(os.path.join(cache, "v1", "math"))
        os.makedirs(os.path.join(cache, "v1", "math"))
        os.symlink(elsewhere, os.path.join(cache, "v1", "math", "ab"))
        r = build(sheaf, site, out)
        if r.returncode != 0 or "v1/math/ab is a symbolic link" not in r.stderr or os.listdir(elsewhere):
            fail("a shard that is a link: %d %s %s" % (r.returncode, r.stderr, os.listdir(elsewhere)))
        print("ok: cache/poison")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
