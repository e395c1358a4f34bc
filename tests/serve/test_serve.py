#!/usr/bin/python3
"""`sheaf serve` end to end over real sockets: a small site made in a temp
folder is served on a free loopback port, and every check talks HTTP to it.

Routes and status codes, MIME types, the 301 for a folder without its slash,
the site's 404 page, HEAD, ETag / If-None-Match, and traversal attempts
(`..`, `%2e%2e`, `%2f`, `%00`, a backslash, symlinks out of the output) that
must all be refused. Then live reload: an edit shows in the served page and
its Server-Sent Event arrives, a stylesheet edit sends "css", editor
droppings rebuild nothing, a broken edit sends "error" with the diagnostics
(and pages carry them for the overlay), and the next good edit recovers.
Last, a port already in use, IPv6 on ::1, and Ctrl-C (exit 0, temp folder
gone).

usage: test_serve.py path/to/sheaf
"""
import glob
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

failures = []
passed = 0


def check(what, cond, detail=""):
    global passed
    if cond:
        passed += 1
    else:
        failures.append(f"{what}{': ' + detail if detail else ''}")


def expect(what, got, want):
    check(what, got == want, f"got {got!r}, want {want!r}")


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = os.path.join(os.path.dirname(path), "." + os.path.basename(path) + ".tmp")
    with open(tmp, "w") as f:  # atomic, as editors save: a hidden file renamed
        f.write(text)
    os.replace(tmp, path)


POST = """---
title: Hello serve
date: 2024-01-02
tags: [demo]
---
Original words in the first post.

See [the older post](2024-01-01-older.md).
"""

OLDER = """---
title: Older post
date: 2024-01-01
---
An older post, linked from the newer one.
"""

BASE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{{ page.title | default(site.title) }}</title>
{%- if page.permalink %}
<link rel="canonical" href="{{ page.permalink }}">
{%- endif %}
<link rel="stylesheet" href="{{ 'site.css' | relative_url }}">
</head>
<body>
<main>
{% block content %}{% endblock %}
</main>
</body>
</html>
"""


def make_site(root):
    write(os.path.join(root, "site.yaml"), "title: Serve fixture\nbase_url: https://example.org/\n")
    write(os.path.join(root, "content/posts/2024-01-02-hello.md"), POST)
    write(os.path.join(root, "content/posts/2024-01-01-older.md"), OLDER)
    write(os.path.join(root, "content/about.md"), "---\ntitle: About\n---\nAbout this site.\n")
    write(os.path.join(root, "templates/base.html"), BASE)
    write(os.path.join(root, "static/site.css"), "body { color: rgb(1, 2, 3); }\n")
    samples = {
        "a.svg": "<svg xmlns='http://www.w3.org/2000/svg'/>", "a.png": "png", "a.jpg": "jpg",
        "a.gif": "gif", "a.webp": "webp", "a.ico": "ico", "a.woff": "woff", "a.woff2": "woff2",
        "a.xml": "<a/>", "a.json": "{}", "a.txt": "text", "a.js": "let a;", "a.bin": "bin",
        "A.PNG": "upper",
    }
    for name, body in samples.items():
        write(os.path.join(root, "static/media", name), body)


# ---- HTTP over a raw socket: the exact bytes of the path go out ----

def raw(port, path, method="GET", headers=None, host="127.0.0.1", timeout=10):
    """One HTTP/1.0 request; returns (status, {lower-case header: value}, body bytes)."""
    fam = socket.AF_INET6 if ":" in host else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.connect((host, port))
    headers = dict(headers or {})
    hosthdr = headers.pop("Host", "localhost")
    req = f"{method} {path} HTTP/1.0\r\n"
    if hosthdr is not None:
        req += f"Host: {hosthdr}\r\n"
    for k, v in headers.items():
        req += f"{k}: {v}\r\n"
    s.sendall((req + "\r\n").encode("latin-1"))
    data = b""
    while True:
        chunk = s.recv(65536)
        if not chunk:
            break
        data += chunk
    s.close()
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    hdrs = {}
    for line in lines[1:]:
        k, _, v = line.partition(":")
        hdrs[k.strip().lower()] = v.strip()
    return status, hdrs, body


class Events:
    """A Server-Sent Events reader on its own thread."""

    def __init__(self, port, query="", host="127.0.0.1"):
        fam = socket.AF_INET6 if ":" in host else socket.AF_INET
        self.sock = socket.socket(fam, socket.SOCK_STREAM)
        self.sock.connect((host, port))
        self.sock.sendall(f"GET /__sheaf/events{query} HTTP/1.0\r\nHost: localhost\r\n\r\n".encode())
        self.events = []
        self.headers = ""
        self.cond = threading.Condition()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        data = b""
        name, lines = "message", []
        in_head = True
        try:
            while True:
                chunk = self.sock.recv(4096)
                if not chunk:
                    break
                data += chunk
                if in_head:
                    if b"\r\n\r\n" not in data:
                        continue
                    head, _, data = data.partition(b"\r\n\r\n")
                    self.headers = head.decode("latin-1")
                    in_head = False
                while b"\n" in data:
                    line, _, data = data.partition(b"\n")
                    line = line.decode("utf-8").rstrip("\r")
                    if line == "":
                        if lines or name != "message":
                            with self.cond:
                                self.events.append((name, "\n".join(lines)))
                                self.cond.notify_all()
                        name, lines = "message", []
                    elif line.startswith(":"):
                        continue
                    elif line.startswith("event:"):
                        name = line[6:].strip()
                    elif line.startswith("data:"):
                        lines.append(line[5:][1:] if line[5:].startswith(" ") else line[5:])
        except OSError:
            pass

    def wait(self, timeout=15):
        """The next event not yet taken, or None."""
        end = time.time() + timeout
        with self.cond:
            while not self.events:
                left = end - time.time()
                if left <= 0:
                    return None
                self.cond.wait(left)
            return self.events.pop(0)

    def close(self):
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()


class Server:
    """`sheaf serve` as a child process, its stdout collected line by line."""

    def __init__(self, sheaf, site, port, env, extra=()):
        self.proc = subprocess.Popen([sheaf, "serve", "-s", site, "--port", str(port), *extra],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     env=env)
        self.lines, self.err = [], []
        self.cond = threading.Condition()
        threading.Thread(target=self._pump, args=(self.proc.stdout, self.lines), daemon=True).start()
        threading.Thread(target=self._pump, args=(self.proc.stderr, self.err), daemon=True).start()

    def _pump(self, f, into):
        for line in f:
            with self.cond:
                into.append(line.rstrip("\n"))
                self.cond.notify_all()

    def wait_line(self, pattern, timeout=60, start=0):
        end = time.time() + timeout
        with self.cond:
            while True:
                for line in self.lines[start:]:
                    m = re.search(pattern, line)
                    if m:
                        return m
                left = end - time.time()
                if left <= 0 or self.proc.poll() is not None:
                    return None
                self.cond.wait(min(left, 0.2))

    def stop(self, sig=signal.SIGINT, timeout=15):
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return None


def free_port(family=socket.AF_INET, host="127.0.0.1"):
    s = socket.socket(family, socket.SOCK_STREAM)
    s.bind((host, 0))
    port = s.getsockname()[1]
    s.close()
    return port


def start(sheaf, site, env, extra=(), host="127.0.0.1", family=socket.AF_INET):
    """Starts a server on a free port (trying again if another process took it)."""
    for _ in range(5):
        port = free_port(family, host)
        srv = Server(sheaf, site, port, env, extra)
        m = srv.wait_line(r"^Serving (.+) at (\S+) \(Ctrl-C to stop\)$")
        if m:
            return srv, port, m
        srv.stop()
        if not any("already in use" in e for e in srv.err):
            return srv, port, None
    return srv, port, None


def main():
    sheaf = os.path.abspath(sys.argv[1])
    tmp = tempfile.mkdtemp(prefix="sheaf-serve-test-")
    tmpdir = os.path.join(tmp, "tmp")
    os.makedirs(tmpdir)
    env = dict(os.environ, TMPDIR=tmpdir, NO_COLOR="1")
    site = os.path.join(tmp, "site")
    make_site(site)
    try:
        # The fixture builds as it is.
        gate = subprocess.run([sheaf, "build", "-s", site, "-o", os.path.join(tmp, "gate")],
                              capture_output=True, text=True, timeout=120, env=env)
        expect("sheaf build of the fixture: status", gate.returncode, 0)
        shutil.rmtree(os.path.join(tmp, "gate"), ignore_errors=True)
        if gate.returncode != 0:
            failures.append("sheaf build stderr:\n" + gate.stderr)
            return 1
        run_server_checks(sheaf, site, tmp, tmpdir, env)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 1 if failures else 0


def run_server_checks(sheaf, site, tmp, tmpdir, env):
    srv, port, m = start(sheaf, site, env)
    if not m:
        failures.append("server did not start:\n" + "\n".join(srv.lines + srv.err))
        srv.stop()
        return
    base = f"http://127.0.0.1:{port}/"
    expect("banner: site", m.group(1), os.path.realpath(site))
    expect("banner: address", m.group(2), base)
    outs = glob.glob(os.path.join(tmpdir, "sheaf-serve-*", "public"))
    expect("one private output folder under $TMPDIR", len(outs), 1)
    out = outs[0] if outs else None
    try:
        http_checks(port, out, tmp)
        host_checks(port)
        reload_checks(sheaf, site, port, srv, env)
    except Exception:
        # what the server said tells why it stopped answering
        print("server's output:\n" + "\n".join(srv.lines[-30:] + srv.err[-40:]),
              f"\nserver exit status: {srv.proc.poll()}", file=sys.stderr)
        raise
    finally:
        code = srv.stop(signal.SIGINT)
    expect("Ctrl-C: exit status", code, 0)
    expect("Ctrl-C: temp folder removed", glob.glob(os.path.join(tmpdir, "sheaf-serve-*")), [])
    check("the server said nothing on stderr but diagnostics",
          # (a notebook's place: "path: cell 1 (line 1:1): error: …")
          all(re.match(r"^\S+:(\d+:\d+:| cell \d+( \(line \d+(:\d+)?\))?:)? ?(error|warning|note): ", e)
              for e in srv.err),
          "\n".join(srv.err))
    bind_checks(sheaf, site, env)
    other_servers(sheaf, site, env, tmpdir)
    scheduled_checks(sheaf, tmp, env)


def scheduled_checks(sheaf, tmp, env):
    """A post dated a few seconds ahead is left out, then built when it
    comes due, without an edit; with --future it is there at once."""
    site = os.path.join(tmp, "scheduled")
    write(os.path.join(site, "content", "posts", "2024-01-01-now.md"), "---\ntitle: Now\n---\nNow.\n")
    due = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + 10))
    write(os.path.join(site, "content", "posts", "soon.md"), f"---\ntitle: Soon\ndate: {due}\n---\nSoon.\n")
    srv, port, m = start(sheaf, site, env)
    if not m:
        failures.append("scheduled: server did not start:\n" + "\n".join(srv.lines + srv.err))
        srv.stop()
        return
    try:
        st, _, _ = raw(port, "/posts/soon/")
        expect("scheduled: not served before it is due", st, 404)
        came = srv.wait_line(r"^Rebuilt in \d+ ms: a scheduled post came due or a page expired$", timeout=60)
        check("scheduled: rebuilt when it came due", came is not None, "\n".join(srv.lines))
        st, _, body = raw(port, "/posts/soon/")
        check("scheduled: served once due", st == 200 and b"Soon." in body, f"status {st}")
    finally:
        srv.stop(signal.SIGINT)
    srv, port, m = start(sheaf, site, env, ("--future",))
    if m:
        st, _, _ = raw(port, "/posts/soon/")
        expect("--future: served at once", st, 200)
    srv.stop(signal.SIGINT)


def strip_script(body):
    """The served HTML without the injected script: the bytes on disk."""
    start = body.find(b"<script>/* sheaf serve")
    end = body.find(b"</script>\n", start)
    return body if start < 0 or end < 0 else body[:start] + body[end + 10:]


def http_checks(port, out, tmp):
    # The home page and a post: HTML with the script injected.
    st, h, body = raw(port, "/")
    expect("GET /: status", st, 200)
    expect("GET /: type", h.get("content-type"), "text/html; charset=utf-8")
    check("GET /: live-reload script injected", b"/__sheaf/events" in body)
    st, h, body = raw(port, "/posts/hello/")
    expect("GET post: status", st, 200)
    check("GET post: its text", b"Original words in the first post." in body, body[:300])
    expect("GET post: base_url is the server's own",
           re.findall(rb'rel="canonical" href="([^"]*)"', body),
           [f"http://127.0.0.1:{port}/posts/hello/".encode()])
    expect("GET post: Cache-Control", h.get("cache-control"), "no-cache")
    # /favicon.ico: the site's drawn icon answers it
    ist, ih, icon = raw(port, "/favicon.ico")
    expect("GET /favicon.ico: status", ist, 200)
    expect("GET /favicon.ico: type", ih.get("content-type"), "image/svg+xml")
    check("GET /favicon.ico: the icon", icon.startswith(b"<svg"), icon[:100])
    check("GET post: ETag", re.fullmatch(r'"[^"]+"', h.get("etag", "")) is not None, h.get("etag"))
    expect("GET post: Content-Length", h.get("content-length"), str(len(body)))
    check("GET post: script before </body>",
          body.rfind(b"<script>") < body.rfind(b"</body>") and body.count(b"EventSource") == 1)
    if out:
        with open(os.path.join(out, "posts/hello/index.html"), "rb") as f:
            disk = f.read()
        check("the file on disk has no script", b"__sheaf" not in disk)
        check("served = file on disk + script", strip_script(body) == disk)

    # Folders without their slash, with and without a query.
    st, h, _ = raw(port, "/posts/hello")
    expect("folder without slash: 301", st, 301)
    expect("folder without slash: Location", h.get("location"), "/posts/hello/")
    st, h, _ = raw(port, "/posts/hello?x=1&y")
    expect("301 keeps the query", h.get("location"), "/posts/hello/?x=1&y")
    st, h, _ = raw(port, "//posts/hello")
    expect("301 never names another host", h.get("location"), "/posts/hello/")

    # The site's own 404 page, with status 404.
    st, h, body = raw(port, "/no/such/page/")
    expect("404: status", st, 404)
    expect("404: type", h.get("content-type"), "text/html; charset=utf-8")
    if out:
        with open(os.path.join(out, "404.html"), "rb") as f:
            nf = f.read()
        check("404: the site's 404.html", strip_script(body) == nf and len(nf) > 0)
    check("404: script injected", b"/__sheaf/events" in body)
    st, _, _ = raw(port, "/site.css/")
    expect("a file with a slash: 404", st, 404)

    # MIME types.
    types = {
        "a.svg": "image/svg+xml", "a.png": "image/png", "a.jpg": "image/jpeg",
        "a.gif": "image/gif", "a.webp": "image/webp", "a.ico": "image/x-icon",
        "a.woff": "font/woff", "a.woff2": "font/woff2",
        "a.xml": "application/xml; charset=utf-8", "a.json": "application/json",
        "a.txt": "text/plain; charset=utf-8", "a.js": "text/javascript; charset=utf-8",
        "a.bin": "application/octet-stream", "A.PNG": "image/png",
    }
    for name, want in types.items():
        st, h, body = raw(port, "/media/" + name)
        expect(f"MIME {name}: status", st, 200)
        expect(f"MIME {name}", h.get("content-type"), want)
    st, h, body = raw(port, "/site.css")
    expect("css: type", h.get("content-type"), "text/css; charset=utf-8")
    expect("css: bytes as built, nothing injected", body, b"body { color: rgb(1, 2, 3); }\n")
    st, h, _ = raw(port, "/media/a%2Etxt")
    expect("%-encoded name decoded once", st, 200)

    # HEAD: the same headers, no body.
    gst, gh, gbody = raw(port, "/posts/hello/")
    st, h, body = raw(port, "/posts/hello/", "HEAD")
    expect("HEAD: status", st, 200)
    expect("HEAD: no body", body, b"")
    expect("HEAD: Content-Length as GET", h.get("content-length"), str(len(gbody)))
    expect("HEAD: same ETag", h.get("etag"), gh.get("etag"))
    st, h, body = raw(port, "/site.css", "HEAD")
    expect("HEAD css: no body", (st, body), (200, b""))
    st, h, _ = raw(port, "/", "POST")
    expect("POST: 405", st, 405)
    expect("POST: Allow", h.get("allow"), "GET, HEAD")

    # ETag and If-None-Match.
    for path in ("/site.css", "/posts/hello/"):
        st, h, _ = raw(port, path)
        etag = h.get("etag")
        st, h2, body = raw(port, path, headers={"If-None-Match": etag})
        expect(f"{path}: If-None-Match → 304", st, 304)
        expect(f"{path}: 304 has no body", body, b"")
        expect(f"{path}: 304 repeats the ETag", h2.get("etag"), etag)
        st, _, _ = raw(port, path, headers={"If-None-Match": f'"other", W/{etag}'})
        expect(f"{path}: weak match in a list → 304", st, 304)
        st, _, _ = raw(port, path, headers={"If-None-Match": '"other"'})
        expect(f"{path}: other ETag → 200", st, 200)
    st, h, _ = raw(port, "/media/a.txt")
    st2, h2, _ = raw(port, "/media/a.json")
    check("different files, different ETags", h.get("etag") != h2.get("etag"))

    # Traversal: a secret beside the temp folders must never come out.
    secret = os.path.join(tmp, "secret.txt")
    with open(secret, "w") as f:
        f.write("TOP SECRET\n")
    attempts = [
        "/../../../secret.txt", "/posts/../../../../secret.txt",
        "/%2e%2e/%2e%2e/%2e%2e/secret.txt", "/%2E%2E/%2E%2E/%2E%2E/secret.txt",
        "/..%2f..%2f..%2fsecret.txt", "/%2f..%2f..%2fsecret.txt", "/posts%2fhello/",
        "/%2e%2e%2f%2e%2e%2f%2e%2e%2fsecret.txt", "/index.html%00.png", "/%00",
        "/..\\..\\..\\secret.txt", "/%5c..%5c..%5csecret.txt", "/%252e%252e/secret.txt",
        "/%zz", "/%2", "/.%2e/.%2e/.%2e/secret.txt",
    ]
    for path in attempts:
        st, _, body = raw(port, path)
        check(f"refused: {path}", st in (400, 403, 404) and b"TOP SECRET" not in body,
              f"status {st}")
    for path in ["/../../../secret.txt", "/%2e%2e/%2e%2e/%2e%2e/secret.txt", "/posts%2fhello/",
                 "/index.html%00.png", "/..\\secret.txt"]:
        st, _, _ = raw(port, path)
        expect(f"refused with 403: {path}", st, 403)
    if out:
        os.symlink(secret, os.path.join(out, "leak.txt"))
        os.symlink(tmp, os.path.join(out, "leakdir"))
        os.symlink("../../../../secret.txt", os.path.join(out, "posts", "rel-leak.txt"))
        for path in ("/leak.txt", "/leakdir/secret.txt", "/leakdir/", "/posts/rel-leak.txt"):
            st, _, body = raw(port, path)
            expect(f"symlink out refused: {path}", (st, b"TOP SECRET" in body), (403, False))
        os.symlink("hello/index.html", os.path.join(out, "posts", "inside.html"))
        st, _, body = raw(port, "/posts/inside.html")
        check("a symlink inside the output is served", st == 200 and b"Original words" in body)
        for p in ("leak.txt", "leakdir", "posts/rel-leak.txt", "posts/inside.html"):
            os.unlink(os.path.join(out, p))


def host_checks(port):
    """DNS rebinding: only names that mean this server are answered."""
    for host in ("localhost", f"localhost:{port}", f"127.0.0.1:{port}", "127.0.0.1",
                 f"LOCALHOST:{port}", f"[::1]:{port}", f"dev.localhost:{port}", None):
        st, _, body = raw(port, "/posts/hello/", headers={"Host": host})
        check(f"Host {host!r}: answered", st == 200 and b"Original words" in body, f"status {st}")
    for host in (f"evil.example:{port}", "evil.example", f"localhost.evil.example:{port}",
                 f"127.0.0.1.nip.io:{port}", "", "bad host", f"localhost:{port}/x"):
        for path in ("/posts/hello/", "/__sheaf/status", "/__sheaf/events", "/no/such/"):
            try:
                st, h, body = raw(port, path, headers={"Host": host}, timeout=3)
            except OSError as e:  # an event stream that was let through
                st, body = repr(e), b""
            check(f"Host {host!r} {path}: refused with 403 (or 400 from the parser)",
                  st in (400, 403) and b"Original words" not in body and b"errors" not in body,
                  f"status {st}")
    st, h, body = raw(port, "/", headers={"Host": f"evil.example:{port}"})
    expect("Host refused: status", st, 403)
    expect("Host refused: type", h.get("content-type"), "text/plain; charset=utf-8")
    check("Host refused: the body says why and what to do",
          b"DNS rebinding" in body and b"--bind" in body, body)


def reload_checks(sheaf, site, port, srv, env):
    post = os.path.join(site, "content/posts/2024-01-02-hello.md")
    ev = Events(port)
    time.sleep(0.3)
    check("events: content type", "text/event-stream" in ev.headers, ev.headers)
    n0 = len(srv.lines)

    # An edit: one rebuild, then "reload", then the new text.
    write(post, POST.replace("Original words", "Edited words"))
    e = ev.wait()
    expect("edit: event", e and e[0], "reload")
    st, h, body = raw(port, "/posts/hello/")
    check("edit: the served page has the new text", b"Edited words" in body)
    check("edit: one rebuild line with its time",
          srv.wait_line(r"^Rebuilt in \d+ ms: content/posts/2024-01-02-hello\.md$", 5, n0)
          is not None, "\n".join(srv.lines[n0:]))
    check("edit: nothing says it failed",
          not [x for x in srv.lines[n0:] if "failed" in x], "\n".join(srv.lines[n0:]))
    # The search index, written after the reload (it reads every page),
    # follows the edit.
    deadline, index = time.time() + 10, b""
    while time.time() < deadline:
        st, _, index = raw(port, "/search/seg/0.json")
        if st == 200 and b"edited" in index:
            break
        time.sleep(0.05)
    check("edit: the search index follows", b"edited" in index and b"original" not in index,
          index[:200])

    # A page from before that rebuild catches up at once on connecting.
    stale = Events(port, "?v=0-0")
    e = stale.wait(5)
    expect("stale page: gets reload at once", e and e[0], "reload")
    stale.close()

    # Editor droppings rebuild nothing.
    n1 = len(srv.lines)
    for name in (".hello.md.swp", "hello.md~", "4913", ".#hello.md", "#hello.md#", ".hidden.md",
                 "x.swx", "x.swpx"):
        with open(os.path.join(site, "content/posts", name), "w") as f:
            f.write("junk")
    e = ev.wait(1.0)
    expect("editor droppings: no event", e, None)
    expect("editor droppings: no rebuild", srv.lines[n1:], [])
    for name in (".hello.md.swp", "hello.md~", "4913", ".#hello.md", "#hello.md#", ".hidden.md",
                 "x.swx", "x.swpx"):
        os.unlink(os.path.join(site, "content/posts", name))
    ev.wait(0.5)

    # A stylesheet alone: "css" with its path.
    write(os.path.join(site, "static/site.css"), "body { color: rgb(4, 5, 6); }\n")
    e = ev.wait()
    expect("css edit: event", e, ("css", "static/site.css"))
    check("css edit: the server is still up", srv.proc.poll() is None,
          "\n".join(srv.lines[-5:] + srv.err[-20:]))
    st, _, body = raw(port, "/site.css")
    expect("css edit: served", body, b"body { color: rgb(4, 5, 6); }\n")

    # A template: reload.
    write(os.path.join(site, "templates/base.html"), BASE.replace("<main>", "<main class=\"t2\">"))
    e = ev.wait()
    expect("template edit: event", e and e[0], "reload")
    st, _, body = raw(port, "/posts/hello/")
    check("template edit: served", b'<main class="t2">' in body)

    # A new folder with a post in it.
    write(os.path.join(site, "content/notes/new-note.md"), "---\ntitle: New note\n---\nA new note.\n")
    e = ev.wait()
    expect("new folder: event", e and e[0], "reload")
    st, _, body = raw(port, "/notes/new-note/")
    check("new folder: page served", st == 200 and b"A new note." in body, f"status {st}")

    # A notebook (issue 30), saved as Jupyter saves: a backup copy
    # .~name.ipynb beside it, the file written in place, the backup removed.
    nb = os.path.join(site, "content/posts/2024-01-03-lab.ipynb")
    def save_notebook(out, md="# Lab"):
        text = json.dumps({"cells": [
            {"cell_type": "markdown", "metadata": {}, "source": md},
            {"cell_type": "code", "execution_count": 1, "metadata": {}, "source": "print(1)",
             "outputs": [{"output_type": "stream", "name": "stdout", "text": out}]}],
            "metadata": {"title": "Lab"}, "nbformat": 4, "nbformat_minor": 5}, indent=1)
        backup = os.path.join(os.path.dirname(nb), ".~" + os.path.basename(nb))
        if os.path.exists(nb):
            shutil.copy(nb, backup)
        write(nb, text)
        if os.path.exists(backup):
            os.remove(backup)
    for out in ("first output", "second output"):
        save_notebook(out)
        e = ev.wait()
        expect(f"notebook save ({out}): event", e and e[0], "reload")
        st, _, body = raw(port, "/posts/lab/")
        check(f"notebook save ({out}): served", st == 200 and out.encode() in body, f"status {st}")
    save_notebook("x", "[gone](nowhere.md)")
    e = ev.wait()
    expect("broken notebook: event", e and e[0], "error")
    check("broken notebook: the cell and its line",
          e is not None and "content/posts/2024-01-03-lab.ipynb: cell 1 (line 1:1): error: link to 'nowhere.md'" in e[1],
          repr(e))
    os.remove(nb)
    e = ev.wait()
    expect("notebook removed: event", e and e[0], "reload")

    # A broken edit: "error" with path:line:col diagnostics; the old page stays.
    broken = POST.replace("Original words", "Edited words").replace(
        "(2024-01-01-older.md)", "(2024-01-01-older.md#no-such-heading)")
    n2 = len(srv.lines)
    write(post, broken)
    e = ev.wait()
    expect("broken edit: event", e and e[0], "error")
    lines = e[1].split("\n") if e else []
    check("broken edit: diagnostics as path:line:col: error: …",
          any(re.match(r"^content/posts/2024-01-02-hello\.md:\d+:\d+: error: ", x) for x in lines),
          repr(lines))
    check("broken edit: the rebuild line says it failed",
          srv.wait_line(r"^Rebuild failed in \d+ ms \(\d+ errors?\)", 5, n2) is not None,
          "\n".join(srv.lines[n2:]))
    st, _, body = raw(port, "/posts/hello/")
    check("broken edit: last good page still served", st == 200 and b"Edited words" in body)
    m = re.search(rb"var S=(\{.*?\});", body)
    state = json.loads(m.group(1)) if m else {}
    expect("broken edit: the page carries the errors for the overlay", state.get("errors"), lines)
    expect("broken edit: state not ok", state.get("ok"), False)
    st, h, sbody = raw(port, "/__sheaf/status")
    expect("status: type", h.get("content-type"), "application/json")
    status = json.loads(sbody) if st == 200 else {}
    expect("status: errors", (status.get("ok"), status.get("errors")), (False, lines))
    late = Events(port, "?v=0-0")
    e2 = late.wait(5)
    expect("a page connecting while broken gets the error", e2, e)
    late.close()

    # A stylesheet edit while broken still reloads (to clear the overlay)
    # only once the build is good again; the fix itself reloads.
    write(post, POST.replace("Original words", "Fixed words"))
    e = ev.wait()
    expect("fix: event", e and e[0], "reload")
    st, _, body = raw(port, "/posts/hello/")
    check("fix: new text", b"Fixed words" in body)
    m = re.search(rb"var S=(\{.*?\});", body)
    state = json.loads(m.group(1)) if m else {}
    expect("fix: no errors on the page", (state.get("ok"), state.get("errors")), (True, []))
    st, _, sbody = raw(port, "/__sheaf/status")
    expect("fix: status ok", json.loads(sbody).get("ok"), True)

    # site.yaml is watched too.
    write(os.path.join(site, "site.yaml"), "title: Renamed fixture\nbase_url: https://example.org/\n")
    e = ev.wait()
    expect("site.yaml edit: event", e and e[0], "reload")

    # So is a .bib beside it: editing an entry rebuilds the pages citing it
    # and its paper page.
    bib = os.path.join(site, "refs.bib")
    entry = "@article{lian2017,\n  author = {Lian, Xiangru},\n  title = {%s},\n  year = 2017\n}\n"
    write(bib, entry % "First Title")
    write(os.path.join(site, "content/posts/2024-01-03-cites.md"),
          "---\ntitle: Cites\n---\nDecentralised SGD [@lian2017].\n")
    write(os.path.join(site, "site.yaml"),
          "title: Renamed fixture\nbase_url: https://example.org/\nbibliography: refs.bib\n")

    def served(path, text, timeout=30):
        deadline = time.time() + timeout
        while time.time() < deadline:
            st, _, body = raw(port, path)
            if st == 200 and text in body:
                return True
            time.sleep(0.05)
        return False

    check(".bib: the paper's page is made", served("/papers/lian2017/", b"First Title"))
    while ev.wait(0.5):
        pass  # the three writes' events
    n3 = len(srv.lines)
    write(bib, entry % "Second Title")
    e = ev.wait()
    expect(".bib edit: event", e and e[0], "reload")
    check(".bib edit: one rebuild line naming it",
          srv.wait_line(r"^Rebuilt in \d+ ms: refs\.bib$", 5, n3) is not None,
          "\n".join(srv.lines[n3:]))
    check(".bib edit: the paper's page follows", served("/papers/lian2017/", b"Second Title", 10))
    check(".bib edit: the citing post's bibliography follows",
          served("/posts/cites/", b"Second Title", 10))

    # And a CSL-JSON bibliography beside it (a Zotero export).
    js = os.path.join(site, "refs.json")
    item = '[{"id": "zot2020", "type": "book", "title": "%s", "issued": {"date-parts": [[2020]]}}]\n'
    write(js, item % "Zotero First")
    write(os.path.join(site, "content/posts/2024-01-04-zot.md"), "---\ntitle: Zot\n---\nSee [@zot2020].\n")
    write(os.path.join(site, "site.yaml"),
          "title: Renamed fixture\nbase_url: https://example.org/\nbibliography: [refs.bib, refs.json]\n")
    check(".json: the paper's page is made", served("/papers/zot2020/", b"Zotero First"))
    while ev.wait(0.5):
        pass
    n4 = len(srv.lines)
    write(js, item % "Zotero Second")
    e = ev.wait()
    expect(".json edit: event", e and e[0], "reload")
    check(".json edit: one rebuild line naming it",
          srv.wait_line(r"^Rebuilt in \d+ ms: refs\.json$", 5, n4) is not None,
          "\n".join(srv.lines[n4:]))
    check(".json edit: the citing post's bibliography follows", served("/posts/zot/", b"Zotero Second", 10))
    ev.close()


def other_servers(sheaf, site, env, tmpdir):
    # A port in use: a clear error naming it and --port, exit 1.
    blocker = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    blocker.bind(("127.0.0.1", 0))
    blocker.listen(1)
    port = blocker.getsockname()[1]
    p = subprocess.run([sheaf, "serve", "-s", site, "--port", str(port)], capture_output=True,
                       text=True, timeout=30, env=env)
    blocker.close()
    expect("port in use: status", p.returncode, 1)
    check("port in use: message names the port and --port",
          str(port) in p.stderr and "--port" in p.stderr and "in use" in p.stderr, p.stderr)
    expect("port in use: temp folder removed", glob.glob(os.path.join(tmpdir, "sheaf-serve-*")), [])
    p = subprocess.run([sheaf, "serve", "--port", "http"], capture_output=True, text=True,
                       timeout=30, env=env)
    expect("bad --port: usage status", p.returncode, 2)

    # IPv6 loopback, when the machine has it; stopped with SIGTERM.
    try:
        free_port(socket.AF_INET6, "::1")
    except OSError:
        print("note: no IPv6 loopback here; the ::1 check is left out")
        return
    srv, port, m = start(sheaf, site, env, ("--bind", "::1"), "::1", socket.AF_INET6)
    if not m:
        failures.append("IPv6 server did not start:\n" + "\n".join(srv.lines + srv.err))
        srv.stop()
        return
    expect("IPv6: address", m.group(2), f"http://[::1]:{port}/")
    st, _, body = raw(port, "/posts/hello/", host="::1")
    check("IPv6: page served", st == 200 and b"Fixed words" in body, f"status {st}")
    expect("IPv6: base_url is the server's own",
           re.findall(rb'rel="canonical" href="([^"]*)"', body),
           [f"http://[::1]:{port}/posts/hello/".encode()])
    expect("SIGTERM: exit status", srv.stop(signal.SIGTERM), 0)


def bind_checks(sheaf, site, env):
    """--bind NAME answers that name too; --bind 0.0.0.0 answers any."""
    srv, port, m = start(sheaf, site, env, ("--bind", "localhost"))
    if not m:
        failures.append("--bind localhost did not start:\n" + "\n".join(srv.lines + srv.err))
        srv.stop()
        return
    addr = re.match(r"http://\[?([^\]/]+?)\]?:\d+/$", m.group(2))
    addr = addr.group(1) if addr else "127.0.0.1"  # localhost may be ::1 here
    st, _, _ = raw(port, "/", headers={"Host": f"localhost:{port}"}, host=addr)
    expect("--bind localhost: localhost answered", st, 200)
    st, _, _ = raw(port, "/", headers={"Host": f"evil.example:{port}"}, host=addr)
    expect("--bind localhost: another name refused", st, 403)
    srv.stop()
    srv, port, m = start(sheaf, site, env, ("--bind", "0.0.0.0"))
    if not m:
        failures.append("--bind 0.0.0.0 did not start:\n" + "\n".join(srv.lines + srv.err))
        srv.stop()
        return
    st, _, _ = raw(port, "/", headers={"Host": f"mybox.example:{port}"})
    expect("--bind 0.0.0.0: any name answered", st, 200)
    st, _, _ = raw(port, "/", headers={"Host": "bad host"})
    check("--bind 0.0.0.0: a malformed Host still refused", st in (400, 403), f"status {st}")
    srv.stop()


if __name__ == "__main__":
    code = main()
    for f in failures:
        print("FAIL " + f)
    print(f"{passed} passed, {len(failures)} failed")
    sys.exit(code)
