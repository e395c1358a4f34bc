#!/usr/bin/python3
"""The spare (docs/internals.md, "The commit"): a build stages into the
previous generation's tree, kept beside the output folder, rewriting only
what changed — and its output is always a clean build's.

A generated site is built into one output folder again and again while
it is edited in turn (a post's body, a post added, one deleted, one
renamed, a template of the site's own, site.yaml's title, the edit
undone), and while someone else adds, replaces and removes their own files
in the output folder (a CNAME, a folder of their own, an edit of one of
sheaf's files in place). After each build the output must be a clean
build's (--no-cache, a folder of its own) plus exactly the other files the
output folder held; the build must have used the spare (the new output
folder's folders are the spare's, by inode) once there is one to
use; and the tree the build replaced — now the spare — must still be byte
for byte what was published before: a file changed by the build is a new
file, never the old one written in place (they share inodes).

Then spares that must not be trusted: one a build was killed in (its
manifest gone, a file half written), one changed by hand (its manifest
edited, a file replaced), one of another site. Each build must not use it
(a changed one with a warning), and its output must be a clean build's.
Last, a spare another build holds (its lock): left alone, not changed.

usage: spare.py path/to/sheaf
"""
import fcntl
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
GEN = os.path.join(HERE, "..", "..", "bench", "gen_corpus.py")
SHEAF = os.path.abspath(sys.argv[1])
TMP = tempfile.mkdtemp(prefix="sheaf-spare-")
ENV = dict(os.environ, NO_COLOR="1", TMPDIR=TMP)
SITE = os.path.join(TMP, "site")
PUB = os.path.join(SITE, "public")
SPARE = os.path.join(SITE, ".public.sheaf-spare")
failures = []


def tree(root, skip_manifest=True):
    out = {}
    for dirpath, dirs, files in os.walk(root):
        for d in dirs:
            p = os.path.join(dirpath, d)
            if not os.listdir(p):
                out[os.path.relpath(p, root) + "/"] = b""
        for f in files:
            p = os.path.join(dirpath, f)
            rel = os.path.relpath(p, root)
            if skip_manifest and rel == ".sheaf-manifest":
                continue
            if os.path.islink(p):
                out[rel] = b"->" + os.readlink(p).encode()
            else:
                with open(p, "rb") as fh:
                    out[rel] = fh.read()
    return out


def dir_inodes(root):
    out = {}
    for dirpath, dirs, _files in os.walk(root):
        out[os.path.relpath(dirpath, root)] = os.stat(dirpath).st_ino
    return out


def build(*args, expect_ok=True):
    p = subprocess.run([SHEAF, "build", "-s", SITE, *args], env=ENV, capture_output=True,
                       text=True, timeout=600)
    if expect_ok and p.returncode != 0:
        print(p.stderr)
        sys.exit(f"FAIL output/spare: the build failed")
    return p


def clean():
    fresh = os.path.join(TMP, "fresh")
    shutil.rmtree(fresh, ignore_errors=True)
    p = subprocess.run([SHEAF, "build", "-q", "--no-cache", "-s", SITE, "-o", fresh], env=ENV,
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    t = tree(fresh)
    shutil.rmtree(fresh)
    return t


def diff(a, b):
    extra = sorted(set(a) - set(b))[:4]
    missing = sorted(set(b) - set(a))[:4]
    differ = sorted(k for k in a if k in b and a[k] != b[k])[:4]
    return f"extra {extra}, missing {missing}, differing {differ}"


def step(name, theirs, spare_used=True, warn=None):
    """One build; its output must be a clean build plus `theirs` (path →
    bytes of the files someone else keeps in the output folder)."""
    before = tree(PUB, skip_manifest=False) if os.path.isdir(PUB) else None
    spare_dirs = dir_inodes(SPARE) if os.path.isdir(SPARE) else {}
    p = build()
    want = clean()
    want.update(theirs)
    got = tree(PUB)
    if got != want:
        failures.append(f"{name}: the output is not a clean build's: {diff(got, want)}")
    # used: the new output's folders are the spare's (a staged tree's are
    # new; a spare that is not used is removed, and a new folder may get
    # an inode number it had, so only "used" is judged this way)
    now = dir_inodes(PUB)
    same = sum(1 for k, v in spare_dirs.items() if now.get(k) == v)
    if spare_used and same < len(now) * 0.9:
        failures.append(f"{name}: the spare was not used ({same} of {len(now)} folders its own)")
    if before is not None and os.path.isdir(SPARE) and tree(SPARE, skip_manifest=False) != before:
        failures.append(f"{name}: the previous output changed while the build ran (now the "
                        f"spare): {diff(tree(SPARE, skip_manifest=False), before)}")
    if warn is not None and warn not in p.stderr:
        failures.append(f"{name}: no warning '{warn}' in:\n{p.stderr}")
    if warn is None and "warning" in p.stderr:
        failures.append(f"{name}: an unexpected warning:\n{p.stderr}")
    return p


def records_used(kind=b"\\folder "):
    """The output's manifest holds the stamps of the folders of the tree
    it replaced (kind \\folder), or, when the output was staged whole, of
    its own (\\own), and a build lists only the folders whose stamp moved:
    under strace (when there is one), a build with nothing changed reads
    few of the output folder's folders."""
    with open(os.path.join(PUB, ".sheaf-manifest"), "rb") as f:
        lines = f.read().splitlines()
    w = len(kind)
    stamps = [l for l in lines if l.startswith(kind) and l[w:w + 16] != b"0" * 16]
    base = any(l.startswith(b"\\base ") for l in lines)
    if base != (kind == b"\\folder ") or len(stamps) < 10:
        failures.append(f"the manifest has no folder stamps to use ({len(stamps)} "
                        f"{kind.decode().strip()} lines, \\base: {base})")
    strace = shutil.which("strace")
    if not strace:
        return
    log = os.path.join(TMP, "strace.log")
    p = subprocess.run([strace, "-f", "-y", "-e", "trace=getdents64", "-o", log, SHEAF, "build", "-q",
                        "-s", SITE], env=ENV, capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        return  # (strace may be refused here: ptrace)
    folders = sum(1 for _ in os.walk(PUB))
    with open(log) as f:
        read = {l.split("<", 1)[1].split(">", 1)[0] for l in f
                if "getdents64(" in l and "<" + os.path.realpath(PUB) in l}
    if len(read) > folders // 4:
        failures.append(f"a build with nothing changed listed {len(read)} of the output's "
                        f"{folders} folders (its records: {kind.decode().strip()} lines)")


def posts():
    d = os.path.join(SITE, "content", "posts")
    return d, sorted(os.listdir(d))


def main():
    subprocess.run([sys.executable, GEN, "--posts", "60", "--out", SITE], check=True,
                   capture_output=True)
    theirs = {}
    step("first build", theirs, spare_used=False)
    step("second build (no spare yet)", theirs, spare_used=False)
    if not os.path.isdir(SPARE):
        failures.append("no spare beside the output after two builds")
    # the second build staged a whole tree: the third walks it by the
    # records of its own folders that the second took (\own lines)
    records_used(b"\\own ")
    step("nothing changed", theirs)
    d, names = posts()
    with open(os.path.join(d, names[-1]), "a") as f:
        f.write("\nA line added to the body.\n")
    step("a body edited", theirs)
    step("nothing changed after an edit", theirs)
    for n in ("one", "two"):  # (posts nothing links to)
        with open(os.path.join(d, f"2020-01-01-added-{n}.md"), "w") as f:
            f.write(f"---\ntitle: Added {n}\ntags: [added-{n}]\n---\nAdded text.\n")
    step("posts added", theirs)
    os.unlink(os.path.join(d, "2020-01-01-added-one.md"))
    step("a post deleted", theirs)
    os.rename(os.path.join(d, "2020-01-01-added-two.md"), os.path.join(d, "2019-05-05-renamed.md"))
    step("a post renamed", theirs)
    # someone else's files: a CNAME at the top, a folder of their own, one
    # beside sheaf's pages
    with open(os.path.join(PUB, "CNAME"), "w") as f:
        f.write("example.org\n")
    os.makedirs(os.path.join(PUB, "mine", "deep"))
    with open(os.path.join(PUB, "mine", "deep", "note.txt"), "w") as f:
        f.write("mine\n")
    os.makedirs(os.path.join(PUB, "empty-of-mine"))
    theirs = {"CNAME": b"example.org\n", "mine/deep/note.txt": b"mine\n", "empty-of-mine/": b""}
    step("someone else's files added", theirs)
    step("and kept by the next build", theirs)
    # someone else's file beside sheaf's in a folder no build has changed
    # since the last builds: the walk lists a folder again only when its
    # stamp moved (docs/internals.md, "The commit"), and this one did
    post_dirs = sorted(x for x in os.listdir(os.path.join(PUB, "posts"))
                       if os.path.isdir(os.path.join(PUB, "posts", x)))
    quiet = os.path.join("posts", post_dirs[0], "notes.txt")
    with open(os.path.join(PUB, quiet), "w") as f:
        f.write("mine too\n")
    theirs[quiet] = b"mine too\n"
    step("someone else's file added in an unchanged folder", theirs)
    step("and kept by the builds after it", theirs)
    step("and the one after that", theirs)
    records_used()
    with open(os.path.join(PUB, "CNAME.new"), "w") as f:
        f.write("example.com\n")
    os.rename(os.path.join(PUB, "CNAME.new"), os.path.join(PUB, "CNAME"))
    theirs["CNAME"] = b"example.com\n"
    step("someone else's file replaced", theirs)
    os.unlink(os.path.join(PUB, "CNAME"))
    shutil.rmtree(os.path.join(PUB, "mine"))
    del theirs["CNAME"], theirs["mine/deep/note.txt"]
    step("someone else's files removed", theirs)
    step("and not brought back", theirs)
    # one of sheaf's files edited in place: its inode is the spare's too
    with open(os.path.join(PUB, "index.html"), "a") as f:
        f.write("<!-- edited by hand -->\n")
    step("a file of sheaf's edited in place", theirs)
    os.makedirs(os.path.join(SITE, "templates"), exist_ok=True)
    with open(os.path.join(HERE, "..", "..", "themes", "default", "templates", "post.html")) as f:
        tpl = f.read()
    with open(os.path.join(SITE, "templates", "post.html"), "w") as f:
        f.write(tpl + "<!-- edited -->\n")
    step("a template edited: every post written", theirs)
    step("nothing changed after every post changed", theirs)
    cfg = os.path.join(SITE, "site.yaml")
    with open(cfg) as f:
        yaml = f.read()
    with open(cfg, "w") as f:
        f.write(yaml.replace("title:", "title: Renamed", 1) if "title:" in yaml
                else yaml + "title: Renamed\n")
    step("site.yaml's title", theirs)
    shutil.rmtree(os.path.join(SITE, "templates"))
    with open(cfg, "w") as f:
        f.write(yaml)
    step("the edits undone", theirs)

    # spares that must not be trusted
    with open(os.path.join(d, names[-1]), "a") as f:
        f.write("\nAnother line.\n")
    # killed while it updated the spare: its manifest gone, a file left
    # half written where the next build would keep it
    os.unlink(os.path.join(SPARE, ".sheaf-manifest"))
    with open(os.path.join(SPARE, "404.html"), "w") as f:
        f.write("<half")
    step("a spare a build was killed in", theirs, spare_used=False)
    # changed by hand: its manifest edited, a file replaced
    with open(os.path.join(d, names[-1]), "a") as f:
        f.write("\nA third line.\n")
    with open(os.path.join(SPARE, ".sheaf-manifest"), "a") as f:
        f.write("added-by-hand.html\n")
    os.unlink(os.path.join(SPARE, "archive", "index.html"))
    with open(os.path.join(SPARE, "archive", "index.html"), "w") as f:
        f.write("not sheaf's\n")
    step("a spare changed by hand", theirs, spare_used=False,
         warn="was changed since sheaf left it")
    # another site's output as the spare
    other = os.path.join(TMP, "other")
    subprocess.run([sys.executable, GEN, "--posts", "5", "--out", other], check=True,
                   capture_output=True)
    subprocess.run([SHEAF, "build", "-q", "-s", other, "-o", os.path.join(other, "public")],
                   env=ENV, check=True)
    shutil.rmtree(SPARE)
    shutil.copytree(os.path.join(other, "public"), SPARE)
    step("another site's output as the spare", theirs, spare_used=False,
         warn="was changed since sheaf left it")
    step("the spare trusted again", theirs)
    # another build of the same output using the spare (its lock held):
    # this build leaves the spare alone and stages a whole tree
    with open(os.path.join(d, names[-1]), "a") as f:
        f.write("\nA fourth line.\n")
    fd = os.open(SPARE, os.O_RDONLY | os.O_DIRECTORY)
    fcntl.flock(fd, fcntl.LOCK_EX)
    held = tree(SPARE, skip_manifest=False)
    p = build()
    want = clean()
    want.update(theirs)
    if tree(PUB) != want:
        failures.append(f"a spare in use: the output is not a clean build's: "
                        f"{diff(tree(PUB), want)}")
    if tree(SPARE, skip_manifest=False) != held:
        failures.append("a spare in use: this build changed it")
    os.close(fd)
    step("after a spare in use: a whole tree again", theirs, spare_used=False)
    # someone else's files in that whole tree, one in a folder of sheaf's
    # (theirs[quiet]): the build that walks it by its own records carries
    # them (checked by the step after it, as that build's output is its)
    records_used(b"\\own ")
    step("after a spare in use: the spare trusted again", theirs)
    # a session's build (sheaf check writes nothing; `serve` has its own
    # folder): --force into a folder with the spare still works
    p = build("--force")
    if p.returncode != 0:
        failures.append("--force: " + p.stderr)
    shutil.rmtree(TMP, ignore_errors=True)
    if failures:
        print("FAIL output/spare:\n" + "\n".join(failures))
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
