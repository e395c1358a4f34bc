#!/usr/bin/python3
"""`sheaf serve` through random edits: each fast rebuild checked against a
full build (SHEAF_CHECK_INCREMENTAL=1).

The site and its edits are tests/cache/random_site.py's, drawn from a
seed. `sheaf serve` runs with SHEAF_CHECK_INCREMENTAL=1: after every fast
rebuild (and the search index written after it) it builds the whole site
again in memory and aborts on any byte of difference, or on a diagnostic
one of the two said and the other did not. After each edit the test waits
for the server's line about it ("Rebuilt in …" or "Rebuild failed …") and
for the server to go quiet; the server must still run, must never have
said the check failed, and its output folder must hold what
`sheaf build --no-cache` writes at the same base URL (whenever the site
builds: that also covers the full rebuilds, which the check does not).
At the end the served home page answers.

usage: random_edits.py path/to/sheaf [STEPS [SEED]]   (default 30, 1)
"""
import os
import shutil
import difflib
import glob
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cache"))
import random_site as rs  # noqa: E402
from common import output_tree  # noqa: E402

SHEAF = os.path.abspath(sys.argv[1])
STEPS = int(sys.argv[2]) if len(sys.argv) > 2 else 30
SEED = int(sys.argv[3]) if len(sys.argv) > 3 else 1
TMP = tempfile.mkdtemp(prefix="sheaf-serve-random-")
SITE = os.path.join(TMP, "site")
ENV = dict(os.environ, NO_COLOR="1", SHEAF_CHECK_INCREMENTAL="1", TMPDIR=TMP)
done = []
lines, errs = [], []
cond = threading.Condition()
proc = None


def fail(msg):
    print("FAIL serve/random_edits (seed %d, step %d): %s" % (SEED, len(done), msg))
    print("the edits so far:\n  " + "\n  ".join(done))
    with cond:
        print("the server said:\n  " + "\n  ".join(lines[-10:] + errs[:12]))
    sys.exit(1)


def pump(f, into):
    for line in f:
        with cond:
            into.append(line.rstrip("\n"))
            cond.notify_all()


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def wait_for(pred, timeout):
    """Waits until pred(lines) holds (True) or timeout (False)."""
    end = time.time() + timeout
    with cond:
        while not pred():
            left = end - time.time()
            if left <= 0 or proc.poll() is not None:
                return pred()
            cond.wait(min(left, 0.2))
    return True


def cpu_ticks():
    try:
        with open("/proc/%d/stat" % proc.pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])  # utime, stime
    except OSError:
        return None


def idle():
    """Waits until the server printed nothing and used no CPU for a while:
    the check after the search index (no line says it ended) is done."""
    same = 0
    while same < 3 and proc.poll() is None:
        with cond:
            n = len(lines) + len(errs)
        t = cpu_ticks()
        time.sleep(0.15)
        with cond:
            same = same + 1 if len(lines) + len(errs) == n and cpu_ticks() == t else 0


def alive(what):
    if proc.poll() is not None:
        fail("%s: the server stopped (%s)" % (what, proc.returncode))
    with cond:
        bad = [x for x in errs if "SHEAF_CHECK_INCREMENTAL" in x]
    if bad:
        fail("%s: the fast rebuild differs from a full build" % what)


def same_as_clean(url):
    """The server's output folder against `sheaf build --no-cache` of the
    same sources at the same base URL, when that build succeeds (a broken
    site: the server keeps the last good output, so there is nothing to
    compare): the check above runs only after fast rebuilds, this one also
    after full ones."""
    ref = os.path.join(TMP, "ref")
    shutil.rmtree(ref, ignore_errors=True)
    c = subprocess.run([SHEAF, "build", "-q", "--no-cache", "--base-url", url, "-s", SITE, "-o", ref],
                       capture_output=True, text=True, errors="replace", env=ENV, timeout=300)
    if c.returncode != 0:
        return False
    served = glob.glob(os.path.join(TMP, "sheaf-serve-*", "public"))
    if len(served) != 1:
        fail("the server's output folder: %s" % served)
    x, y = output_tree(served[0]), output_tree(ref)
    if x != y:
        diff = sorted(k for k in set(x) | set(y) if x.get(k) != y.get(k))
        k = diff[0]  # its first lines of difference
        a, b = (t.get(k, b"").decode(errors="replace").splitlines(True) for t in (x, y))
        print("".join(list(difflib.unified_diff(a, b, "served/" + k, "clean/" + k))[:40]))
        fail("the server's output differs from a clean build's in %s" % diff[:8])
    return True


def main():
    global proc
    os.makedirs(SITE)
    rs.init(SITE, SEED)
    port = free_port()
    proc = subprocess.Popen([SHEAF, "serve", "-s", SITE, "--port", str(port)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=ENV)
    threading.Thread(target=pump, args=(proc.stdout, lines), daemon=True).start()
    threading.Thread(target=pump, args=(proc.stderr, errs), daemon=True).start()
    if not wait_for(lambda: any(x.startswith("Serving ") for x in lines), 60):
        fail("the server did not start")
    url = next(x for x in lines if x.startswith("Serving ")).split(" at ")[1].split(" ")[0]
    rebuilt = failed = compared = 0
    for _ in range(STEPS):
        with cond:
            n = len(lines)
        done.append(rs.draw())
        # (an edit that changes no file's bytes, or only its time, may
        # rebuild nothing: then no line comes)
        wait_for(lambda: any(x.startswith(("Rebuilt in ", "Rebuild failed")) for x in lines[n:]), 5)
        idle()
        alive(done[-1])
        with cond:
            rebuilt += sum(1 for x in lines[n:] if x.startswith("Rebuilt in "))
            failed += sum(1 for x in lines[n:] if x.startswith("Rebuild failed"))
        compared += same_as_clean(url)
    with urllib.request.urlopen("http://127.0.0.1:%d/" % port, timeout=10) as r:
        if r.status != 200:
            fail("the home page: status %d" % r.status)
    alive("the last edit")
    proc.send_signal(signal.SIGINT)
    if proc.wait(30) != 0:
        fail("the server stopped with status %d" % proc.returncode)
    print("ok: %d random edits (seed %d) under sheaf serve, %d rebuilds, each checked against a full "
          "build (and %d that failed: the site was broken); the output equal to a clean build's %d "
          "times" % (STEPS, SEED, rebuilt, failed, compared))


try:
    main()
finally:
    if proc and proc.poll() is None:
        proc.kill()
    shutil.rmtree(TMP, ignore_errors=True)
