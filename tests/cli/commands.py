#!/usr/bin/python3
"""The command line as a newcomer meets it (issue 27, part 3): each check
runs the real binary and compares what it prints word for word.

usage: commands.py path/to/sheaf
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

SHEAF = os.path.abspath(sys.argv[1])
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
TMP = tempfile.mkdtemp(prefix="sheaf-commands-")
ENV = dict(os.environ, NO_COLOR="1", TMPDIR=TMP)
failures = []
passed = 0


def expect(what, got, want):
    global passed
    if got == want:
        passed += 1
    else:
        failures.append(f"{what}:\n  got  {got!r}\n  want {want!r}")


def run(*args, cwd=None, env=None):
    return subprocess.run([SHEAF, *args], cwd=cwd or TMP, env=env or ENV, capture_output=True, text=True,
                          timeout=120)


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return ""


n_sites = 0


def new_site(base_url=True):
    global n_sites
    n_sites += 1
    d = os.path.join(TMP, f"site{n_sites}")
    p = run("new", "site", d)
    assert p.returncode == 0, p.stderr
    if base_url:
        with open(os.path.join(d, "site.yaml"), "a") as f:
            f.write("base_url: https://example.org/\n")
    return d


# 3. `new post -s typo` writes nothing and says why.
def new_post_needs_a_site():
    p = run("new", "post", "x", "-s", "typo")
    expect("new post -s typo: status", p.returncode, 2)
    expect("new post -s typo: message", p.stderr,
           "sheaf: error: typo: no such folder (give the site folder with -s DIR)\n")
    expect("new post -s typo: nothing written", os.path.exists(os.path.join(TMP, "typo")), False)
    empty = os.path.join(TMP, "empty")
    os.mkdir(empty)
    p = run("new", "post", "x", "-s", empty)
    expect("new post in a folder without content/: status", p.returncode, 1)
    expect("new post in a folder without content/: message", p.stderr,
           f"sheaf: error: {empty} has no content/ folder, so it is not a site (`sheaf new site DIR` "
           "starts one, -s DIR names one elsewhere); no post was written\n")
    p = run("new", "post", "x", cwd=empty)
    expect("new post in the current folder without content/: message", p.stderr,
           "sheaf: error: the current folder has no content/ folder, so it is not a site (`sheaf new "
           "site DIR` starts one, -s DIR names one elsewhere); no post was written\n")
    expect("new post without a site: nothing written", os.listdir(empty), [])


# 1. A section's list and its posts share one folder, the slugged name, and
# `new post --section` takes every name the build reads as a section.
def sections_one_folder():
    d = new_site()
    write(os.path.join(d, "content/Diary/2024-01-02-a.md"), "---\ntitle: A\n---\nA.\n")
    write(os.path.join(d, "content/my.notes/2024-01-03-b.md"), "---\ntitle: B\n---\nB.\n")
    p = run("new", "post", "Third", "--section", "my.notes", "-s", d)
    expect("new post --section my.notes: status", (p.returncode, p.stderr), (0, ""))
    expect("new post --section my.notes: path", os.path.dirname(p.stdout.strip()),
           os.path.join(d, "content/my.notes"))
    p = run("build", "-s", d)
    expect("build with Diary/ and my.notes/: status", (p.returncode, p.stderr), (0, ""))
    pub = os.path.join(d, "public")
    for path in ("diary/index.html", "diary/a/index.html", "diary/atom.xml", "my-notes/index.html",
                 "my-notes/b/index.html", "my-notes/third/index.html"):
        expect(f"public/{path}", os.path.exists(os.path.join(pub, path)), True)
    for path in ("Diary", "my.notes"):
        expect(f"no public/{path}/", os.path.exists(os.path.join(pub, path)), False)
    expect("the Diary list links its post", 'href="/diary/a/"' in read(os.path.join(pub, "diary/index.html")),
           True)
    p = run("new", "post", "X", "--section", ".hidden", "-s", d)
    expect("new post --section .hidden", (p.returncode, p.stderr),
           (1, "sheaf: error: --section '.hidden': a folder whose name starts with '.' is hidden, and the "
               "build skips it, so no post was written\n"))
    p = run("new", "post", "X", "--section", "Archive", "-s", d)
    expect("new post --section Archive", (p.returncode, p.stderr),
           (1, "sheaf: error: --section 'Archive': sheaf writes /archive/ itself (the archive), so no post "
               "was written\n"))


# 2. build and check agree on a new site's warnings (base_url).
def build_and_check_agree():
    d = new_site(base_url=False)
    warning = (f"{d}/site.yaml: warning: base_url has no scheme and host: the feed, the sitemap and link "
               "previews need absolute URLs; set base_url: https://… (or build with --base-url)\n")
    p = run("build", "-s", d, "-q")
    expect("build of a new site", (p.returncode, p.stderr), (0, warning))
    p = run("check", "-s", d)
    expect("check of a new site", (p.returncode, p.stderr),
           (0, warning + "ok: 2 pages (1 post), 0 errors, 1 warning\n"))


# 4. Usage errors exit 2, build errors 1, in every command; one error
# prefix; status lines start alike.
def exit_codes_and_messages():
    d = new_site()
    for cmd in ("build", "check", "serve", "deploy"):
        p = run(cmd, "-s", "nope")
        expect(f"{cmd} -s nope", (p.returncode, p.stdout, p.stderr),
               (2, "", "sheaf: error: nope: no such folder (give the site folder with -s DIR)\n"))
    build = cli_usage("build")
    p = run("build", "-s", d, "-j", "0")
    expect("build -j 0", (p.returncode, p.stderr),
           (2, "sheaf: error: -j needs a number of threads from 1 to 256, not '0'\n" + build))
    p = run("serve", "-s", d, "--port", "x")
    expect("serve --port x", (p.returncode, p.stderr),
           (2, "sheaf: error: --port wants a number from 0 to 65535, not 'x'\n" + cli_usage("serve")))
    p = run("render")
    expect("render without a template", (p.returncode, p.stderr),
           (2, "sheaf: error: expected one TEMPLATE\n" + cli_usage("render")))
    p = run("completion", "tcsh")
    expect("completion tcsh", (p.returncode, p.stderr),
           (2, "sheaf: error: name a shell: bash, zsh or fish\n" + cli_usage("completion")))
    p = run("import", "gatsby", "a", "b")
    expect("import gatsby", (p.returncode, p.stderr),
           (2, "sheaf: error: 'gatsby': import from jekyll or hugo\n" + cli_usage("import")))
    p = run("new")
    expect("new", (p.returncode, p.stderr), (2, "sheaf: error: new what? site or post\n" + cli_usage("new")))
    p = run("build", "-s")
    expect("build -s", (p.returncode, p.stderr), (2, "sheaf: error: '-s' needs a value (DIR)\n" + build))
    # a build error: 1, with the same prefix
    write(os.path.join(d, "content/posts/bad.md"), "---\ntitle: [unclosed\n---\n")
    p = run("build", "-s", d)
    expect("a failed build: status", p.returncode, 1)
    expect("a failed build: last line", p.stderr.splitlines()[-1:],
           ["sheaf: error: the build failed (1 error); the previous output was left as it was"])
    p = run("render", os.path.join(TMP, "no-such.html"))
    expect("render of a missing file", (p.returncode, p.stderr),
           (1, f"{TMP}/no-such.html: error: cannot read: No such file or directory\n"))
    # one way of starting a status line
    p = run("new", "site", os.path.join(TMP, "fresh"))
    expect("new site", p.stdout.split(" in ")[0], "Created a site")
    p = run("build", "-s", os.path.join(TMP, "fresh"), "--base-url", "https://example.org/")
    expect("build", p.stdout.split(" ")[0], "Built")


def cli_usage(cmd):
    """The usage lines of cmd's --help, as a usage error ends."""
    p = run(cmd, "--help")
    usage = p.stdout.split("\n\n", 1)[0]
    return f"{usage}\n(`sheaf {cmd} --help` describes every option)\n"


# 5. version, help CMD, did you mean, -j1, check -q, new --help aligned.
def newcomer_commands():
    v = run("--version")
    expect("sheaf version is sheaf --version", (run("version").returncode, run("version").stdout), (0, v.stdout))
    expect("sheaf --version", v.stdout.startswith("sheaf "), True)
    p = run("help", "build")
    expect("sheaf help build", (p.returncode, p.stdout), (0, run("build", "--help").stdout))
    p = run("biuld")
    expect("sheaf biuld", (p.returncode, p.stderr),
           (2, "sheaf: error: unknown command 'biuld' (did you mean `build`?)\n(`sheaf --help` lists the "
               "commands)\n"))
    p = run("help", "sevre")
    expect("sheaf help sevre", (p.returncode, p.stderr),
           (2, "sheaf: error: unknown command 'sevre' (did you mean `serve`?)\n(`sheaf --help` lists the "
               "commands)\n"))
    p = run("frobnicate")
    expect("sheaf frobnicate", p.stderr,
           "sheaf: error: unknown command 'frobnicate'\n(`sheaf --help` lists the commands)\n")
    p = run("build", "--drafs")
    expect("build --drafs", (p.returncode, p.stderr),
           (2, "sheaf: error: unknown option '--drafs' (did you mean '--drafts'?)\n" + cli_usage("build")))
    p = run("serve", "--prot", "8000")
    expect("serve --prot", p.stderr.splitlines()[0],
           "sheaf: error: unknown option '--prot' (did you mean '--port'?)")
    d = new_site()
    p = run("build", "-s", d, "-j1", "-q")
    expect("build -j1", (p.returncode, p.stdout, p.stderr), (0, "", ""))
    p = run("check", "-s", d, "-q")
    expect("check -q", (p.returncode, p.stdout, p.stderr), (0, "", ""))
    # every help column starts at the same display column (new's "key,…"
    # is 5 columns, 7 bytes)
    for cmd in ("new", "build", "serve", "check", "deploy", "render", "import", "completion"):
        cols = set()
        for line in run(cmd, "--help").stdout.splitlines():
            m = re.match(r"^( +\S+(?: \S+)*)( {2,})(\S)", line)
            if m:
                cols.add(m.start(3))
        expect(f"{cmd} --help: one help column", len(cols), 1)


# 8. What --help says matches what the command does: the stages --stats
# prints, the folders serve watches (src/serve/watch.c's list).
def help_matches():
    d = new_site()
    p = run("build", "-s", d, "--stats", "-q")
    printed = re.findall(r"([a-z+]+) [0-9.]+ ms", p.stdout)
    h = run("build", "--help").stdout
    row = re.search(r"--stats +(.*?)\n  -", h, re.S).group(1)
    named = re.findall(r"[a-z+]+", row.split(":", 1)[1].split("(")[0]) if ":" in row else []
    expect("build --help names the stages --stats prints", named, printed)
    with open(os.path.join(ROOT, "src/serve/watch.c")) as f:
        dirs = re.search(r"source_dirs\[\] = \{([^}]*)\}", f.read()).group(1)
    about = " ".join(run("serve", "--help").stdout.split())
    for name in re.findall(r'"([a-z0-9]+)"', dirs) + ["site.yaml", ".bib"]:
        expect(f"serve --help names {name}", (name + "/" if "." not in name else name) in about, True)


# 7. A build on a terminal shows its progress on one line of stderr, once it
# has run for a second (SHEAF_PROGRESS_MS=0 here: from the start); -q, or
# stderr that is not a terminal, shows none.
def progress_on_a_terminal():
    import pty
    site = os.path.join(TMP, "corpus")
    subprocess.run([sys.executable, os.path.join(ROOT, "bench/gen_corpus.py"), "--posts", "150", "--out", site],
                   check=True, capture_output=True)

    def build(*more, tty=True, env=None, site=site):
        args = [SHEAF, "build", "-s", site, "-j", "1", "--base-url", "https://example.org/", *more]
        env = dict(ENV, SHEAF_PROGRESS_MS="0") if env is None else env
        if not tty:
            p = subprocess.run(args, env=env, capture_output=True, timeout=120)
            return p.returncode, p.stderr.decode()
        m, s_ = pty.openpty()
        p = subprocess.Popen(args, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=s_)
        os.close(s_)
        out = b""
        while True:
            try:
                chunk = os.read(m, 4096)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
        os.close(m)
        return p.wait(), out.decode()

    rc, err = build()
    lines = err.split("\r\x1b[K")
    expect("progress: status", rc, 0)
    expect("progress: starts by clearing the line", lines[0], "")
    expect("progress: ends with the line cleared", lines[-1], "")
    shown = [l for l in lines if l]
    bad = [l for l in shown if not re.fullmatch(r"building: (reading|markdown|model|rendering \d+/\d+ outputs|writing)", l)]
    expect("progress: every line is a stage and its count", bad, [])
    expect("progress: the count while rendering",
           any(re.fullmatch(r"building: rendering \d+/\d+ outputs", l) for l in shown), True)
    rc, err = build("-q")
    expect("progress: none with -q", (rc, err), (0, ""))
    rc, err = build(tty=False)
    expect("progress: none when stderr is not a terminal", (rc, err), (0, ""))
    rc, err = build(env=ENV, site=new_site())
    expect("progress: none for a build shorter than a second", (rc, "building:" in err), (0, False))


# 6. `sheaf theme export` writes the default theme's templates into the
# site's templates/, where the build uses them.
def theme_export():
    d = new_site()
    p = run("theme", "export", "post.html", "partials/toc.html", "-s", d)
    expect("theme export post.html partials/toc.html", (p.returncode, p.stdout, p.stderr),
           (0, f"{d}/templates/post.html\n{d}/templates/partials/toc.html\n", ""))
    with open(os.path.join(ROOT, "themes/default/templates/post.html")) as f:
        expect("the exported post.html is the theme's", read(os.path.join(d, "templates/post.html")), f.read())
    # an edit of the copy shows in the build
    copy = read(os.path.join(d, "templates/post.html"))
    write(os.path.join(d, "templates/post.html"),
          copy.replace("{% block content %}", "{% block content %}<!-- edited copy -->", 1))
    p = run("build", "-s", d, "-q")
    posts = [os.path.join(r, f) for r, _, fs in os.walk(os.path.join(d, "public/posts")) for f in fs
             if f == "index.html" and r != os.path.join(d, "public/posts")]
    expect("the build uses the edited copy", (p.returncode, "<!-- edited copy -->" in read(posts[0])), (0, True))
    p = run("theme", "export", "post.html", "-s", d)
    expect("theme export over an edited file", (p.returncode, p.stderr),
           (1, f"{d}/templates/post.html: error: exists: left as it is (it may hold your edits; --force "
               "replaces it with the theme's)\n"))
    p = run("theme", "export", "pots.html", "-s", d)
    expect("theme export pots.html", (p.returncode, p.stderr),
           (1, "sheaf: error: the default theme has no template 'pots.html' (`sheaf theme export` with no "
               "name writes them all; docs/theme.md lists them)\n"))
    d2 = new_site()
    p = run("theme", "export", "-s", d2)
    theme = sorted(os.path.relpath(os.path.join(r, f), os.path.join(ROOT, "themes/default"))
                   for r, _, fs in os.walk(os.path.join(ROOT, "themes/default/templates")) for f in fs)
    written = sorted(os.path.relpath(l, d2) for l in p.stdout.split())
    expect("theme export writes every template", written, theme)


# 6. `sheaf render -s` gives a template the site's value; docs/theme.md's
# example works as written.
def render_with_a_site():
    d = new_site()
    write(os.path.join(d, "content/posts/2024-05-01-second.md"), "---\ntitle: Second\n---\nB.\n")
    with open(os.path.join(ROOT, "docs/theme.md")) as f:
        block = re.search(r"In a site folder:\n\n```sh\n(.*?)```", f.read(), re.S).group(1)
    block = block.replace("sheaf render", SHEAF + " render")
    p = subprocess.run(["sh", "-c", block], cwd=d, env=ENV, capture_output=True, text=True, timeout=60)
    expect("docs/theme.md's render example", (p.returncode, p.stdout, p.stderr), (0, "Hello, world\nSecond\n", ""))
    write(os.path.join(d, "t.html"), "{{ site.title }} / {{ who }}\n")
    write(os.path.join(d, "d.yaml"), "who: me\n")
    p = run("render", os.path.join(d, "t.html"), "-s", d, "--data", os.path.join(d, "d.yaml"))
    expect("render -s with --data", (p.returncode, p.stdout), (0, "My notes / me"))
    p = run("render", os.path.join(d, "t.html"), "-s", "nope")
    expect("render -s nope", (p.returncode, p.stderr),
           (2, "sheaf: error: nope: no such folder (give the site folder with -s DIR)\n"))


CHECKS = [render_with_a_site, theme_export, progress_on_a_terminal, help_matches, sections_one_folder, build_and_check_agree, new_post_needs_a_site, exit_codes_and_messages,
          newcomer_commands]


def main():
    for check in CHECKS:
        check()
    shutil.rmtree(TMP, ignore_errors=True)
    for f in failures:
        print("FAIL " + f)
    print(f"{passed} checks passed, {len(failures)} failed")
    sys.exit(1 if failures else 0)


main()
