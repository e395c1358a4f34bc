#!/usr/bin/python3
"""Error and edge cases of `sheaf new` and `sheaf deploy`, checked word for
word: a non-empty folder for `new site`, an existing post, a title with no
letters, the site's own archetype (and a bad placeholder in it), a missing
deploy target, a target that is the site itself, a failed build (deploys
nothing), rsync missing, and an unreachable rsync destination (the remote
shell fails at once through RSYNC_RSH, so no DNS wait).

usage: errors.py path/to/sheaf
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

failures = []


def run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, timeout=60, **kw)


def expect(what, got, want):
    if got != want:
        failures.append(f"{what}:\n  got:  {got!r}\n  want: {want!r}")


def tree(path):
    out = []
    for root, dirs, files in os.walk(path):
        dirs.sort()
        for f in sorted(files):
            p = os.path.join(root, f)
            with open(p, "rb") as fh:
                out.append((os.path.relpath(p, path), fh.read()))
    return out


def main():
    sheaf = os.path.abspath(sys.argv[1])
    tmp = tempfile.mkdtemp(prefix="sheaf-errors-")
    env = dict(os.environ, TMPDIR=tmp, NO_COLOR="1")
    try:
        # new site refuses a non-empty folder and writes nothing.
        full = os.path.join(tmp, "full")
        os.makedirs(full)
        with open(os.path.join(full, "notes.txt"), "w") as f:
            f.write("mine\n")
        p = run([sheaf, "new", "site", full], env=env)
        expect("new site: status", p.returncode, 1)
        expect("new site: message", p.stderr,
               f"{full}: error: folder is not empty: `sheaf new site` creates a site only in "
               "a new or empty folder, so nothing was written\n")
        expect("new site: nothing written", sorted(os.listdir(full)), ["notes.txt"])

        # An empty folder is fine.
        site = os.path.join(tmp, "site")
        os.makedirs(site)
        p = run([sheaf, "new", "site", site], env=env)
        expect("new site in an empty folder: status", p.returncode, 0)
        # a published site has a base URL (without one, every build warns)
        with open(os.path.join(site, "site.yaml"), "a") as f:
            f.write("\nbase_url: https://example.org/\n")

        # new post refuses to overwrite.
        p = run([sheaf, "new", "post", "-s", site, "Twice"], env=env)
        expect("new post: status", p.returncode, 0)
        path = p.stdout.strip()
        with open(path, "a") as f:
            f.write("my words\n")
        before = open(path).read()
        p = run([sheaf, "new", "post", "-s", site, "Twice"], env=env)
        expect("existing post: status", p.returncode, 1)
        expect("existing post: message", p.stderr,
               f"{path}: error: already exists: sheaf does not overwrite it; choose another "
               "title or edit that file\n")
        expect("existing post: unchanged", open(path).read(), before)

        # Front matter of a new post.
        p = run([sheaf, "new", "post", "-s", site, 'Say "hi"', "--tags", "a, b c", "--draft"],
                env=env)
        text = open(p.stdout.strip()).read()
        m = re.fullmatch(r'---\ntitle: "Say \\"hi\\""\n'
                         r"date: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d\n"
                         r'tags: \["a", "b c"\]\ndraft: true\n---\n\n', text)
        expect("new post: front matter", bool(m), True) if m else expect(
            "new post: front matter", text, "(title, date, tags, draft)")
        expect("new post: file name", bool(re.search(r"/content/posts/\d{4}-\d\d-\d\d-say-hi\.md$",
                                                     p.stdout.strip())), True)

        # A title with no letters or digits falls back to "post".
        p = run([sheaf, "new", "post", "-s", site, "???"], env=env)
        expect("empty slug: status", p.returncode, 0)
        expect("empty slug: falls back to post", p.stdout.strip().endswith("-post.md"), True)

        # issue 19: a title that cannot be one (DEL, a control character,
        # bytes that are not UTF-8, a C1 control) is refused, naming what
        # and where, and nothing is written.
        posts_dir = os.path.join(site, "content", "posts")
        before = sorted(os.listdir(posts_dir))
        for title, why in ((b"del\x7f", "holds a control character (U+007F at offset 3)"),
                           (b"bell\x07", "holds a control character (U+0007 at offset 4)"),
                           (b"tab\there", "holds a control character (U+0009 at offset 3)"),
                           (b"caf\xe9", "is not valid UTF-8 (byte 0xe9 at offset 3)"),
                           (b"c1\xc2\x85", "holds a control character (U+0085 at offset 2)")):
            p = run([sheaf, "new", "post", "-s", site, title], env=env)
            expect(f"bad title {title!r}: status", p.returncode, 1)
            expect(f"bad title {title!r}: message", p.stderr,
                   f"sheaf: error: the title {why}, so no post was written\n")
        p = run([sheaf, "new", "post", "-s", site, "ok", "--tags", b"a,\x1bb"], env=env)
        expect("bad tag: message", p.stderr,
               "sheaf: error: --tags holds a control character (U+001B at offset 2), so no post "
               "was written\n")
        expect("bad titles: nothing written", sorted(os.listdir(posts_dir)), before)

        # issue 14: --cite writes a citation of works checked against the
        # site's bibliography; an unknown key or no bibliography writes
        # nothing.
        before = sorted(os.listdir(posts_dir))
        p = run([sheaf, "new", "post", "-s", site, "Cites", "--cite", "known2020"], env=env)
        expect("--cite without a bibliography", (p.returncode, p.stderr),
               (1, "sheaf: error: --cite needs a bibliography: add `bibliography: refs.bib` to "
                   "site.yaml (see docs/citations.md), so no post was written\n"))
        with open(os.path.join(site, "refs.bib"), "w") as f:
            f.write("@misc{known2020, title={K}, year=2020}\n@misc{odd:key., title={O}}\n")
        with open(os.path.join(site, "site.yaml"), "a") as f:
            f.write("\nbibliography: refs.bib\n")
        p = run([sheaf, "new", "post", "-s", site, "Cites", "--cite", "knwn2020"], env=env)
        expect("--cite unknown key", (p.returncode, p.stderr),
               (1, "sheaf: error: --cite: no entry 'knwn2020' in the site's bibliography (did "
                   "you mean 'known2020'?), so no post was written\n"))
        expect("--cite errors: nothing written", sorted(os.listdir(posts_dir)), before)
        p = run([sheaf, "new", "post", "-s", site, "Cites", "--cite", "@known2020, odd:key.",
                 "--cite", "known2020"], env=env)
        expect("--cite: status", (p.returncode, p.stderr), (0, ""))
        text = open(p.stdout.strip()).read()
        expect("--cite: the citation ends the post",
               text.endswith("---\n\n[@known2020; @{odd:key.}; @known2020]\n"), True)
        # a site archetype without {{ cite }} gets it at the end, one with
        # it where it is
        with open(os.path.join(site, "templates", "new-post.md"), "w") as f:
            f.write('---\ntitle: "{{ title }}"\ndate: {{ date }}\n---\nSee {{cite}}Then.\n')
        p = run([sheaf, "new", "post", "-s", site, "Cites two", "--cite", "known2020"], env=env)
        expect("--cite in an archetype", open(p.stdout.strip()).read().endswith(
            "---\nSee [@known2020]\nThen.\n"), True)
        os.remove(os.path.join(site, "templates", "new-post.md"))
        p = run([sheaf, "build", "-s", site, "-q"], env=env)
        expect("--cite: the site builds", (p.returncode, p.stderr), (0, ""))
        for name in sorted(os.listdir(posts_dir)):
            if name not in before:
                os.remove(os.path.join(posts_dir, name))

        # A 1,000-character title: the slug is cut (with a hash) so the file
        # name fits, and the post builds.
        p = run([sheaf, "new", "post", "-s", site, "Long title " * 91], env=env)
        expect("long title: status", (p.returncode, p.stderr), (0, ""))
        name = os.path.basename(p.stdout.strip())
        expect("long title: file name fits", len(name.encode()) <= 255, True)
        expect("long title: slug cut with a hash",
               bool(re.fullmatch(r"\d{4}-\d\d-\d\d-(long-title-)+long(-title)?-[0-9a-f]{8}\.md", name)),
               True)
        p = run([sheaf, "build", "-s", site, "-q"], env=env)
        expect("long title: builds", (p.returncode, p.stderr), (0, ""))
        os.remove(os.path.join(posts_dir, name))

        # An archetype whose front matter would not build with this title
        # (unquoted, "a: b" is YAML of its own): an error, no file.
        arch = os.path.join(site, "templates", "new-post.md")
        with open(arch, "w") as f:
            f.write("---\ntitle: {{ title }}\ndate: {{ date }}\n---\n")
        p = run([sheaf, "new", "post", "-s", site, "a: b"], env=env)
        expect("unbuildable post: status", p.returncode, 1)
        lines = p.stderr.splitlines()
        expect("unbuildable post: messages", [re.sub(r"\d{4}-\d\d-\d\d", "D", l) for l in lines],
               [f"{posts_dir}/D-a-b.md:2:9: error: YAML: mapping values are not allowed in this context",
                f"{arch}: error: the new post would not build (see above), so "
                f"{posts_dir}/D-a-b.md was not written"])
        expect("unbuildable post: nothing written", sorted(os.listdir(posts_dir)), before)
        os.remove(arch)

        # The site's archetype wins over the built-in one.
        arch = os.path.join(site, "templates", "new-post.md")
        with open(arch, "w") as f:
            f.write('---\ntitle: "{{ title }}"\nslug: {{slug}}\ndate: {{ date }}\n---\n'
                    "# {{ title }}\n")
        p = run([sheaf, "new", "post", "-s", site, "From the archetype"], env=env)
        text = open(p.stdout.strip()).read()
        expect("archetype", re.sub(r"date: .*", "date: D", text),
               '---\ntitle: "From the archetype"\nslug: from-the-archetype\ndate: D\n---\n'
               "# From the archetype\n")
        with open(arch, "a") as f:
            f.write("by {{ author }}\n")
        p = run([sheaf, "new", "post", "-s", site, "Bad archetype"], env=env)
        expect("bad archetype: status", p.returncode, 1)
        expect("bad archetype: message", p.stderr,
               f"{arch}:7:4: error: unknown placeholder '{{{{ author }}}}': an archetype may use "
               "{{ title }}, {{ date }}, {{ slug }}, {{ tags }}, {{ draft }} and {{ cite }}\n")
        os.remove(arch)

        # deploy without deploy.target.
        p = run([sheaf, "deploy", "-s", site], env=env)
        expect("missing target: status", p.returncode, 1)
        expect("missing target: message", p.stderr,
               f"{site}/site.yaml: error: no deploy target: set deploy.target in site.yaml to a "
               "folder or to an rsync destination host:path\n")

        yaml = os.path.join(site, "site.yaml")
        base_yaml = open(yaml).read()

        def set_target(t):
            with open(yaml, "w") as f:
                f.write(base_yaml + f"\ndeploy:\n  target: {t}\n")

        # deploy refuses the site folder itself (or one above it).
        for t in (".", ".."):
            set_target(t)
            p = run([sheaf, "deploy", "-s", site], env=env)
            expect(f"target {t}: status", p.returncode, 1)
            expect(f"target {t}: message", p.stderr,
                   f"sheaf: error: deploy target '{site}/{t}' is the site folder or a folder "
                   "above it: syncing there would delete the site's own files; choose a folder "
                   "of its own\n")

        # A deploy.target of the wrong type: deploy says what build says, at
        # the key's line and column (both read site.yaml one way).
        set_target("[1, 2]")
        line = len((base_yaml + "\ndeploy:\n").splitlines()) + 1
        want = (f"{site}/site.yaml:{line}:3: error: 'deploy.target' must be a string (a folder, "
                "or host:path for rsync)")
        p = run([sheaf, "build", "-s", site, "-q"], env=env)
        expect("bad target type: build", (p.returncode, p.stderr.splitlines()[:1]), (1, [want]))
        p = run([sheaf, "deploy", "-s", site], env=env)
        expect("bad target type: deploy", (p.returncode, p.stderr), (1, want + "\n"))

        # A failed build deploys nothing.
        www = os.path.join(tmp, "www")
        os.makedirs(www)
        with open(os.path.join(www, "index.html"), "w") as f:
            f.write("the live site\n")
        set_target("../www")
        bad = os.path.join(site, "content", "posts", "2024-01-01-broken.md")
        with open(bad, "w") as f:
            f.write("---\ntitle: Broken\n---\n\nSee [nothing](no-such-post.md).\n")
        p = run([sheaf, "deploy", "-s", site], env=env)
        expect("failed build: status", p.returncode, 1)
        expect("failed build: last line", p.stderr.splitlines()[-1:],
               ["sheaf: error: the build failed, so nothing was deployed"])
        expect("failed build: target untouched", tree(www),
               [("index.html", b"the live site\n")])
        os.remove(bad)

        # rsync destinations.
        set_target("nosuchhost.invalid:/srv/notes")
        p = run([sheaf, "deploy", "-s", site], env=dict(env, PATH="/nonexistent"))
        expect("rsync missing: status", p.returncode, 1)
        expect("rsync missing: message", p.stderr,
               "sheaf: error: cannot deploy to 'nosuchhost.invalid:/srv/notes': rsync is not "
               "installed (install the rsync package, or deploy to a local folder)\n")
        p = run([sheaf, "deploy", "-s", site], env=dict(env, RSYNC_RSH="false"))
        expect("unreachable host: status", p.returncode, 1)
        want = ("sheaf: error: rsync to 'nosuchhost.invalid:/srv/notes' failed (exit status 12): "
                "rsync: ")
        expect("unreachable host: message", p.stderr[:len(want)], want)
        # rsync's first line is a race (a closed connection or a broken
        # pipe); its protocol error is not
        expect("unreachable host: rsync's reason",
               "error in rsync protocol data stream" in p.stderr, True)

        # issue 19: a target rsync or ssh would read as an option is refused
        # (after the build, before rsync runs), and nothing says "deployed".
        for t, why in (("--list-only:/srv", "it starts with '-', which rsync and ssh read as an option"),
                       ("me@-oProxyCommand=x:/srv",
                        "its host starts with '-', which ssh reads as an option")):
            set_target(f"'{t}'")
            p = run([sheaf, "deploy", "-s", site], env=env)
            expect(f"target {t}: status", p.returncode, 1)
            expect(f"target {t}: message", (p.stdout, p.stderr),
                   ("", f"sheaf: error: refusing to deploy to '{t}': {why}\n"))

        # A working rsync destination: a "remote shell" that runs the command
        # here stands in for ssh.
        rsh = os.path.join(tmp, "rsh")
        with open(rsh, "w") as f:
            f.write('#!/bin/sh\nshift\nexec "$@"\n')
        os.chmod(rsh, 0o755)
        remote = os.path.join(tmp, "remote")
        os.makedirs(remote)
        with open(os.path.join(remote, "stale.html"), "w") as f:
            f.write("stale\n")
        set_target(f"localhost:{remote}")
        p = run([sheaf, "deploy", "-s", site], env=dict(env, RSYNC_RSH=rsh))
        expect("rsync deploy: status", p.returncode, 0)
        expect("rsync deploy: summary", p.stdout.splitlines()[-1:],
               [f"deployed to localhost:{remote} with rsync"])
        expect("rsync deploy: stale file removed",
               os.path.exists(os.path.join(remote, "stale.html")), False)
        expect("rsync deploy: .nojekyll", os.path.exists(os.path.join(remote, ".nojekyll")), True)
        expect("rsync deploy: home page", os.path.exists(os.path.join(remote, "index.html")), True)
        expect("no build folder left behind",
               [n for n in os.listdir(tmp) if n.startswith("sheaf-deploy-")], [])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if failures:
        print("\n".join("FAIL " + f for f in failures))
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
