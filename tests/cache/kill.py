#!/usr/bin/python3
"""The build cache survives a build killed midway (issue 13).

A site with a few hundred distinct formulas is built and the build is
killed (SIGKILL) as soon as the first entries reach .sheaf-cache/; an entry
is then cut short and a temporary file is left as a killed write leaves
them. The next build must succeed and write exactly what a build without
the cache writes, saying what it did not trust; a third (warm) build must
render no formula with KaTeX.
Then .sheaf-cache/ is made unwritable (a file where the folder goes): the
build still succeeds, with one warning.

usage: kill.py path/to/sheaf
"""
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from common import output_tree


def fail(msg):
    print("FAIL cache/kill: " + msg)
    sys.exit(1)


def entries(cache):
    found = []
    for dirpath, _dirs, files in os.walk(cache):
        found += [os.path.join(dirpath, f) for f in files if not f.startswith(".")]  # .tmp-…, .key
    return found


def main():
    sheaf = os.path.abspath(sys.argv[1])
    tmp = tempfile.mkdtemp(prefix="sheaf-cache-kill-")
    try:
        site = os.path.join(tmp, "site")
        os.makedirs(os.path.join(site, "content", "posts"))
        with open(os.path.join(site, "site.yaml"), "w") as f:
            f.write("title: Cache\nbase_url: https://example.org/\n")
        for p in range(60):
            with open(os.path.join(site, "content", "posts", "p%02d.md" % p), "w") as f:
                f.write("---\ntitle: P%d\ndate: 2024-01-01\n---\n" % p)
                for k in range(6):
                    f.write("Formula $x_{%d} + \\frac{%d}{y^{%d}}$ and\n\n" % (p, k, p + k))
                    f.write("$$\n\\sum_{i=%d}^{%d} i^{%d}\n$$\n\n" % (k, p, k))
        cache = os.path.join(site, ".sheaf-cache")

        # 1. killed midway
        proc = subprocess.Popen([sheaf, "build", "-q", "-j", "2", "-s", site],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        killed = False
        deadline = time.time() + 120
        while time.time() < deadline and proc.poll() is None:
            # (the formulas' entries: the sources' records are written
            # before any, when the load stage ends)
            if len(entries(os.path.join(cache, "v1", "math"))) >= 5:
                proc.send_signal(signal.SIGKILL)
                killed = True
                break
            time.sleep(0.002)
        proc.wait()
        if killed and proc.returncode != -signal.SIGKILL:
            fail("the build was not killed (status %d)" % proc.returncode)
        have = entries(os.path.join(cache, "v1", "math"))
        if not have:
            fail("the killed build left no formula entries")
        # what a killed write leaves: an entry cut short, a temporary file
        with open(have[0], "rb") as f:
            data = f.read()
        with open(have[0], "wb") as f:
            f.write(data[: len(data) // 2])
        with open(os.path.join(os.path.dirname(have[0]), ".tmp-0000-1-0"), "wb") as f:
            f.write(data[:10])

        # 2. the next build is right
        r = subprocess.run([sheaf, "build", "-s", site, "--stats"], capture_output=True, text=True,
                           env=dict(os.environ, NO_COLOR="1"))
        said = [".sheaf-cache: warning: the build that last wrote it did not finish (it was killed, "
                "or is still running): none of the pages it holds is used; they are rendered again",
                ".sheaf-cache: warning: 1 entry could not be read back (cut short or changed since "
                "written): ignored and made again"]
        # the first warning only when the kill came after the first page's
        # entry (formulas are written before their page's)
        if r.returncode != 0 or r.stderr.strip().splitlines() not in (said, said[1:]):
            fail("the build after the kill: status %d\n%s" % (r.returncode, r.stderr))
        out_cached = output_tree(os.path.join(site, "public"), manifest=True)
        ref = os.path.join(tmp, "ref")
        r = subprocess.run([sheaf, "build", "-q", "--no-cache", "-s", site, "-o", ref],
                           capture_output=True, text=True)
        if r.returncode != 0:
            fail("the build without the cache: %s" % r.stderr)
        if out_cached != output_tree(ref, manifest=True):
            fail("the output after a killed build differs from a build without the cache")

        # 3. warm: nothing rendered by KaTeX, no engine started (site.yaml
        # changed, so every page's Markdown is written again, its formulas
        # from the cache)
        shutil.rmtree(os.path.join(site, "public"))
        with open(os.path.join(site, "site.yaml"), "a") as f:
            f.write("# edited\n")
        r = subprocess.run([sheaf, "build", "-s", site, "--stats"], capture_output=True, text=True)
        m = re.search(r"math: (\d+) formulas, (\d+) rendered by KaTeX .*; (\d+) engines", r.stdout)
        if r.returncode != 0 or not m:
            fail("warm build: %s%s" % (r.stdout, r.stderr))
        if int(m.group(1)) != 720 or int(m.group(2)) != 0 or int(m.group(3)) != 0:
            fail("warm build rendered formulas: " + m.group(0))
        if output_tree(os.path.join(site, "public"), manifest=True) != out_cached:
            fail("the warm build's output differs")

        # 4. a cache that cannot be written: a warning, not a failure
        shutil.rmtree(cache)
        with open(cache, "w") as f:
            f.write("not a folder\n")
        r = subprocess.run([sheaf, "build", "-q", "-s", site, "-o", os.path.join(tmp, "o2")],
                           capture_output=True, text=True)
        if r.returncode != 0:
            fail("an unwritable cache failed the build: %s" % r.stderr)
        lines = r.stderr.strip().splitlines()
        if len(lines) != 1 or not re.match(r"^(sheaf: )?warning: build cache: cannot make .*\.sheaf-cache/v1: Not a directory \(building without it; --no-cache turns it off\)$", lines[0]):
            fail("expected one warning about the cache, got:\n" + r.stderr)
        if output_tree(os.path.join(tmp, "o2"), manifest=True) != out_cached:
            fail("the output without a writable cache differs")
        print("ok: killed %s; then right, warm and unwritable builds" % ("midway" if killed else "(too late: the build had ended)"))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


main()
