#!/usr/bin/python3
"""A build killed while it writes pages into the cache (issue 31).

A generated site of a few hundred posts is built, and the build is killed
(SIGKILL) once its first page entries are in .sheaf-cache/. The next build
must say that the build that last wrote the cache did not finish, use none
of its pages, and write exactly what a build with --no-cache writes (it
runs with SHEAF_CHECK_INCREMENTAL=1 too); the build after that takes every
page from the cache, silently.

usage: kill_pages.py path/to/sheaf [POSTS]
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

HERE = os.path.dirname(os.path.abspath(__file__))


def fail(msg):
    print("FAIL cache/kill-pages: " + msg)
    sys.exit(1)


def page_entries(cache):
    # the bulks are written as the pages are (their heads after the stage)
    n = 0
    for _dirpath, _dirs, files in os.walk(os.path.join(cache, "v1", "page-bulk")):
        n += sum(1 for f in files if not f.startswith("."))
    return n


def main():
    sheaf = os.path.abspath(sys.argv[1])
    posts = int(sys.argv[2]) if len(sys.argv) > 2 else 400
    tmp = tempfile.mkdtemp(prefix="sheaf-cache-killp-")
    env = dict(os.environ, NO_COLOR="1", TMPDIR=tmp)
    try:
        site = os.path.join(tmp, "site")
        subprocess.run([sys.executable, os.path.join(HERE, "..", "..", "bench", "gen_corpus.py"),
                        "--posts", str(posts), "--out", site], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        cache = os.path.join(site, ".sheaf-cache")
        proc = subprocess.Popen([sheaf, "build", "-q", "-j", "2", "-s", site], env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        killed = False
        deadline = time.time() + 300
        while time.time() < deadline and proc.poll() is None:
            if page_entries(cache) >= 5:
                proc.send_signal(signal.SIGKILL)
                killed = True
                break
            time.sleep(0.001)
        proc.wait()
        if not killed:
            fail("the build ended before it could be killed (%d posts: give more)" % posts)
        at_kill = page_entries(cache)
        if at_kill >= posts:
            fail("the kill came after every page was written")

        ref = os.path.join(tmp, "ref")
        r = subprocess.run([sheaf, "build", "-q", "--no-cache", "-s", site, "-o", ref],
                           capture_output=True, text=True, env=env)
        if r.returncode != 0:
            fail("the build without the cache: %s" % r.stderr)
        want = output_tree(ref)

        check = dict(env, SHEAF_CHECK_INCREMENTAL="1")
        r = subprocess.run([sheaf, "build", "--stats", "-s", site], capture_output=True, text=True,
                           env=check)
        lines = r.stderr.strip().splitlines()
        if r.returncode != 0 or len(lines) != 1 or not re.match(
                r"^\.sheaf-cache: warning: the build that last wrote it did not finish \(it was "
                r"killed, or is still running\): none of the pages it holds is used; they are "
                r"rendered again$", lines[0]):
            fail("the build after the kill: status %d\n%s" % (r.returncode, r.stderr))
        if "from the build cache" in r.stdout:
            fail("the build after the kill used pages of the killed one:\n" + r.stdout)
        if output_tree(os.path.join(site, "public")) != want:
            fail("the output after a killed build differs from a build without the cache")

        r = subprocess.run([sheaf, "build", "--stats", "-s", site], capture_output=True, text=True,
                           env=check)
        m = re.search(r"^  markdown: 0 pages written, (\d+) from the build cache$", r.stdout, re.M)
        if r.returncode != 0 or r.stderr or not m:
            fail("the next build: status %d\n%s%s" % (r.returncode, r.stdout, r.stderr))
        if output_tree(os.path.join(site, "public")) != want:
            fail("the warm build's output differs")
        print("ok: killed with %d of %d pages cached; then refused with a warning, then reused"
              % (at_kill, posts))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


main()
