#!/usr/bin/python3
"""Disk-full test: the output folder on a small tmpfs (size=512k). A build
that does not fit fails with one error naming the output folder and the
disk, leaves the previous output byte for byte (same inodes) and no staging
folder; a build that fits again succeeds. Two ways to fill the disk: a
static file bigger than the free space (copied from another file system, so
the copy takes the read/write fallback of copy_file_range, which once
reported a full disk as "Invalid cross-device link"), and many pages (one
error, not one per page).

Mounting needs root, or an unprivileged user namespace (`unshare -rm`, then
the test runs again inside it); without either the test is skipped (exit
77) and says why.

usage: diskfull.py path/to/sheaf
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SITE = os.path.join(HERE, "..", "sites", "output", "site")


def tree(root):
    """path → (bytes, inode); the manifest by its paths only: its generation
    lines (docs/internals.md, "The commit") say which build made it."""
    out = {}
    for dirpath, _dirs, files in os.walk(root):
        for f in files:
            p = os.path.join(dirpath, f)
            with open(p, "rb") as fh:
                data = fh.read()
            rel = os.path.relpath(p, root)
            if rel == ".sheaf-manifest":
                out[rel] = (b"".join(l for l in data.splitlines(True)
                                     if not l.startswith(b"\\") or l.startswith(b"\\\\")), None)
            else:
                out[rel] = (data, os.lstat(p).st_ino)
    return out


def mount_tmpfs(where):
    p = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=512k", "tmpfs", where],
                       capture_output=True, text=True)
    return p.returncode == 0, p.stderr.strip()


def main():
    sheaf = os.path.abspath(sys.argv[1])
    tmp = tempfile.mkdtemp(prefix="sheaf-diskfull-")
    disk = os.path.join(tmp, "disk")
    os.makedirs(disk)
    ok, why = mount_tmpfs(disk)
    if not ok:
        shutil.rmtree(tmp)
        if (os.geteuid() != 0 and not os.environ.get("SHEAF_IN_USERNS") and shutil.which("unshare")
                and subprocess.run(["unshare", "-rm", "true"], capture_output=True).returncode == 0):
            p = subprocess.run(["unshare", "-rm", sys.executable, *sys.argv],
                               env=dict(os.environ, SHEAF_IN_USERNS="1"))
            sys.exit(p.returncode)
        print(f"SKIP: cannot mount a small tmpfs to fill ({why}); run as root, or where "
              "unprivileged user namespaces are allowed")
        sys.exit(77)
    failures = []

    def expect(what, got, want):
        if got != want:
            failures.append(f"{what}:\n  got:  {got!r}\n  want: {want!r}")

    try:
        site = os.path.join(tmp, "site")  # on the ordinary disk, not the tmpfs
        shutil.copytree(SITE, site)
        out = os.path.join(disk, "public")
        env = dict(os.environ, NO_COLOR="1")

        def build():
            return subprocess.run([sheaf, "build", "-s", site, "-o", out, "-j", "2"],
                                  capture_output=True, text=True, timeout=60, env=env)

        p = build()
        expect("first build", (p.returncode, p.stderr), (0, ""))
        before = tree(out)
        free = os.statvfs(disk)
        free = free.f_bavail * free.f_frsize

        def failed(what, first):
            p = build()
            lines = p.stderr.splitlines()
            expect(f"{what}: status", p.returncode, 1)
            want = (rf"^{re.escape(out)}: error: cannot write the new output beside it: No space "
                    rf"left on device \(on the disk mounted at {re.escape(disk)}, first at "
                    rf"{first}\); the previous output was left as it was$")
            expect(f"{what}: one error, about the disk", len(lines) == 2 and
                   re.match(want, lines[0]) is not None and
                   lines[1] == "sheaf: error: the build failed (1 error); the previous output was left as it was",
                   True)
            if len(lines) != 2 or not re.match(want, lines[0]):
                failures.append(f"{what}: stderr was\n{p.stderr}")
            expect(f"{what}: the old output is intact (bytes and inodes)", tree(out) == before, True)
            expect(f"{what}: no staging left",
                   sorted(e for e in os.listdir(disk) if not e.endswith(".sheaf-spare")), ["public"])

        # a static file bigger than the free space
        with open(os.path.join(site, "static", "big.bin"), "wb") as f:
            f.write(os.urandom(free + 4096))
        failed("a big static file", re.escape("big.bin"))
        os.unlink(os.path.join(site, "static", "big.bin"))

        # many pages
        posts = os.path.join(site, "content", "posts")
        for i in range(60):
            with open(os.path.join(posts, f"2024-03-{i % 28 + 1:02d}-fill-{i}.md"), "w") as f:
                f.write(f"---\ntitle: Fill {i}\n---\n" + "word " * 2000 + "\n")
        failed("many pages", r"\S+")

        for n in os.listdir(posts):
            if "-fill-" in n:
                os.unlink(os.path.join(posts, n))
        p = build()
        expect("fits again", (p.returncode, p.stderr), (0, ""))
        expect("fits again: the same output", {k: v[0] for k, v in tree(out).items()},
               {k: v[0] for k, v in before.items()})
    finally:
        subprocess.run(["umount", disk])
        shutil.rmtree(tmp, ignore_errors=True)
    if failures:
        print("\n".join(failures))
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
