#!/usr/bin/python3
"""What `sheaf deploy` to a local folder may touch, checked word for word:
the site's own folder and its .git are refused; a checkout with only a .git
is fine; a non-empty folder without a .sheaf-manifest is refused unless
--force (its other files then stay); --dry-run lists exactly what would be
added, changed, removed and kept, and why, and changes nothing; a later
deploy removes only what sheaf deployed.

usage: deploy.py path/to/sheaf
"""
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SITE = os.path.join(HERE, "..", "sites", "output", "site")
failures = []


def expect(what, got, want):
    if got != want:
        failures.append(f"{what}:\n  got:  {got!r}\n  want: {want!r}")


def tree(path):
    out = {}
    for root, dirs, files in os.walk(path):
        for name in dirs + files:
            p = os.path.join(root, name)
            st = os.lstat(p)
            if os.path.isdir(p):
                out[os.path.relpath(p, path)] = "<dir>"
            else:
                with open(p, "rb") as fh:
                    out[os.path.relpath(p, path)] = (fh.read(), st.st_ino, st.st_mtime_ns)
    return out


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def main():
    sheaf = os.path.abspath(sys.argv[1])
    tmp = tempfile.mkdtemp(prefix="sheaf-deploy-rules-")
    env = dict(os.environ, NO_COLOR="1", TMPDIR=tmp)
    try:
        site = os.path.join(tmp, "site")
        shutil.copytree(SITE, site)
        write(os.path.join(site, ".git", "HEAD"), "ref: refs/heads/main\n")
        yaml = os.path.join(site, "site.yaml")
        base_yaml = open(yaml).read()

        def deploy(target, *args):
            with open(yaml, "w") as f:
                f.write(base_yaml + f"\ndeploy:\n  target: {target}\n")
            return subprocess.run([sheaf, "deploy", "-s", site, *args], capture_output=True,
                                  text=True, timeout=60, env=env)

        # The site's .git (or anything in it) is never a target.
        for t in (".git", ".git/pages"):
            before = tree(site)
            p = deploy(t)
            expect(f"target {t}", (p.returncode, p.stderr),
                   (1, f"sheaf: error: deploy target '{site}/{t}' is inside the site's .git/ "
                       "folder, its history; choose a folder of its own\n"))
            after = tree(site)
            del after["site.yaml"], before["site.yaml"]
            expect(f"target {t}: nothing changed", after == before, True)
        p = deploy("data/www")
        expect("target in data/", (p.returncode, p.stderr),
               (1, f"sheaf: error: deploy target '{site}/data/www' is inside the site's data/ "
                   "folder: the next build would read the deployed files as sources; choose a "
                   "folder outside content/, static/, templates/, themes/ and data/\n"))

        # A fresh gh-pages checkout (only .git): fine without --force.
        gh = os.path.join(tmp, "gh-pages")
        write(os.path.join(gh, ".git", "HEAD"), "ref: refs/heads/gh-pages\n")
        p = deploy("../gh-pages")
        expect("gh-pages: status", (p.returncode, p.stderr), (0, ""))
        expect("gh-pages: .git kept", open(os.path.join(gh, ".git", "HEAD")).read(),
               "ref: refs/heads/gh-pages\n")
        with open(os.path.join(gh, ".sheaf-manifest")) as f:
            listed = f.read().splitlines()[1:]
        expect("gh-pages: the manifest lists what was deployed",
               "index.html" in listed and ".nojekyll" in listed and
               not [l for l in listed if l.startswith(".git/")], True)

        # A folder with files sheaf did not deploy: refused, dry run too.
        www = os.path.join(tmp, "www")
        write(os.path.join(www, "index.html"), "the live site\n")
        write(os.path.join(www, "CNAME"), "example.org\n")
        write(os.path.join(www, "media", "talk.mp4"), "video\n")
        before = tree(www)
        refusal = (f"sheaf: error: deploy target '{site}/../www' is not empty and has no "
                   ".sheaf-manifest, so sheaf did not deploy there, and sheaf removes only files "
                   "it wrote: choose a new or empty folder (a .git in it is fine), or deploy "
                   "with --force to write into it (its other files are then left as they are)\n")
        for args in ([], ["--dry-run"]):
            p = deploy("../www", *args)
            expect(f"www {args}: refused", (p.returncode, p.stderr), (1, refusal))
            expect(f"www {args}: untouched", tree(www) == before, True)

        # --dry-run --force says what would happen and why, and does nothing.
        p = deploy("../www", "--dry-run", "--force")
        lines = p.stdout.splitlines()
        expect("dry run: status", (p.returncode, p.stderr), (0, ""))
        expect("dry run: index.html", "~ index.html (replaces a file sheaf did not write (--force))"
               in lines, True)
        expect("dry run: new files", "+ posts/post-1/index.html (new)" in lines, True)
        expect("dry run: kept", [l for l in lines if l.startswith("=")],
               ["= CNAME (not written by sheaf: kept)", "= media/ (not written by sheaf: kept)"])
        expect("dry run: nothing removed", [l for l in lines if l.startswith("-")], [])
        expect("dry run: untouched", tree(www) == before, True)

        p = deploy("../www", "--force")
        expect("--force: status", (p.returncode, p.stderr), (0, ""))
        expect("--force: theirs kept", (open(os.path.join(www, "CNAME")).read(),
                                        open(os.path.join(www, "media", "talk.mp4")).read()),
               ("example.org\n", "video\n"))

        # Later: only what sheaf deployed and no longer builds goes; the dry
        # run says so, file by file, and changes nothing.
        os.unlink(os.path.join(site, "content", "posts", "2024-01-07-post-7.md"))
        write(os.path.join(www, "posts", "notes.txt"), "someone's notes\n")
        before = tree(www)
        p = deploy("../www", "--dry-run")
        lines = p.stdout.splitlines()
        expect("later dry run: status", (p.returncode, p.stderr), (0, ""))
        expect("later dry run: removals", [l for l in lines if l.startswith("-")],
               ["- page/4/index.html (deployed by sheaf, no longer built)",
                "- page/4/ (a folder left empty)",
                "- posts/page/4/index.html (deployed by sheaf, no longer built)",
                "- posts/page/4/ (a folder left empty)",
                "- posts/post-7/index.html (deployed by sheaf, no longer built)",
                "- posts/post-7/ (a folder left empty)",
                "- tags/common/page/4/index.html (deployed by sheaf, no longer built)",
                "- tags/common/page/4/ (a folder left empty)",
                "- tags/t1/page/2/index.html (deployed by sheaf, no longer built)",
                "- tags/t1/page/2/ (a folder left empty)",
                "- tags/t1/page/ (a folder left empty)"])
        expect("later dry run: untouched", tree(www) == before, True)
        p = deploy("../www")
        expect("later: status", (p.returncode, p.stderr), (0, ""))
        expect("later: post 7 gone", os.path.exists(os.path.join(www, "posts", "post-7")), False)
        expect("later: notes kept", open(os.path.join(www, "posts", "notes.txt")).read(),
               "someone's notes\n")
        expect("later: CNAME kept", open(os.path.join(www, "CNAME")).read(), "example.org\n")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if failures:
        print("\n".join(failures))
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
