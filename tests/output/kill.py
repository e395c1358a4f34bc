#!/usr/bin/python3
"""Kill test: a rebuild of a generated site (bench/gen_corpus.py) is
SIGKILLed at 20 points — half spread over the whole build, half over its
commit phase (where the new tree is completed and exchanged with the old
one) — each time over the same old output. After each kill the output
folder must be byte for byte the old build or the new one, and the next
build must leave the new output and no staging folder. Every other kill runs
with SHEAF_RENAME_FALLBACK=1 (the two-rename exchange): there a kill between
the renames may leave no output folder, only the old tree set aside, which
the next build must put back before building.

With --spare the old output has a spare beside it (docs/internals.md,
"The commit": the tree before it, which the rebuild brings up to date in
place and exchanges with the output folder), so the kills land while the
spare is updated and while it is exchanged; the next build must not trust
a spare a kill left half updated, and must still leave the new output.

Works in /dev/shm when it can (deleting thousands of files on a busy disk
takes seconds, which says nothing about sheaf).

usage: kill.py path/to/sheaf [POSTS] [--spare]     (default 2000)
"""
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
GEN = os.path.join(HERE, "..", "..", "bench", "gen_corpus.py")


def tree(root):
    """relative path → bytes (or the target of a link) of every file below root.
    The manifest's \\folder and \\own lines are left out: they are what a
    build saw of the folders of the tree it replaced or staged (their inodes
    and times), which differ in every copy of the same tree, as the test
    restores it."""
    out = {}
    for dirpath, _dirs, files in os.walk(root):
        for f in files:
            p = os.path.join(dirpath, f)
            rel = os.path.relpath(p, root)
            if os.path.islink(p):
                out[rel] = b"->" + os.readlink(p).encode()
            else:
                with open(p, "rb") as fh:
                    out[rel] = fh.read()
                if rel == ".sheaf-manifest":
                    out[rel] = b"".join(line for line in out[rel].splitlines(True)
                                        if not line.startswith((b"\\folder ", b"\\own ")))
    return out


def paths_only(t):
    """t with the manifest's generation lines (\\generation, \\changed,
    \\user: which build made the tree, docs/internals.md) left out: a
    build after a kill is a later generation of the same output."""
    out = dict(t)
    m = out.get(".sheaf-manifest")
    if m is not None:
        out[".sheaf-manifest"] = b"".join(
            line for line in m.splitlines(True)
            if not line.startswith(b"\\") or line.startswith(b"\\\\"))
    return out


def leftovers(site):
    return sorted(e for e in os.listdir(site) if ".sheaf-new-" in e or ".sheaf-old-" in e)


def main():
    args = [a for a in sys.argv[1:] if a != "--spare"]
    with_spare = "--spare" in sys.argv[1:]
    sheaf = os.path.abspath(args[0])
    posts = int(args[1]) if len(args) > 1 else 2000
    base = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
    tmp = tempfile.mkdtemp(prefix="sheaf-kill-", dir=base)
    env = dict(os.environ, NO_COLOR="1")
    failures = []
    try:
        site = os.path.join(tmp, "site")
        subprocess.run([sys.executable, GEN, "--posts", str(posts), "--out", site],
                       check=True, capture_output=True)
        pub = os.path.join(site, "public")
        spare = os.path.join(site, ".public.sheaf-spare")

        def build(*args, extra=None):
            e = dict(env, **(extra or {}))
            return subprocess.run([sheaf, "build", "-s", site, "--stats", *args], env=e,
                                  capture_output=True, text=True, timeout=300)

        # The old output (with posts the new one drops, which nothing links
        # to; dated in the past: a post dated after the clock is left out), and a
        # file sheaf did not write, which every build keeps.
        pdir = os.path.join(site, "content", "posts")
        for i in range(posts // 50):
            with open(os.path.join(pdir, f"2000-01-{i % 28 + 1:02d}-kill-old-{i}.md"), "w") as f:
                f.write(f"---\ntitle: Old post {i}\ntags: [kill-old]\n---\nOld text {i}.\n")
        p = build()
        assert p.returncode == 0, p.stderr
        with open(os.path.join(pub, "CNAME"), "w") as f:
            f.write("example.org\n")
        if with_spare:  # a second build: the first output is kept as its spare
            p = build()
            assert p.returncode == 0, p.stderr
            assert os.path.isdir(spare), "no spare after the second build"
        old = tree(pub)
        pristine = os.path.join(tmp, "pristine")
        os.mkdir(pristine)
        # one cp: the hard links the output and its spare share stay shared
        subprocess.run(["cp", "-a", pub] + ([spare] if with_spare else []) + [pristine],
                       check=True)

        content = os.path.join(site, "content")
        content_old = os.path.join(tmp, "content-old")
        shutil.copytree(content, content_old)

        # The new site: some posts edited, some removed, some added.
        names = sorted(os.listdir(pdir))
        for i, n in enumerate(names):
            path = os.path.join(pdir, n)
            if i % 20 == 3:
                with open(path, "a") as f:
                    f.write("\nEdited for the kill test.\n")
        for i in range(posts // 50):
            with open(os.path.join(pdir, f"2001-01-{i % 28 + 1:02d}-kill-new-{i}.md"), "w") as f:
                f.write(f"---\ntitle: New post {i}\ntags: [kill-test]\n---\nNew text {i}.\n")
        for i in range(posts // 50):
            os.unlink(os.path.join(pdir, f"2000-01-{i % 28 + 1:02d}-kill-old-{i}.md"))

        def restore():
            subprocess.run(["rm", "-rf", pub, spare] +
                           [os.path.join(site, e) for e in leftovers(site)], check=True)
            subprocess.run(["cp", "-a"] + [os.path.join(pristine, e) for e in os.listdir(pristine)] +
                           [site], check=True)

        def dir_inodes(root):
            return {os.path.relpath(d, root): os.stat(d).st_ino for d, _, _ in os.walk(root)}

        # The new output, and how long the rebuild takes (and its commit).
        restore()
        spare_dirs = dir_inodes(spare) if with_spare else {}
        t0 = time.monotonic()
        p = build()
        took = time.monotonic() - t0
        assert p.returncode == 0, p.stderr
        if with_spare:  # the new output is the spare, brought up to date
            now = dir_inodes(pub)
            same = sum(1 for k, v in spare_dirs.items() if now.get(k) == v)
            assert same >= 0.9 * len(now), f"the spare was not used ({same} of {len(now)})"
        new = tree(pub)
        assert new != old and new["CNAME"] == b"example.org\n"
        stats = p.stdout.split("render+write ")[1]
        swap = float(stats.split("swap ")[1].split(" ms")[0]) / 1000
        # the commit ends about when the process does; it starts `swap` before
        points = [took * (k + 0.5) / 10 for k in range(10)]
        points += [max(0.0, took - swap * 1.5) + swap * 1.6 * k / 9 for k in range(10)]
        seen = {"old": 0, "new": 0, "none (fallback, between the renames)": 0}
        for k, at in enumerate(points):
            restore()
            fallback = k % 2 == 1
            extra = {"SHEAF_RENAME_FALLBACK": "1"} if fallback else {}
            proc = subprocess.Popen([sheaf, "build", "-s", site, "-q"], env=dict(env, **extra),
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(at)
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            where = f"kill {k + 1} at {at * 1000:.0f} ms{' (fallback)' if fallback else ''}"
            if os.path.isdir(pub):
                now = tree(pub)
                if now == old:
                    seen["old"] += 1
                elif now == new:
                    seen["new"] += 1
                else:
                    extra_files = sorted(set(now) - set(old) - set(new))[:5]
                    differ = sorted(k2 for k2 in now if k2 in old and now[k2] != old[k2] and
                                    (k2 not in new or now[k2] != new[k2]))[:5]
                    failures.append(f"{where}: the output is neither the old build nor the new "
                                    f"one (e.g. extra {extra_files}, differing {differ}, "
                                    f"{len(now)} files, old {len(old)}, new {len(new)})")
            else:
                aside = [e for e in leftovers(site) if ".sheaf-old-" in e]
                if not fallback or len(aside) != 1 or tree(os.path.join(site, aside[0])) != old:
                    failures.append(f"{where}: no output folder, and not the old tree set aside "
                                    f"by the fallback exchange: {leftovers(site)}")
                else:
                    seen["none (fallback, between the renames)"] += 1
            # Now and then, after a kill that left the old output, the next
            # build is of the old sources (the edit undone): a spare the
            # kill left half updated holds new files where the old ones
            # belong, and trusting it would publish them.
            back = with_spare and k % 3 == 0 and os.path.isdir(pub) and tree(pub) == old
            if back:
                os.rename(content, content + ".new")
                os.rename(content_old, content)
            p = build()
            if back:
                os.rename(content, content_old)
                os.rename(content + ".new", content)
            if p.returncode != 0:
                failures.append(f"{where}: the next build failed:\n{p.stderr}")
            elif back and paths_only(tree(pub)) != paths_only(old):
                now = paths_only(tree(pub))
                failures.append(f"{where}: the next build, of the old sources, is not the old "
                                f"build (differing "
                                f"{sorted(k2 for k2 in now if now[k2] != paths_only(old).get(k2))[:5]})")
            elif not back and paths_only(tree(pub)) != paths_only(new):
                now = paths_only(tree(pub))
                failures.append(f"{where}: the next build's output is not the new build (extra "
                                f"{sorted(set(now) - set(new))[:5]}, missing "
                                f"{sorted(set(new) - set(now))[:5]}, differing "
                                f"{sorted(k2 for k2 in now if k2 in new and now[k2] != paths_only(new)[k2])[:5]})")
            if leftovers(site):
                failures.append(f"{where}: staging folders survived the next build: "
                                f"{leftovers(site)}")
        print(f"{posts} posts{' with a spare' if with_spare else ''}, rebuild {took * 1000:.0f} ms (commit {swap * 1000:.0f} ms); "
              f"after the kills: " + ", ".join(f"{v} {k}" for k, v in seen.items()))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if failures:
        print("\n".join(failures))
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
