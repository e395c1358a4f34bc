#!/usr/bin/python3
"""What `sheaf build -o DIR` may touch, checked word for word: output folders
that hold the site or lie in its sources are refused; a non-empty folder
without a .sheaf-manifest is refused unless --force; files sheaf did not
write are kept (a gh-pages checkout's .git, a CNAME) and never overwritten
without --force; files it wrote and no longer produces are removed; stale
staging folders of dead builds are removed, and an old tree left between
the two renames of the fallback exchange is put back.

usage: rules.py path/to/sheaf
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SITE = os.path.join(HERE, "..", "sites", "output", "site")
failures = []


def run(sheaf, *args, cwd, env=None):
    e = dict(os.environ, NO_COLOR="1")
    e.update(env or {})
    return subprocess.run([sheaf, *args], capture_output=True, text=True, timeout=60, cwd=cwd, env=e)


def expect(what, got, want):
    if got != want:
        failures.append(f"{what}:\n  got:  {got!r}\n  want: {want!r}")


def tree(path):
    """relative path → (bytes or link target, inode) of everything below path
    but the build cache: a refused build may still have written correct
    entries of the pages it read (src/site/mdcache.c), as of its formulas."""
    out = {}
    for root, dirs, files in os.walk(path):
        # (and the spare, sheaf's copy of the output before: a failed build
        # may have begun to update it, and no later build trusts it then)
        dirs[:] = [d for d in dirs if d != ".sheaf-cache" and not d.endswith(".sheaf-spare")]
        for name in dirs + files:
            p = os.path.join(root, name)
            rel = os.path.relpath(p, path)
            st = os.lstat(p)
            if name == ".sheaf-manifest":  # by its paths: not which build made it
                with open(p, "rb") as fh:
                    out[rel] = (b"".join(l for l in fh.read().splitlines(True)
                                         if not l.startswith(b"\\") or l.startswith(b"\\\\")), None)
            elif os.path.islink(p):
                out[rel] = ("->" + os.readlink(p), st.st_ino)
            elif os.path.isdir(p):
                out[rel] = ("<dir>", None)
            else:
                with open(p, "rb") as fh:
                    out[rel] = (fh.read(), st.st_ino)
    return out


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def staging_left(folder):
    return sorted(e for e in os.listdir(folder) if ".sheaf-new-" in e or ".sheaf-old-" in e)


def refused(sheaf, tmp, args, message, what):
    before = tree(tmp)
    p = run(sheaf, "build", "-s", "site", *args, cwd=tmp)
    expect(f"{what}: status", p.returncode, 1)
    expect(f"{what}: message", p.stderr,
           message + "\nsheaf: error: the build failed (1 error); the previous output was left as it was\n")
    expect(f"{what}: nothing changed", tree(tmp) == before, True)


def main():
    sheaf = os.path.abspath(sys.argv[1])
    tmp = tempfile.mkdtemp(prefix="sheaf-output-")
    try:
        site = os.path.join(tmp, "site")
        shutil.copytree(SITE, site)
        write(os.path.join(tmp, "neighbour", "notes.txt"), "mine\n")
        os.makedirs(os.path.join(site, ".git"))
        write(os.path.join(site, ".git", "HEAD"), "ref: refs/heads/main\n")

        # Folders that hold the site, or that the build reads.
        above = ("refusing this output folder: it is a folder above the site, and the output "
                 "folder is replaced as a whole by each build; choose a folder of its own, e.g. "
                 "public/ in the site")
        refused(sheaf, tmp, ["-o", "."], ".: error: " + above, "-o . (above the site)")
        refused(sheaf, tmp, ["-o", "site/.."], "site/..: error: " + above, "-o site/..")
        refused(sheaf, tmp, ["-o", "/"], "/: error: " + above, "-o /")
        refused(sheaf, tmp, ["-o", "site"],
                "site: error: refusing this output folder: it is the site folder itself, and the "
                "output folder is replaced as a whole by each build; choose a folder of its own, "
                "e.g. public/ in the site", "-o site")
        for sub in ["content", "content/posts", "static", "templates", "themes/x", "data", ".git"]:
            top = sub.split("/")[0]
            refused(sheaf, tmp, ["-o", f"site/{sub}"],
                    f"site/{sub}: error: refusing this output folder: it is inside the site's "
                    f"{top}/, which the build reads; choose a folder outside the site's sources, "
                    "e.g. public/", f"-o site/{sub}")
        # the same through a symbolic link to the sources
        os.symlink("site/content", os.path.join(tmp, "link-to-content"))
        refused(sheaf, tmp, ["-o", "link-to-content/posts"],
                "link-to-content/posts: error: refusing this output folder: it is inside the "
                "site's content/, which the build reads; choose a folder outside the site's "
                "sources, e.g. public/", "-o through a link into content/")

        os.symlink("site/content/new", os.path.join(tmp, "dangling"))
        refused(sheaf, tmp, ["-o", "dangling"],
                "dangling: error: refusing this output folder: it is inside the site's content/, "
                "which the build reads; choose a folder outside the site's sources, e.g. public/",
                "-o a link to a missing folder in content/")

        # A gh-pages checkout: not sheaf's, refused without --force.
        gh = os.path.join(tmp, "gh-pages")
        write(os.path.join(gh, ".git", "HEAD"), "ref: refs/heads/gh-pages\n")
        write(os.path.join(gh, ".git", "objects", "ab", "cdef"), "blob\n")
        write(os.path.join(gh, "CNAME"), "example.org\n")
        write(os.path.join(gh, "index.html"), "<p>the old site</p>\n")
        os.makedirs(os.path.join(gh, ".well-known"))
        refused(sheaf, tmp, ["-o", "gh-pages"],
                "gh-pages: error: the output folder is not empty and has no .sheaf-manifest, so "
                "sheaf did not make it, and sheaf removes only files it wrote: choose a new or "
                "empty folder, or build with --force to write into it (its other files are then "
                "left as they are)", "-o gh-pages without --force")
        git_before = tree(os.path.join(gh, ".git"))
        p = run(sheaf, "build", "-s", "site", "-o", "gh-pages", "--force", cwd=tmp)
        expect("--force: status", (p.returncode, p.stderr), (0, ""))
        expect("--force: .git kept, same inodes", tree(os.path.join(gh, ".git")), git_before)
        with open(os.path.join(gh, "CNAME")) as f:
            expect("--force: CNAME kept", f.read(), "example.org\n")
        expect("--force: empty folder kept", os.path.isdir(os.path.join(gh, ".well-known")), True)
        with open(os.path.join(gh, "index.html")) as f:
            expect("--force: index.html replaced by the build's", "the old site" in f.read(), False)
        with open(os.path.join(gh, ".sheaf-manifest")) as f:
            manifest = f.read().splitlines()
        expect("manifest: header", manifest[0],
               "# sheaf: the files it wrote in this folder, which it alone may remove")
        expect("manifest: lists the build's files", "posts/post-1/index.html" in manifest, True)
        expect("manifest: not the files it did not write",
               [l for l in manifest if "CNAME" in l or ".git" in l], [])
        expect("manifest: sorted", manifest[1:] == sorted(manifest[1:]), True)

        # Later builds need no --force; files added since are kept, files
        # sheaf wrote and no longer produces go.
        write(os.path.join(gh, "posts", "extra.txt"), "added by hand\n")
        os.unlink(os.path.join(site, "content", "posts", "2024-01-07-post-7.md"))
        p = run(sheaf, "build", "-s", "site", "-o", "gh-pages", cwd=tmp)
        expect("rebuild: status", (p.returncode, p.stderr), (0, ""))
        expect("rebuild: removed count", re.search(r", [1-9]\d* removed", p.stdout) is not None, True)
        expect("rebuild: stale post removed",
               os.path.exists(os.path.join(gh, "posts", "post-7")), False)
        expect("rebuild: hand-added file kept",
               os.path.isfile(os.path.join(gh, "posts", "extra.txt")), True)
        expect("rebuild: .git kept", tree(os.path.join(gh, ".git")), git_before)
        expect("rebuild: no staging left", staging_left(tmp), [])

        # A file sheaf did not write where the build writes: refused, unless --force.
        write(os.path.join(site, "static", "CNAME"), "example.net\n")
        refused(sheaf, tmp, ["-o", "gh-pages"],
                "gh-pages/CNAME: error: this file is in the way of the build's output and sheaf "
                "did not write it (it is not in .sheaf-manifest): move it away, or build with "
                "--force to replace it", "a foreign file at an output path")
        write(os.path.join(gh, "tags", "t1", "notes.txt"), "a file inside an output folder\n")
        os.unlink(os.path.join(site, "static", "CNAME"))
        p = run(sheaf, "build", "-s", "site", "-o", "gh-pages", cwd=tmp)
        expect("foreign file inside an output folder: status", (p.returncode, p.stderr), (0, ""))
        expect("foreign file inside an output folder: kept",
               os.path.isfile(os.path.join(gh, "tags", "t1", "notes.txt")), True)
        os.unlink(os.path.join(gh, "tags", "t1", "index.html"))
        write(os.path.join(gh, "tags", "t1", "index.html", "x"), "a folder where a file goes\n")
        refused(sheaf, tmp, ["-o", "gh-pages"],
                "gh-pages/tags/t1/index.html: error: this folder is in the way of the build's "
                "output and sheaf did not write it (it is not in .sheaf-manifest): move it away, "
                "or build with --force to replace it", "a foreign folder at an output path")
        p = run(sheaf, "build", "-s", "site", "-o", "gh-pages", "--force", cwd=tmp)
        expect("--force over a foreign folder: status", (p.returncode, p.stderr), (0, ""))
        expect("--force over a foreign folder: the page is there",
               os.path.isfile(os.path.join(gh, "tags", "t1", "index.html")), True)

        # An empty folder is fine without --force; a file is not a folder.
        os.makedirs(os.path.join(tmp, "empty"))
        p = run(sheaf, "build", "-s", "site", "-o", "empty", cwd=tmp)
        expect("-o empty folder", (p.returncode, p.stderr), (0, ""))
        write(os.path.join(tmp, "afile"), "x\n")
        refused(sheaf, tmp, ["-o", "afile"],
                "afile: error: exists and is not a folder: not replacing it with the output",
                "-o a file")

        # The default public/: unchanged files keep their inodes; the
        # fallback exchange (two renames) gives the same tree.
        p = run(sheaf, "build", "-s", "site", cwd=tmp)
        expect("public: status", (p.returncode, p.stderr), (0, ""))
        pub = os.path.join(site, "public")
        first = tree(pub)
        p = run(sheaf, "build", "-s", "site", cwd=tmp, env={"SHEAF_RENAME_FALLBACK": "1"})
        expect("fallback: status", (p.returncode, p.stderr), (0, ""))
        expect("fallback: same files, same inodes", tree(pub), first)
        expect("fallback: no staging left", staging_left(site), [])

        # Leftovers of killed builds: staging folders of dead processes go,
        # those of a live one stay; an old tree set aside by the fallback is
        # put back when the output folder is missing.
        dead = subprocess.Popen(["true"])
        dead.wait()
        live = subprocess.Popen(["sleep", "60"])
        try:
            with open(f"/proc/{live.pid}/stat") as f:
                start = f.read().rsplit(")", 1)[1].split()[19]
            stale = [f".public.sheaf-new-{dead.pid}-1234", f".public.tmp-{dead.pid}",
                     f".public.sheaf-new-{live.pid}-{int(start) + 1}"]
            kept = [f".public.sheaf-new-{live.pid}-{start}", ".public.sheaf-new-x-1",
                    ".public.tmp-12ab", ".other.sheaf-new-1-1"]
            for n in stale + kept:
                write(os.path.join(site, n, "index.html"), "left\n")
            p = run(sheaf, "build", "-s", "site", cwd=tmp)
            expect("stale: status", (p.returncode, p.stderr), (0, ""))
            left = sorted(e for e in os.listdir(site) if e.startswith(".") and e != ".sheaf-cache"
                          and e != ".public.sheaf-spare")  # (the spare: kept on purpose)
            expect("stale staging removed, others kept", left, sorted(kept + [".git"]))
            for n in kept:
                shutil.rmtree(os.path.join(site, n))
            os.rename(pub, os.path.join(site, f".public.sheaf-old-{dead.pid}-99"))
            p = run(sheaf, "build", "-s", "site", cwd=tmp)
            expect("restore: status", (p.returncode, p.stderr), (0, ""))
            expect("restore: the old tree was put back (inodes kept)", tree(pub), first)
            expect("restore: nothing left", staging_left(site), [])
        finally:
            live.kill()
            live.wait()

        # A symbolic link as the output folder: the folder it names is
        # replaced, the link stays.
        real = os.path.join(tmp, "real-out")
        os.symlink(real, os.path.join(site, "linked"))
        p = run(sheaf, "build", "-s", "site", "-o", "site/linked", cwd=tmp)
        expect("-o a link: status", (p.returncode, p.stderr), (0, ""))
        expect("-o a link: still a link", os.path.islink(os.path.join(site, "linked")), True)
        expect("-o a link: written through it", os.path.isfile(os.path.join(real, "index.html")),
               True)
        p = run(sheaf, "build", "-s", "site", "-o", "site/linked", cwd=tmp)
        expect("-o a link, again", (p.returncode, p.stderr, os.path.islink(os.path.join(site, "linked"))),
               (0, "", True))
        expect("-o a link: no staging left", staging_left(tmp), [])

        # The neighbours were never touched.
        with open(os.path.join(tmp, "neighbour", "notes.txt")) as f:
            expect("neighbour kept", f.read(), "mine\n")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if failures:
        print("\n".join(failures))
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
