#!/usr/bin/python3
"""A one-shot build with the build cache only stats an unchanged source
(issue 31): the load stage's record of each source (site/srcrec.c) gives
its front matter and its body's place, so the file is not opened — and
every way a file can change behind the record is still seen.

Each step edits the site, waits until the edited file is no longer racily
clean (its times more than two seconds old, where the record's rule stops
distrusting it), builds with the cache and compares the output with a
build with --no-cache, byte for byte; strace counts which sources the
cached build opened:

- nothing changed: no source is opened;
- a post's title edited and its mtime put back, the size the same, then a
  different size: seen (the ctime), only that source opened;
- a post replaced by a rename (a file of the same size and mtime): seen;
- a post touched without a change: read again, the same output;
- records cut short, under a valid MAC (made with the cache's own
  secret): one warning, every source of them read again;
- the cache copied to another site: none of its records found;
- --no-cache: every source read;
- a source with an error (bad YAML, a key of the wrong type, bytes that
  are not UTF-8) reports it on every build, never recorded as good.

usage: records.py path/to/sheaf
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
import time

from common import output_tree

SHEAF = os.path.abspath(sys.argv[1])
TMP = tempfile.mkdtemp(prefix="sheaf-cache-rec-")
SITE = os.path.join(TMP, "site")
# (not SHEAF_CHECK_INCREMENTAL: its build beside reads every source; each
# build here is compared with a clean one instead, and cache/sequence runs
# these edits with it)
ENV = dict(os.environ, NO_COLOR="1", TMPDIR=TMP)
ENV.pop("SHEAF_CHECK_INCREMENTAL", None)
# LeakSanitizer cannot run under ptrace: a sanitizer build traced by strace
# checks everything but leaks (the clean builds it is compared with do)
TRACED_ENV = dict(ENV, ASAN_OPTIONS=":".join(x for x in (ENV.get("ASAN_OPTIONS", ""), "detect_leaks=0") if x))
RACY = 2.2  # seconds after a write when a record of the file is trusted
steps = 0


def fail(msg):
    print("FAIL cache/records: " + msg)
    sys.exit(1)


def write(rel, text, mode="w"):
    path = os.path.join(SITE, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, mode) as f:
        f.write(text)
    return path


def opened(trace):
    """The sources (content/…) a traced build opened: by a whole path, or
    (openat2) below the site folder."""
    with open(trace) as f:
        return sorted(set(re.findall(r'openat2?\(.*?"(?:[^"]*/)?(content/[^"]+\.md)"', f.read())))


def build(what, want_opened=None, want_err=None, site=SITE, args=(), ok=True):
    """Builds with the cache under strace; the output must be a clean build's."""
    global steps
    steps += 1
    trace = os.path.join(TMP, "trace%d" % steps)
    out = os.path.join(TMP, "out%d" % steps)
    r = subprocess.run(["strace", "-f", "-qq", "-e", "trace=openat,openat2", "-o", trace, SHEAF, "build", "-q",
                        "-s", site, "-o", out] + list(args), capture_output=True, text=True, env=TRACED_ENV)
    if (r.returncode == 0) != ok:
        fail("%s: exit %d:\n%s" % (what, r.returncode, r.stderr))
    if want_err is None and r.stderr:
        fail("%s: unexpected diagnostics:\n%s" % (what, r.stderr))
    for want in [want_err] if isinstance(want_err, str) else want_err or []:
        if not re.search(want, r.stderr, re.M):
            fail("%s: wanted a message matching %r, got:\n%s" % (what, want, r.stderr))
    got = opened(trace)
    if want_opened is not None and got != sorted(want_opened):
        fail("%s: opened %s, wanted %s" % (what, got, sorted(want_opened)))
    if ok:
        ref = os.path.join(TMP, "ref%d" % steps)
        c = subprocess.run([SHEAF, "build", "-q", "--no-cache", "-s", site, "-o", ref],
                           capture_output=True, text=True, env=ENV)
        if c.returncode != 0:
            fail("%s: the clean build failed: %s" % (what, c.stderr))
        if output_tree(out) != output_tree(ref):
            a, b = output_tree(out), output_tree(ref)
            fail("%s: differs from a clean build in %s" % (
                what, sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))[:8]))
        shutil.rmtree(ref)
    shutil.rmtree(out, ignore_errors=True)
    return got


def settle():
    time.sleep(RACY)


POST = "---\ntitle: %s\ndate: 2024-0%d-01\ntags: [a, b]\nextra: {deep: [1, 2.5, true, null]}\n---\n" \
       "Body of post %d. See [the next](2024-0%d-01-p%d.md).\n"
ALL = ["content/posts/2024-0%d-01-p%d.md" % (m, m) for m in range(1, 6)] + ["content/about.md"]


def post(m, title):
    nxt = m % 5 + 1
    return write("content/posts/2024-0%d-01-p%d.md" % (m, m), POST % (title, m, m, nxt, nxt))


def main():
    write("site.yaml", "title: Rec\nbase_url: https://example.org/\ntaxonomies: [tags]\n")
    for m in range(1, 6):
        post(m, "Post %d" % m)
    write("content/about.md", "+++\ntitle = \"About\"\n+++\nAbout [post one](posts/2024-01-01-p1.md).\n")
    settle()
    build("cold", ALL)
    build("nothing changed", [])

    # the title edited, the size and the mtime as they were: the ctime says
    p2 = "content/posts/2024-02-01-p2.md"
    st = os.stat(os.path.join(SITE, p2))
    path = post(2, "Post X")
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    if os.stat(path).st_size != st.st_size:
        fail("the edit changed the size")
    settle()
    build("same size, mtime put back", [p2])
    build("nothing changed after it", [])
    st = os.stat(path)
    post(2, "Post two, longer")
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    settle()
    build("another size, mtime put back", [p2])

    # replaced by a rename: another inode, the same size and times
    p3 = os.path.join(SITE, "content/posts/2024-03-01-p3.md")
    st = os.stat(p3)
    with open(p3) as f:
        text = f.read().replace("Post 3", "Post Y")
    tmp = p3 + ".new"
    with open(tmp, "w") as f:
        f.write(text)
    os.utime(tmp, ns=(st.st_atime_ns, st.st_mtime_ns))
    os.rename(tmp, p3)
    settle()
    build("replaced by a rename", ["content/posts/2024-03-01-p3.md"])

    # touched, not changed
    os.utime(p3)
    settle()
    build("touched without a change", ["content/posts/2024-03-01-p3.md"])
    build("nothing changed after the touch", [])

    # a record that checks (the cache's own secret) but is no record
    cache = os.path.join(SITE, ".sheaf-cache")
    shards = glob.glob(os.path.join(cache, "v1", "src", "*", "*"))
    if not shards:
        fail("no source records in the cache")
    with open(os.path.join(cache, "v1", ".key"), "rb") as f:
        secret = f.read()
    for path in shards:
        with open(path, "rb") as f:
            data = f.read()
        klen, vlen = struct.unpack("<II", data[4:12])
        key, value = data[44:44 + klen], data[44 + klen:]
        if b"content/about.md" not in value:
            continue
        value = value[: len(value) - 9]  # its last record cut short
        mac = hmac.new(secret, b"src\0" + struct.pack("<I", klen) + key + value, hashlib.sha256).digest()
        with open(path, "wb") as f:
            f.write(b"SHC2" + struct.pack("<II", klen, len(value)) + mac + key + value)
        break
    else:
        fail("no record of content/about.md")
    got = build("a corrupt record", None,
                r"^\.sheaf-cache: warning: 1 source record in the build cache could not be read back: "
                r"ignored, the source is read again$")
    if "content/about.md" not in got:
        fail("the source of the corrupt record was not read again: %s" % got)
    build("after the corrupt record", [])

    # the cache in another site: its records are not this site's
    other = os.path.join(TMP, "other")
    shutil.copytree(SITE, other, symlinks=True)
    settle()  # the copies are new files
    build("the cache of another site", ALL, r"made for the site in .*/site, not this one", site=other)
    build("another site, again", [], site=other)
    build("--no-cache", ALL, args=["--no-cache"])

    # errors come back on every build
    write("content/posts/2024-06-01-bad.md", "---\ntitle: [unclosed\ndate: 2024-06-01\n---\nBad.\n")
    write("content/posts/2024-07-01-type.md", "---\ntitle: Type\ndate: 2024-07-01\ndraft: maybe\n---\nx\n")
    write("content/posts/2024-08-01-latin.md", "---\ntitle: Latin\ndate: 2024-08-01\n---\ncaf\xe9\n".encode(
        "latin-1"), "wb")
    settle()
    for i in range(2):
        build("sources with errors (%d)" % (i + 1), None,
              [r"^content/posts/2024-06-01-bad\.md:\d+:\d+: error: ",
               r"^content/posts/2024-07-01-type\.md:4:\d+: error: .*draft",
               r"^content/posts/2024-08-01-latin\.md:5:4: error: not valid UTF-8"], ok=False)
    print("ok: %d builds; unchanged sources only stat-ed, every change seen" % steps)


try:
    main()
finally:
    shutil.rmtree(TMP, ignore_errors=True)
