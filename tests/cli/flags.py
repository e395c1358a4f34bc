#!/usr/bin/python3
"""Every flag of every command acts: for each flag that `sheaf CMD --help`
lists (the command table, src/cli/commands.c), in its long form and its
short one, a scenario runs the command with and without it and checks what
the flag changes (a file written or not, a line printed, a port listened
on, a syscall made). A flag in the table without a scenario here fails the
test, so a new flag needs one; deleting a command's handling of a flag
makes its scenario fail.

jobs and check's --no-cache are observed with strace (threads started,
.sheaf-cache/ looked at); serve's --open with a stand-in xdg-open on PATH.

usage: flags.py path/to/sheaf
"""
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
SHEAF = os.path.abspath(sys.argv[1])
TMP = tempfile.mkdtemp(prefix="sheaf-flags-")
ENV = dict(os.environ, NO_COLOR="1", TMPDIR=TMP)
failures = []
checked = 0


class Fail(Exception):
    pass


def want(cond, what):
    if not cond:
        raise Fail(what)


def run(*args, cwd=None, env=None, strace=None):
    """Runs sheaf; returns (status, stdout, stderr[, strace log])."""
    cmd = [SHEAF, *args]
    log = None
    if strace:
        log = os.path.join(TMP, "strace.log")
        cmd = ["strace", "-f", "-qq", "-e", "trace=" + strace, "-o", log, *cmd]
        # LeakSanitizer cannot run under ptrace; the other scenarios of the
        # same command check for leaks
        env = dict(env or ENV)
        env["ASAN_OPTIONS"] = (env.get("ASAN_OPTIONS", "") + ":detect_leaks=0").lstrip(":")
    p = subprocess.run(cmd, cwd=cwd or TMP, env=env or ENV, capture_output=True, text=True, timeout=120)
    if strace:
        with open(log) as f:
            return p.returncode, p.stdout, p.stderr, f.read()
    return p.returncode, p.stdout, p.stderr


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def read(path):
    with open(path) as f:
        return f.read()


BASE = os.path.join(TMP, "base")
rc, out, err = run("new", "site", BASE)
assert rc == 0, err
write(os.path.join(BASE, "content/posts/2024-01-01-draft.md"),
      "---\ntitle: A draft\ndate: 2024-01-01\ndraft: true\n---\nSee [nowhere](/no-such-page/).\n")
write(os.path.join(BASE, "content/posts/2999-01-01-future.md"),
      "---\ntitle: Later\ndate: 2999-01-01\n---\nSee [nowhere](/no-such-page/).\n")
write(os.path.join(BASE, "content/posts/2024-02-01-math.md"),
      "---\ntitle: Math\ndate: 2024-02-01\n---\nInline $x^2 + y^2$ here.\n")
with open(os.path.join(BASE, "site.yaml"), "a") as f:
    f.write("bibliography: refs.bib\n")
write(os.path.join(BASE, "refs.bib"), "@book{knuth84, author = {Donald Knuth}, title = {The TeXbook}, year = {1984}}\n")
made = 0


def site():
    """A fresh copy of the base site (a draft and a future post, each with a
    broken link; a post with a formula; a bibliography)."""
    global made
    made += 1
    d = os.path.join(TMP, f"site{made}")
    shutil.copytree(BASE, d)
    return d


def threads(log):
    return len(re.findall(r"\bclone3?\(", log))


def cache_touched(log):
    return ".sheaf-cache" in log


# ---- build and check --------------------------------------------------------

def b_site(cmd, flag):
    s = site()
    empty = os.path.join(TMP, f"empty{made}")
    os.mkdir(empty)
    rc, out, err = run(cmd, *flag(s), "--quiet", cwd=empty)
    want(rc == 0, f"exit {rc}: {err}")
    if cmd == "build":
        want(os.path.exists(os.path.join(s, "public/index.html")), "no public/index.html in the site given")
    rc, out, err = run(cmd, "--quiet", cwd=empty)
    want(rc != 0, "without it, the empty current folder built too")


def b_output(cmd, flag):
    s = site()
    o = os.path.join(TMP, f"out{made}")
    rc, out, err = run(cmd, "-s", s, *flag(o), "--quiet")
    want(rc == 0, f"exit {rc}: {err}")
    want(os.path.exists(os.path.join(o, "index.html")), "nothing in the folder given")
    want(not os.path.exists(os.path.join(s, "public")), "it wrote public/ as well")


def b_force(cmd, flag):
    s = site()
    o = os.path.join(TMP, f"out{made}")
    write(os.path.join(o, "mine.txt"), "not sheaf's\n")
    rc, out, err = run(cmd, "-s", s, "-o", o, "--quiet")
    want(rc != 0, "without it, a folder sheaf did not make was written into")
    rc, out, err = run(cmd, "-s", s, "-o", o, "--quiet", *flag())
    want(rc == 0 and os.path.exists(os.path.join(o, "index.html")), f"exit {rc}: {err}")


def b_base_url(cmd, flag):
    s = site()
    rc, out, err = run(cmd, "-s", s, "--quiet", *flag("https://flag.example/sub/"))
    want(rc == 0, f"exit {rc}: {err}")
    want("https://flag.example/sub/posts/" in read(os.path.join(s, "public/sitemap.xml")),
         "the sitemap does not use the URL given")


def b_held(cmd, flag, name):
    """build writes the draft's (or the future post's) page only with the
    flag; check reports its broken link only with it."""
    for with_it in (True, False):
        s = site()
        rc, out, err = run(cmd, "-s", s, "--quiet", *(flag() if with_it else []))
        if cmd == "build":
            read_it = os.path.exists(os.path.join(s, f"public/posts/{name}/index.html"))
        else:
            read_it = f"{name}.md" in err
        want(rc == 0 and read_it == with_it,
             f"{'with' if with_it else 'without'} it, {name} {'was not' if with_it else 'was'} read: {err}")


def b_drafts(cmd, flag):
    b_held(cmd, flag, "draft")


def b_future(cmd, flag):
    b_held(cmd, flag, "future")


def b_jobs(cmd, flag):
    rc, out, err, log = run(cmd, "-s", site(), "--quiet", *flag("1"), strace="clone,clone3")
    want(rc == 0, f"exit {rc}: {err}")
    one = threads(log)
    rc, out, err, log = run(cmd, "-s", site(), "--quiet", *flag("3"), strace="clone,clone3")
    three = threads(log)
    want(three >= one + 2, f"threads started: {one} with 1 job, {three} with 3")


def b_no_cache(cmd, flag):
    s = site()
    rc, out, err = run("build", "-s", s, "--quiet")  # fills .sheaf-cache/ (the formula)
    want(rc == 0 and os.path.isdir(os.path.join(s, ".sheaf-cache")), f"no cache to start from: {err}")
    rc, out, err, log = run(cmd, "-s", s, "--quiet", *flag(), strace="%file")
    want(rc == 0, f"exit {rc}: {err}")
    want(not cache_touched(log), "it looked at .sheaf-cache/")
    rc, out, err, log = run(cmd, "-s", s, "--quiet", strace="%file")
    want(cache_touched(log), "without it, .sheaf-cache/ was not read either")


def b_stats(cmd, flag):
    rc, out, err = run(cmd, "-s", site(), *flag())
    want(rc == 0 and re.search(r"^  config [0-9.]+ ms, load ", out, re.M), f"no stats line: {out!r}")
    rc, out, err = run(cmd, "-s", site())
    want("  config " not in out, f"without it, stats were printed: {out!r}")


def b_quiet(cmd, flag):
    rc, out, err = run(cmd, "-s", site(), *flag())
    want(rc == 0 and out == "" and not re.search(r"^(ok|Built)", err, re.M), f"it printed {out!r} {err!r}")
    rc, out, err = run(cmd, "-s", site())
    want(re.search(r"^(ok: |Built )", out + err, re.M), f"without it, no summary: {out!r} {err!r}")


def b_help(cmd, flag):
    args = [cmd] + (["post"] if cmd == "new" else [])
    rc, out, err = run(*args, *flag())
    want(rc == 0 and out.startswith("usage: sheaf " + cmd) and err == "", f"exit {rc}: {out!r} {err!r}")


# ---- serve ------------------------------------------------------------------

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, *args, env=None, cwd=None):
        self.p = subprocess.Popen([SHEAF, "serve", *args], cwd=cwd or TMP, env=env or ENV, text=True,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        self.lines = []
        self.url = None
        deadline = time.time() + 60
        while time.time() < deadline:
            line = self.p.stdout.readline()
            if not line:
                break
            self.lines.append(line)
            m = re.match(r"^Serving .* at (\S+) \(Ctrl-C to stop\)$", line)
            if m:
                self.url = m.group(1)
                return
        self.stop()
        raise Fail("the server did not start: " + "".join(self.lines))

    def until(self, pattern):
        deadline = time.time() + 30
        while time.time() < deadline:
            line = self.p.stdout.readline()
            if not line:
                break
            self.lines.append(line)
            if re.search(pattern, line):
                return line
        raise Fail(f"no line matching {pattern!r}: " + "".join(self.lines))

    def stop(self):
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGINT)
            try:
                self.p.wait(10)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


def get(url):
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, ""


def s_site(flag):
    s, here = site(), site()
    with open(os.path.join(s, "site.yaml"), "a") as f:
        f.write("description: The site named by the flag\n")
    with Server(*flag(s), "-p", "0", cwd=here) as srv:
        st, body = get(srv.url)
        want(st == 200 and "The site named by the flag" in body, f"GET /: {st}")
    with Server("-p", "0", cwd=s) as srv:
        st, body = get(srv.url)
        want(st == 200 and "The site named by the flag" in body, f"without it, GET /: {st}")
    with Server("-p", "0", cwd=here) as srv:
        st, body = get(srv.url)
        want(st == 200 and "The site named by the flag" not in body, "without it, the other site")


def s_port(flag):
    port = free_port()
    with Server("-s", site(), *flag(str(port))) as srv:
        want(srv.url == f"http://127.0.0.1:{port}/", f"serving at {srv.url}")
        st, body = get(f"http://127.0.0.1:{port}/")
        want(st == 200, f"GET on port {port}: {st}")


def s_bind(flag):
    with Server("-s", site(), "-p", "0", *flag("127.0.0.2")) as srv:
        port = int(srv.url.rsplit(":", 1)[1].strip("/"))
        st, body = get(f"http://127.0.0.2:{port}/")
        want(st == 200, f"GET on 127.0.0.2: {st}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=5).close()
            raise Fail("127.0.0.1 answered too")
        except ConnectionRefusedError:
            pass


def s_page(flag, path):
    with Server("-s", site(), "-p", "0", *flag()) as srv:
        st, _ = get(srv.url + path)
        want(st == 200, f"GET /{path}: {st}")
    with Server("-s", site(), "-p", "0") as srv:
        st, _ = get(srv.url + path)
        want(st == 404, f"without it, GET /{path}: {st}")


def s_drafts(flag):
    s_page(flag, "posts/draft/")


def s_future(flag):
    s_page(flag, "posts/future/")


def s_open(flag):
    bin_dir = os.path.join(TMP, f"bin{made}")
    opened = os.path.join(bin_dir, "opened")
    write(os.path.join(bin_dir, "xdg-open"), f"#!/bin/sh\necho \"$1\" >>{opened}\n")
    os.chmod(os.path.join(bin_dir, "xdg-open"), 0o755)
    env = dict(ENV, PATH=bin_dir + ":" + ENV["PATH"])
    with Server("-s", site(), "-p", "0", *flag(), env=env) as srv:
        # the stand-in's `>>` makes the file before its echo writes the
        # line: wait for the whole line, not for the file
        for _ in range(50):
            if os.path.exists(opened) and read(opened).endswith("\n"):
                break
            time.sleep(0.1)
        want(os.path.exists(opened) and read(opened) == srv.url + "\n", "xdg-open was not run with the URL")
    os.unlink(opened)
    with Server("-s", site(), "-p", "0", env=env) as srv:
        time.sleep(0.5)
        want(not os.path.exists(opened), "without it, xdg-open was run")


def s_no_cache(flag):
    s = site()
    with Server("-s", s, "-p", "0", *flag()):
        pass
    want(not os.path.exists(os.path.join(s, ".sheaf-cache")), "it wrote .sheaf-cache/")
    with Server("-s", s, "-p", "0"):
        pass
    want(os.path.isdir(os.path.join(s, ".sheaf-cache")), "without it, no .sheaf-cache/ was written")


def s_stats(flag):
    for with_it in (True, False):
        s = site()
        with Server("-s", s, "-p", "0", *(flag() if with_it else [])) as srv:
            time.sleep(0.3)
            write(os.path.join(s, "content/about.md"), "---\ntitle: About\n---\nEdited.\n")
            srv.until(r"^Rebuilt in ")
            srv.stop()
            rest = srv.p.stdout.read()
            printed = re.search(r"^  config [0-9.]+ ms", rest, re.M) is not None
            want(printed == with_it, f"{'with' if with_it else 'without'} it: {rest!r}")


# ---- new, deploy, render, import, completion --------------------------------

def new_post(flag, *more):
    s = site()
    rc, out, err = run("new", "post", "A title", "-s", s, *more, *flag)
    want(rc == 0, f"exit {rc}: {err}")
    return s, out.strip(), read(os.path.join(s, out.strip()))


def n_tags(flag):
    s, path, text = new_post(flag("a,b"))
    want('tags: ["a", "b"]' in text, f"no tags line: {text!r}")
    s, path, text = new_post([])
    want('"a"' not in text, "without it, tags")


def n_draft(flag):
    s, path, text = new_post(flag())
    want("draft: true" in text, f"not a draft: {text!r}")
    s, path, text = new_post([])
    want("draft: true" not in text, "without it, a draft")


def n_cite(flag):
    s, path, text = new_post(flag("knuth84"))
    want("@knuth84" in text, f"no citation: {text!r}")
    s, path, text = new_post([])
    want("knuth84" not in text, "without it, a citation")


def n_section(flag):
    s, path, text = new_post(flag("notes"))
    want(path.startswith(s + "/content/notes/"), f"written to {path}")
    s, path, text = new_post([])
    want(path.startswith(s + "/content/posts/"), f"without it, written to {path}")


def n_site(flag):
    s = site()
    rc, out, err = run("new", "post", "Elsewhere", *flag(s))
    want(rc == 0 and os.path.exists(os.path.join(s, out.strip())), f"exit {rc}: {err}")
    empty = os.path.join(TMP, f"empty{made}")
    os.mkdir(empty)
    rc, out, err = run("new", "post", "Elsewhere", cwd=empty)
    want(rc != 0, "without it, a post went into a folder with no site")


def deploy_site():
    s = site()
    target = os.path.join(TMP, f"www{made}")
    with open(os.path.join(s, "site.yaml"), "a") as f:
        f.write(f"deploy:\n  target: {target}\n")
    return s, target


def d_site(flag):
    s, target = deploy_site()
    rc, out, err = run("deploy", *flag(s), "-q")
    want(rc == 0 and os.path.exists(os.path.join(target, "index.html")), f"exit {rc}: {err}")
    empty = os.path.join(TMP, f"empty{made}")
    os.mkdir(empty)
    rc, out, err = run("deploy", "-q", cwd=empty)
    want(rc != 0, "without it, the empty current folder was deployed")


def d_dry_run(flag):
    s, target = deploy_site()
    rc, out, err = run("deploy", "-s", s, *flag())
    want(rc == 0 and not os.path.exists(os.path.join(target, "index.html")), f"it deployed (exit {rc}): {err}")
    want("index.html" in out, f"it did not list what it would add: {out!r}")
    rc, out, err = run("deploy", "-s", s, "-q")
    want(os.path.exists(os.path.join(target, "index.html")), f"without it, nothing deployed: {err}")


def d_force(flag):
    s, target = deploy_site()
    write(os.path.join(target, "mine.txt"), "not sheaf's\n")
    rc, out, err = run("deploy", "-s", s, "-q")
    want(rc != 0, "without it, a folder sheaf did not deploy to was written into")
    rc, out, err = run("deploy", "-s", s, "-q", *flag())
    want(rc == 0 and os.path.exists(os.path.join(target, "index.html")), f"exit {rc}: {err}")


def d_base_url(flag):
    s, target = deploy_site()
    rc, out, err = run("deploy", "-s", s, "-q", *flag("https://flag.example/sub/"))
    want(rc == 0 and "https://flag.example/sub/posts/" in read(os.path.join(target, "sitemap.xml")),
         f"the sitemap does not use the URL given (exit {rc}): {err}")


def d_quiet(flag):
    s, target = deploy_site()
    rc, out, err = run("deploy", "-s", s, "--base-url", "https://x.example/", *flag())
    want(rc == 0 and out == "" and err == "", f"it printed {out!r} {err!r}")
    s, target = deploy_site()
    rc, out, err = run("deploy", "-s", s, "--base-url", "https://x.example/")
    want(out != "", "without it, nothing printed")


def r_setup():
    d = os.path.join(TMP, f"render{made}-{time.monotonic_ns()}")
    t = "[{{ who | default('') }}|{% include 'inc.html' %}|{{ '/a/' | absolute_url }}]\n"
    write(os.path.join(d, "t.html"), t)
    write(os.path.join(d, "other/t.html"), t)
    write(os.path.join(d, "inc.html"), "beside")
    write(os.path.join(d, "other/inc.html"), "other")
    write(os.path.join(d, "data.yaml"), "who: world\n")
    return d


def r_data(flag):
    d = r_setup()
    rc, out, err = run("render", os.path.join(d, "t.html"), *flag(os.path.join(d, "data.yaml")))
    want(rc == 0 and out.startswith("[world|"), f"exit {rc}: {out!r} {err!r}")
    rc, out, err = run("render", os.path.join(d, "t.html"))
    want(out.startswith("[|"), f"without it: {out!r}")


def r_templates(flag):
    d = r_setup()
    rc, out, err = run("render", os.path.join(d, "t.html"), *flag(os.path.join(d, "other")))
    want(rc == 0 and "|other|" in out, f"exit {rc}: {out!r} {err!r}")
    rc, out, err = run("render", os.path.join(d, "t.html"))
    want("|beside|" in out, f"without it: {out!r}")


def r_base_url(flag):
    d = r_setup()
    rc, out, err = run("render", os.path.join(d, "t.html"), *flag("https://flag.example/sub/"))
    want(rc == 0 and "|https://flag.example/sub/a/]" in out, f"exit {rc}: {out!r} {err!r}")
    rc, out, err = run("render", os.path.join(d, "t.html"))
    want("|/a/]" in out, f"without it: {out!r}")


JEKYLL = os.path.join(HERE, "..", "import", "jekyll", "src")


def i_force(flag):
    dest = os.path.join(TMP, f"imported{made}-{time.monotonic_ns()}")
    write(os.path.join(dest, "old.txt"), "x\n")
    rc, out, err = run("import", "jekyll", JEKYLL, dest, "-q")
    want(rc != 0, "without it, a non-empty DEST was written into")
    rc, out, err = run("import", "jekyll", JEKYLL, dest, "-q", *flag())
    want(rc == 0 and os.path.exists(os.path.join(dest, "site.yaml")), f"exit {rc}: {err}")


def i_quiet(flag):
    dest = os.path.join(TMP, f"imported{made}-{time.monotonic_ns()}")
    rc, out, err = run("import", "jekyll", JEKYLL, dest, *flag())
    want(rc == 0 and out == "", f"it printed {out!r}")
    want(os.path.exists(os.path.join(dest, "import-report.md")), "no import-report.md")
    rc, out, err = run("import", "jekyll", JEKYLL, dest + "-2")
    want(out != "", "without it, no report printed")


def r_site(flag):
    d = r_setup()
    write(os.path.join(d, "s.html"), "[{% if site is defined %}{{ site.title }}{% else %}none{% endif %}]\n")
    rc, out, err = run("render", os.path.join(d, "s.html"), *flag(site()))
    want(rc == 0 and out == "[My notes]", f"exit {rc}: {out!r} {err!r}")
    rc, out, err = run("render", os.path.join(d, "s.html"))
    want(out == "[none]", f"without it: {out!r}")


def t_site(flag):
    s = site()
    rc, out, err = run("theme", "export", "post.html", *flag(s))
    want(rc == 0 and os.path.exists(os.path.join(s, "templates/post.html")), f"exit {rc}: {err}")
    empty = os.path.join(TMP, f"empty{made}")
    os.mkdir(empty)
    rc, out, err = run("theme", "export", "post.html", cwd=empty)
    want(rc == 0 and os.path.exists(os.path.join(empty, "templates/post.html")),
         "without it, not written into the current folder")


def t_force(flag):
    s = site()
    write(os.path.join(s, "templates/post.html"), "mine\n")
    rc, out, err = run("theme", "export", "post.html", "-s", s)
    want(rc == 1 and read(os.path.join(s, "templates/post.html")) == "mine\n", "without it, replaced")
    rc, out, err = run("theme", "export", "post.html", "-s", s, *flag())
    want(rc == 0 and "{% extends" in read(os.path.join(s, "templates/post.html")), f"not replaced: {err}")


SCENARIOS = {
    ("render", "site"): r_site, ("theme", "site"): t_site, ("theme", "force"): t_force,
    ("serve", "site"): s_site, ("serve", "port"): s_port, ("serve", "bind"): s_bind,
    ("serve", "drafts"): s_drafts, ("serve", "future"): s_future, ("serve", "open"): s_open,
    ("serve", "no-cache"): s_no_cache, ("serve", "stats"): s_stats,
    ("new", "tags"): n_tags, ("new", "draft"): n_draft, ("new", "cite"): n_cite,
    ("new", "section"): n_section, ("new", "site"): n_site,
    ("deploy", "site"): d_site, ("deploy", "dry-run"): d_dry_run, ("deploy", "force"): d_force,
    ("deploy", "base-url"): d_base_url, ("deploy", "quiet"): d_quiet,
    ("render", "data"): r_data, ("render", "templates"): r_templates, ("render", "base-url"): r_base_url,
    ("import", "force"): i_force, ("import", "quiet"): i_quiet,
}
for cmd in ("build", "check"):
    for name, fn in (("site", b_site), ("output", b_output), ("force", b_force), ("base-url", b_base_url),
                     ("drafts", b_drafts), ("future", b_future), ("jobs", b_jobs),
                     ("no-cache", b_no_cache), ("stats", b_stats), ("quiet", b_quiet)):
        SCENARIOS[(cmd, name)] = (lambda fn, cmd: lambda flag: fn(cmd, flag))(fn, cmd)


def table():
    """(command, long name, short name or None, takes a value) for every
    flag `sheaf CMD --help` lists."""
    rc, out, err = run("--help")
    cmds = re.findall(r"^  ([a-z]+) +\S", out.split("Commands:\n", 1)[1].split("\n\n", 1)[0], re.M)
    rows = []
    for cmd in cmds:
        rc, out, err = run(cmd, "--help")
        for m in re.finditer(r"^  (?:-(\w), |    )--([a-z-]+)( \S+)?", out, re.M):
            rows.append((cmd, m.group(2), m.group(1), m.group(3) is not None))
    return rows


def main():
    global checked
    rows = table()
    if len(rows) < 40:
        failures.append(f"only {len(rows)} flags read from the help: is its format changed?")
    for cmd, long, short, takes in rows:
        for spelling in [f"--{long}"] + ([f"-{short}"] if short else []):
            if long == "help":
                fn = lambda flag, cmd=cmd: b_help(cmd, flag)
            else:
                fn = SCENARIOS.get((cmd, long))
            if not fn:
                failures.append(f"sheaf {cmd} {spelling}: no scenario in tests/cli/flags.py shows what it does")
                continue
            flag = (lambda s: lambda v: [s, v])(spelling) if takes else (lambda s: lambda: [s])(spelling)
            t0 = time.time()
            try:
                fn(flag)
                checked += 1
            except Fail as e:
                failures.append(f"sheaf {cmd} {spelling}: {e}")
            except subprocess.TimeoutExpired as e:
                failures.append(f"sheaf {cmd} {spelling}: timed out: {e}")
            if os.environ.get("FLAGS_TIMES"):
                print(f"{time.time() - t0:6.2f} s  sheaf {cmd} {spelling}")
    shutil.rmtree(TMP, ignore_errors=True)
    for f in failures:
        print("FAIL " + f)
    print(f"{checked} flag spellings act as their help says, {len(failures)} failed")
    sys.exit(1 if failures else 0)


main()
